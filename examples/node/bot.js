// A cardarena bot in Node.js for all three games, written from proto/ and docs/protocol.md alone.
//
//   npm ci
//   node bot.js --port 50061        # or --port 0: a free port; prints "listening on 127.0.0.1:PORT"
//   node bot.js --socket PATH       # a Unix socket: how the platform runs it when submitted (cardarena.toml)
//
// The .proto files are loaded at run time (from ../../proto, or --proto DIR). Field names are kept
// as in the .proto files (keepCase), enums are their names ("SVARA_MOVE_LOOK"), unset scalars read
// as 0 / "" / [] (defaults), and `optional` fields are undefined when unset (presence).
// Structure, the same as examples/python/bot.py:
//   describe()                   who the bot is and what it plays
//   slipperySam(view, request)   one Slippery Sam decision -> SlipperySamAction   (rules §1)
//   svara(view, request)         one Svara decision        -> SvaraAction         (rules §2)
//   rummy(view, request)         one rummy decision        -> RummyAction         (rules §3)
//   serve(port)                  the gRPC server: cardarena.v1.Bot (Describe, Act, ActStream) and
//                                grpc.health.v1.Health
// The referee calls ActStream where the bot serves it: one stream per worker process, carrying the
// decisions of all its games, each request with an id its answer repeats (docs/protocol.md, "The
// two transports"). Act, one call per decision, is served too: the referee falls back to it.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { HealthImplementation } = require('grpc-health-check');

const RANKS = '23456789TJQKA';
const SUITS = 'cdhs';
const JOKER = 'Jk';

function describe() {
  return {
    name: 'node-example',
    version: '1.0.0',
    author: 'cardarena examples',
    games: ['GAME_SLIPPERY_SAM', 'GAME_SVARA', 'GAME_RUMMY'],
    capacity: 4, // games at once; calls can overlap anyway (the server answers them concurrently)
  };
}

// -- Slippery Sam (rules §1) ------------------------------------------------------------------

// The chance that one of `hand` is of the turned card's suit and strictly higher, the turned card
// being any card this seat has not seen (rules §1.5).
function winChance(hand, seen) {
  const best = {};
  for (const c of hand) best[c[1]] = Math.max(best[c[1]] ?? -1, RANKS.indexOf(c[0]));
  let unknown = 0;
  let wins = 0;
  for (const r of RANKS) {
    for (const s of SUITS) {
      if (seen.has(r + s)) continue;
      unknown += 1;
      if (RANKS.indexOf(r) < (best[s] ?? -1)) wins += 1;
    }
  }
  return unknown ? wins / unknown : 0;
}

function slipperySam(view, request) {
  if (view.decision === 'SLIPPERY_SAM_DECISION_KITTY') {
    return { amount: view.min_amount }; // the smallest kitty the rules allow (rules §1.3)
  }
  const seen = new Set([...view.hand, ...view.turned]);
  for (const shot of view.shots) shot.cards.forEach((c) => seen.add(c));
  const p = winChance(view.hand, seen);
  if (p <= 0.5) return { amount: view.min_amount };
  const stake = Math.floor((2 * p - 1) * view.tokens[request.seat]); // a Kelly fraction of own tokens
  return { amount: Math.max(view.min_amount, Math.min(view.max_amount, stake)) };
}

// -- Svara (rules §2) -------------------------------------------------------------------------

const SVARA_VALUE = { A: 11, K: 10, Q: 10, J: 10, T: 10, 9: 9, 8: 8, 7: 7, 6: 6 };

// Hand points (rules §2.2) of cards given as [rank, suit, value].
function pointsOf(cards) {
  let best = Math.max(...cards.map((c) => c[2])); // the highest single card
  for (const s of SUITS) {
    const same = cards.filter((c) => c[1] === s);
    if (same.length >= 2) best = Math.max(best, same.reduce((t, c) => t + c[2], 0));
  }
  if (cards.every((c) => c[0] === cards[0][0])) best = Math.max(best, cards.reduce((t, c) => t + c[2], 0));
  if (cards.filter((c) => c[0] === 'A').length >= 2) best = Math.max(best, 22);
  return best;
}

