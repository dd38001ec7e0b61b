// Runs the replay page's table state (dashboard/static/replay_state.js and each game's module,
// referee/games/<game>/replay.js) over recorded games and checks it against the engine's own
// state (the truth), as tests/dashboard/test_replay_state.py prepares it.
// Usage: node replay_state_check.js cases.json replay_state.js [game module.js ...]
// Reads one JSON file: [{record, truth: {index: {hands, scores, pot, pile, stock, melds}}, checks}];
// ``checks`` are the game's own demands (its Conformance.replay_checks): "cards-add-up" (cards, not
// tokens, are conserved: hands, melds, discard pile and stock; two packs and the jokers), "dealer-holds-nothing".
// prints {checks, failures} as JSON on stdout (failures: the first 20 and the first of each
// other kind, each with where and why).
//
// At every event of every replay, for every viewer (everyone, each seat, the public table):
//   - the tokens on the table (seats plus kitty or bank) or the cards (hands, melds, discard pile,
//     stock) add up to what the game started with;
//   - no card appears more often than the deck holds it; a dealer holds nothing ("dealer-holds-nothing");
//   - no card is drawn face up that no event the viewer saw named (hidden cards stay hidden);
//   - every card drawn face up in a seat's hand is held by that seat at that moment (in the
//     engine's state before or after the step the event belongs to, or as the event or the next
//     one was logged), and its number of cards lies between those;
// and wherever the engine stopped (after each chance outcome or decision) the table equals the
// engine's: the same hands (for everyone; counts and no unheld card for one seat or the public),
// the same figures, kitty or bank, discard pile, stock and melds.
"use strict";
const fs = require("fs");
const path = require("path");
const [file, statePath, ...modulePaths] = process.argv.slice(2);
const RS = require(path.resolve(statePath));
globalThis.ReplayState = RS;  // what each game's module registers with, as on the page
const defined = new Set();
const define = RS.define;
RS.define = (game, make) => { defined.add(game); define(game, make); };
for (const m of modulePaths) require(path.resolve(m));

const cases = JSON.parse(fs.readFileSync(file, "utf8"));
let checks = 0;
const failures = [];

function counts(cards) {
  const m = new Map();
  for (const c of cards) m.set(c, (m.get(c) || 0) + 1);
  return m;
}
function sum(xs) {
  return xs.reduce((a, b) => a + b, 0);
}
function sorted(xs) {
  return xs.slice().sort().join(" ");
}
// The first 20 failures, and the first of every other kind of failure (a kind: the message
// with its cards and numbers blanked), so that one broken rule does not hide another.
const kinds = new Set();
function fail(where, why) {
  const kind = why.replace(/\[[^\]]*\]|\b(?:[2-9TJQKA][hdcs]|Jk)\b|-?\d+/g, "_");
  if (failures.length < 20 || !kinds.has(kind)) failures.push(`${where}: ${why}`);
  kinds.add(kind);
}
function check(cond, where, why) {
  checks += 1;
  if (!cond) fail(where, typeof why === "function" ? why() : why);
}

