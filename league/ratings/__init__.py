"""Ratings: how strong each bot is, and how sure we are, from game rankings alone.

Multiplayer Elo (``elo``), maximum-likelihood Bradley-Terry and openskill ratings with
intervals (``ratings_ml``, kept up to date game by game in ``bt_incremental`` over the small
matrices of ``linalg``), luck-adjusted scores (``luck``), the evidence that one bot is better
than another (``pair_test``), when a sequential season may stop (``settling``) and the
version A/B test (``abtest``). Pure functions and small state; the bottom room of the league:
it imports no other.
"""
