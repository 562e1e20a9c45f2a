"""When an asset that only alias emissions created becomes resolvable by ``Asset.ref``.

An alias emission may name an asset no DAG file declares: Airflow creates the
asset row on the fly (AS-9), but not as an *active* asset. The scheduler's
asset-orphanage housekeeping (every 60 s, ``parsing_cleanup_interval``)
activates it; only from then on does an ``Asset.ref(name=...)`` /
``Asset.ref(uri=...)`` resolve to it, so only events from then on queue the
DAGs scheduled on such a reference, and conditions see it resolved
(conformance README 7.10 leaves it out of the traces; see SEMANTICS AS-9).

The housekeeping instants lie on a 60-s grid from the clock's start. An asset
created at ``t`` is activated at the first grid instant strictly after ``t``
(the job that runs at the very instant of the emission has already looked at
the assets before the task reported it). A parse that declares the asset makes
it active at once, like any asset a DAG references.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from explorer.engine.assets.condition import AssetKey

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = ["HOUSEKEEPING", "activate_due", "next_activation", "note_created_by_alias"]

#: The orphanage job's period (the scheduler's 60-s housekeeping).
HOUSEKEEPING = timedelta(seconds=60)


def note_created_by_alias(sim: Host, key: AssetKey, at: datetime) -> None:
    """``key`` was created by an alias emission at ``at``: resolvable from the next
    housekeeping instant on."""
    k = (at - sim.start) // HOUSEKEEPING + 1
    sim.state.assets.activates_at[key] = sim.start + k * HOUSEKEEPING


def next_activation(sim: Host) -> datetime | None:
    pending = sim.state.assets.activates_at
    return min(pending.values()) if pending else None


def activate_due(sim: Host, now: datetime) -> bool:
    """The housekeeping at or before ``now`` activates the assets due by then.

    True when it activated any: the caller then re-evaluates readiness, since a
    reference may resolve now (AS-3).
    """
    pending = sim.state.assets.activates_at
    due = [key for key, at in pending.items() if at <= now]
    for key in due:
        del pending[key]
    return bool(due)
