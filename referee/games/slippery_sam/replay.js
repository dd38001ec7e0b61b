// Slippery Sam on the replay page (rules §1): the kitty in the middle, the cards turned from
// the stack, bets settled card by card. Registers with the generic page's ReplayState
// (dashboard/static/replay_state.js); the event vocabulary is in docs/replay.md.
ReplayState.define("slippery-sam", function (RS) {
  "use strict";
  return {
    unit: "tokens",
    lowerIsBetter: false,
    //: The replay opens after the first deal and the hands dealt with it.
    opening: { after: "deal", skip: "hand" },
    start(t) {
      t.bets = {};  // the bet each seat made this deal
    },
    events: {
      first_dealer(t, d) {
        t.center = (d.cards || []).slice(); t.centerLabel = "cards dealt face up for the first dealer";
        t.dealer = d.dealer;
      },
      kitty(t, d) {  // rules §1.3: the dealer puts up the kitty from his tokens
        t.dealer = d.dealer; RS.pay(t, d.dealer, d.amount); t.pot = { label: "kitty", amount: d.amount };
        t.stage = `a new turn: kitty of ${d.amount} tokens`;
      },
      deal(t, d) {  // rules §1.4: three cards to each player, none to the dealer
        t.dealer = d.dealer; RS.clearHands(t); t.shown = {}; t.bets = {};
        for (const s of d.players || []) t.hands[s].hidden = 3;
        t.center = []; t.centerLabel = "no card turned yet";
        t.stage = `deal ${d.deal} of 3 by seat ${d.dealer}`;
      },
      bet(t, d) {
        t.bets[d.seat] = d.amount;
      },
      shoot: RS.COMMON.show,  // rules §1.6: the three cards shown to all
      turn(t, d) {  // rules §1.5: the bet is won from, or lost to, the kitty
        const bet = t.bets[d.seat] || 0;
        t.scores[d.seat] += d.won ? bet : -bet;
        t.pot = { label: "kitty", amount: d.kitty };
        t.center.push(d.card); t.centerLabel = `turned this deal (last: ${d.won ? "bet won" : "bet lost"})`;
      },
      turn_end(t, d) {  // rules §1.9: the kitty goes back to the dealer; nobody holds cards
        t.scores[d.dealer] += d.returned; t.pot = null; t.dealer = null;
        RS.clearHands(t);
        t.shown = {}; t.bets = {};
        t.center = []; t.centerLabel = `turn over: ${d.returned} tokens back to the dealer`;
        t.stage = "";
      },
    },
  };
});
