// The replay's table state: what is on the table after the first N events of a game record,
// as everyone (after the game) or as one seat knew it. Pure functions, no DOM: the replay page
// (replay.js) draws what these return, and tests/dashboard/test_replay_state.py runs this same
// file under node over many recorded games and checks it against the engines.
//
// This file knows no game. It applies the common event vocabulary (docs/replay.md): a seat's
// cards named (`hand`), shown to all (`show`), a fold, a seat out, a pot won or split, the game
// over. Each game's own module (`referee/games/<game>/replay.js`, served to the page as
// `/static/games/<game>.js`) registers with `define` and handles its other events, adding
// the fields it needs to the table.
//
// Every figure is derived from the events alone (never from the last view a seat was sent):
// a seat's figure starts at the game's `starting_tokens` (0 without it) and moves with the
// events. Cards are known when an event the viewer saw names them; other cards a seat holds
// are counted (drawn face down).
(function (root, factory) {
  const api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.ReplayState = api;
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  //: game name -> its module, as given to `define`.
  const GAMES = {};

  // Register a game's module: `make(api)` returns {unit, lowerIsBetter, start, events,
  // opening, ...drawing hooks} (docs/replay.md); `api` is this module's exports.
  function define(game, make) {
    GAMES[game] = make(api);
  }
  // The module of `game`, or a module that handles only the common vocabulary.
  function gameOf(game) {
    return GAMES[game] || NO_MODULE;
  }
  const NO_MODULE = { unit: "points", lowerIsBetter: false, events: {} };

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
  // Every seat's cards go in: a new deal (counted in `t.deal`), or the game's end.
  function clearHands(t) {
    for (let s = 0; s < t.n; s++) t.hands[s] = emptyHand();
    t.deal += 1;
  }
  // Move `amount` tokens from seat `s` to the pot (which the caller labels and sets).
  function pay(t, s, amount) {
    t.scores[s] -= amount;
  }
  function plural(k, word) {
    return `${k} ${word}${k === 1 ? "" : "s"}`;
  }

  // A fresh table: every seat's starting figure, no cards; then the game's own fields.
  function start(record, seat) {
    const n = record.num_seats;
    const p = record.params || {};
    const game = gameOf(record.game);
    const t = {
      game: record.game, n, seat, unit: game.unit,
      hands: [], folded: {}, out: {}, shown: {},
      scores: new Array(n).fill(p.starting_tokens || 0),
      pot: null,            // {label, amount}: tokens in the middle, named by the game
      dealer: null,         // the seat dealing now (null between deals)
      center: [], centerLabel: "",  // cards in the middle, and what they are
      stage: "",            // where the game stands: round, hand, deal
      deal: 0,              // deals begun so far (each clearHands but the game's end): a view sent in an
                            // earlier deal is not shown beside this deal's cards
    };
    clearHands(t);
    if (game.start) game.start(t, record);
    return t;
  }

  // The common event vocabulary (docs/replay.md); a game's module may handle any of these
  // kinds itself, and may call these from its own handlers.
  const COMMON = {
    // The seat's cards, named to those who saw the event.
    hand(t, d) {
      if (Array.isArray(d.cards)) t.hands[d.seat] = { cards: d.cards.slice(), hidden: 0 };
    },
    // The seat's cards shown to all; `points`, if given, is what they count.
    show(t, d) {
      t.hands[d.seat] = { cards: d.cards.slice(), hidden: 0 };
      t.shown[d.seat] = typeof d.points === "number" ? d.points : true;
    },
    fold(t, d) {
      t.folded[d.seat] = true;
    },
    // The seat is out of the game.
    out(t, d) {
      t.out[d.seat] = true;
    },
    // The seat takes `amount` from the pot, which is then empty.
    win(t, d) {
      t.scores[d.seat] += d.amount; t.pot = null;
    },
    // The pot shared: seats[i] takes amounts[i].
    split(t, d) {
      (d.seats || []).forEach((s, i) => { t.scores[s] += d.amounts[i]; });
      t.pot = null;
    },
    // The final figures (`tokens` or `totals`); nobody holds cards any more.
    game_over(t, d) {
      const figures = Array.isArray(d.tokens) ? d.tokens : d.totals;
      if (Array.isArray(figures)) t.scores = figures.slice();
      const deal = t.deal;
      t.pot = null; t.dealer = null; clearHands(t); t.deal = deal;
      t.center = []; t.centerLabel = ""; t.folded = {};
      t.stage = d.reason === undefined ? "game over" : `game over: ${d.reason}`;
    },
  };

  // Apply one event to the table `t` (as built by `start`); events the viewer did not see are skipped.
  function apply(t, e, record) {
    if (!visible(e, t.seat)) return t;
    const own = gameOf(t.game).events[e.kind];
    const handler = own || COMMON[e.kind];
    if (handler) handler(t, e.data || {}, record, e);
    return t;
  }

  // The table after the first `upto` events of `record`, as `seat` (null: everyone) knew it.
  function tableAt(record, upto, seat) {
    const t = start(record, seat);
    const events = record.events || [];
    for (let i = 0; i < upto && i < events.length; i++) apply(t, events[i], record);
    return t;
  }

  // Where a replay opens: just after the game's first deal (its module's `opening`: the
  // event kind of the deal and the kind of the events that follow it, or null), else at 0.
  function openingPosition(record) {
    const events = record.events || [];
    const rule = gameOf(record.game).opening;
    if (!rule) return 0;
    let i = events.findIndex((e) => e.kind === rule.after);
    if (i < 0) return 0;
    i += 1;
    while (rule.skip && i < events.length && events[i].kind === rule.skip) i += 1;
    return i;
  }

  const api = { define, gameOf, COMMON, start, apply, tableAt, openingPosition, visible,
                emptyHand, take, clearHands, pay, plural };
  return api;
});
