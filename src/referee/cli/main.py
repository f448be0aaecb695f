"""The `referee` command: one group, subcommands registered from one module per area.

Errors are turned into one line on stderr and an exit code here (`RefereeGroup`), each
as `referee.cli.failures` says it: a `RefereeError` its own (2 for bad input, 1 for what does
not verify), an answer that cannot be written 4, Ctrl-C 130 and a bug in referee 3, never a
traceback. `referee judge`, which the console script starts without this group
(`referee.cli.entry`), says them through the same `referee.cli.failures`
(`referee.cli.judge.judge_alone`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import click

from referee.cli.commands import COMMANDS, load_command
from referee.cli.failures import as_referee_errors
from referee.cli.output import echo
from referee.errors import RefereeError


class RefereeGroup(click.Group):
    """A click group that turns every `RefereeError` into one clear line and its exit code, and
    loads each subcommand only when it is asked for (`referee.cli.commands`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *(name for name in super().list_commands(ctx) if name not in COMMANDS)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, cmd_name) or load_command(cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return as_referee_errors(lambda: super(RefereeGroup, self).invoke(ctx))
        except RefereeError as err:
            echo(f"error: {err}", err=True)
            ctx.exit(err.exit_code)


@click.group(cls=RefereeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(None, "--version", package_name="referee", prog_name="referee")
def cli() -> None:
    """Referee role-play combat by the MSV and SRP rules, with dice anyone can verify.

    \b
    Examples:
      referee roll 2d20+1d6
      referee roll --chat "//roll -sides100 -dice1" --name Tarl
      referee msv attack --cs 65 --roll 47
      referee srp levels
      referee serve
    """


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `referee` console script."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="referee")


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