function runCase({ record, truth, checks: demands = [] }, caseNo) {
  check(defined.has(record.game), `case ${caseNo}`, `no replay module defines ${record.game}`);
  if (!defined.has(record.game)) return;  // its table parts are unknown: nothing more to check
  const n = record.num_seats;
  const events = record.events;
  const settled = Object.keys(truth.settled).map(Number).sort((a, b) => a - b);
  const start = record.params.starting_tokens;
  const publicRecord = { ...record, events: events.filter((e) => e.visible_to === null) };
  const viewers = [["everyone", null, record]].concat(
    [...Array(n).keys()].map((s) => [`seat ${s}`, s, record]), [["public", null, publicRecord]]);

  // The engine's hands around event position `pos` (before and after the step it belongs to,
  // and as each neighbouring event was logged) and its whole table if it stopped there.
  function around(pos) {
    let lo = settled[0], hi = settled[settled.length - 1];
    for (const k of settled) { if (k <= pos) lo = k; if (k >= pos) { hi = k; break; } }
    const hands = [truth.settled[lo].hands, truth.settled[hi].hands];
    if (pos > 0) hands.push(truth.logged[pos - 1]);
    if (pos < truth.logged.length) hands.push(truth.logged[pos]);
    return [hands, truth.settled[pos]];
  }

  for (const [who, seat, rec] of viewers) {
    const t = RS.start(rec, seat);
    // The public table after `pos` public events is the whole table's after the pos-th public
    // event and the private events that follow it (which change no public figure or count).
    const fullAt = [];
    if (who === "public") {
      let at = 0;
      for (let pos = 0; pos <= rec.events.length; pos++) {
        if (pos > 0) { while (events[at].visible_to !== null) at++; at++; }
        while (at < events.length && events[at].visible_to !== null) at++;
        fullAt.push(at);
      }
    }
    const named = new Set();  // every card named in an event this viewer saw
    const collect = (v) => {
      if (typeof v === "string") named.add(v);
      else if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === "object") Object.values(v).forEach(collect);
    };
    for (let pos = 0; pos <= rec.events.length; pos++) {
      if (pos > 0) {
        RS.apply(t, rec.events[pos - 1], rec);
        const e = rec.events[pos - 1];
        if (seat === null || e.visible_to === null || e.visible_to.includes(seat)) collect(e.data);
      }
      const at = who === "public" ? fullAt[pos] : pos;
      const where = `case ${caseNo} (${record.game}, ${n} seats) as ${who}, event ${at}`;
      const [near, exact] = around(at);
      const hands = t.hands;
      const shown = [].concat(...hands.map((h) => h.cards));

      // conservation
      if (demands.includes("cards-add-up")) {
        if (t.stock !== null) {
          const melds = sum(Object.values(t.melds).map((ms) => sum(ms.map((m) => m.cards.length))));
          const total = sum(hands.map((h) => h.cards.length + h.hidden)) + melds + t.pile.length + t.stock;
          check(total === t.deckSize, where, `cards on the table add up to ${total}, not ${t.deckSize}`);
        }
        const all = counts(shown.concat(t.pile, ...Object.values(t.melds).map((ms) => [].concat(...ms.map((m) => m.cards)))));
        for (const [c, k] of all) check(c === "Jk" ? k <= t.deckSize - 104 : k <= 2, where, `${c} shown ${k} times`);
      } else {
        const total = sum(t.scores) + (t.pot ? t.pot.amount : 0);
        check(total === n * start, where, `tokens add up to ${total}, not ${n * start} (seats ${t.scores}, ${t.pot && t.pot.label} ${t.pot && t.pot.amount})`);
        const all = counts(shown.concat(t.center || [], t.bottom ? [t.bottom] : []));
        for (const [c, k] of all) check(k === 1, where, `${c} shown ${k} times`);
      }
      if (demands.includes("dealer-holds-nothing") && t.dealer !== null) {
        const h = hands[t.dealer];
        check(h.cards.length + h.hidden === 0, where, `the dealer, seat ${t.dealer}, is drawn holding ${h.cards.join(" ")} (+${h.hidden} face down)`);
      }
      // every card shown is held now, and was named to this viewer
      for (let s = 0; s < n; s++) {
        const mine = counts(hands[s].cards);
        for (const [c, k] of mine) {
          const most = Math.max(...near.map((h) => counts(h[s]).get(c) || 0));
          check(k <= most, where, `seat ${s} is drawn holding ${c} it does not hold`);
          check(named.has(c), where, `seat ${s} is drawn holding ${c}, which no event this viewer saw names`);
        }
        const size = hands[s].cards.length + hands[s].hidden;
        const lo = Math.min(...near.map((h) => h[s].length)), hi = Math.max(...near.map((h) => h[s].length));
        check(lo <= size && size <= hi, where, `seat ${s} is drawn with ${size} cards, the engine has ${lo}..${hi}`);
      }
      // where the engine stopped: the same table
      if (exact !== undefined) {
        for (let s = 0; s < n; s++) {
          const h = hands[s];
          check(h.cards.length + h.hidden === exact.hands[s].length, where,
            () => `seat ${s}: ${h.cards.length + h.hidden} cards drawn, the engine has ${exact.hands[s].length}`);
          if (seat === null && who === "everyone") {
            check(h.hidden === 0 && sorted(h.cards) === sorted(exact.hands[s]), where,
              () => `seat ${s} drawn with [${h.cards.join(" ")}] +${h.hidden}, holds [${exact.hands[s].join(" ")}]`);
          }
          if (seat === s) check(h.hidden === 0 && sorted(h.cards) === sorted(exact.hands[s]), where, () => `own hand [${h.cards.join(" ")}] +${h.hidden}, holds [${exact.hands[s].join(" ")}]`);
        }
        check(t.scores.join(",") === exact.scores.join(","), where, () => `figures ${t.scores}, the engine has ${exact.scores}`);
        check((t.pot ? t.pot.amount : 0) === exact.pot, where, () => `${t.pot && t.pot.label} ${t.pot && t.pot.amount}, the engine has ${exact.pot}`);
        if (demands.includes("cards-add-up") && exact.stock !== null && t.stock !== null) {
          check(t.pile.join(" ") === exact.pile.join(" "), where, () => `discard pile [${t.pile}], the engine has [${exact.pile}]`);
          check(t.stock === exact.stock, where, () => `stock ${t.stock}, the engine has ${exact.stock}`);
          const melds = {};
          for (const ms of Object.values(t.melds)) for (const m of ms) melds[m.id] = m.cards.join(" ");
          check(JSON.stringify(melds) === JSON.stringify(exact.melds), where, () => `melds ${JSON.stringify(melds)}, the engine has ${JSON.stringify(exact.melds)}`);
        }
      }
    }
  }
}

cases.forEach(runCase);
process.stdout.write(JSON.stringify({ checks, failures }));
