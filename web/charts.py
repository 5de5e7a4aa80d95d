"""Small inline SVG line charts, drawn here so the page needs no chart library or CDN.

Each player's line has its own colour (Okabe-Ito, safe for colour-blind eyes), its own marker
shape and its own dash pattern, and is labelled at its end: no colour is needed to tell them
apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#CC79A7")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "1 2")
W, H = 360, 214
LEFT, RIGHT, TOP, BOTTOM = 34, 64, 36, 26


def _marker(shape: int, x: float, y: float, colour: str) -> str:
    r = 3.5
    if shape == 0:
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{colour}"/>'
    if shape == 1:
        return (f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}" '
                f'fill="{colour}"/>')
    if shape == 2:
        pts = f"{x:.1f},{y - r - 1:.1f} {x - r - 1:.1f},{y + r:.1f} {x + r + 1:.1f},{y + r:.1f}"
    elif shape == 3:
        pts = f"{x:.1f},{y - r - 1:.1f} {x + r + 1:.1f},{y:.1f} {x:.1f},{y + r + 1:.1f} " \
              f"{x - r - 1:.1f},{y:.1f}"
    else:
        return (f'<path d="M{x - r:.1f} {y - r:.1f}L{x + r:.1f} {y + r:.1f}M{x - r:.1f} '
                f'{y + r:.1f}L{x + r:.1f} {y - r:.1f}" stroke="{colour}" stroke-width="2"/>')
    return f'<polygon points="{pts}" fill="{colour}"/>'


def _ticks(lo: int, hi: int) -> list[int]:
    span = max(hi - lo, 1)
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, 10**9)
                if span / s <= 6)
    first = (lo // step) * step
    return [v for v in range(first, hi + step, step) if lo <= v <= hi]


def line_chart(title: str, names: Sequence[str], series: Sequence[Sequence[int]],
               x_labels: Sequence[str], y_label: str = "") -> str:
    """An SVG line chart: one line per name; every series has len(x_labels) points."""
    if not series or not x_labels or any(len(s) != len(x_labels) for s in series):
        raise ValueError("each series needs one value per x label")
    values = [v for s in series for v in s]
    lo, hi = min(0, *values), max(1, *values)
    plot_w, plot_h = W - LEFT - RIGHT, H - TOP - BOTTOM
    n = len(x_labels)

    def px(i: int) -> float:
        return LEFT + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def py(v: float) -> float:
        return TOP + plot_h * (hi - v) / (hi - lo)

    parts = [f'<svg class="chart" viewBox="0 0 {W} {H}" role="img" '
             f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
             f'<title>{escape(title)}</title>',
             f'<text x="{LEFT}" y="14" class="chart-title">{escape(title)}</text>']
    for v in _ticks(lo, hi):
        y = py(v)
        cls = "axis zero" if v == 0 else "axis"
        parts.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'class="{cls}"/>')
        parts.append(f'<text x="{LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{v}</text>')
    label_every = max(1, n // 10)
    for i, label in enumerate(x_labels):
        if i % label_every == 0 or i == n - 1:
            parts.append(f'<text x="{px(i):.1f}" y="{H - 8}" text-anchor="middle">'
                         f'{escape(label)}</text>')
    if y_label:
        parts.append(f'<text x="4" y="28" class="chart-unit">{escape(y_label)}</text>')
    ends: list[float] = []
    for k, (name, values_k) in enumerate(zip(names, series, strict=True)):
        colour, dash = PALETTE[k % len(PALETTE)], DASHES[k % len(DASHES)]
        points = " ".join(f"{px(i):.1f},{py(v):.1f}" for i, v in enumerate(values_k))
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" '
                     f'stroke-width="2"{dash_attr}/>')
        parts.extend(_marker(k % 5, px(i), py(v), colour) for i, v in enumerate(values_k))
        y_end = py(values_k[-1])
        while any(abs(y_end - e) < 11 for e in ends):  # keep end labels from overlapping
            y_end += 11
        ends.append(y_end)
        parts.append(f'<text x="{W - RIGHT + 6}" y="{y_end + 4:.1f}" fill="{colour}">'
                     f'{escape(name)} {values_k[-1]}</text>')
    parts.append("</svg>")
    return "".join(parts)
