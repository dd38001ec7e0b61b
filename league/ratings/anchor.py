"""A ladder's rating scale, held by the entrants already rated: a newcomer does not move it.

A Bradley-Terry fit (:mod:`league.ratings.ratings_ml`) estimates only differences; it places its ratings
so that their mean is 1500. On a ladder that scale would move whenever an entrant arrives or leaves: a
newcomer 400 points weaker than six established entrants pulls the mean down, and the fit lifts
everyone else by about 400 / 7 = 57 points, including entrants that played no game meanwhile. An
author watching their number could not tell whether their bot changed.

So a ladder's ratings are anchored as computer chess rating lists anchor theirs to fixed reference
engines: its reference is the entrants (bot versions) that played its first 100 done games, its
*founders* (``league.competition.ladder.FOUNDER_GAMES``), and every fit of the ladder is shifted so that
the founders' mean rating is 1500 (:func:`anchored` with each founder's reference at 1500); while fewer
games are done, the fit's own scale holds (every rated entrant's mean is 1500). A founder stays in the
reference after it is superseded or retired: its record stays in the fit. A newcomer's arrival then
moves an established entrant only through the games it changes: its own games, and, slightly, the games
of the entrants it is compared with (``bench/bench_ladder_anchor.py`` measures it). Differences,
intervals and every probability of being better are the fit's own: a shift changes none of them. The
founders are chosen by the stored games alone (the first done games by id), so every process that reads
the ladder finds the same scale.

Pure logic: no store, no I/O. Ratings in Elo points.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

from league.ratings.ratings_ml import MLRatings


def anchor_offset(fit: MLRatings, reference: Mapping[int, float]) -> float:
    """Elo points to add to every rating of ``fit`` so that the entrants of ``reference`` (``{entrant id:
    reference rating}``) that ``fit`` rates have the mean of their reference ratings; 0.0 when none is in
    both (the fit's own scale, mean 1500)."""
    common = sorted(e for e in reference if e in fit.rating)
    if not common:
        return 0.0
    return (math.fsum(reference[e] for e in common) - math.fsum(fit.rating[e] for e in common)) / len(common)


def shifted(fit: MLRatings, offset: float) -> MLRatings:
    """``fit`` with every rating moved by ``offset`` Elo points (intervals, covariances unchanged)."""
    if offset == 0.0:
        return fit
    return replace(fit, rating={b: r + offset for b, r in fit.rating.items()})


def anchored(fit: MLRatings, reference: Mapping[int, float]) -> MLRatings:
    """``fit`` on the scale of ``reference`` (:func:`anchor_offset`, :func:`shifted`)."""
    return shifted(fit, anchor_offset(fit, reference))
