"""Run states stay distinguishable for red-green colour blindness and on a dimmed projector,
and a failed run differs from a successful one by pattern as well as colour.

Colour blindness is simulated with Machado, Oliveira and Fernandes (2009) at full
severity (deuteranopia and protanopia), as colorspacious implements it; distances are
Euclidean in CAM02-UCS, where about 1 unit is a just-noticeable difference. The dimmed
projector is a model of ours: 35% of the light, plus 12% washed in by the room (in
linear light), which compresses every distance; it is checked with deuteranopia too.
"""

from __future__ import annotations

import itertools
from datetime import timedelta

import colorspacious
import numpy as np
import pytest
from PySide6 import QtGui
from pytestqt.qtbot import QtBot

from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.simulate import make_simulation
from explorer.ui.theme import _DARK_TONES, _LIGHT_TONES
from explorer.ui.timeline.pane import TimelinePane
from explorer.ui.timeline.style import NORMAL, PRESENTATION
from tests.ui.conftest import EXAMPLES

pytestmark = pytest.mark.gui

STATES = ("queued", "running", "success", "failed")


def rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])


def dimmed(colour: np.ndarray) -> np.ndarray:
    linear = colorspacious.cspace_convert(colour, "sRGB1", "sRGB1-linear")
    return np.clip(
        colorspacious.cspace_convert(0.35 * linear + 0.12, "sRGB1-linear", "sRGB1"), 0, 1
    )


def distance(a: str, b: str, *, cvd: str | None = None, dim: bool = False) -> float:
    space: object = {"name": "sRGB1+CVD", "cvd_type": cvd, "severity": 100} if cvd else "sRGB1"
    x, y = rgb(a), rgb(b)
    if dim:
        x, y = dimmed(x), dimmed(y)
    ux = colorspacious.cspace_convert(x, space, "CAM02-UCS")
    uy = colorspacious.cspace_convert(y, space, "CAM02-UCS")
    return float(np.linalg.norm(ux - uy))


#: (condition, minimum CAM02-UCS distance between any two state colours).
CONDITIONS = [
    ("normal vision", {}, 25.0),
    ("deuteranopia", {"cvd": "deuteranomaly"}, 20.0),
    ("protanopia", {"cvd": "protanomaly"}, 20.0),
    ("dimmed projector", {"dim": True}, 11.0),
    ("dimmed projector, deuteranopia", {"dim": True, "cvd": "deuteranomaly"}, 10.0),
]


@pytest.mark.parametrize("style", [NORMAL, PRESENTATION], ids=["normal", "presentation"])
@pytest.mark.parametrize(
    ("condition", "how", "minimum"), CONDITIONS, ids=[c[0] for c in CONDITIONS]
)
def test_every_two_run_states_stay_apart(
    style: object, condition: str, how: dict[str, object], minimum: float
) -> None:
    colours = dict(zip(STATES, style.state_colours, strict=True))  # type: ignore[attr-defined]
    for (a, ca), (b, cb) in itertools.combinations(colours.items(), 2):
        d = distance(ca, cb, **how)  # type: ignore[arg-type]
        assert d >= minimum, f"{a} and {b} are {d:.1f} apart under {condition}"


@pytest.mark.parametrize("tones", [_LIGHT_TONES, _DARK_TONES], ids=["light", "dark"])
@pytest.mark.parametrize(
    ("condition", "how", "minimum"), CONDITIONS, ids=[c[0] for c in CONDITIONS]
)
def test_a_failed_badge_is_not_an_ok_badge_in_another_shade(
    tones: dict[str, QtGui.QColor], condition: str, how: dict[str, object], minimum: float
) -> None:
    d = distance(tones["ok"].name(), tones["failed"].name(), **how)  # type: ignore[arg-type]
    assert d >= minimum, f"ok and failed badges are {d:.1f} apart under {condition}"


def test_a_failed_run_is_hatched_and_a_successful_one_is_solid(qtbot: QtBot) -> None:
    """Drawn at the same zoom, the failed bar shows stripes (two colours inside it), the
    successful bar one flat colour: the difference survives a grey-scale printout."""
    inputs = build_engine_inputs(load_scenario(EXAMPLES / "producer_fails_silence.json"))
    sim = make_simulation(inputs)
    sim.advance_to(inputs.until or inputs.start + timedelta(days=7))
    failed = next(r for r in sim.runs if r.state == "failed")
    success = next(r for r in sim.runs if r.state == "success" and r.dag_id == failed.dag_id)
    pane = TimelinePane()
    qtbot.addWidget(pane)
    pane.resize(1400, 500)
    pane.show()
    qtbot.waitExposed(pane)
    pane.show_simulation(sim)
    lane = pane.lane_index(failed.dag_id)
    assert lane is not None

    def colours_inside(run: object) -> set[int]:
        start, end = run.start_date, run.end_date  # type: ignore[attr-defined]
        pane.set_x_range(start - (end - start) * 0.5, end + (end - start) * 0.5)
        image = pane.plot.grab().toImage()
        colours = set()
        for fraction in np.linspace(0.2, 0.8, 25):
            at = start + (end - start) * float(fraction)
            for dy in (0.12, 0.18, 0.24):  # inside the execution band (lane + 0.04 .. 0.32)
                scene = pane.viewbox.mapViewToScene(
                    QtGui.QVector2D(at.timestamp(), lane + dy).toPointF()
                )
                point = pane.plot.mapFromScene(scene)
                colours.add(image.pixel(point.x(), point.y()))
        return colours

    failed_colours = colours_inside(failed)
    success_colours = colours_inside(success)
    assert len(success_colours) == 1
    assert QtGui.QColor(next(iter(success_colours))).name() == NORMAL.state_colours[2]
    assert len(failed_colours) >= 2  # the failed colour and the stripes over it
    assert QtGui.QColor(NORMAL.state_colours[3]).rgb() in failed_colours
