"""Contract rummy's informed-play score (``referee.games.rummy.audit``, the duplicate audit's ``GameSpec.informed``)
on known events (rules §3.5-3.7)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from referee.games.rummy import SPEC
from referee.games.rummy.audit import informed
from referee.games.rummy.bots import deficiency, deficiency_without


def test_the_spec_declares_the_scorer() -> None:
    assert SPEC.informed is informed


def _events(*rows: tuple[str, dict]) -> list[dict]:
    return [{"kind": kind, "data": data, "visible_to": None} for kind, data in rows]


def test_informed_play_scores_draws_and_discards_that_fit_the_stock() -> None:
    """rules §3.5-3.7, two sets to make: seat 0 holds pairs of 5s and 9s; the upcard Ks helps it no more than
    any card, the stock's 5h makes a set: drawing the stock fits the hidden card (+1), taking the Ks would
    not have. Then, holding a set of 5s and singles, every single is an equally good discard by the hand, and
    the next stock card is Kh: discarding the Kc goes against it (-1), the 2h fits it (+1; the Kh's draw
    then fits it too, +1)."""
    draw = _events(("round", {"round": 1, "sets": 2, "runs": 0}),
                   ("hand", {"seat": 0, "cards": ["5c", "5d", "9h", "9s", "Kc", "Qd", "2h"]}),
                   ("upcard", {"card": "Ks"}), ("draw", {"seat": 0, "source": "stock"}),
                   ("drawn_card", {"seat": 0, "card": "5h"}))
    assert informed(draw, 2, {}) == (1.0, 0.0)
    taken = [e for e in draw if e["kind"] != "draw"]
    taken.insert(3, {"kind": "draw", "data": {"seat": 0, "source": "discard_pile", "card": "Ks"}, "visible_to": None})
    taken[-1] = {"kind": "drawn_card", "data": {"seat": 1, "card": "5h"}, "visible_to": None}
    assert informed(taken, 2, {}) == (-1.0, 0.0)

    def discard(card: str) -> list[dict]:
        return _events(("round", {"round": 1, "sets": 2, "runs": 0}),
                       ("hand", {"seat": 0, "cards": ["5c", "5d", "5h", "9h", "Kc", "Qd", "2h"]}),
                       ("upcard", {"card": "7d"}), ("draw", {"seat": 0, "source": "stock"}),
                       ("drawn_card", {"seat": 0, "card": "Ac"}), ("discard", {"seat": 0, "card": card}),
                       ("draw", {"seat": 1, "source": "stock"}), ("drawn_card", {"seat": 1, "card": "3c"}),
                       ("discard", {"seat": 1, "card": "3c"}), ("draw", {"seat": 0, "source": "stock"}),
                       ("drawn_card", {"seat": 0, "card": "Kh"}))
    assert informed(discard("Kc"), 2, {}) == (-1.0, 0.0)
    assert informed(discard("2h"), 2, {}) == (2.0, 0.0)  # and drawing the Kh, not the 3c, fits it too
    assert informed(discard("Kc")[:-4], 2, {}) == (0.0, 0.0)  # no card drawn yet: nothing scored


CARDS = [r + s for r in "23456789TJQKA" for s in "cdhs"] * 2 + ["Jk"] * 4  # two decks and their jokers


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(range(len(CARDS))), min_size=1, max_size=14, unique=True),
       st.sampled_from([(2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3)]))
def test_each_discards_deficiency_read_at_once_is_the_one_by_one_reading(picks: list[int],
                                                                        contract: tuple[int, int]) -> None:
    """``deficiency_without`` (the greedy bot's discard and the audit read it) gives, for each distinct card, the
    deficiency of the hand less one copy of that card, as :func:`deficiency` reads that hand: duplicates, jokers,
    aces high and low included."""
    hand = [CARDS[i] for i in picks]
    each = {}
    for card in set(hand):
        rest = list(hand)
        rest.remove(card)
        each[card] = deficiency(rest, *contract)
    assert deficiency_without(hand, *contract) == each
