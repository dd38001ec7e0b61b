"""The season page's head-to-head table (``dashboard.crosstable``): cells as the template drew them, and bot names,
which bot authors choose, escaped in links and titles."""

from __future__ import annotations

from types import SimpleNamespace

from dashboard.crosstable import crosstable_html


def test_cells_and_escaped_names() -> None:
    bots = [SimpleNamespace(id=1, name='<b>"x"</b>'), SimpleNamespace(id=2, name="odds"), SimpleNamespace(id=3, name="c")]
    cells = {(1, 2): SimpleNamespace(games=4, wins=2, losses=1, draws=1),
             (2, 1): SimpleNamespace(games=4, wins=1, losses=2, draws=1)}
    html = str(crosstable_html(bots, cells, 7))
    assert "<b>" not in html and '"x"' not in html and "&lt;b&gt;&#34;x&#34;&lt;/b&gt;" in html
    assert html.count('<td class="self"></td>') == 3 and html.count('<td class="muted">·</td>') == 4
    assert ('<td class="h2h" style="--share: 0.625" title="&lt;b&gt;&#34;x&#34;&lt;/b&gt; vs odds: 4 games, 2 wins, '
            '1 losses, 1 draws">2–1 (1)</td>') in html
    assert 'href="/bots/2?season_id=7">odds</a>' in html
