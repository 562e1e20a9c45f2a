"""The ``explorer`` entry point: a subcommand runs headless, none opens the desktop app.

The command-line module never imports Qt; the desktop app is imported only
when no subcommand is given, or for ``--self-test`` (the app, offscreen:
``explorer.ui.selftest``), which the installed bundle runs too.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--self-test"]:
        from explorer.ui.selftest import main as self_test

        return self_test(args[1:])
    opens_file = len(args) == 1 and args[0].endswith(".json") and not args[0].startswith("-")
    if args and not opens_file:
        from explorer.cli import main as cli_main

        return cli_main(args)
    try:
        from explorer.ui.app import main as gui_main
    except ModuleNotFoundError:
        sys.stderr.write(
            "The desktop app is not part of this version yet; use a subcommand "
            "(explorer --help), e.g. explorer simulate resources/scenarios/"
            "ny_dst_spring_forward.json --format table\n"
        )
        return 2
    return int(gui_main(args))


def run() -> int:
    """:func:`main` as the process's whole life (the ``explorer`` command, ``python -m
    explorer``): once it returns, the process only exits.

    Python's exit walks every object the garbage collector tracks, looking for
    cycles, before it frees anything: after a long simulation that is millions of
    runs' objects, and a walk that finds nothing (the engine's records hold no
    reference cycles, :mod:`explorer.engine.perf`). Freezing them first leaves that
    walk nothing to look at; they are freed as before. Tests call :func:`main`, which
    leaves the collector alone.
    """
    status = main()
    gc.freeze()
    return status


if __name__ == "__main__":
    sys.exit(run())
