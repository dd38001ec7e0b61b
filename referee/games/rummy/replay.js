// Contract rummy on the replay page (rules §3): the round and its contract, the stock and the
// discard pile, the melds each seat has laid down; figures are points, lower is better.
// Registers with the generic page's ReplayState (dashboard/static/replay_state.js); the event
// vocabulary is in docs/replay.md.
ReplayState.define("rummy", function (RS) {
  "use strict";
  //: rules §3.2: a rummy game has seven rounds.
  const ROUNDS = 7;

  //: rules §3: two 52-card packs plus the jokers (4 for 3-4 seats, 6 for 5-6 unless set).
  function deckSize(record) {
    const p = record.params || {};
    const jokers = p.jokers === null || p.jokers === undefined ? (record.num_seats <= 4 ? 4 : 6) : p.jokers;
    return 104 + jokers;
  }
  function showPile(t) {
    t.center = t.pile.slice(-1);
    t.centerLabel = t.pile.length
      ? `discard pile (${t.pile.length}): top card ${t.pileLive ? "live" : "dead"} · stock ${t.stock}`
      : `discard pile empty · stock ${t.stock}`;
  }
  // A meld drawn as a group of cards; `prefix` goes before its cards.
  function meldHtml(m, h, title, prefix) {
    return `<span class="group meld" title="${title}">${prefix}${m.cards.map(h.card).join("")}</span>`;
  }
  return {
    unit: "points",
    lowerIsBetter: true,
    //: The replay opens once the upcard is turned.
    opening: { after: "upcard", skip: null },
    start(t, record) {
      t.melds = {};         // seat -> the melds it laid down this round: [{id, kind, cards}]
      t.pile = [];          // the discard pile, bottom first
      t.pileLive = false;   // whether its top card may still be drawn or called (rules §3.5)
      t.stock = null;       // cards in the stock (null before the first deal)
      t.deckSize = deckSize(record);
    },
    events: {
      round(t, d) {  // rules §3.2-3.3: a new deal; the round's contract
        RS.clearHands(t); t.melds = {}; t.pile = []; t.pileLive = false;
        for (let s = 0; s < t.n; s++) t.hands[s].hidden = d.hand_size;
        t.stock = t.deckSize - t.n * d.hand_size;  // the upcard comes off next
        t.dealer = d.dealer;
        t.stage = `round ${d.round} of ${ROUNDS} · contract: ${[d.sets ? RS.plural(d.sets, "set") : "", d.runs ? RS.plural(d.runs, "run") : ""].filter(Boolean).join(", ")} · ${d.hand_size} cards dealt`;
        showPile(t);
      },
      upcard(t, d) {
        t.stock -= 1; t.pile.push(d.card); t.pileLive = true; showPile(t);
      },
      draw(t, d) {
        if (d.source === "stock") { t.stock -= 1; t.hands[d.seat].hidden += 1; }
        else { t.pile.pop(); t.hands[d.seat].cards.push(d.card); t.pileLive = false; }
        showPile(t);
      },
      drawn_card(t, d) {  // the card just drawn face down, seen by its owner
        const h = t.hands[d.seat];
        if (h.hidden > 0) h.hidden -= 1;
        h.cards.push(d.card);
      },
      take_it(t, d) {  // rules §3.5: the caller gets the live card (and a penalty card)
        t.pile.pop(); t.hands[d.seat].cards.push(d.card); t.pileLive = false; showPile(t);
      },
      penalty_card(t, d) {
        t.stock -= 1; t.hands[d.seat].hidden += 1; showPile(t);
      },
      rebuild(t, d) {  // rules §3.9: the pile but its top card becomes the stock
        t.pile = t.pile.slice(-1); t.stock = d.stock; showPile(t);
      },
      discard(t, d) {
        RS.take(t.hands[d.seat], [d.card]); t.pile.push(d.card); t.pileLive = true; showPile(t);
      },
      go_down(t, d) {
        for (const m of d.melds || []) {
          RS.take(t.hands[d.seat], m.cards);
          (t.melds[d.seat] = t.melds[d.seat] || []).push({ id: m.id, kind: m.kind, cards: m.cards.slice() });
        }
      },
      lay_off(t, d) {
        RS.take(t.hands[d.seat], d.cards || []);
        for (const ms of Object.values(t.melds)) for (const m of ms) {
          if (m.id !== d.meld_id) continue;
          // rules §3.7: on a run, cards go outward from the named end
          if (d.end === "low" && m.kind === "run") m.cards = (d.cards || []).slice().reverse().concat(m.cards);
          else m.cards.push(...(d.cards || []));
        }
      },
      round_end(t, d) {  // rules §3.9: the hands are shown for the count
        if (Array.isArray(d.hands)) d.hands.forEach((h, s) => { t.hands[s] = { cards: h.slice(), hidden: 0 }; });
        if (Array.isArray(d.totals)) t.scores = d.totals.slice();
        t.stage = `round ${d.round} of ${ROUNDS} over: ${String(d.reason).replace(/_/g, " ")}`;
      },
      game_over(t, d) {  // the last count stays on the table
        if (Array.isArray(d.totals)) t.scores = d.totals.slice();
        t.stage = "game over";
      },
    },
    keys: { seat: ["given_by", "out"], seatList: ["callers"], perSeat: ["totals"], omitWhenNull: ["out"] },
    format: {
      melds: (v, h) => v.map((m) => meldHtml(m, h, `meld ${h.esc(m.id)}`, `${h.esc(m.kind)} `)).join(" "),
    },
    seatExtra(t, i, h) {
      const melds = (t.melds[i] || []).map((m) => meldHtml(m, h, `meld ${m.id}: ${h.esc(m.kind)}`, "")).join("");
      return melds ? `<div class="groups melds">${melds}</div>` : "";
    },
  };
});
