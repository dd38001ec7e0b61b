"""The league: schedules, ratings and standings (pure functions over game rankings).

``league.elo``: multiplayer Elo by pairwise decomposition of each game's ranking.
``league.standings``: per-bot standings rows from per-seat results.
``league.schedule``: who sits where in which game of a season.
"""
