"""What the DAG processor sees (options in force, files present): the data alone.

The rules that change it are in :mod:`explorer.engine.deployment`; the record lives
here so that the simulation's state can hold it without importing them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from explorer.engine.assets.partition_requests import PartitionRequest
from explorer.engine.dagfile import DagFile
from explorer.engine.options import AirflowOptions

__all__ = ["DeploymentState"]


@dataclass(slots=True)
class DeploymentState:
    """What the DAG processor sees: the options in force and the files in the bundle."""

    options: AirflowOptions = field(default_factory=AirflowOptions)
    #: The DAG files present now, by dag_id (a removed file is absent).
    files: dict[str, DagFile] = field(default_factory=dict)
    #: Grid refreshes still to run (sorted): only those that can change something.
    refreshes: list[datetime] = field(default_factory=list)
    #: Partition requests deleted while pending (DEP-8), with the tick that deleted them.
    dropped_requests: list[tuple[PartitionRequest, datetime]] = field(default_factory=list)
