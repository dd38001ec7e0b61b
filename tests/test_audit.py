"""The duplicate audit (league.integrity.audit): its tests on known data, and on simulated duplicate seasons of every
game with a remembering bot of our own (bench.bench_audit) and with honest bots only."""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field

import pytest

from bench.bench_audit import (FRAMERS, MATCHES, KnowingRummy, Learner, Restraint, honest_opponents, season_pair,
                               simulate_season, twin_season)
from league.integrity.audit import (HELD_HANDS, LATER, LUCK, AuditGame, audit_season, detrend, first_versus_later,
                                      held_centre, later_test)
from league.integrity.audit import _duplicate_scores
from referee.games import games, spec
from tests.a_game import GAME, QUICK, STRONG, game_with


def test_later_test_is_exact_on_groups_whose_order_is_extreme() -> None:
    """A group's scores (0, 12, 12, 12) in play order have the largest later-less-first its orders can give
    (12), one order in 4 (the one with the 0 first); over 5 such groups the randomisation p-value is
    (1/4)**5, and 1 when every group has its 12 first. The 12 last, (0, 0, 0, 12), is what 3 orders in 4
    give: no evidence."""
    assert first_versus_later([0, 12, 12, 12], 0) == 12.0
    assert first_versus_later([0, 0, 0, 12], 0) == 4.0
    exact = 0.25 ** 5
    stat, p = later_test([[0, 12, 12, 12]] * 5, random.Random(2))
    assert stat == 12.0 and exact / 2 < p < 2 * exact  # 20 hits in ~20,000 draws: +-22%
    stat, p = later_test([[12, 0, 0, 0]] * 5, random.Random(1))
    assert stat == -12.0 and p == 1.0
    stat, p = later_test([[0, 0, 0, 12]] * 5, random.Random(1))
    assert stat == 4.0 and p > 0.1  # (3/4)**5 = 0.24


def test_a_bot_that_uses_its_memory_only_in_its_middle_rotations_is_flagged() -> None:
    """The evader of a trend test: bot 1 gains only in the 2nd and 3rd rotation it plays of each deal (a trend
    over 4 rotations weighs them -0.5 and +0.5: zero). Later less first is what it gains: flagged, and no
    other bot is."""
    rng = random.Random(9)
    games = []
    for g in range(24):
        scores = [[rng.gauss(0, 10) + (0 if r in (0, 3) else 40 if b == 1 else -40 / 3) for b in range(4)]
                  for r in range(4)]
        games += _group(4 * g, g, scores)
    audit = audit_season(games)
    assert {bot for bot, a in audit.items() if a.flags} == {1}
    assert audit[1].flags[0].effect > 10


def test_the_audit_reads_a_group_in_the_order_it_was_played_not_its_numbers() -> None:
    """The same games, their schedule numbers reversed within each group but their start times (``played``)
    in the order that makes bot 2's gain come after its first rotation: flagged by the start times; read by
    the numbers, its gain would stand first and it would not be flagged."""
    rng = random.Random(4)
    games = []
    for g in range(24):
        scores = [[rng.gauss(0, 10) + (0 if r == 0 else 40 if b == 2 else -40 / 3) for b in range(4)] for r in range(4)]
        for r, game in enumerate(_group(4 * g, g, scores)):
            games.append(AuditGame(4 * g + 3 - r, game.deal_group, game.bots, game.changes, played=1000.0 * g + r))
    assert {bot for bot, a in audit_season(games).items() if a.flags} == {2}
    by_number = [AuditGame(x.number, x.deal_group, x.bots, x.changes) for x in games]
    assert not audit_season(by_number)[2].flags


def _group(number: int, group: int, scores: list[list[float]], luck: list[list[float]] | None = None) -> list[AuditGame]:
    """A group of 4 rotations of bots 0..3 (rotation r: bot b in seat (b + r) % 4); ``scores[r][b]``."""
    out = []
    for r, row in enumerate(scores):
        seats = tuple((s - r) % 4 for s in range(4))
        out.append(AuditGame(number + r, group, seats, tuple(float(row[b]) for b in seats),
                             None if luck is None else tuple(float(luck[r][b]) for b in seats)))
    return out


