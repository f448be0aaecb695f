"""What goes wrong in a command, said as the `RefereeError` that says it: one line on stderr
and its own exit status, never a traceback (`referee.cli.main.RefereeGroup` and the judge's
quick start, `referee.cli.judge`, both run their commands through `as_referee_errors`).

Exit status 1 is only "does not verify" (`referee verify`, `verify-roll`, `luck`) or, for the
judge, "some rolls do not count": a bug is 3, an output that cannot be written (a closed pipe,
a full disk) 4, Ctrl-C 130. The commands map the files they read and write to errors of their
own, so an `OSError` left that says a write failed is stdout's; any other is a bug.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import click

from referee.errors import InternalError, Interrupted, OutputError, RefereeError

T = TypeVar("T")

#: What click raises to stop a command on purpose (usage errors, --help, exit codes).
CLICK_STOPS = (click.ClickException, click.exceptions.Exit, click.Abort)

#: The errors of a write that failed for want of a reader or of room (not a bug of ours).
WRITE_FAILURES = frozenset({errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT})


@dataclass(frozen=True, slots=True)
class Words:
    """How a command says what went wrong: what it writes, what Ctrl-C stopped, what failed
    in a bug and what to report it with."""

    output: str = "the output"
    interrupted: str = "interrupted"
    failed: str = "internal error"
    report_with: str = "the command that gave it"

    def bug(self, err: BaseException) -> str:
        said = " ".join(str(err).split())[:200]
        return (
            f"{self.failed} ({type(err).__name__}: {said}); this is a bug in referee, please "
            f"report it with {self.report_with}"
        )


def as_referee_errors(run: Callable[[], T], words: Words = Words()) -> T:
    """`run()`, with whatever else than a `RefereeError` or click's own stops turned into the
    `RefereeError` that says it, in `words`."""
    try:
        return run()
    except (RefereeError, *CLICK_STOPS):
        raise
    except KeyboardInterrupt:
        raise Interrupted(words.interrupted) from None
    except OSError as err:
        if err.errno not in WRITE_FAILURES:
            raise InternalError(words.bug(err)) from None
        let_go_of_stdout()
        raise OutputError(f"cannot write {words.output}: {err.strerror or err}") from None
    except Exception as err:
        raise InternalError(words.bug(err)) from None


def let_go_of_stdout() -> None:
    """Point stdout at the null device: what is still buffered for an output that cannot be
    written would fail again when Python flushes it at exit, with a traceback of its own."""
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        fileno = sys.stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fileno)
        os.close(null)
