"""`referee verify` (check an export completely) and `referee export` (write one)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from referee.bout.replay import check_export
from referee.cli.files import write_whole
from referee.cli.ledger_expect import (
    bout_given,
    checked_line,
    client_seed_given,
    expect_bout,
    expect_client_seed,
    expect_commitment,
    held_to,
    hex64,
    kept_hash,
)
from referee.cli.ledger_expect import expect_hashes as expect_hashes  # callers import it here
from referee.cli.output import echo, emit_json
from referee.cli.typed import utf8_text
from referee.errors import LimitError, NotationError, NotFoundError, VerificationError
from referee.ledger import Checker, Report, parse_export, verify_export
from referee.ledger.canonical import same_json

#: The largest export `referee verify` reads.
MAX_EXPORT_BYTES = 64 * 1024 * 1024

#: How many problems the text report lists.
SHOWN_PROBLEMS = 20


def read_export(path: str) -> Any:
    """Read a JSON export from a file (`-`: stdin); NotationError/NotFoundError/LimitError.

    >>> read_export("/nonexistent/bout.json")
    Traceback (most recent call last):
    ...
    referee.errors.NotFoundError: cannot read '/nonexistent/bout.json': No such file or directory
    """
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_EXPORT_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_EXPORT_BYTES + 1)
    except OSError as err:
        raise NotFoundError(f"cannot read {path!r}: {err.strerror or err}") from None
    if len(data) > MAX_EXPORT_BYTES:
        raise LimitError(f"{path!r} is larger than {MAX_EXPORT_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotationError(f"{path!r} is not UTF-8 text") from None
    return parse_export(text, repr(path))


def summary(report: Report) -> list[str]:
    """The text report: the referee's rulings, then one line when all holds, else the problems.

    >>> summary(Report((), 3, 1, 1, ("chain", "faces")))
    ['rulings by the referee: none', 'ok: 3 events, 1 rolls, 1 seed; chain, faces hold']
    >>> summary(Report((), 3, 1, 1, ("chain",), complete=False, last=(2, "roll")))[1]
    'ok (partial): 3 events, 1 rolls, 1 seed, up to event 2 (roll), not closed; chain hold'
    """
    counts = (
        f"{report.events} events, {report.rolls} rolls, "
        f"{report.seeds} seed{'s' if report.seeds != 1 else ''}"
    )
    seq, kind = report.last
    if report.ok and report.complete:
        lines = [f"ok: {counts}; {', '.join(report.checks)} hold"]
    elif report.ok:
        lines = [
            f"ok (partial): {counts}, up to event {seq} ({kind}), not closed; "
            f"{', '.join(report.checks)} hold"
        ]
    else:
        lines = [f"FAILED: {len(report.problems)} problem(s) in {counts}"]
        lines += [f"  {problem}" for problem in report.problems[:SHOWN_PROBLEMS]]
        if len(report.problems) > SHOWN_PROBLEMS:
            lines.append(f"  ... and {len(report.problems) - SHOWN_PROBLEMS} more (see --json)")
    return ruling_lines(report) + lines + [f"not checked: {note}" for note in report.skipped]


def ruling_lines(report: Report) -> list[str]:
    """The referee's rulings (decided by a person, not by the dice), one line each."""
    if not report.rulings:
        return ["rulings by the referee: none"]
    lines = [
        f"rulings by the referee (decided by a person, not by the dice): {len(report.rulings)}"
    ]
    lines += [f"  {ruling}" for ruling in report.rulings[:SHOWN_PROBLEMS]]
    if len(report.rulings) > SHOWN_PROBLEMS:
        lines.append(f"  ... and {len(report.rulings) - SHOWN_PROBLEMS} more (see --json)")
    return lines