// The szacha counts 11 and stands for whichever card scores most (rules §2.2).
function svaraPoints(hand, szacha) {
  const natural = hand.filter((c) => c !== szacha).map((c) => [c[0], c[1], SVARA_VALUE[c[0]]]);
  if (natural.length === hand.length) return pointsOf(natural);
  let best = 0;
  for (const r of 'AKQJT9876') {
    for (const s of SUITS) best = Math.max(best, pointsOf([...natural, [r, s, 11]]));
  }
  return best;
}

function svara(view, request) {
  const legal = view.legal.moves;
  const can = (move) => legal.includes(move);
  const points = view.looked ? svaraPoints(view.hand, view.szacha) : 0;
  if (view.decision === 'SVARA_DECISION_VOTE') {
    return { move: view.looked && points >= 18 ? 'SVARA_MOVE_REFUSE' : 'SVARA_MOVE_ACCEPT' };
  }
  if (view.decision === 'SVARA_DECISION_JOIN') {
    // in_svara: who is in the coming svara (older platforms sent it in in_play only)
    const inSvara = view.in_svara.length ? view.in_svara : view.in_play;
    const players = inSvara.filter(Boolean).length;
    const cost = view.legal.join_cost;
    return { move: (view.bank + cost) / (players + 1) > cost ? 'SVARA_MOVE_JOIN' : 'SVARA_MOVE_DECLINE' };
  }
  // A betting turn. LOOK does not end it: the referee asks again with the hand filled (rules §2.5).
  if (can('SVARA_MOVE_LOOK')) return { move: 'SVARA_MOVE_LOOK' };
  if (can('SVARA_MOVE_SEE') && points >= 21) return { move: 'SVARA_MOVE_SEE' };
  if (can('SVARA_MOVE_STAKE') && points >= 25) return { move: 'SVARA_MOVE_STAKE', amount: view.legal.stake_max };
  if (can('SVARA_MOVE_STAKE') && points >= 18) return { move: 'SVARA_MOVE_STAKE', amount: view.legal.stake_min };
  return { move: 'SVARA_MOVE_FOLD' };
}

// -- Contract rummy (rules §3) ----------------------------------------------------------------

function cardPoints(card) {
  if (card === JOKER) return 50;
  return '234567'.includes(card[0]) ? 5 : card[0] === 'A' ? 20 : 10;
}

// A run position: 1 is the ace low, 2..13 the ranks 2..K, 14 the ace high.
const rankAt = (pos) => (pos === 1 || pos === 14 ? 'A' : RANKS[pos - 2]);

function removeCards(hand, cards) {
  const left = [...hand];
  for (const c of cards) left.splice(left.indexOf(c), 1);
  return left;
}

// Sets of one rank: 3+ cards, at least 2 natural (rules §3.1). Returns [melds, cards left] or null.
function findSets(hand, count) {
  let left = [...hand];
  const melds = [];
  const byRank = {};
  for (const c of left) if (c !== JOKER) (byRank[c[0]] = byRank[c[0]] || []).push(c);
  const ranks = Object.keys(byRank).filter((r) => byRank[r].length >= 2);
  ranks.sort((a, b) => byRank[b].length - byRank[a].length);
  for (const r of ranks.slice(0, count)) {
    const cards = [...byRank[r]];
    if (cards.length === 2) {
      if (!left.includes(JOKER)) return null;
      cards.push(JOKER);
    }
    left = removeCards(left, cards);
    melds.push({ kind: 'RUMMY_MELD_KIND_SET', cards });
  }
  return melds.length === count ? [melds, left] : null;
}

// Runs: 4 consecutive positions of one suit, at least 2 natural, jokers filling the gaps, laid low
// to high (rules §3.1). Takes, for each run, the window with the most naturals.
function findRuns(hand, count) {
  let left = [...hand];
  const melds = [];
  for (let k = 0; k < count; k += 1) {
    let best = null;
    for (const s of SUITS) {
      for (let start = 1; start <= 11; start += 1) {
        const cards = [];
        for (let pos = start; pos < start + 4; pos += 1) cards.push(rankAt(pos) + s);
        const held = cards.filter((c) => left.includes(c)).length;
        if (!best || held > best.held) best = { cards, held };
      }
    }
    const jokers = left.filter((c) => c === JOKER).length;
    if (best.held < 2 || 4 - best.held > jokers) return null;
    const cards = best.cards.map((c) => (left.includes(c) ? c : JOKER));
    left = removeCards(left, cards);
    melds.push({ kind: 'RUMMY_MELD_KIND_RUN', cards });
  }
  return [melds, left];
}

