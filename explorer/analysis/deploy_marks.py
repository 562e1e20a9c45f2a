"""The marks a scenario's deployment changes leave, for a scenario's engine inputs.

:func:`explorer.engine.change_marks.deploy_report` needs a way to make a
simulation from a script; this is the scenario's way (the same
:func:`~explorer.scenario.simulate.make_simulation` the CLI and the app use),
so the timeline, a test and a report get the same marks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime

from explorer.engine.actions import Action
from explorer.engine.change_marks import ChangeAction, DeployReport, deploy_report
from explorer.engine.simulation import Simulation
from explorer.scenario.build import EngineInputs
from explorer.scenario.simulate import make_simulation

__all__ = ["deploy_report_for"]


def deploy_report_for(inputs: EngineInputs, until: datetime) -> DeployReport | None:
    """What the change actions of ``inputs``' script do to the runs up to ``until``
    (None when the script has none)."""

    def make(script: Sequence[Action | ChangeAction]) -> Simulation:
        return make_simulation(dataclasses.replace(inputs, script=tuple(script)))

    return deploy_report(make, inputs.script, until)
