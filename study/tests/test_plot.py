"""The study's chart: one interval per game, drawn where its figures say."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from study.cli import main
from study.figures import study_figures
from study.plot import LEFT, RIGHT, WIDTH, win_rate_svg

SVG = "{http://www.w3.org/2000/svg}"


def _study(path: Path, game: str, statuses: list[str]) -> None:
    rows = [{"game": game, "seed": s, "status": st, "seconds": 0.1} for s, st in enumerate(statuses)]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")


def test_each_game_gets_its_interval_proven_share_and_the_published_tick(tmp_path: Path) -> None:
    _study(tmp_path / "k.jsonl", "klondike", ["solved"] * 90 + ["unsolvable"] * 5 + ["unknown"] * 5)
    _study(tmp_path / "m.jsonl", "maria", ["solved"] * 40 + ["unknown"] * 60)
    figures = study_figures([str(tmp_path / "k.jsonl"), str(tmp_path / "m.jsonl")])
    root = ET.fromstring(win_rate_svg(figures))
    bars = {r.get("data-game"): r for r in root.iter(f"{SVG}rect") if r.get("class") == "interval"}
    assert set(bars) == {"klondike", "maria"}
    scale = WIDTH - LEFT - RIGHT
    for f in figures:
        bar = bars[f.game]
        assert abs(float(bar.attrib["x"]) - (LEFT + f.low * scale)) < 0.1
        assert abs(float(bar.attrib["x"]) + float(bar.attrib["width"]) - (LEFT + f.high * scale)) < 0.1
    klondike = next(f for f in figures if f.game == "klondike")
    assert klondike.low < 0.90 < 0.95 < klondike.high  # 90/100 proven, at most 95/100
    dots = [float(c.attrib["cx"]) for c in root.iter(f"{SVG}circle")]
    assert [round((x - LEFT) / scale, 3) for x in dots] == [0.4, 0.9]  # GAME_IDS order: maria, then klondike
    ticks = [line for line in root.iter(f"{SVG}line") if line.get("class") == "published"]
    assert len(ticks) == 1 and abs(float(ticks[0].attrib["x1"]) - (LEFT + 0.9048 * scale)) < 0.1


def test_the_plot_command_writes_the_file(tmp_path: Path) -> None:
    _study(tmp_path / "l.jsonl", "lucas", ["solved"] * 3)
    out = tmp_path / "chart.svg"
    assert main(["plot", str(tmp_path / "l.jsonl"), "--out", str(out)]) == 0
    assert ET.fromstring(out.read_text()).tag == f"{SVG}svg"
