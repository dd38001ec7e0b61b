"""Competitions: seasons and ladders, who plays whom, and the standings they publish.

Season schedules (``schedule``) and their creation (``seasons``), sequential seasons
(``sequential``), the always-on ladder (``ladder``), its matchmaking (``matchmaking``), which
entrant each seat was (``entrants``), version A/B on a ladder (``compare``) and its board
(``ladder_board``), a season's standings (``standings``) and the policy for bots that do not
answer at game start (``availability``, rules §4.9). Above integrity and ratings: it deals from
``integrity.fairness`` and rates through ``ratings``.
"""
