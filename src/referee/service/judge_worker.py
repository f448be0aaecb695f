"""The judge's answer to `POST /api/judge`, and the worker process a log with format files
is judged in.

A format file's patterns are anyone's regular expressions, and one can backtrack without end
on a long line (`(a|a)*b` against forty `a`s): judged in the service's own process it would
hold one of its threads for good. So a log sent with format files is judged in a process of
its own (spawned: it shares nothing with the service but the request), killed when it takes
over `FORMAT_FILE_SECONDS`, which is a clear 400 (`bad_format_file`); a log without format
files is judged in the service, as before.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from referee.errors import FormatFileError, InternalError, RefereeError
from referee.systems.msv.rules import rules_from_mapping
from referee.transcripts import judge_log
from referee.transcripts.format_files import with_format_files
from referee.transcripts.render import notes_by_line, verdict_line

#: How long a log with format files may take to judge, start-up of its process included (a
#: 256 KiB log takes well under a second).
FORMAT_FILE_SECONDS = 10.0


def judged(
    log: str,
    fighters: Sequence[str],
    rules: dict[str, Any] | None,
    export: dict[str, Any] | None,
    files: Sequence[tuple[str, str]] = (),
    key: str | None = None,
    signed_by: str | None = None,
) -> dict[str, Any]:
    """The judge's answer: the `referee judge --json` document and what the console shows
    (`key`: the host's public key its signed lines are held to; `signed_by`: the key its
    signed lines are checked by when neither `key` nor the export gives one)."""
    pack = rules_from_mapping(rules, "rules") if rules is not None else None
    formats = with_format_files(files) if files else None
    case = judge_log(log, fighters, pack, export, formats=formats, key=key, signed_by=signed_by)
    verdict = case.verdict
    notes = notes_by_line(case)
    bad = {a.line for a in verdict.anomalies}
    return {
        **verdict.to_json(),
        "verdict": verdict_line(verdict),
        "fighters": [{"name": f.name, "cs": f.cs} for f in verdict.fighters],
        "source": case.source,
        "order": list(verdict.order),
        "threshold": verdict.threshold,
        "notes": list(verdict.notes),
        "lines": [
            {
                "line": line.number,
                "text": line.text,
                "roll": line.is_roll,
                "anomaly": line.number in bad,
                "notes": notes.get(line.number, []),
            }
            for line in case.lines
        ],
    }


def in_worker(
    work: Callable[..., dict[str, Any]],
    args: tuple[Any, ...],
    seconds: float = FORMAT_FILE_SECONDS,
) -> dict[str, Any]:
    """`work(*args)` in a spawned process, killed after `seconds`: its answer, or its error
    raised here (`work` and its arguments go to the process by pickling)."""
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe(duplex=False)
    process = context.Process(target=_run, args=(theirs, work, args), daemon=True)
    process.start()
    theirs.close()
    try:
        if not ours.poll(seconds):
            raise FormatFileError(
                f"judging with the format files took over {seconds:g} s (a pattern that "
                "backtracks without end on a long line?): nothing was judged"
            )
        kind, value = ours.recv()
    except EOFError:
        raise InternalError("the judge's worker process stopped without an answer") from None
    finally:
        process.kill()
        process.join()
        ours.close()
    if kind == "error":
        raise value
    if kind == "bug":
        raise InternalError(f"internal error: the judge failed ({value})")
    answer: dict[str, Any] = value
    return answer


def _run(conn: Connection, work: Callable[..., dict[str, Any]], args: tuple[Any, ...]) -> None:
    """The worker process: one answer, an error of referee's, or a bug said in one line."""
    try:
        conn.send(("ok", work(*args)))
    except RefereeError as err:
        conn.send(("error", err))
    except Exception as err:  # a bug in the judge: the service says it as one
        conn.send(("bug", f"{type(err).__name__}: {' '.join(str(err).split())[:200]}"))
    finally:
        conn.close()
