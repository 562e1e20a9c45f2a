"""The template sandbox holds: no way out, no wall clock, every render bounded by work.

Each escape below reached a side effect, a secret or the wall clock through
Airflow's own ``macros`` (whole modules) before the macros became read-only
proxies; each bound below hung or filled memory before renders were counted.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from explorer.engine.render import TemplateRenderer, render_template


class _DagRun:
    """The two fields of ``dag_run`` the sandbox reads for a run's "now"."""

    def __init__(self, start: datetime) -> None:
        self.start_date = start
        self.run_after = start


STARTED = datetime(2024, 3, 11, 5, tzinfo=UTC)

CONTEXT = {
    "dag_run": _DagRun(STARTED),
    "run_id": "scheduled__2024-03-10T05:00:00+00:00",
    "ds": "2024-03-10",
    "logical_date": datetime(2024, 3, 10, 5, tzinfo=UTC),
}

ESCAPES = [
    '{{ macros.json.codecs.sys.modules.os.system("touch PWNED") }}',
    "{{ macros.json.codecs.builtins.exec(\"open('PWNED','w').write('x')\") }}",
    '{{ macros.json.codecs.open("/etc/hostname").read() }}',
    "{{ macros.json.decoder.re.sre_compile }}",
    '{{ macros.dateutil.parser.os.system("touch PWNED") }}',
    '{{ macros.dateutil.relativedelta.calendar.sys.modules["os"].system("touch PWNED") }}',
    "{{ macros.time.sleep(100) }}",
    '{{ macros.uuid.os.system("touch PWNED") }}',
    "{{ macros.datetime.__subclasses__() }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{% for c in ().__class__.__base__.__subclasses__() %}{{ c }}{% endfor %}",
    "{{ cycler.__init__.__globals__.os }}",
    "{{ cycler.__init__.__globals__['os'].system('touch PWNED') }}",
    "{{ joiner.__init__.__globals__.os.system('touch PWNED') }}",
    "{{ namespace.__init__.__globals__.os.system('touch PWNED') }}",
    "{{ lipsum.__globals__.os.system('touch PWNED') }}",
    "{{ range.__globals__ }}",
    "{{ self._TemplateReference__context.environment.globals }}",
    "{{ self._TemplateReference__context.parent }}",
    "{{ config.items() }}",
    "{{ request.application.__globals__.__builtins__.open('PWNED','w') }}",
    "{{ macros._members.json }}",
    "{{ macros.json._members }}",
    "{{ macros.json.dumps.__globals__.os }}",
    "{{ macros.dateutil.parser.parse.__globals__ }}",
    "{{ logical_date.now() }}",
    "{{ macros.datetime.now() }}",
    "{{ macros.datetime.utcnow() }}",
    "{{ macros.datetime.today() }}",
    "{{ logical_date.today() }}",
    "{{ logical_date.__class__.now() }}",
    "{{ macros.time.strftime('%Y') }}",
    "{{ macros.time.gmtime() }}",
    "{{ '{0.__class__.__init__.__globals__}'.format(macros.ds_add) }}",
    "{{ '{0._members}'.format(macros) }}",
    "{{ macros.dateutil.tz.gettz.__globals__ }}",
    "{{ macros.dateutil.tz.os }}",
    "{{ macros.json.loads.__module__ }}",
    "{{ (macros|attr('json')|attr('codecs')) }}",
    "{{ macros['json']['codecs'] }}",
    "{{ macros.json|attr('_members') }}",
]

SECRET = "SCHEDULE_EXPLORER_TEST_SECRET"


