// Svara on the replay page (rules §2): the bank, the bottom card, stakes and sees, a seat
// that has not looked at its cards, the svara replayed by the tied seats. Registers with the
// generic page's ReplayState (dashboard/static/replay_state.js); the event vocabulary is in
// docs/replay.md.
ReplayState.define("svara", function (RS) {
  "use strict";
  const C = RS.COMMON;
  // The cards of the last hand go in.
  function cardsIn(t) {
    RS.clearHands(t); t.shown = {}; t.bottom = null; t.center = []; t.centerLabel = "";
  }
  // A stake, see or join: paid into the bank at once (rules §2.6-2.8).
  function paid(t, d) {
    RS.pay(t, d.seat, d.amount); t.pot = { label: "bank", amount: d.bank };
  }
  return {
    unit: "tokens",
    lowerIsBetter: false,
    //: The replay opens once every seat's cards are dealt.
    opening: { after: "dealt", skip: null },
    start(t, record) {
      t.looked = null;   // the seats that have looked at their cards this deal
      t.bottom = null;   // the dealer's bottom card, shown to all (rules §2.4)
      t.szacha = (record.params || {}).szacha || null;  // the wild card, a parameter of the game (rules §2.1)
    },
    events: {
      first_dealer(t, d) {
        t.dealer = d.seat;
      },
      hand(t, d, record) {  // rules §2.4: a new hand; the cards of the last one are gone
        cardsIn(t); t.folded = {};
        t.dealer = d.dealer;
        t.stage = `hand ${d.hand + 1} of ${(record.params || {}).hands}`;
      },
      ante(t, d) {
        for (const s of d.seats || []) RS.pay(t, s, d.amount);
        t.pot = { label: "bank", amount: d.bank };
      },
      bottom_card(t, d) {
        t.dealer = d.dealer; t.bottom = d.card;
      },
      bottom_penalty(t, d) {  // rules §2.4: an ace or the szacha at the bottom: the dealer antes again
        RS.pay(t, d.seat, d.amount); t.pot = { label: "bank", amount: (t.pot ? t.pot.amount : 0) + d.amount };
        t.dealer = d.next_dealer;
      },
      deal: C.hand,  // a seat's three cards, private to it
      dealt(t, d) {
        for (const s of d.seats || []) if (!t.hands[s].cards.length) t.hands[s] = { cards: [], hidden: 3 };
        t.dealer = d.dealer; t.looked = {};
      },
      look(t, d) {  // rules §2.5: a player's view holds his cards only once he has looked
        t.looked[d.seat] = true;
      },
      stake: paid,
      see: paid,
      join(t, d) {
        paid(t, d); t.folded[d.seat] = false;
      },
      svara(t, d) {  // rules §2.8: the cards go in; the tied seats (and joiners) play the bank again
        RS.clearHands(t); t.shown = {}; t.bottom = null;
        for (let s = 0; s < t.n; s++) t.folded[s] = !(d.seats || []).includes(s);
        t.pot = { label: "bank", amount: d.bank };
        t.stage = `${t.stage.split(" · ")[0]} · svara ${d.number}`;
      },
      svara_dealer(t, d) {
        t.dealer = d.seat;
      },
      out(t, d) {  // rules §2.4: logged as the next hand starts, when the last hand's cards are in
        cardsIn(t); C.out(t, d);
      },
      game_over(t, d) {  // rules §2.11
        t.bottom = null;
        C.game_over(t, { ...d, reason: d.reason === "hands" ? "every hand played" : d.reason });
      },
    },
    keys: { seat: ["next_dealer"], seatList: ["voters"] },
    // A seat dealt in is marked until it looks at its cards (rules §2.5).
    seatBadges(t, i, h) {
      const hand = t.hands[i];
      return t.looked && !t.looked[i] && !t.folded[i] && hand.cards.length + hand.hidden > 0 && t.shown[i] === undefined
        ? ' <span class="badge" title="its views hold no cards until it looks">not looked</span>' : "";
    },
    centerExtra(t, h) {
      return (t.szacha ? `<div class="small" id="szacha" title="the wild card (rules §2.1)">szacha ${h.card(t.szacha)}</div>` : "") +
        (t.bottom ? `<div class="small">bottom card ${h.card(t.bottom)}</div>` : "");
    },
  };
});
