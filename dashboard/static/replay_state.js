// The replay's table state: what is on the table after the first N events of a game record,
// as everyone (after the game) or as one seat knew it. Pure functions, no DOM: the replay page
// (replay.js) draws what these return, and tests/dashboard/test_replay_state.py runs this same
// file under node over many recorded games and checks it against the engines.
//
// Every figure is derived from the events alone (never from the last view a seat was sent):
// tokens start at the game's `starting_tokens` and move with every ante, kitty, bet, stake,
// join, win and return; rummy points are the round totals. Cards are known when an event the
// viewer saw names them; other cards a seat holds are counted (drawn face down).
(function (root, factory) {
  const api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.ReplayState = api;
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  //: What the seat figures count, per game: tokens (Slippery Sam, Svara) or points (rummy, lower is better).
  const UNITS = { "slippery-sam": "tokens", svara: "tokens", rummy: "points" };
  //: rules §3.2: a rummy game has seven rounds.
  const ROUNDS = 7;

  function seatsOf(record) {
    return record.num_seats;
  }
  //: rules §3: two 52-card packs plus the jokers (4 for 3-4 seats, 6 for 5-6 unless set).
  function rummyDeckSize(record) {
    const p = record.params || {};
    const jokers = p.jokers === null || p.jokers === undefined ? (seatsOf(record) <= 4 ? 4 : 6) : p.jokers;
    return 104 + jokers;
  }

  function visible(e, seat) {
    return seat === null || !e.visible_to || e.visible_to.includes(seat);
  }
  function emptyHand() {
    return { cards: [], hidden: 0 };
  }
  // Take `cards` out of a hand: a known copy if there is one, else one of its face-down cards.
  function take(hand, cards) {
    for (const c of cards) {
      const i = hand.cards.indexOf(c);
      if (i >= 0) hand.cards.splice(i, 1);
      else if (hand.hidden > 0) hand.hidden -= 1;
    }
  }
  function clearHands(t) {
    for (let s = 0; s < t.n; s++) t.hands[s] = emptyHand();
  }

  // A fresh table: every seat's starting figure, no cards.
  function start(record, seat) {
    const n = seatsOf(record);
    const p = record.params || {};
    const game = record.game;
    const t = {
      game, n, seat, unit: UNITS[game] || "points",
      hands: [], melds: {}, folded: {}, out: {}, shown: {},
      looked: null,         // Svara: the seats that have looked at their cards this deal
      scores: new Array(n).fill(game === "rummy" ? 0 : p.starting_tokens || 0),
      pot: null,            // {label: "kitty" | "bank", amount} while tokens are in the middle
      dealer: null,         // the seat dealing now (null between turns)
      center: [], centerLabel: "", bottom: null,
      pile: [], pileLive: false, stock: null,
      stage: "",            // where the game stands: round and contract, hand, deal
      bets: {},             // Slippery Sam: the bet each seat made this deal
      deckSize: game === "rummy" ? rummyDeckSize(record) : null,  // rummy: the cards in play
    };
    clearHands(t);
    return t;
  }

  function showPile(t) {
    t.center = t.pile.slice(-1);
    t.centerLabel = t.pile.length
      ? `discard pile (${t.pile.length}): top card ${t.pileLive ? "live" : "dead"} · stock ${t.stock}`
      : `discard pile empty · stock ${t.stock}`;
  }
  function plural(k, word) {
    return `${k} ${word}${k === 1 ? "" : "s"}`;
  }

  // Events Slippery Sam and Svara share: a seat out (rules §1.1, 2.4), the game over with
  // every seat's tokens (rules §1.10, 2.11): nobody holds cards then.
  function tokenGameEvent(t, e, d) {
    if (e.kind === "out") t.out[d.seat] = true;
    if (e.kind !== "game_over") return;
    if (Array.isArray(d.tokens)) t.scores = d.tokens.slice();
    t.pot = null; t.dealer = null; t.bottom = null; clearHands(t);
    t.center = []; t.centerLabel = ""; t.folded = {};
    t.stage = `game over: ${d.reason === "hands" ? "every hand played" : d.reason}`;
  }

  // ------------------------------------------------------------- Slippery Sam (rules §1)
  function slipperySam(t, e, d) {
    switch (e.kind) {
      case "first_dealer":
        t.center = (d.cards || []).slice(); t.centerLabel = "cards dealt face up for the first dealer";
        t.dealer = d.dealer;
        break;
      case "kitty":  // rules §1.3: the dealer puts up the kitty from his tokens
        t.dealer = d.dealer; t.scores[d.dealer] -= d.amount; t.pot = { label: "kitty", amount: d.amount };
        t.stage = `a new turn: kitty of ${d.amount} tokens`;
        break;
      case "deal":   // rules §1.4: three cards to each player, none to the dealer
        t.dealer = d.dealer; clearHands(t); t.shown = {}; t.bets = {};
        for (const s of d.players || []) t.hands[s].hidden = 3;
        t.center = []; t.centerLabel = "no card turned yet";
        t.stage = `deal ${d.deal} of 3 by seat ${d.dealer}`;
        break;
      case "hand":
        if (Array.isArray(d.cards)) t.hands[d.seat] = { cards: d.cards.slice(), hidden: 0 };
        break;
      case "bet":
        t.bets[d.seat] = d.amount;
        break;
      case "shoot":  // rules §1.6: the three cards shown to all
        t.hands[d.seat] = { cards: d.cards.slice(), hidden: 0 }; t.shown[d.seat] = true;
        break;
      case "turn": { // rules §1.5: the bet is won from, or lost to, the kitty
        const bet = t.bets[d.seat] || 0;
        t.scores[d.seat] += d.won ? bet : -bet;
        t.pot = { label: "kitty", amount: d.kitty };
        t.center.push(d.card); t.centerLabel = `turned this deal (last: ${d.won ? "bet won" : "bet lost"})`;
        break;
      }
      case "turn_end":  // rules §1.9: the kitty goes back to the dealer; nobody holds cards
        t.scores[d.dealer] += d.returned; t.pot = null; t.dealer = null;
        clearHands(t);
        t.shown = {}; t.bets = {};
        t.center = []; t.centerLabel = `turn over: ${d.returned} tokens back to the dealer`;
        t.stage = "";
        break;
      default:
        tokenGameEvent(t, e, d);
    }
  }

  // ------------------------------------------------------------- Svara (rules §2)
  function svara(t, e, d, record) {
    const p = record.params || {};
    const pay = (s, amount) => { t.scores[s] -= amount; };
    const cardsIn = () => { clearHands(t); t.shown = {}; t.bottom = null; t.center = []; t.centerLabel = ""; };
    switch (e.kind) {
      case "first_dealer":
        t.dealer = d.seat;
        break;
      case "hand":  // rules §2.4: a new hand; the cards of the last one are gone
        cardsIn(); t.folded = {};
        t.dealer = d.dealer;
        t.stage = `hand ${d.hand + 1} of ${p.hands}`;
        break;
      case "ante":
        for (const s of d.seats || []) pay(s, d.amount);
        t.pot = { label: "bank", amount: d.bank };
        break;
      case "bottom_card":
        t.dealer = d.dealer; t.bottom = d.card;
        break;
      case "bottom_penalty":  // rules §2.4: an ace or the szacha at the bottom: the dealer antes again
        pay(d.seat, d.amount); t.pot = { label: "bank", amount: (t.pot ? t.pot.amount : 0) + d.amount };
        t.dealer = d.next_dealer;
        break;
      case "deal":
        if (Array.isArray(d.cards)) t.hands[d.seat] = { cards: d.cards.slice(), hidden: 0 };
        break;
      case "dealt":
        for (const s of d.seats || []) if (!t.hands[s].cards.length) t.hands[s] = { cards: [], hidden: 3 };
        t.dealer = d.dealer; t.looked = {};
        break;
      case "look":  // rules §2.5: a player's view holds his cards only once he has looked
        t.looked[d.seat] = true;
        break;
      case "fold":
        t.folded[d.seat] = true;
        break;
      case "stake": case "see": case "join":
        pay(d.seat, d.amount); t.pot = { label: "bank", amount: d.bank };
        if (e.kind === "join") t.folded[d.seat] = false;
        break;
      case "show":
        t.hands[d.seat] = { cards: d.cards.slice(), hidden: 0 }; t.shown[d.seat] = d.points;
        break;
      case "svara": {  // rules §2.8: the cards go in; the tied seats (and joiners) play the bank again
        clearHands(t); t.shown = {}; t.bottom = null;
        for (let s = 0; s < t.n; s++) t.folded[s] = !(d.seats || []).includes(s);
        t.pot = { label: "bank", amount: d.bank };
        t.stage = `${t.stage.split(" · ")[0]} · svara ${d.number}`;
        break;
      }
      case "svara_dealer":
        t.dealer = d.seat;
        break;
      case "out":  // rules §2.4: logged as the next hand starts, when the last hand's cards are in
        cardsIn();
        tokenGameEvent(t, e, d);
        break;
      case "win":
        t.scores[d.seat] += d.amount; t.pot = null;
        break;
      case "split":
        (d.seats || []).forEach((s, i) => { t.scores[s] += d.amounts[i]; });
        t.pot = null;
        break;
      default:
        tokenGameEvent(t, e, d);
    }
  }

  // ------------------------------------------------------------- rummy (rules §3)
  function rummy(t, e, d) {
    const hand = (s) => t.hands[s];
    switch (e.kind) {
      case "round":  // rules §3.2-3.3: a new deal; the round's contract
        clearHands(t); t.melds = {}; t.pile = []; t.pileLive = false;
        for (let s = 0; s < t.n; s++) t.hands[s].hidden = d.hand_size;
        t.stock = t.deckSize - t.n * d.hand_size;  // the upcard comes off next
        t.dealer = d.dealer;
        t.stage = `round ${d.round} of ${ROUNDS} · contract: ${[d.sets ? plural(d.sets, "set") : "", d.runs ? plural(d.runs, "run") : ""].filter(Boolean).join(", ")} · ${d.hand_size} cards dealt`;
        showPile(t);
        break;
      case "hand":
        if (Array.isArray(d.cards)) t.hands[d.seat] = { cards: d.cards.slice(), hidden: 0 };
        break;
      case "upcard":
        t.stock -= 1; t.pile.push(d.card); t.pileLive = true; showPile(t);
        break;
      case "draw":
        if (d.source === "stock") { t.stock -= 1; hand(d.seat).hidden += 1; }
        else { t.pile.pop(); hand(d.seat).cards.push(d.card); t.pileLive = false; }
        showPile(t);
        break;
      case "drawn_card": {  // the card just drawn face down, seen by its owner
        const h = hand(d.seat);
        if (h.hidden > 0) h.hidden -= 1;
        h.cards.push(d.card);
        break;
      }
      case "take_it":  // rules §3.5: the caller gets the live card (and a penalty card)
        t.pile.pop(); hand(d.seat).cards.push(d.card); t.pileLive = false; showPile(t);
        break;
      case "penalty_card":
        t.stock -= 1; hand(d.seat).hidden += 1; showPile(t);
        break;
      case "rebuild":  // rules §3.9: the pile but its top card becomes the stock
        t.pile = t.pile.slice(-1); t.stock = d.stock; showPile(t);
        break;
      case "discard":
        take(hand(d.seat), [d.card]); t.pile.push(d.card); t.pileLive = true; showPile(t);
        break;
      case "go_down":
        for (const m of d.melds || []) {
          take(hand(d.seat), m.cards);
          (t.melds[d.seat] = t.melds[d.seat] || []).push({ id: m.id, kind: m.kind, cards: m.cards.slice() });
        }
        break;
      case "lay_off": {
        take(hand(d.seat), d.cards || []);
        for (const ms of Object.values(t.melds)) for (const m of ms) {
          if (m.id !== d.meld_id) continue;
          // rules §3.7: on a run, cards go outward from the named end
          if (d.end === "low" && m.kind === "run") m.cards = (d.cards || []).slice().reverse().concat(m.cards);
          else m.cards.push(...(d.cards || []));
        }
        break;
      }
      case "round_end":  // rules §3.9: the hands are shown for the count
        if (Array.isArray(d.hands)) d.hands.forEach((h, s) => { t.hands[s] = { cards: h.slice(), hidden: 0 }; });
        if (Array.isArray(d.totals)) t.scores = d.totals.slice();
        t.stage = `round ${d.round} of ${ROUNDS} over: ${String(d.reason).replace(/_/g, " ")}`;
        break;
      case "game_over":
        if (Array.isArray(d.totals)) t.scores = d.totals.slice();
        t.stage = "game over";
        break;
    }
  }

  const REDUCERS = { "slippery-sam": slipperySam, svara, rummy };

  // Apply one event to the table `t` (as built by `start`); events the viewer did not see are skipped.
  function apply(t, e, record) {
    if (!visible(e, t.seat)) return t;
    const reducer = REDUCERS[t.game];
    if (reducer) reducer(t, e, e.data || {}, record);
    return t;
  }

  // The table after the first `upto` events of `record`, as `seat` (null: everyone) knew it.
  function tableAt(record, upto, seat) {
    const t = start(record, seat);
    const events = record.events || [];
    for (let i = 0; i < upto && i < events.length; i++) apply(t, events[i], record);
    return t;
  }

  // Where a replay opens: just after the first deal (the first hands on the table).
  const FIRST_DEAL = { "slippery-sam": ["deal", "hand"], svara: ["dealt", null], rummy: ["upcard", null] };
  function openingPosition(record) {
    const events = record.events || [];
    const rule = FIRST_DEAL[record.game];
    if (!rule) return 0;
    const [kind, followers] = rule;
    let i = events.findIndex((e) => e.kind === kind);
    if (i < 0) return 0;
    i += 1;
    while (followers && i < events.length && events[i].kind === followers) i += 1;
    return i;
  }

  return { UNITS, start, apply, tableAt, openingPosition, visible };
});