// The round's contract from the hand, keeping a card to discard; null if not found.
function findGoDown(hand, contract) {
  const runs = findRuns(hand, contract.runs);
  if (!runs) return null;
  const sets = findSets(runs[1], contract.sets);
  if (!sets || sets[1].length === 0) return null;
  return [[...runs[0], ...sets[0]], sets[1]];
}

// A meld as the table shows it: its kind, and for a run its end positions from stands_for
// (rules §3.1: the first entry is the low end, the last the high end; an ace first is low).
function tableMeld(id, kind, standsFor) {
  const pos = (card, low) => (card[0] === 'A' ? (low ? 1 : 14) : RANKS.indexOf(card[0]) + 2);
  const naturalRank = standsFor.find((c) => c !== '')?.[0];
  if (kind === 'RUMMY_MELD_KIND_SET') return { id, kind, rank: naturalRank };
  const suit = standsFor[0][1];
  return { id, kind, suit, low: pos(standsFor[0], true), high: pos(standsFor[standsFor.length - 1], false) };
}

// What a freshly laid meld stands for: the run's cards by position, a set's naturals.
function standsForNew(meld) {
  if (meld.kind === 'RUMMY_MELD_KIND_SET') return meld.cards.map((c) => (c === JOKER ? '' : c));
  const k = meld.cards.findIndex((c) => c !== JOKER && c[0] !== 'A');
  const start = RANKS.indexOf(meld.cards[k][0]) + 2 - k;
  return meld.cards.map((_, i) => rankAt(start + i) + meld.cards[k][1]);
}

// Lay off every card that fits a meld (one card per lay-off, applied in order), keeping one card.
function findLayOffs(hand, melds) {
  let left = [...hand];
  const layOffs = [];
  let found = true;
  while (found && left.length > 1) {
    found = false;
    for (const m of melds) {
      let card = null;
      let end = 'RUMMY_RUN_END_UNSPECIFIED';
      if (m.kind === 'RUMMY_MELD_KIND_SET') {
        card = left.find((c) => c === JOKER || c[0] === m.rank) ?? null;
      } else if (m.high < 14 && !(m.low === 1 && m.high === 13) && left.includes(rankAt(m.high + 1) + m.suit)) {
        card = rankAt(m.high + 1) + m.suit;
        end = 'RUMMY_RUN_END_HIGH';
        m.high += 1;
      } else if (m.low > 1 && !(m.high === 14 && m.low === 2) && left.includes(rankAt(m.low - 1) + m.suit)) {
        card = rankAt(m.low - 1) + m.suit;
        end = 'RUMMY_RUN_END_LOW';
        m.low -= 1;
      }
      if (card !== null) {
        layOffs.push({ meld_id: m.id, cards: [card], end }); // meld_id is required, also for meld 0
        left = removeCards(left, [card]);
        found = true;
        if (left.length <= 1) break;
      }
    }
  }
  return [layOffs, left];
}

// Discard: never the card taken from the pile unless every card left equals it (judged on the
// cards left after this action's melds and lay-offs, rules §3.7); keep pairs and jokers.
function chooseDiscard(left, forbidden) {
  const allowed = left.filter((c) => c !== forbidden);
  const choices = allowed.length ? allowed : left;
  const count = (c) => left.filter((x) => x !== JOKER && x[0] === c[0]).length;
  const worth = (c) => (c === JOKER ? -100 : cardPoints(c) - 15 * (count(c) - 1));
  return choices.reduce((a, b) => (worth(b) > worth(a) ? b : a));
}

// Whether `card` would give this seat a set it lacks (a pair of its rank in hand).
function wanted(view, card) {
  if (!card || card === JOKER) return card === JOKER;
  return view.contract.sets > 0 && view.hand.filter((c) => c[0] === card[0]).length >= 2;
}

