"""One router per area: the JSON API (seasons, bots, games, replays) and the HTML pages."""
