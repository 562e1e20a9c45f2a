"""The simulation engine: pure Python, deterministic, no Qt, never reads the wall clock.

Every rule implemented here cites the rule ID of Airflow 3.3.2's behaviour it
reproduces (TT-, DST-, SCH-, AS-, URI-, PT-, WA-); see ``adr/`` and the README.
"""

from explorer.engine import tz as _tz  # noqa: F401  (pins zone lookups to the tzdata package)
