"""The `referee` console script: `referee judge` starts without loading the other commands.

Every other command goes through `referee.cli.main`, whose group loads each subcommand only
when it is run (`referee.cli.commands`); the judge, run on logs one after another by scripts,
does without even the group, so that it loads only what judging needs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `referee` console script."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["judge"]:
        from referee.cli.judge import judge_alone

        judge_alone().main(args=args, prog_name="referee")
        return
    from referee.cli.main import main as everything

    everything(args)


if __name__ == "__main__":  # `python -m referee.cli.entry ...`, as the console script
    main()
