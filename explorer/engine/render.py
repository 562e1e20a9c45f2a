"""Render a user's Jinja template against each run's template context (adr/0008).

The environment is the one a DAG's task gets by default in Airflow 3.3.2:
jinja2's *sandboxed* environment with ``StrictUndefined`` (a missing key is
an error, not an empty string), the ``do`` extension, Airflow's date
filters (``{{ logical_date | ds }}``) and ``macros``. The sandbox here is
closed where Airflow's is not (:mod:`explorer.engine.templating.sandbox`):
``macros`` is a set of read-only proxies, never a module, and every render is
bounded by counted work and output size (:mod:`~explorer.engine.templating.limits`).

Nothing a template does can reach past the sandbox, and an error never
escapes: each run's result is either the rendered text or the error as text.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

import jinja2
import jinja2.exceptions
import jinja2.sandbox

from explorer.engine.templating.limits import RenderBudget, TemplateLimitError, traced
from explorer.engine.templating.macros import build_macros
from explorer.engine.templating.sandbox import TemplateSandbox

if TYPE_CHECKING:
    from explorer.engine.runs import DagRun
    from explorer.engine.simulation import Simulation

__all__ = ["Rendered", "TemplateRenderer", "render_runs", "render_template"]


def _filter(fmt: str | None) -> Any:
    def apply(value: date | None) -> str | None:
        if value is None:
            return None
        if fmt is None:
            return value.isoformat()
        return value.strftime(fmt)

    return apply


def _ts_nodash_with_tz(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat().replace("-", "").replace(":", "")


#: Airflow's template filters (``templater.FILTERS``).
FILTERS = {
    "ds": _filter("%Y-%m-%d"),
    "ds_nodash": _filter("%Y%m%d"),
    "ts": _filter(None),
    "ts_nodash": _filter("%Y%m%dT%H%M%S"),
    "ts_nodash_with_tz": _ts_nodash_with_tz,
}


@dataclass(frozen=True, slots=True)
class Rendered:
    """One run's result: ``text`` when it rendered, else ``error``."""

    text: str | None = None
    error: str | None = None

    @property
    def display(self) -> str:
        return self.text if self.text is not None else f"error: {self.error}"


class TemplateRenderer:
    """One template compiled once, rendered against many contexts, each within its budget."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.budget = RenderBudget()
        self.env = TemplateSandbox(
            self.budget,
            undefined=jinja2.StrictUndefined,
            extensions=["jinja2.ext.do"],
            cache_size=0,
        )
        self.env.filters.update(FILTERS)
        self.compile_error: str | None = None
        self.template: jinja2.Template | None = None
        try:
            self.template = self.env.from_string(source)
        except jinja2.TemplateSyntaxError as exc:
            self.compile_error = f"template syntax error: {exc.message} (line {exc.lineno})"

    def render(self, context: dict[str, Any]) -> Rendered:
        if self.template is None:
            return Rendered(error=self.compile_error)
        budget = self.budget
        budget.steps = budget.output = 0
        variables = {**context, "macros": build_macros(*_now_and_seed(context))}
        try:
            with traced(budget):
                text = "".join(budget.emit(chunk) for chunk in self.template.generate(variables))
            return Rendered(text=text)
        except jinja2.UndefinedError as exc:
            return Rendered(error=f"{exc.message}{_absent_hint(exc.message, context)}")
        except jinja2.exceptions.SecurityError as exc:
            return Rendered(error=f"not allowed in the sandbox: {exc}")
        except TemplateLimitError as exc:
            return Rendered(error=f"over the render limit: {exc}")
        except RecursionError:
            return Rendered(error="over the render limit: recursion too deep")
        except MemoryError:
            return Rendered(error="over the render limit: out of memory")
        except Exception as exc:  # a template's own error belongs in its cell, not a dialog
            return Rendered(error=f"{type(exc).__name__}: {exc}")


def _now_and_seed(context: dict[str, Any]) -> tuple[datetime, str]:
    """The run's simulated "now" (its start, else its run_after) and the seed of its draws."""
    dag_run = context.get("dag_run")
    now = getattr(dag_run, "start_date", None) or getattr(dag_run, "run_after", None)
    if not isinstance(now, datetime):
        now = datetime(1970, 1, 1, tzinfo=UTC)
    return now, str(context.get("run_id", ""))


def _absent_hint(message: str | None, context: dict[str, Any]) -> str:
    """Say why a logical-date key is missing: the run has no logical date (adr/0008)."""
    from explorer.engine.context import LOGICAL_DATE_KEYS

    if message and "logical_date" not in context:
        for key in LOGICAL_DATE_KEYS:
            if message.startswith(f"'{key}' is undefined"):
                return " (a run without logical date has no such key; the task would fail)"
    return ""


def render_template(source: str, context: dict[str, Any]) -> Rendered:
    """Render ``source`` against one context."""
    return TemplateRenderer(source).render(context)


def render_runs(sim: Simulation, runs: list[DagRun], source: str) -> list[Rendered]:
    """``source`` rendered for each run, in order (one compile, one context per run)."""
    from explorer.engine.context import run_contexts

    renderer = TemplateRenderer(source)
    return [renderer.render(context) for context in run_contexts(sim, runs)]
