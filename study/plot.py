"""The study's win rates as an SVG chart (plain text, no plotting library): one row per game.

Each row shows the 95% interval (``StudyFigures.low`` .. ``high``: proven wins at the left end,
wins plus undecided deals at the right), a dot at the share of deals proven won, and, for the
Klondikes, the published Thoughtful Klondike rate as a tick, the study's soundness check.
"""

from __future__ import annotations

from html import escape

from study.figures import StudyFigures

# Published win rates (Thoughtful Klondike, "Solitaire Laboratory": 90.48 +- 0.12% draw 1,
# 81.95 +- 0.08% draw 3). Our interval must contain them.
PUBLISHED = {"klondike": (0.9048, "Thoughtful Klondike 90.48%"), "klondike-3": (0.8195, "Thoughtful Klondike 81.95%")}

WIDTH, LEFT, RIGHT, TOP, ROW = 760, 150, 30, 40, 34


def _x(rate: float) -> float:
    return LEFT + rate * (WIDTH - LEFT - RIGHT)


def win_rate_svg(figures: list[StudyFigures]) -> str:
    height = TOP + ROW * len(figures) + 40
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">',
        "<title>Win rate of each game, with its 95% interval</title>",
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
        f'<text x="{LEFT}" y="18" font-size="13">Share of deals that can be won (bar: 95% interval; '
        "dot: proven wins; tick: published rate)</text>",
    ]
    axis_y = TOP + ROW * len(figures)
    for pct in range(0, 101, 10):
        x = _x(pct / 100)
        out.append(f'<line x1="{x:.1f}" y1="{TOP - 6}" x2="{x:.1f}" y2="{axis_y}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{axis_y + 16}" text-anchor="middle">{pct}%</text>')
    for i, f in enumerate(figures):
        y = TOP + ROW * i + ROW / 2
        proven = f.won / f.deals if f.deals else 0.0
        label = f"{f.game} ({f.deals})"
        out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{escape(label)}</text>')
        out.append(
            f'<rect class="interval" data-game="{escape(f.game)}" x="{_x(f.low):.1f}" y="{y - 7:.1f}" '
            f'width="{max(1.0, _x(f.high) - _x(f.low)):.1f}" height="14" fill="#9ecae1">'
            f"<title>{escape(f.game)}: {100 * f.low:.1f}% to {100 * f.high:.1f}%; {f.won} won, {f.lost} proven lost, "
            f"{f.unknown} undecided of {f.deals}</title></rect>"
        )
        out.append(f'<circle class="proven" cx="{_x(proven):.1f}" cy="{y:.1f}" r="4" fill="#08519c"/>')
        if f.game in PUBLISHED:
            rate, name = PUBLISHED[f.game]
            x = _x(rate)
            out.append(
                f'<line class="published" x1="{x:.1f}" y1="{y - 11:.1f}" x2="{x:.1f}" y2="{y + 11:.1f}" '
                f'stroke="#d62728" stroke-width="2"><title>{escape(name)}</title></line>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"
