"""Human descriptions of cron expressions, via cron-descriptor as Airflow does."""

from __future__ import annotations

from functools import lru_cache

from cron_descriptor import CasingTypeEnum, ExpressionDescriptor


def _describe(expression: str) -> str:
    return str(
        ExpressionDescriptor(
            expression, casing_type=CasingTypeEnum.Sentence, use_24hour_time_format=True
        ).get_description()
    )


@lru_cache(maxsize=1024)
def describe_cron(expression: str) -> str:
    """A sentence for ``expression``; "" where cron-descriptor cannot read it.

    When both day-of-month and day-of-week are restricted croniter ORs them
    (TT-1); cron-descriptor would read an AND, so the two halves are described
    separately and joined with "(or)", as Airflow's UI does. croniter's sixth
    field is seconds, cron-descriptor expects seconds first: it is moved.
    """
    fields = expression.split()
    try:
        if len(fields) == 6:
            fields = [fields[5], *fields[:5]]
            offset = 1
        else:
            offset = 0
        if len(fields) - offset < 5:
            return _describe(expression)
        dom, dow = fields[2 + offset], fields[4 + offset]
        if dom not in ("*", "?") and dow not in ("*", "?"):
            by_dom = list(fields)
            by_dom[4 + offset] = "*"
            by_dow = list(fields)
            by_dow[2 + offset] = "*"
            return f"{_describe(' '.join(by_dom))} (or) {_describe(' '.join(by_dow))}"
        return _describe(" ".join(fields))
    except Exception:  # cron-descriptor raises a family of its own errors
        return ""
