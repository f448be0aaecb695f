"""The `referee` console script: `referee judge` starts without loading the other commands.

Every other command goes through `referee.cli.main`, whose group loads each subcommand only
when it is run (`referee.cli.commands`); the judge, run on logs one after another by scripts,
does without even the group, so that it loads only what judging needs.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator, Sequence


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `referee` console script."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["judge"]:
        with collector_paused():
            from referee.cli.judge import judge_alone

            judge_alone().main(args=args, prog_name="referee")
        return
    from referee.cli.main import main as everything

    everything(args)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector paused while the judge loads, judges a log and writes its
    report, as the `gc` module's documentation allows for a program that makes no reference
    cycle (the judge makes none that must be found before it exits): its passes would walk
    the modules' objects as they load, then the judge's lists of 100,000 entries and more,
    again and again. Memory is freed as before, by the reference counts. What is left at the
    end, the modules, lives until the process exits a moment later: it is frozen
    (`gc.freeze`), so that the collector's pass at the exit does not walk it either. Some 10
    ms of the 100,000-line benchmark's 200, and of the 65 ms of a judge on a short log."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


if __name__ == "__main__":  # `python -m referee.cli.entry ...`, as the console script
    main()