def test_audit_flags_a_bot_better_in_later_rotations_and_no_other() -> None:
    """Bot 2 takes 40 from the others (13.3 each) in every rotation but its first of a deal: flagged, the others not."""
    rng = random.Random(4)
    games = []
    for g in range(24):
        scores = [[rng.gauss(0, 10) + (0 if r == 0 else 40 if b == 2 else -40 / 3) for b in range(4)] for r in range(4)]
        luck = [[rng.gauss(0, 5) + (0 if r == 0 else 30 if b == 2 else -10) for b in range(4)] for r in range(4)]
        games += _group(4 * g, g, scores, luck)
    audit = audit_season(games)
    assert {bot for bot, a in audit.items() if a.flags} == {2}
    assert {t.name for t in audit[2].flags} == {LATER, LUCK}
    assert audit[2].flags[0].alpha == pytest.approx(0.01 / 8)  # 4 bots x 2 tests
    assert "later rotations: +" in audit[2].flags[0].message("tokens")
    # lower is better: read the other way, bot 2 does worse later (the others better), never flagged for it
    assert LATER not in {t.name for t in audit_season(games, higher_is_better=False)[2].flags}


def _held_group(number: int, group: int, rng: random.Random, cheats: dict[int, set[int]], rotations: int = 4,
                bots: int = 4) -> list[AuditGame]:
    """A group of ``rotations`` rotations of bots 0..bots-1 (rotation r: bot b in seat (b + r) % rotations), each game
    with a held fit whose value for a bot is noise fixed per (game, seat, held seats), plus, for a bot of ``cheats``
    in its rotations ``cheats[bot]`` (0: its first), 1.5 for each held seat it really held in an earlier rotation:
    it plays by the hands it held, as a remembering bot does."""
    out = []
    for r in range(rotations):
        seats = tuple((s - r) % rotations for s in range(rotations))
        out.append(AuditGame(number + r, group, seats, tuple(0.0 for _ in seats),
                             held=_NoiseFit(r, seats, rotations, rng, cheats)))
    return out


@dataclass
class _NoiseFit:
    """The held fit of :func:`_held_group`'s rotation ``r``: no moves to centre (``responses`` is empty)."""

    r: int
    seats: tuple[int, ...]
    rotations: int
    rng: random.Random
    cheats: dict[int, set[int]]
    noise: dict[tuple[int, frozenset[int]], float] = field(default_factory=dict)
    readings: tuple[str, ...] = ()

    def responses(self, seat: int) -> list[tuple[Hashable, float]]:
        return []

    def __call__(self, seat: int, held: frozenset[int],
                 centre: Mapping[Hashable, float] | None = None) -> tuple[float]:
        bot = self.seats[seat]
        if (seat, held) not in self.noise:
            self.noise[(seat, held)] = self.rng.gauss(0, 1)
        value = self.noise[(seat, held)]
        if self.r in self.cheats.get(bot, set()):
            really = {(bot + earlier) % self.rotations for earlier in range(self.r)}
            value += 1.5 * len(held & really)
        return (value,)


def test_the_held_hands_test_flags_a_bot_that_plays_by_the_hands_it_held_in_whichever_rotations() -> None:
    """Bot 1 plays by the hands it held before only in its 2nd and 3rd rotations (the evader of a later-less-first
    test), bot 3 in all its later ones: both flagged by the held-hands test, and the honest bots 0 and 2 not; the
    effect is positive and the message says what was measured. With no bot playing by them, no flag."""
    rng = random.Random(11)
    games = [g for k in range(24) for g in _held_group(4 * k, k, rng, {1: {1, 2}, 3: {1, 2, 3}})]
    audit = audit_season(games)
    assert {bot for bot, a in audit.items() if a.flags} == {1, 3}
    for bot in (1, 3):
        (flag,) = [t for t in audit[bot].flags if t.name == HELD_HANDS]
        assert flag.effect > 0 and flag.groups == 24
        assert flag.message().startswith("fit to hands it held before: +")
    assert audit[0].tests[-1].alpha == pytest.approx(0.01 / 8)  # 4 bots x 2 tests (the score and the held hands)
    rng = random.Random(12)
    honest = [g for k in range(24) for g in _held_group(4 * k, k, rng, {})]
    assert not any(a.flags for a in audit_season(honest).values())