function rummy(view, request) {
  const down = view.down[request.seat];
  if (view.decision === 'RUMMY_DECISION_CALL') {
    const left = view.take_its_left; // undefined: no limit
    return { call: !down && view.round !== 7 && (left === undefined || left > 0) && wanted(view, view.discard_top) };
  }
  if (view.decision === 'RUMMY_DECISION_DRAW') {
    const take = view.discard_live && !down && wanted(view, view.discard_top);
    return { draw: take ? 'RUMMY_DRAW_SOURCE_DISCARD_PILE' : 'RUMMY_DRAW_SOURCE_STOCK' };
  }
  // The play: go down if the contract is found (not in round 7, which melds the whole hand), lay off, discard.
  let hand = [...view.hand];
  const action = { go_down: [], lay_offs: [] };
  const table = view.melds.map((m) => tableMeld(m.id, m.kind, m.stands_for));
  let isDown = down;
  if (!down && view.round !== 7) {
    const found = findGoDown(hand, view.contract);
    if (found) {
      action.go_down = found[0];
      hand = found[1];
      isDown = true;
      // melds laid in this action take the next ids, after those on the table (rummy.proto)
      found[0].forEach((m, i) => table.push(tableMeld(view.melds.length + i, m.kind, standsForNew(m))));
    }
  }
  if (isDown && view.round !== 7) {
    const [layOffs, left] = findLayOffs(hand, table);
    action.lay_offs = layOffs;
    hand = left;
  }
  action.discard = chooseDiscard(hand, view.forbidden_discard);
  return action;
}

// -- the server -------------------------------------------------------------------------------

const GAMES = { slippery_sam: slipperySam, svara, rummy };

// One decision: the ActResponse for an ActRequest. Throws what the game's function throws.
function decide(request) {
  const game = request.view; // the name of the oneof member that is set: "slippery_sam", "svara" or "rummy"
  return { [game]: GAMES[game](request[game], request) };
}

function logError(request, err) {
  console.error(`game ${request.game_id} seat ${request.seat} decision ${request.decision}:`, err);
}

// Act: one call per decision.
function act(call, callback) {
  try {
    callback(null, decide(call.request));
  } catch (err) {
    logError(call.request, err);
    callback({ code: grpc.status.INTERNAL, details: String(err) });
  }
}

// ActStream: the decisions of many games on one stream. Each request is answered with its id as soon
// as it is decided (here at once: JavaScript decides one request at a time), or with an error for
// that request alone (the stream goes on).
function actStream(call) {
  call.on('data', (item) => {
    try {
      call.write({ id: item.id, response: decide(item.request) });
    } catch (err) {
      logError(item.request, err);
      call.write({ id: item.id, error: { code: grpc.status.INTERNAL, message: String(err) } });
    }
  });
  call.on('end', () => call.end()); // the referee closed its side: close ours
  call.on('error', () => {}); // the referee went away (cancelled): nothing to answer
}

// `address` is a port on 127.0.0.1, or `unix:PATH`: the Unix socket the platform gives a submitted bot.
function serve(address, protoDir) {
  const definition = protoLoader.loadSync('cardarena/v1/bot.proto', {
    // longs: String keeps a request id (uint64) exact, and it is sent back as it came
    includeDirs: [protoDir], keepCase: true, enums: String, longs: String, defaults: true, oneofs: true,
  });
  const { Bot } = grpc.loadPackageDefinition(definition).cardarena.v1;
  const server = new grpc.Server();
  server.addService(Bot.service, {
    Describe: (call, callback) => callback(null, describe()), Act: act, ActStream: actStream,
  });
  // The platform checks grpc.health.v1 before entry and before every game: "" or "cardarena.v1.Bot" SERVING.
  const health = new HealthImplementation({ '': 'SERVING', 'cardarena.v1.Bot': 'SERVING' });
  health.addToServer(server);
  const target = String(address).startsWith('unix:') ? address : `127.0.0.1:${address}`;
  server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (err, bound) => {
    if (err) {
      console.error(`cannot listen on ${target}: ${err.message}`);
      process.exit(1);
    }
    console.log(target.startsWith('unix:') ? `listening on ${target}` : `listening on 127.0.0.1:${bound}`);
  });
  return server;
}

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

if (require.main === module) {
  const socket = option('--socket', '');  // a submitted bot: where the platform says (cardarena.toml)
  const server = serve(socket ? `unix:${socket}` : Number(option('--port', '50061')),
                       option('--proto', path.join(__dirname, '..', '..', 'proto')));
  // a second of grace for the decisions in flight, then the rest is cut: a referee keeps its stream open between
  // games, and tryShutdown alone would wait for it for ever (the Python SDK stops the same way)
  const stop = () => {
    const cut = setTimeout(() => { server.forceShutdown(); process.exit(0); }, 1000);
    server.tryShutdown(() => { clearTimeout(cut); process.exit(0); });
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, stop);
}

module.exports = { describe, slipperySam, svara, rummy, svaraPoints, serve };