@click.command("verify")
@click.argument("file", metavar="FILE")
@click.option(
    "--bout",
    "asked",
    metavar="ID",
    help="The bout you mean to check: an export of another bout fails (exit 1).",
)
@click.option(
    "--expect-hash",
    "hashes",
    multiple=True,
    metavar="HASH",
    help="An event hash you kept (repeatable): HASH (64 hex characters, in any event), "
    "SEQ:HASH (the event at SEQ has it; the web console copies this form) or the whole "
    "line a client said it in (the Discord bot's 'Head hash: ... (event N). ...', the "
    "Second Life HUD's '... its last event hash is ...').",
)
@click.option(
    "--expect-commitment",
    "expected",
    metavar="HASH",
    help="The commitment you were shown when the bout began: the export must carry it.",
)
@click.option(
    "--expect-client-seed",
    "client_seed",
    metavar="TEXT",
    help="The client seed you were shown: the export's must be it, or it followed by ':' "
    "and more parts (fighters who joined after you looked).",
)
@click.option(
    "--partial",
    is_flag=True,
    help="Accept an export that does not end with the close (a bout still going): check it "
    "up to its last event, and say so.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
def verify(
    file: str,
    asked: str | None,
    hashes: tuple[str, ...],
    expected: str | None,
    client_seed: str | None,
    partial: bool,
    as_json: bool,
) -> None:
    """Verify a bout's export: the hash chain, the commitment(s), every roll, the bout's
    header, the times, the close and the rules; list the referee's rulings. The report
    names the bout it checked (its id and name, as the export says them).

    Exit status: 0 when everything holds, 1 when something does not (the first bad
    event is named), 2 when FILE cannot be read as an export or an option's value is not
    what it takes. FILE `-` reads stdin. An export verifies as complete only when it ends
    with the close event; one that stops short (the bout is still going, or it was cut)
    verifies only with --partial, which says up to which event it holds; the rolls under
    a seed not revealed yet are then left unchecked, and said so.

    An export rewritten as a whole (a new seed or referee part ground and every hash
    recomputed) holds together by itself: check it against what you kept while the bout
    went on: the bout (--bout), the commitment shown at its start (--expect-commitment),
    the client seed you were shown (--expect-client-seed) and an event hash you saw
    (--expect-hash, repeatable). These are checked whatever else the export holds.

    \b
    Examples:
      referee verify bout-b1.json
      referee verify --json bout-b1.json
      referee export b1 | referee verify - --bout b1
      referee verify bout-b1.json --expect-hash 3f9a...c2
      referee verify bout-b1.json --expect-hash 57:3f9a...c2     # the console's copy
      referee verify bout-b1.json --expect-hash "Head hash: 3f9a...c2 (event 57). Keep it: ..."
      referee verify bout-b1.json --expect-commitment 60e0...0f55
      referee verify bout-b1.json --expect-client-seed 9c1e40aa:tarl-7
      referee verify --partial running-bout.json
    """
    checks: list[tuple[str, Checker]] = []
    if asked is not None:
        checks.append(("bout", expect_bout(bout_given(asked))))
    for given in hashes:
        checks.append(("kept hash", kept_hash(given).checker()))
    if expected is not None:
        checks.append(
            ("kept commitment", expect_commitment(hex64("--expect-commitment", expected)))
        )
    if client_seed is not None:
        checks.append(("kept client seed", expect_client_seed(client_seed_given(client_seed))))
    doc = read_export(file)
    report = verify_export(doc, replay=check_export, partial=partial)
    report = held_to(report, doc, checks)
    if as_json:
        emit_json({"bout": bout_json(doc, asked), **report.as_json()})
    else:
        echo(checked_line(doc, asked))
        for line in summary(report):
            echo(line)
    if report.first is not None:
        more = len(report.problems) - 1
        raise VerificationError(f"{report.first}" + (f" (+{more} more)" if more else ""))


def bout_json(doc: Any, asked: str | None) -> dict[str, Any]:
    """The `bout` of the `--json` report: the bout checked, as the export names it, the one
    asked for (`--bout`, or null) and whether they are the same (null when none was asked)."""
    bout = doc["bout"]
    return {
        "id": bout.get("id"),
        "name": bout.get("name"),
        "system": bout.get("system"),
        "asked": asked,
        "same": None if asked is None else same_json(bout.get("id"), asked),
    }


@click.command("export")
@click.argument("bout_id", metavar="BOUT_ID", callback=utf8_text)
@click.option(
    "--db",
    "db_url",
    envvar="REFEREE_DB",
    metavar="URL",
    help="Database: a SQLite file path, sqlite:///path or postgresql://... "
    "(default: $REFEREE_DB, else referee.db in the user data directory).",
)
@click.option("--out", "out", metavar="FILE", help="Write to FILE instead of stdout.")
@click.option("--chat", "as_chat", is_flag=True, help="An AOL-style chat transcript with receipts.")
@click.option(
    "--token",
    envvar="REFEREE_TOKEN",
    metavar="TOKEN",
    callback=utf8_text,
    help="A token of the bout: the export shows what it grants (the referee's: everything, "
    "hidden stats included, before the close too). Without it, the export everyone gets "
    "[default: $REFEREE_TOKEN].",
)
def export(
    bout_id: str, db_url: str | None, out: str | None, as_chat: bool, token: str | None
) -> None:
    """Export a bout as one JSON document: bout, fairness and every event.

    Anyone can check the document with `referee verify`. Before the close the export is the
    one the service gives everyone: stats the referee keeps hidden show as "hidden" (and the
    chain cannot be checked past them) unless --token is the referee's; after the close it
    is complete.

    \b
    Examples:
      referee export b1 > bout-b1.json
      referee export b1 --db sqlite:///bouts.db --out bout-b1.json
      referee export b1 --db postgresql://referee@db.example/referee
      referee export b1 --chat > b1.log      # referee judge b1.log --export bout-b1.json
      referee export b1 --token "$REFEREE_TOKEN" --out running.json   # the referee's view
    """
    from referee.service.bouts import ANONYMOUS, RefereeService
    from referee.store import Store

    with Store.open(db_url, create=False) as store:
        # Through the service, as every client reaches a bout: the same redaction (SRP-10).
        service = RefereeService(store)
        caller = service.caller(bout_id, token) if token else ANONYMOUS
        doc = service.export(bout_id, caller)
    text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    if doc["bout"].get("status") != "closed":  # said on stderr: stdout is the export
        echo(NOT_CLOSED.format(bout=bout_id), err=True)
    if as_chat:
        from referee.transcripts import bout_as_chat

        text = "".join(f"{line}\n" for line in bout_as_chat(doc))
    if out is None:
        click.echo(text, nl=False)
        return
    write_whole(out, [text])
    click.echo(f"exported bout {bout_id!r}: {len(doc['events'])} events to {out}")


#: What `referee export` says of a bout that is not closed yet.
NOT_CLOSED = (
    "bout {bout!r} is not closed: nobody can verify it before the referee closes it "
    "(referee verify --partial checks it up to now)"
)
