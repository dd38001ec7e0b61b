"""The league: schedules, ratings and standings, in rooms by concern (pure functions over game rankings).

- ``league.ratings``: Elo, maximum-likelihood ratings, luck, the sequential and A/B tests (the bottom room);
- ``league.integrity``: fair deals from a committed key, the chain of stored records, verification, the duplicate audit;
- ``league.competition``: seasons, schedules, ladders, matchmaking, standings;
- ``league.entry``: the entry checks, the network policy and the identity check a bot passes, apart from the others;
- ``league.policy``: the league's decisions the store applies in its transactions (what the store is given);
- ``league.names``: "did you mean" for a name not found.

Which room may import which is checked by the import-linter contracts of ``pyproject.toml``
(``league-rooms``, ``league-entry-apart``, ``league-entry-alone``).
"""