@pytest.mark.parametrize("source", ESCAPES)
def test_an_escape_reaches_no_side_effect_secret_or_clock(
    source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(SECRET, "hunter2")
    rendered = render_template(source, dict(CONTEXT))
    assert rendered.error is not None, rendered.text
    assert rendered.text is None
    assert not list(tmp_path.iterdir()), "the template wrote a file"
    assert "hunter2" not in rendered.error
    assert "<module" not in rendered.error


def test_clock_readers_say_what_to_use_instead() -> None:
    error = render_template("{{ macros.datetime.now() }}", dict(CONTEXT)).error
    assert error is not None and "wall clock" in error and "logical_date" in error


MACRO_USES = {
    "{{ macros.ds_add(ds, 7) }}": "2024-03-17",
    "{{ macros.ds_format(ds, '%Y-%m-%d', '%d/%m/%Y') }}": "10/03/2024",
    "{{ macros.datetime(2024, 1, 2).strftime('%A') }}": "Tuesday",
    "{{ macros.datetime.strptime('2024-01-02', '%Y-%m-%d').day }}": "2",
    "{{ (logical_date + macros.timedelta(hours=3)).hour }}": "8",
    "{{ (logical_date + macros.dateutil.relativedelta.relativedelta(months=1)).month }}": "4",
    "{{ macros.dateutil.parser.parse('2024-05-06T07:08:09').minute }}": "8",
    "{{ macros.dateutil.parser.isoparse('2024-05-06').year }}": "2024",
    "{{ macros.json.dumps({'a': [1, 2]}) }}": '{"a": [1, 2]}',
    "{{ macros.json.loads('[1, 2, 3]')|sum }}": "6",
    "{{ macros.uuid.uuid5(macros.uuid.NAMESPACE_DNS, 'example.com') }}": (
        "cfbff0d1-9375-5685-968c-48ce8b15ae17"
    ),
    "{{ macros.time.strftime('%Y', macros.time.gmtime(0)) }}": "1970",
    "{{ macros.time.time() }}": str(STARTED.timestamp()),
    "{{ macros.datetime_diff_for_humans(logical_date, logical_date) }}": "a few seconds before",
    "{% set ns = namespace(n=0) %}{% for i in range(10) %}{% set ns.n = ns.n + i %}"
    "{% endfor %}{{ ns.n }}": "45",
    "{{ lipsum(1, html=False)|length > 0 }}": "True",
    "{{ '{:>6}'.format('ab') }}": "    ab",
    "{{ 'a,b'.split(',')|join('-') }}": "a-b",
}


@pytest.mark.parametrize(("source", "expected"), list(MACRO_USES.items()))
def test_every_macro_a_template_computes_with_keeps_rendering(source: str, expected: str) -> None:
    rendered = render_template(source, dict(CONTEXT))
    assert rendered.error is None, rendered.error
    assert rendered.text == expected


def test_random_and_uuid4_are_drawn_from_the_run_reproducibly() -> None:
    source = "{{ macros.random() }} {{ macros.uuid.uuid4() }} {{ macros.uuid.uuid4() }}"
    first = render_template(source, dict(CONTEXT))
    again = render_template(source, dict(CONTEXT))
    other = render_template(source, {**CONTEXT, "run_id": "manual__2024-03-10"})
    assert first.error is None and first.text == again.text
    assert first.text != other.text
    _, uuid_a, uuid_b = (first.text or "").split()
    assert uuid_a != uuid_b and uuid_a[14] == "4"


def test_diff_for_humans_without_since_counts_from_the_run_not_the_wall_clock() -> None:
    rendered = render_template("{{ macros.datetime_diff_for_humans(logical_date) }}", CONTEXT)
    assert rendered.text == "1 day before"


BOUNDED = [
    "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
    "{{ 'x' * 10**9 }}",
    "{{ [0] * 10**9 }}",
    "{{ 10 ** (10 ** 9) }}",
    "{{ lipsum(10**6) }}",
    "{{ '{:>8000000000}'.format(1) }}",
    "{{ '{:>{}}'.format(1, 10**9) }}",
    "{{ '{:.999999999f}'.format(1.0) }}",
    "{{ '%999999999d' % 1 }}",
    "{{ '%*d' % (10**9, 1) }}",
    "{{ 'x'.ljust(10**9) }}",
    "{{ 'x'.center(10**9) }}",
    "{{ 'x'|center(10**9) }}",
    "{{ 'a\nb'|indent(10**9) }}",
    "{{ '%09999999d'|format(1) }}",
    "{{ ('x' * 1000).replace('x', 'x' * 100000) }}",
    "{% set ns = namespace(s='xx') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}"
    "{% endfor %}{{ ns.s|length }}",
    "{% set ns = namespace(n=3) %}{% for i in range(40) %}{% set ns.n = ns.n * ns.n %}"
    "{% endfor %}{{ ns.n }}",
    "{% set l = [1] %}{% for i in range(64) %}{% do l.extend(l) %}{% endfor %}{{ l|length }}",
    "{% for i in range(100000) %}{{ 'y' * 100 }}{% endfor %}",
    "{{ range(100000)|slice(10**9)|list }}",
    "{{ macros.json.dumps([1], indent=10**9) }}",
    "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
]


@pytest.mark.parametrize("source", BOUNDED)
def test_heavy_work_gives_an_error_cell_not_a_hang(source: str) -> None:
    rendered = TemplateRenderer(source).render(dict(CONTEXT))
    assert rendered.error is not None
    assert rendered.text is None


def test_the_same_render_errors_the_same_way_each_time() -> None:
    source = BOUNDED[0]
    first = render_template(source, dict(CONTEXT)).error
    assert first == render_template(source, dict(CONTEXT)).error
    assert first is not None and "steps" in first


def test_a_render_restores_the_tracer_it_found() -> None:
    import sys

    before = sys.gettrace()
    render_template("{% for i in range(3) %}{{ i }}{% endfor %}", dict(CONTEXT))
    assert sys.gettrace() is before


def test_the_process_environment_is_untouched() -> None:
    before = dict(os.environ)
    for source in ESCAPES:
        render_template(source, dict(CONTEXT))
    assert dict(os.environ) == before
