"""The bulk path: runs of free-running DAGs computed without the scheduler loop.

See adr/0012-bulk-path.md. ``eligible`` says which DAGs may be claimed, ``series``
computes one DAG's runs as the loop would make them in isolation, ``feed`` writes
them into the run log in the loop's creation order, ``caps`` proves that no
per-loop cap couples them to the rest, ``path`` ties it together (and falls back
to the loop when the proof fails).
"""
