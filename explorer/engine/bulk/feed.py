"""The claimed runs waiting to enter the run log, and what the loop saw meanwhile.

The run log is in creation order (``DagRun.id``), so a claimed run must enter it
exactly where the loop would have created it: after every run created at an
earlier instant, after the runs an instant's script actions and partition
requests create (they come before its loop, SCH-1), and among the loop's own
scheduled runs by step 2's order (next_dagrun_create_after, then DAG order),
before that loop's asset-triggered runs. The loop calls :meth:`BulkFeed.before`
from ``lifecycle.new_run`` and :meth:`BulkFeed.upto` from step 2. Each claimed
run enters as it stands at the horizon (``until``): its future is known and
nothing in the loop reads a claimed DAG's runs, so there is nothing to update
later; an ended run is packed at once (adr/0006).

The feed also notes, per loop, what the loop's own DAGs asked of the per-loop
caps (step 2's candidates, step 4's eligible queued runs): ``caps`` adds the
claimed runs to them to prove no cap bound (adr/0012).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from explorer.engine.assets.scheduling import emit_task_events
from explorer.engine.bulk.series import BulkRun
from explorer.engine.errors import SimulationLimitError
from explorer.engine.runs import DagRun, TaskInstance, standard_run_id

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = ["BulkFeed", "CapBound"]


class CapBound(Exception):
    """A per-loop cap may bind with the claimed runs: the loop must simulate it all."""


@dataclass(slots=True)
class BulkFeed:
    """The claimed runs in the loop's creation order, and the loop's cap demands."""

    until: datetime
    runs: list[BulkRun]
    #: dag_ids the loop leaves alone (``dagschedule.due_at`` says they are never due).
    parked: frozenset[str]
    create_cap: int = 0
    schedule_cap: int = 0
    #: claimed runs created per loop instant
    per_loop: dict[datetime, int] = field(default_factory=dict)
    next: int = 0
    #: per loop instant: step 2's candidates and step 4's eligible runs of the loop's DAGs
    created: dict[datetime, int] = field(default_factory=dict)
    queued: dict[datetime, int] = field(default_factory=dict)

    def before(self, sim: Host, now: datetime) -> None:
        """Claimed runs created at an instant before ``now`` enter the log."""
        runs = self.runs
        while self.next < len(runs) and runs[self.next].created < now:
            self._enter(sim, runs[self.next])

    def upto(self, sim: Host, now: datetime, run_after: datetime, order: int) -> None:
        """Claimed runs of loop ``now`` that step 2 creates before a DAG with this
        (run_after, order), and every earlier one."""
        key = (now, True, run_after, order)
        runs = self.runs
        while self.next < len(runs) and runs[self.next].sort_key < key:
            self._enter(sim, runs[self.next])

    def through(self, sim: Host, now: datetime) -> None:
        """Every claimed run created at or before ``now``."""
        runs = self.runs
        while self.next < len(runs) and runs[self.next].created <= now:
            self._enter(sim, runs[self.next])

    def note_loop(self, now: datetime, candidates: int) -> None:
        """Step 2 of loop ``now`` had ``candidates`` DAGs of the loop's; with the claimed
        runs of that loop they must fit the cap (SCH-2), else :class:`CapBound`."""
        self.created[now] = max(self.created.get(now, 0), candidates)
        if candidates + self.per_loop.get(now, 0) > self.create_cap:
            raise CapBound(f"step 2 at {now.isoformat()}")

    def note_queued(self, now: datetime, eligible: int) -> None:
        """Step 4 (SCH-5), as :meth:`note_loop`."""
        self.queued[now] = max(self.queued.get(now, 0), eligible)
        if eligible + self.per_loop.get(now, 0) > self.schedule_cap:
            raise CapBound(f"step 4 at {now.isoformat()}")

    def emit(self, sim: Host, now: datetime, order: int, nth: int, task_index: int) -> None:
        """A claimed task's timer fired (``lifecycle.finish_due_tasks``, in the heap's order
        among the loop's own): its asset events are emitted as ``finish_task`` would."""
        self.before(sim, now)
        st = sim.state
        run = st.dags[sim.dag_ids[order]].runs[nth]
        st.dirty = True
        emit_task_events(sim, run, run.tasks[task_index], partition_keys=None, alias_events=None)

    def _enter(self, sim: Host, bulk: BulkRun) -> None:
        """``lifecycle.new_run`` and the loop's later steps at once, as of ``until``."""
        self.next += 1
        st = sim.state
        if len(st.runs) >= sim.run_limit:
            raise SimulationLimitError(
                f"the scenario would create more than {sim.run_limit:,} runs "
                f"(at {bulk.created.isoformat()}); raise the limit to simulate it"
            )
        dag = st.dags[sim.dag_ids[bulk.order]]
        info = bulk.info
        nth = len(dag.runs)
        at = bulk.created
        run = DagRun(
            dag_id=dag.dag_id,
            nth=nth,
            run_id=standard_run_id("scheduled", info.run_after, dag.dag_id, nth),
            run_type="scheduled",
            triggered_by="timetable",
            logical_date=info.logical_date,
            data_interval=info.data_interval,
            run_after=info.run_after,
            created_at=at,
        )
        until = self.until
        tasks = []
        for spec, end in zip(dag.spec.tasks, bulk.task_ends, strict=True):
            task = TaskInstance(spec.task_id, spec.outcome)
            task.state = "running"
            task.start_date = at
            task.finish_at = end
            if end <= until:
                task.state = "failed" if spec.outcome == "failed" else "success"
                task.end_date = end
            tasks.append(task)
        run.tasks = tasks
        run.set_state("queued", at)
        run.set_state("running", at)
        st.runs.append(run, derived_run_id=True)
        dag.note_created(run)
        if bulk.ended <= until:
            failed = any(t.state == "failed" for t in tasks)
            run.set_state("failed" if failed else "success", bulk.ended)
            del dag.active[next(i for i, r in enumerate(dag.active) if r is run)]
            st.runs.freeze(run)
