"""The `referee` command: one group, subcommands registered from one module per area.

Errors are turned into one line on stderr and an exit code here: a `RefereeError` its own (2
for bad input, 1 for what does not verify), an answer that cannot be written (a full disk, a
closed pipe) 4, Ctrl-C 130 and a bug in referee 3, never a traceback, so that exit status 1
always means "does not verify" (`referee verify`, `verify-roll`, `luck`). `referee judge`, which
the console script starts without this group (`referee.cli.entry`), has a group of its own that
says them in the same words (`referee.cli.judge.judge_alone`).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from referee.cli.commands import COMMANDS, load_command
from referee.cli.output import echo
from referee.errors import InternalError, Interrupted, OutputError, RefereeError

#: What click raises to stop a command on purpose (usage errors, --help, exit codes).
CLICK_STOPS = (click.ClickException, click.exceptions.Exit, click.Abort)


class RefereeGroup(click.Group):
    """A click group that turns every `RefereeError` into one clear line and its exit code, and
    loads each subcommand only when it is asked for (`referee.cli.commands`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *(name for name in super().list_commands(ctx) if name not in COMMANDS)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, cmd_name) or load_command(cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return _answered(super().invoke, ctx)
        except RefereeError as err:
            echo(f"error: {err}", err=True)
            ctx.exit(err.exit_code)


def _answered(run: Any, ctx: click.Context) -> Any:
    """`run(ctx)`, with whatever else than a `RefereeError` or click's own stops turned into
    the `RefereeError` that says it: the commands map the files they read and write to errors
    of their own, so an `OSError` left is the output (stdout) that cannot be written."""
    try:
        return run(ctx)
    except (RefereeError, *CLICK_STOPS):
        raise
    except KeyboardInterrupt:
        raise Interrupted("interrupted") from None
    except OSError as err:
        _let_go_of_stdout()
        raise OutputError(f"cannot write the output: {err.strerror or err}") from None
    except Exception as err:
        said = " ".join(str(err).split())[:200]
        raise InternalError(
            f"internal error ({type(err).__name__}: {said}); this is a bug in referee, "
            "please report it with the command that gave it"
        ) from None


def _let_go_of_stdout() -> None:
    """Point stdout at the null device: what is still buffered for an output that cannot be
    written would fail again when Python flushes it at exit, with a traceback of its own."""
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        fileno = sys.stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fileno)
        os.close(null)


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