def test_the_held_hands_test_draws_orders_of_a_group_of_more_than_six_rotations() -> None:
    """Groups of 7 rotations (7! orders) are tested on orders drawn at random: the bot that plays by its held hands
    is flagged, the others are not, and the p-values of honest bots are not small."""
    rng = random.Random(5)
    games = [g for k in range(6) for g in _held_group(7 * k, k, rng, {2: set(range(1, 7))}, rotations=7, bots=7)]
    audit = audit_season(games)
    assert {bot for bot, a in audit.items() if a.flags} == {2}
    assert all(t.p_value > 0.001 for b, a in audit.items() if b != 2 for t in a.tests if t.name == HELD_HANDS)


def test_audit_ignores_games_with_deals_of_their_own_and_refuses_bad_rows() -> None:
    games = [AuditGame(i, i, (0, 1, 2), (float(i), 0.0, -float(i))) for i in range(30)]
    assert all(a.tests == () for a in audit_season(games).values())
    with pytest.raises(ValueError, match="seats"):
        audit_season([AuditGame(0, 0, (0, 1), (1.0,))])
    with pytest.raises(ValueError):
        audit_season(games, family_alpha=0.0)


@pytest.mark.slow  # left out of `make check`; `make test` runs it
@pytest.mark.parametrize("game", [g for g in games() if g in MATCHES])
def test_a_remembering_bot_is_flagged_or_gains_nothing(game: str) -> None:
    """The remembering bot of bench.bench_audit (its ``MATCHES``) in 96-game duplicate seasons of 4 bots: one that
    finds the deal again from what it is shown (Slippery Sam's, Svara's) gains a lot and the audit flags it in each
    of 2 seasons; in every game, its gain over its twin (same seasons, memory off) is either flagged or within a
    season's noise of nothing (rummy's, told the whole deal: one season)."""
    higher = spec(game).higher_score_is_better
    told = isinstance(MATCHES[game][1](True), KnowingRummy)  # told the deal rather than finding it again
    for seed in (101, 102) if not told else (101,):  # a season pair of the told bot's game takes about a minute
        cheat, twin, player = season_pair(game, seed)
        assert player.known > 0  # it did find earlier rotations' cards and used them
        gain = cheat.mean_change[0] - twin.mean_change[0]
        flags = audit_season(cheat.games, higher)[0].flags
        if not told:
            assert gain > 50 and flags, (game, seed, gain)
        else:
            assert flags or abs(gain) < 15, (game, seed, gain)


@pytest.mark.slow  # left out of `make check`; `make test` runs it
def test_a_bot_that_uses_its_memory_only_in_its_2nd_and_3rd_rotations_is_flagged_by_the_held_hands() -> None:
    """A game with a held-hand scorer (``GameSpec.held_fit``): bench.bench_audit's remembering bot, using what it
    remembers only in the 2nd and 3rd rotation it plays of a deal, gains over its twin and is flagged by the
    held-hands test in each of 2 seasons (later-less-first flagged it in 5 of 30); no honest bot of its seasons is."""
    game = game_with(lambda s: s.held_fit is not None and s.name in MATCHES, "with a held-hand scorer")
    for seed in (201, 202):
        cheat, twin, player = season_pair(game, seed, only=frozenset({1, 2}))
        assert player.known > 0
        audit = audit_season(cheat.games, spec(game).higher_score_is_better)
        assert cheat.mean_change[0] - twin.mean_change[0] > 30, seed
        assert HELD_HANDS in {t.name for t in audit[0].flags}, (seed, audit[0].tests)
        assert not any(audit[b].flags for b in range(1, 4)), seed


