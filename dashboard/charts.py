"""Small inline SVG charts drawn on the server (no JavaScript, no external library)."""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape


def line_chart(values: Sequence[float], *, width: int = 640, height: int = 200, label: str = "Elo",
               baseline: float | None = 1500.0) -> Markup:
    """A line of ``values`` (one point per game) with the min/max on the axis and a dashed baseline."""
    if not values:
        return Markup('<p class="muted">No rated games yet.</p>')
    pad_l, pad_r, pad_t, pad_b = 48, 10, 10, 22
    lo, hi = min(values), max(values)
    if baseline is not None:
        lo, hi = min(lo, baseline), max(hi, baseline)
    if hi - lo < 1:
        lo, hi = lo - 1, hi + 1
    w, h = width - pad_l - pad_r, height - pad_t - pad_b
    n = len(values)

    def x(i: int) -> float:
        return pad_l + (w * i / (n - 1) if n > 1 else w / 2)

    def y(v: float) -> float:
        return pad_t + h * (hi - v) / (hi - lo)

    points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)} history">',
        f'<line class="axis" x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{pad_t + h}"/>',
        f'<line class="axis" x1="{pad_l}" y1="{pad_t + h}" x2="{pad_l + w}" y2="{pad_t + h}"/>',
        f'<text class="tick" x="{pad_l - 4}" y="{y(hi) + 4:.1f}" text-anchor="end">{hi:.0f}</text>',
        f'<text class="tick" x="{pad_l - 4}" y="{y(lo) + 4:.1f}" text-anchor="end">{lo:.0f}</text>',
        f'<text class="tick" x="{pad_l + w}" y="{height - 6}" text-anchor="end">{n} games</text>',
    ]
    if baseline is not None:
        parts.append(f'<line class="baseline" x1="{pad_l}" y1="{y(baseline):.1f}" x2="{pad_l + w}" y2="{y(baseline):.1f}"/>')
    parts.append(f'<polyline class="line" points="{points}"/>')
    parts.append(f'<circle class="dot" cx="{x(n - 1):.1f}" cy="{y(values[-1]):.1f}" r="3"><title>{values[-1]:.1f}</title></circle>')
    parts.append("</svg>")
    return Markup("".join(parts))


def histogram(edges: Sequence[float], bins: Sequence[int], *, width: int = 640, height: int = 160,
              unit: str = "ms") -> Markup:
    """Bars of ``bins`` over ``edges`` (``len(edges) == len(bins) + 1``); the last bin holds the
    tail (everything from ``edges[-2]`` up) and is labelled so."""
    if not bins or not any(bins):
        return Markup('<p class="muted">No decisions yet.</p>')
    pad_l, pad_r, pad_t, pad_b = 40, 10, 8, 22
    w, h = width - pad_l - pad_r, height - pad_t - pad_b
    top = max(bins)
    bw = w / len(bins)
    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="latency histogram">',
             f'<line class="axis" x1="{pad_l}" y1="{pad_t + h}" x2="{pad_l + w}" y2="{pad_t + h}"/>',
             f'<text class="tick" x="{pad_l - 4}" y="{pad_t + 8}" text-anchor="end">{top}</text>']
    last = len(bins) - 1
    for i, count in enumerate(bins):
        bh = h * count / top
        span = f"\u2265 {edges[i]:.2f} {unit} (the tail)" if i == last else f"{edges[i]:.2f}\u2013{edges[i + 1]:.2f} {unit}"
        parts.append(f'<rect class="bar" x="{pad_l + i * bw + 1:.1f}" y="{pad_t + h - bh:.1f}" '
                     f'width="{max(bw - 2, 1):.1f}" height="{bh:.1f}"><title>{span}: {count}</title></rect>')
    parts.append(f'<text class="tick" x="{pad_l}" y="{height - 6}">{edges[0]:g} {unit}</text>')
    parts.append(f'<text class="tick overflow" x="{pad_l + w}" y="{height - 6}" text-anchor="end">'
                 f'last bar: \u2265 {edges[last]:g} {unit}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def series_chart(series: Sequence[tuple[str, Sequence[tuple[float, float, float, float]]]], *, width: int = 640,
                 height: int = 220, x_label: str = "rated games") -> Markup:
    """Several lines on one axis: ``series`` is ``(label, [(x, y, low, high), ...])`` with ``x`` increasing
    (a ladder's rated games) and ``y`` a rating with its 95% interval ``low``-``high`` drawn as a band
    for a one-series chart. Each line ends in a dot titled with its label and value; a legend follows."""
    drawn = [(label, pts) for label, pts in series if pts]
    if not drawn:
        return Markup('<p class="muted">No rating stored yet: the ladder stores its ratings every few rated games.</p>')
    pad_l, pad_r, pad_t, pad_b = 48, 10, 10, 22
    xs = [p[0] for _, pts in drawn for p in pts]
    ys = [v for _, pts in drawn for p in pts for v in ((p[2], p[3]) if len(drawn) == 1 else (p[1],))]
    x0, x1 = min(xs), max(xs)
    lo, hi = min(ys), max(ys)
    if hi - lo < 1:
        lo, hi = lo - 1, hi + 1
    if x1 <= x0:
        x0, x1 = x0 - 1, x1
    w, h = width - pad_l - pad_r, height - pad_t - pad_b

    def x(v: float) -> float:
        return pad_l + w * (v - x0) / (x1 - x0)

    def y(v: float) -> float:
        return pad_t + h * (hi - v) / (hi - lo)

    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="rating history">',
        f'<line class="axis" x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{pad_t + h}"/>',
        f'<line class="axis" x1="{pad_l}" y1="{pad_t + h}" x2="{pad_l + w}" y2="{pad_t + h}"/>',
        f'<text class="tick" x="{pad_l - 4}" y="{y(hi) + 4:.1f}" text-anchor="end">{hi:.0f}</text>',
        f'<text class="tick" x="{pad_l - 4}" y="{y(lo) + 4:.1f}" text-anchor="end">{lo:.0f}</text>',
        f'<text class="tick" x="{pad_l + w}" y="{height - 6}" text-anchor="end">{x1:.0f} {escape(x_label)}</text>',
    ]
    if len(drawn) == 1:
        pts = drawn[0][1]
        band = [f"{x(p[0]):.1f},{y(p[3]):.1f}" for p in pts] + [f"{x(p[0]):.1f},{y(p[2]):.1f}" for p in reversed(pts)]
        parts.append(f'<polygon class="band" points="{" ".join(band)}"><title>95% interval</title></polygon>')
    legend = []
    for i, (label, pts) in enumerate(drawn):
        points = " ".join(f"{x(p[0]):.1f},{y(p[1]):.1f}" for p in pts)
        last = pts[-1]
        parts.append(f'<polyline class="line s{i % 8}" points="{points}"/>')
        parts.append(f'<circle class="dot s{i % 8}" cx="{x(last[0]):.1f}" cy="{y(last[1]):.1f}" r="3">'
                     f'<title>{escape(label)}: {last[1]:.0f}</title></circle>')
        legend.append(f'<span class="key s{i % 8}">{escape(label)}</span>')
    parts.append("</svg>")
    return Markup("".join(parts) + '<p class="legend small">' + " ".join(legend) + "</p>")
