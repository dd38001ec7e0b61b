"""The rules engines of the three games and the referee that plays them against bots."""
