"""One way to turn a loaded scenario into a running simulation (CLI and GUI share it)."""

from __future__ import annotations

from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.scenario.build import EngineInputs

__all__ = ["make_simulation"]


def make_simulation(
    inputs: EngineInputs,
    *,
    run_limit: int = 5_000_000,
    checkpoint_every: int = 0,
    spill_rows: int = 0,
) -> Simulation:
    """A simulation at the scenario's ``clock.start``, its script loaded, nothing run yet.

    The declared assets (file order: the first declared wins a URI-2 conflict),
    the watchers and the seed of random task failures go to the engine; the
    alerts' ``silence_factor`` is for ``build_record`` (``inputs.silence_factor``).
    ``checkpoint_every``: automatic checkpoints every that many processed
    instants (0: none; the GUI goes back and re-simulates edits from them).
    ``spill_rows``: the run log's old packed rows go to a scratch file that many at a
    time (0: never; headless commands pass ``runlog.SPILL_ROWS``, adr/0006).
    """
    config = SchedulerConfig(
        loop_interval=inputs.loop_interval, parse_interval=inputs.parse_interval
    )
    return Simulation(
        inputs.files or inputs.dags,
        start=inputs.start,
        config=config,
        script=inputs.script,
        run_limit=run_limit,
        checkpoint_every=checkpoint_every,
        watchers=inputs.watchers,
        seed=inputs.seed,
        declared_assets=inputs.declared_assets,
        options=inputs.options,
        spill_rows=spill_rows,
    )
