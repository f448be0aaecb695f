"""`referee verify` (check an export completely) and `referee export` (write one)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from referee.bout.replay import check_export
from referee.cli.output import echo, emit_json
from referee.errors import LimitError, NotationError, NotFoundError, VerificationError
from referee.ledger import Checker, Problem, Report, is_hex64, parse_export, verify_export
from referee.ledger.canonical import same_json
from referee.ledger.printable import shown

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


def expect_hashes(hashes: tuple[str, ...]) -> Checker:
    """A checker: every given event hash (seen earlier, e.g. in chat) is still in the export.

    >>> [str(p) for p in expect_hashes(("ab" * 32,))({"events": []})][0][:33]
    "export: no event has hash 'ababab"
    """

    def contains_hashes(doc: Any) -> list[Problem]:
        present = {e.get("hash") for e in doc["events"] if isinstance(e, dict)}
        return [
            Problem(
                None, None, f"no event has hash {h!r} (the export was cut or rewritten)", "chain"
            )
            for h in hashes
            if h not in present
        ]

    return contains_hashes


def expect_commitment(expected: str) -> Checker:
    """A checker: the export's commitment is the one you were shown when the bout began (on
    the console, in chat, on a HUD), so its server seed was not changed afterwards. An export
    rewritten from a new seed (every face and hash recomputed) holds together by itself;
    only what a player kept from before can show it.

    >>> found = expect_commitment("ab" * 32)({"fairness": {"commitment": "cd" * 32}})
    >>> print(found[0])  # doctest: +NORMALIZE_WHITESPACE
    fairness: the export's commitment 'cdcdcdcdcdcd...' is not 'abababababab...', the one you
    were shown (the export was rewritten from another seed)
    """

    def same_commitment(doc: Any) -> list[Problem]:
        found = doc["fairness"].get("commitment")
        if found == expected:
            return []
        shown = f"{found[:12]}..." if isinstance(found, str) else found
        message = (
            f"the export's commitment {shown!r} is not {expected[:12] + '...'!r}, the one you "
            "were shown (the export was rewritten from another seed)"
        )
        return [Problem(None, None, message, "commitment")]

    return same_commitment


def expect_event_hash(seq: int, expected: str) -> Checker:
    """A checker: the event at `seq` has the hash you kept of it (`--expect-hash SEQ:HASH`),
    sharper than a hash anywhere in the export: it names the event that differs.

    >>> doc = {"events": [{"seq": 0, "type": "bout_opened", "hash": "cd" * 32}]}
    >>> print(expect_event_hash(0, "ab" * 32)(doc)[0])  # doctest: +ELLIPSIS
    event 0 (bout_opened): its hash 'cdcdcdcdcdcd...' is not 'abab...ab', the hash you kept of it...
    >>> print(expect_event_hash(7, "ab" * 32)(doc)[0])  # doctest: +ELLIPSIS
    export: no event 7, whose hash 'abab...ab' you kept (the export was cut or rewritten)
    """

    def same_event_hash(doc: Any) -> list[Problem]:
        for event in doc["events"]:
            if not isinstance(event, dict) or not same_json(event.get("seq"), seq):
                continue
            found = event.get("hash")
            if found == expected:
                return []
            kind = event.get("type")
            message = (
                f"its hash {_short(found)} is not {expected!r}, the hash you kept of it "
                "(the export was rewritten)"
            )
            return [Problem(seq, kind if isinstance(kind, str) else None, message, "chain")]
        message = (
            f"no event {seq}, whose hash {expected!r} you kept (the export was cut or rewritten)"
        )
        return [Problem(None, None, message, "chain")]

    return same_event_hash


def expect_client_seed(expected: str) -> Checker:
    """A checker: the export's client seed is the one you were shown (`--expect-client-seed`),
    or it followed by `:` and more parts (fighters who joined after you looked). A rewrite
    from another referee part holds together by itself; the client seed you saw shows it.

    >>> check = expect_client_seed("gm:tarl")
    >>> check({"fairness": {"client_seed": "gm:tarl:orc"}})
    []
    >>> found = check({"fairness": {"client_seed": "forged:tarl:orc"}})
    >>> print(found[0])  # doctest: +NORMALIZE_WHITESPACE
    export: the export's client seed 'forged:tarl:orc' is neither 'gm:tarl', the one you were
    shown, nor it followed by ':' and more parts (the export was rewritten)
    """

    def same_client_seed(doc: Any) -> list[Problem]:
        found = doc["fairness"].get("client_seed")
        if found == expected or (isinstance(found, str) and found.startswith(f"{expected}:")):
            return []
        message = (
            f"the export's client seed {shown(found)} is neither {shown(expected)}, the one you "
            "were shown, nor it followed by ':' and more parts (the export was rewritten)"
        )
        return [Problem(None, None, message, "client seed")]

    return same_client_seed


def expect_bout(asked: str) -> Checker:
    """A checker: the export is of bout `asked` (`--bout`), the one you mean to check.

    >>> print(expect_bout("b1")({"bout": {"id": "b2", "name": "Other"}})[0])
    export: this export is of bout 'b2' ('Other'), not of bout 'b1', the one asked for (--bout)
    """

    def same_bout(doc: Any) -> list[Problem]:
        if same_json(doc["bout"].get("id"), asked):
            return []
        message = (
            f"this export is of {bout_words(doc['bout'])}, not of bout {shown(asked)}, the one "
            "asked for (--bout)"
        )
        return [Problem(None, None, message, "bout")]

    return same_bout


def bout_words(bout: Mapping[str, Any]) -> str:
    """The bout as its export names it: `bout 'b1' ('Spar')` (text from the export quoted as
    both verifiers quote it)."""
    name = f" ({shown(bout['name'])})" if isinstance(bout.get("name"), str) else ""
    return f"bout {shown(bout.get('id'))}{name}"


def checked_line(doc: Any, asked: str | None) -> str:
    """The report's first line: which bout was checked, and whether it is the one asked for.

    >>> checked_line({"bout": {"id": "b1", "name": "Spar", "system": "msv"}}, None)
    "checked bout 'b1' ('Spar', msv)"
    >>> checked_line({"bout": {"id": "b2", "name": "Other"}}, "b1")
    "checked bout 'b2' ('Other'), NOT bout 'b1', the one asked for (--bout)"
    """
    bout = doc["bout"]
    said = [shown(bout["name"])] if isinstance(bout.get("name"), str) else []
    if isinstance(bout.get("system"), str):
        said.append(shown(bout["system"])[1:-1])
    line = f"checked bout {shown(bout.get('id'))}" + (f" ({', '.join(said)})" if said else "")
    if asked is None:
        return line
    if same_json(bout.get("id"), asked):
        return f"{line}, the bout asked for (--bout)"
    return f"{line}, NOT bout {shown(asked)}, the one asked for (--bout)"


def _short(value: Any) -> str:
    return repr(f"{value[:12]}...") if isinstance(value, str) else shown(value)


def _hex64(option: str, value: str) -> str:
    if not is_hex64(value.strip().lower()):
        raise NotationError(f"{option} {value!r} is not 64 hex characters")
    return value.strip().lower()


#: A run of 64 hex digits standing alone (not part of a longer run).
_HEX64_RUN = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{64}(?![0-9A-Fa-f])")
#: `SEQ:HASH`, the form the web console copies.
_SEQ_HASH = re.compile(r"(\d{1,18}):([0-9A-Fa-f]{64})")
#: Where a line says which event its hash is of: `(event 57)` (the Discord bot's closing line),
#: or `57:` before the hash.
_EVENT_OF = (
    re.compile(r"\(event (\d{1,18})\)"),
    re.compile(r"(?<![\w:])(\d{1,18}):[0-9A-Fa-f]{64}"),
)
#: The longest value `--expect-hash` reads (a pasted line).
MAX_KEPT_LINE = 2000


@dataclasses.dataclass(frozen=True, slots=True)
class KeptHash:
    """An event hash a player kept, and the event it is of when that was said (`seq`)."""

    hash: str
    seq: int | None = None

    def checker(self) -> Checker:
        """The check it asks for: that event with that hash, or that hash anywhere."""
        if self.seq is None:
            return expect_hashes((self.hash,))
        return expect_event_hash(self.seq, self.hash)


def kept_hash(value: str) -> KeptHash:
    """Read one `--expect-hash`: a bare hash (64 hex characters), `SEQ:HASH` (the event at SEQ
    must have it), or a whole line a client said (the Discord bot's `Head hash: H (event 57).
    Keep it: ...`, the Second Life HUD's `... its last event hash is H. Verify: ...`), from
    which its one hash, and its `(event N)`, are taken. NotationError otherwise.

    >>> kept_hash("AB" * 32) == KeptHash("ab" * 32)
    True
    >>> kept_hash("57:" + "ab" * 32).seq
    57
    >>> kept_hash(f"Head hash: {'ab' * 32} (event 57). Keep it: referee verify "
    ...           f"--expect-hash {'ab' * 32} checks any export of this bout against it.").seq
    57
    >>> kept_hash("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: --expect-hash 'nope' holds no event hash: give 64 hex ...
    """
    text = value.strip()
    quoted = repr(text if len(text) <= 80 else f"{text[:77]}...")
    if len(text) > MAX_KEPT_LINE:
        raise NotationError(f"--expect-hash {quoted} is longer than {MAX_KEPT_LINE} characters")
    if is_hex64(text.lower()):
        return KeptHash(text.lower())
    pair = _SEQ_HASH.fullmatch(text)
    if pair:
        return KeptHash(pair[2].lower(), int(pair[1]))
    hashes = sorted({found.lower() for found in _HEX64_RUN.findall(text)})
    if not hashes:
        raise NotationError(
            f"--expect-hash {quoted} holds no event hash: give 64 hex characters, SEQ:HASH "
            "(e.g. 57:3f9a...c2), or the whole line that said it"
        )
    if len(hashes) > 1:
        raise NotationError(
            f"--expect-hash {quoted} holds {len(hashes)} different 64-hex values: give the event "
            "hash alone (or SEQ:HASH)"
        )
    seqs = sorted({int(found) for pattern in _EVENT_OF for found in pattern.findall(text)})
    if len(seqs) > 1:
        raise NotationError(
            f"--expect-hash {quoted} names {len(seqs)} events ({', '.join(map(str, seqs))}): "
            "give SEQ:HASH"
        )
    return KeptHash(hashes[0], seqs[0] if seqs else None)


#: The longest client seed the service keeps.
MAX_CLIENT_SEED = 2000


def client_seed_given(value: str) -> str:
    """Read `--expect-client-seed`: the client seed you were shown, its parts (1 or more
    characters, no control character) joined by `:`. NotationError otherwise.

    >>> client_seed_given("gm:tarl-7")
    'gm:tarl-7'
    >>> client_seed_given("gm::x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: --expect-client-seed 'gm::x' is not a client seed: ...
    """
    parts = value.split(":")
    if (
        not value
        or len(value) > MAX_CLIENT_SEED
        or not all(parts)
        or any(ord(ch) < 32 or ord(ch) == 127 for ch in value)
    ):
        quoted = repr(value if len(value) <= 80 else f"{value[:77]}...")
        raise NotationError(
            f"--expect-client-seed {quoted} is not a client seed: its parts (1 or more "
            "characters each, no control characters) are joined by ':'"
        )
    return value


def bout_given(value: str) -> str:
    """Read `--bout`: a bout id (1 to 200 characters, no control character).

    >>> bout_given("b1")
    'b1'
    """
    if not value or len(value) > 200 or any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise NotationError(f"--bout {value[:80]!r} is not a bout id")
    return value


def held_to(report: Report, doc: Any, checkers: Sequence[tuple[str, Checker]]) -> Report:
    """The report with what you kept checked too (`--bout`, `--expect-*`): each `(name,
    checker)` runs whatever the chain says (unlike the rules, which wait for a sound chain),
    its problems sorted in with the others (the export's own first, then by event)."""
    if not checkers:
        return report
    found: list[Problem] = []
    for _, checker in checkers:
        found += checker(doc)
    positions: dict[int, int] = {}
    for position, event in enumerate(doc["events"]):
        seq = event.get("seq") if isinstance(event, dict) else None
        if type(seq) is int:
            positions.setdefault(seq, position)

    def key(problem: Problem) -> tuple[int, int]:
        if problem.seq is None:
            return (0, 0)
        if type(problem.seq) is not int:
            return (2, 0)
        return (1, positions.get(problem.seq, problem.seq))

    names = tuple(dict.fromkeys(name for name, _ in checkers))
    return dataclasses.replace(
        report,
        problems=tuple(sorted((*report.problems, *found), key=key)),
        checks=(*report.checks, *names),
    )


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
            ("kept commitment", expect_commitment(_hex64("--expect-commitment", expected)))
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
@click.argument("bout_id", metavar="BOUT_ID")
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
    if as_chat:
        from referee.transcripts import bout_as_chat

        text = "".join(f"{line}\n" for line in bout_as_chat(doc))
    if out is None:
        click.echo(text, nl=False)
        return
    _write_atomically(Path(out), text)
    click.echo(f"exported bout {bout_id!r}: {len(doc['events'])} events to {out}")


def _write_atomically(path: Path, text: str) -> None:
    try:
        fd, temp = tempfile.mkstemp(prefix=".export-", dir=path.parent or Path("."))
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)
    except OSError as err:
        raise NotFoundError(f"cannot write {str(path)!r}: {err.strerror or err}") from None
