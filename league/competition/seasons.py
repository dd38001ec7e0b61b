"""Creating a season: validate everything, build the schedule, store it as pending games.

A season is of a :class:`~referee.games.GameSpec` (its caller resolved the game id). Nothing
is written unless every parameter is valid: a table size the game does not allow or larger
than the bot list, zero games, bad game parameters or time control, a seed out of range all
raise :class:`SeasonError` with one clear message.

Every season has a key (``league.integrity.fairness``): drawn from :mod:`secrets` unless the
organiser gives a ``seed``, which makes the season *reproducible* (anyone who knows
the seed knows every card). Deal seeds and seating come from the key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from league.competition.availability import SUSPEND_AFTER_S, check_suspend_after
from league.competition.schedule import ScheduleError, build_schedule
from league.integrity import fairness
from league.names import did_you_mean
from referee.engine import BadParameters
from referee.games import GameSpec
from referee.timecontrol import TimeControl


class SeasonError(ValueError):
    """Impossible season parameters; the message says which."""


#: A season name: letters, digits and ``_ . : -``, starting with a letter or digit
#: (it appears in URLs, terminals and file names).
SEASON_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}")
#: Most games one season may schedule.
MAX_GAMES = 1_000_000


def game_setup(game_spec: GameSpec, table_sizes: Sequence[int], params: Mapping[str, Any] | None) -> Any:
    """The game's parameters (its ``params_type``), checked for every table size (the seats the game
    allows, the rules' own checks such as tokens per seat). Raises SeasonError with one line (a
    season's and a ladder's, ``league.competition.ladder``)."""
    try:
        game_params = game_spec.params(params or {})
        if not table_sizes:
            raise SeasonError("no table sizes given")
        for size in sorted(set(table_sizes)):
            if not game_spec.min_seats <= size <= game_spec.max_seats:
                raise SeasonError(f"{game_spec.name} is played by {game_spec.min_seats} to {game_spec.max_seats} seats, not {size}")
            game_spec.make_rules(game_params, size)  # the rules' own checks (e.g. tokens per seat)
    except (ValueError, BadParameters) as exc:
        raise SeasonError(str(exc)) from None
    return game_params


def author_key(author: str, bot_name: str) -> str:
    """Who a bot's author is for ``--one-per-author``: its declared author, case and spaces folded; a bot that
    declares none is an author of its own (``#<name>``)."""
    folded = " ".join(author.split()).lower()
    return folded or f"#{bot_name}"


def create_season(store, name: str, game_spec: GameSpec, bot_names: Sequence[str], table_sizes: Sequence[int], games: int,
                  seed: int | None = None, duplicate: bool = False, params: Mapping[str, Any] | None = None,
                  time_control: TimeControl | None = None, suspend_after_s: float = SUSPEND_AFTER_S,
                  extra_config: Mapping[str, Any] | None = None, one_per_author: bool = False) -> int:
    """Validate, schedule and store a season of ``game_spec``'s game; returns its id. Raises
    SeasonError (nothing written). The season's rows keep the game's id (``GameSpec.name``).

    ``seed`` None (the default): a secret season, with a fresh key; an int in
    ``[0, 2**63)``: a reproducible season whose key is ``fairness.key_from_seed(seed)``.
    ``time_control`` None: the game's defaults (``TimeControl.for_game``: its own thinking budget).
    ``suspend_after_s``: seconds a bot may go without answering at game start before it is
    suspended from the season (rules §4.9; ``league.competition.availability.SUSPEND_AFTER_RANGE_S``).
    ``extra_config``: more entries of the season's config (a sequential season's rule,
    ``league.competition.sequential``). ``one_per_author``: no table seats two bots of one author
    (:func:`author_key`; kept in the config as ``authors``, one per bot, so later batches seat alike)."""
    if seed is not None and not 0 <= seed < fairness.SEED_LIMIT:
        raise SeasonError(f"--seed must be in [0, 2**63), got {seed}")
    try:
        check_suspend_after(suspend_after_s)
    except ValueError as exc:
        raise SeasonError(str(exc)) from None
    game_params = game_setup(game_spec, table_sizes, params)
    if not SEASON_NAME.fullmatch(name):
        raise SeasonError(f"bad season name {name!r}: 1 to 80 letters, digits or _ . : - starting with a letter or digit")
    if name.isdigit():
        raise SeasonError(f"bad season name {name!r}: not all digits (the dashboard reads /seasons/{name} as a "
                          "season id); add a letter, e.g. s" + name)
    if not 1 <= games <= MAX_GAMES:
        raise SeasonError(f"a season has 1 to {MAX_GAMES:,} games, not {games}")
    if store.seasons.get_season_by_name(name) is not None:
        raise SeasonError(f"a season named {name!r} exists already")
    twice = sorted({n for n in bot_names if list(bot_names).count(n) > 1})
    if twice:
        raise SeasonError(f"listed more than once: {', '.join(twice)} (a bot takes one seat per table)")
    found = {n: store.bots.get_bot_by_name(n) for n in bot_names}
    missing = [n for n, bot in found.items() if bot is None]
    if missing:
        known = [b.name for b in store.bots.list_bots()]
        hints = "".join(did_you_mean(n, known) for n in missing)
        raise SeasonError(f"no bot named {', '.join(repr(n) for n in missing)} is registered in this store{hints} "
                          "(see: cardarena bot register, or check --db)")
    bots = [bot for bot in found.values() if bot is not None]
    retired = [b.name for b in bots if b.retired_at is not None]
    if retired:
        raise SeasonError(f"retired: {', '.join(retired)}")
    others = [b.name for b in bots if game_spec.name not in b.games]
    if others:
        raise SeasonError(f"not registered for {game_spec.name}: {', '.join(others)} (a registration covers "
                          f"the games it names; `cardarena bot update NAME --game {game_spec.name}` adds one)")
    key = fairness.new_key() if seed is None else fairness.key_from_seed(seed)
    try:
        authors = [author_key(b.author, b.name) for b in bots] if one_per_author else None
        schedule = build_schedule([b.id for b in bots], list(table_sizes), games, key, duplicate, authors)
    except ScheduleError as exc:
        raise SeasonError(str(exc)) from None
    tc = time_control or TimeControl.for_game(game_spec)
    config = {"table_sizes": list(table_sizes), "games_requested": games, "duplicate": duplicate,
              "bots": [b.name for b in bots], "suspend_after_s": suspend_after_s, **(extra_config or {})}
    if authors is not None:
        config["authors"] = authors
    return store.seasons.create_season(name, game_spec.name, asdict(game_params), tc.to_json(), seed, config,
                               [(g.seed, list(g.seats)) for g in schedule], key=key,
                               deal_groups=[g.deal_group for g in schedule])