def test_detrend_takes_off_the_mean_of_other_deals_rotations_around_each_one() -> None:
    """Groups played alternately: a rotation with ``window`` rotations on each side is taken less the mean of the
    other groups' rotations among them (its own group's are left out)."""
    scores = [float(k * k % 7) for k in range(12)]  # rotation k of the season: group k % 2, score scores[k]
    groups = [([scores[k] for k in range(g, 12, 2)], [(0.0, k) for k in range(g, 12, 2)]) for g in range(2)]
    out = detrend(groups, window=3)
    for k in range(3, 9):
        others = [scores[j] for j in range(k - 3, k + 4) if j % 2 != k % 2]
        assert out[k % 2][k // 2] == pytest.approx(scores[k] - sum(others) / len(others))
    assert detrend([([5.0, 6.0], [(0.0, 0), (0.0, 1)])], window=4) == [[5.0, 6.0]]  # nothing around: kept


def test_detrend_takes_a_linear_drift_out_at_the_seasons_ends_too() -> None:
    """A bot whose every score is 2 + 0.5 x its place in the order of play: the drift is taken out exactly in every
    rotation, the first and last ``window`` too (where a mean of the rotations around would leave part of it). With 3
    more in group 0's later rotations, group 0 keeps that gain and nothing else."""
    n, window = 40, 8
    place = {g: [k for k in range(n) if k % 10 == g] for g in range(10)}

    def season(gain: float) -> list[tuple[list[float], list[tuple[float, int]]]]:
        return [([2 + 0.5 * k + (gain if g == 0 and k != place[0][0] else 0.0) for k in place[g]],
                 [(float(k), 0) for k in place[g]]) for g in range(10)]

    assert all(v == pytest.approx(0.0, abs=1e-9) for row in detrend(season(0.0), window=window) for v in row)
    assert detrend(season(3.0), window=window)[0] == pytest.approx([0.0, 3.0, 3.0, 3.0])


def _drifting_season(rng: random.Random, drift: dict[int, float], memory: dict[int, float]) -> list[AuditGame]:
    """24 deal groups of 4 rotations of bots 0..3 (tables of 4), played in blocks of 8 groups whose 32 rotations are
    shuffled together, as the schedule interleaves them. A seat's change is noise, plus ``drift[bot]`` times the
    number of games played so far (a bot that gets better over the season), plus ``memory[bot]`` in the rotations
    of a deal it has already played."""
    games, played = [], 0
    for block in range(3):
        rotations = [(group, r) for group in range(8 * block, 8 * block + 8) for r in range(4)]
        rng.shuffle(rotations)
        seen: dict[int, int] = {}
        for group, r in rotations:
            seats = tuple((s - r) % 4 for s in range(4))
            later = seen.get(group, 0) > 0
            seen[group] = seen.get(group, 0) + 1
            changes = tuple(rng.gauss(0, 1) + drift.get(b, 0.0) * played + (memory.get(b, 0.0) if later else 0.0)
                            for b in seats)
            games.append(AuditGame(4 * group + r, group, seats, changes, played=float(played)))
            played += 1
    return games


def test_a_bot_that_gets_better_over_the_season_is_not_read_as_remembering() -> None:
    """Bot 0 gets better by 0.08 a game (about 8 noise units over the season) and remembers nothing; bot 1 gains 1.5
    in the rotations of a deal it has played. Taking each rotation less the bot's scores in other deals' rotations
    around it leaves bot 0 unflagged in 20 seasons (18 of 20 flagged without that step) and flags bot 1 in at least
    18 (20 here)."""
    rng = random.Random(5)
    drifter = remembering = raw_drifter = 0
    for _ in range(20):
        games = _drifting_season(rng, {0: 0.08}, {1: 1.5})
        audit = audit_season(games)
        drifter += LATER in {t.name for t in audit[0].flags}
        remembering += LATER in {t.name for t in audit[1].flags}
        raw = [_duplicate_scores(sorted([g for g in games if g.deal_group == k], key=lambda g: g.played or 0.0), [
            g.changes for g in sorted([g for g in games if g.deal_group == k], key=lambda g: g.played or 0.0)], 1.0)[0]
            for k in range(24)]
        raw_drifter += later_test(raw, random.Random(1))[1] < audit[0].tests[0].alpha
    assert drifter == 0
    assert remembering >= 18
    assert raw_drifter >= 15, (drifter, remembering, raw_drifter)


@dataclass
class _Moves:
    """A held fit with fixed responses by seat (``(context, response)`` pairs) and no fit of its own."""

    by_seat: dict[int, list[tuple[Hashable, float]]]
    readings: tuple[str, ...] = ()

    def responses(self, seat: int) -> list[tuple[Hashable, float]]:
        return self.by_seat.get(seat, [])

    def __call__(self, seat: int, held: frozenset[int],
                 centre: Mapping[Hashable, float] | None = None) -> tuple[float]:
        return (0.0,)


def test_a_bots_centre_is_its_mean_move_in_each_context_over_all_its_rotations() -> None:
    """The centre the held-hands test takes out is one bot's mean response per context over every rotation it
    played (whatever their order), from its own seat in each."""
    first = _Moves({0: [("a", 1.0), ("b", -1.0)], 1: [("a", 9.0)]})
    second = _Moves({1: [("a", 3.0)], 0: [("c", 9.0)]})
    centre = held_centre([((0, 1), (first, second))])
    assert centre == {"a": 2.0, "b": -1.0}
    assert held_centre([((1, 0), (second, first))]) == centre


@pytest.mark.slow  # left out of `make check`; `make test` runs it
def test_a_bot_that_uses_its_memory_in_a_few_of_its_decisions_is_flagged_by_the_held_hands() -> None:
    """A game with a held-hand scorer: bench.bench_audit's remembering bot using what it remembers in only 30% of the
    decisions it could (a bot that spreads its gain thinly) is flagged by the held-hands test in two seasons that
    went unflagged before each move was taken less the bot's usual move in that spot (seasons 3 and 9 of
    ``python -m bench.bench_audit --thin 0.3 --games svara --seasons 30``: 27 of 30 flagged before, 30 of 30
    after), and no honest bot of its seasons is."""
    game = game_with(lambda s: s.held_fit is not None and s.name in MATCHES, "with a held-hand scorer")
    for seed in (1_000_006, 1_000_012):
        cheat, twin, player = season_pair(game, seed, restraint=Restraint(0.3))
        assert player.known > 0
        audit = audit_season(cheat.games, spec(game).higher_score_is_better)
        assert cheat.mean_change[0] - twin.mean_change[0] > 15, seed
        assert HELD_HANDS in {t.name for t in audit[0].flags}, (seed, audit[0].tests)
        assert not any(audit[b].flags for b in range(1, 4)), seed


@pytest.mark.slow  # left out of `make check`; `make test` runs it
def test_a_framer_that_plays_by_one_remembered_hand_is_flagged_and_its_target_is_not() -> None:
    """A game with a framer of the held-hands test (bench.bench_audit's ``FRAMERS``): where it holds cards its honest
    target held in an earlier rotation and knows the target's hand, it stakes the most when it beats that hand and
    sees when it does not. Read against the best held hand it went unflagged in 19 of 20 seasons; read against each
    held hand apart and against its own odds in the spot it is flagged by the held-hands test (29 of 30 seasons of
    ``python -m bench.bench_audit --frame --seasons 30``, these two among them), and its target is not. The flag's
    line names the reading that carried it."""
    game = game_with(lambda s: s.held_fit is not None and s.name in FRAMERS and s.name in MATCHES, "with a framer")
    params, _ = MATCHES[game]
    for seed in (1_000_003, 1_000_004):
        framer = FRAMERS[game](target=1)
        season = simulate_season(game, params, [framer, *honest_opponents(game)], seed)
        audit = audit_season(season.games, spec(game).higher_score_is_better)
        assert framer.framed > 0
        assert HELD_HANDS in {t.name for t in audit[0].flags}, (seed, audit[0].tests)
        assert not audit[1].flags, (seed, audit[1].tests)
        flag = next(t for t in audit[0].flags if t.name == HELD_HANDS)  # the line names the reading that carried it
        readings = next(g.held for g in season.games if g.held is not None).readings
        assert flag.reading in readings and f"(read against {flag.reading})" in flag.message(), flag.message()


@pytest.mark.slow  # left out of `make check`; `make test` runs it
def test_honest_seasons_raise_few_false_alarms() -> None:
    """Honest duplicate seasons (the twins: reference bots only): p-values of the later-rotations test spread
    evenly (a randomisation test is exact), and no season of 10 is flagged (expected 0.1 at the 1% rate;
    bench.bench_audit measures the rate on hundreds)."""
    game = game_with(lambda s: s.name in MATCHES, "with a remembering bot in bench.bench_audit")
    p_values, alarms = [], 0
    for seed in range(10):
        twin = twin_season(game, 500 + seed)
        audit = audit_season(twin.games)
        alarms += any(a.flags for a in audit.values())
        p_values += [t.p_value for a in audit.values() for t in a.tests if t.name == LATER]
    assert alarms == 0
    assert len(p_values) == 40
    low = sum(p < 0.25 for p in p_values)
    assert 2 <= low <= 20, sorted(p_values)  # Binomial(40, 0.25): mean 10, sd 2.7
    assert math.isclose(sum(p_values) / 40, 0.5, abs_tol=0.15)


@pytest.mark.slow  # left out of `make check`; `make test` runs it
def test_a_bot_that_learns_from_its_results_over_the_season_raises_no_flag() -> None:
    """An honest bot that gets better over the season from its own results (bench.bench_audit's Learner: its share of
    random moves falls after every game, faster after a loss) improves from one rotation of a deal to the next only
    as it does over the season: in 5 seasons no bot is flagged, and the learner did learn (its share fell from 0.5
    to below 0.3). ``python -m bench.bench_audit --honest-only --learner`` measures the rate on hundreds."""
    game = game_with(lambda s: s.name in MATCHES, "with a remembering bot in bench.bench_audit")
    params, make = MATCHES[game]
    for seed in range(5):
        opponents = honest_opponents(game, learner=True)
        assert isinstance(opponents[1], Learner)
        season = simulate_season(game, params, [make(False), *opponents], 700 + seed)
        audit = audit_season(season.games, spec(game).higher_score_is_better)
        assert not any(a.flags for a in audit.values()), (seed, {b: a.flags for b, a in audit.items()})
        assert opponents[1].share < 0.3, opponents[1].share


def test_a_rerun_rotation_is_left_out_of_its_groups_comparison() -> None:
    """A game stored from a rerun attempt dealt other cards than its duplicate group (rules §4.3):
    the audit reads the group's other rotations only."""
    from dataclasses import replace

    from league.competition.standings import audit_games
    from referee.bots import load_bot
    from referee.clients import InProcessBotClient
    from referee.games import make_params
    from referee.referee import play

    game, params = GAME, QUICK
    clients = [InProcessBotClient(load_bot(STRONG).act) for _ in range(3)]
    records = [play(spec(game), make_params(game, params), 3, 99, clients, game_id=f"g-{n}") for n in range(3)]
    deals = [(n + 1, n, 0, 99, "done") for n in range(3)]
    seated = [(0, (1, 2, 3), records[0]), (1, (2, 3, 1), records[1]), (2, (3, 1, 2), records[2])]
    assert [g.number for g in audit_games(spec(game), deals, seated)] == [0, 1, 2]
    seated[1] = (1, (2, 3, 1), replace(records[1], attempt=2))
    assert [g.number for g in audit_games(spec(game), deals, seated)] == [0, 2]
