"""The season page's head-to-head table as HTML, built here rather than in the template: a ladder epoch of 100
bots has 10,000 cells, which took Jinja about 0.2 s a page and take this about a tenth of that."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape


def crosstable_html(bots: Sequence[Any], cells: Mapping[tuple[int, int], Any], season_id: int) -> Markup:
    """The ``<table id="crosstable">`` of ``bots`` (objects with ``id`` and ``name``), row bot against column bot:
    ``cells[(row id, column id)]`` has ``games``, ``wins``, ``losses`` and ``draws`` (a missing pair shows a dot),
    each cell shaded by the row bot's share of points (a win 1, a draw 0.5)."""
    names = {b.id: escape(b.name) for b in bots}
    links = {b.id: f'<a href="/bots/{b.id}?season_id={season_id}">{names[b.id]}</a>' for b in bots}
    out = ['<table class="grid crosstable" id="crosstable">\n<thead><tr><th></th>']
    out.extend(f'<th class="rot">{links[b.id]}</th>' for b in bots)
    out.append("</tr></thead>\n<tbody>\n")
    for a in bots:
        out.append(f"<tr><th>{links[a.id]}</th>")
        for b in bots:
            c = cells.get((a.id, b.id))
            if a.id == b.id:
                out.append('<td class="self"></td>')
            elif c:
                share = (c.wins + 0.5 * c.draws) / c.games
                draws = f" ({c.draws})" if c.draws else ""
                out.append(f'<td class="h2h" style="--share: {share}" title="{names[a.id]} vs {names[b.id]}: '
                           f'{c.games} games, {c.wins} wins, {c.losses} losses, {c.draws} draws">'
                           f"{c.wins}–{c.losses}{draws}</td>")
            else:
                out.append('<td class="muted">·</td>')
        out.append("</tr>\n")
    out.append("</tbody>\n</table>")
    return Markup("".join(out))
