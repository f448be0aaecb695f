"""`referee srp next-fight` and `referee srp evening`: an evening of SRP fights in the store,
through the service (docs/srp.md, "An evening"), and the check of a whole evening's exports."""

from __future__ import annotations

from typing import Any

import click

from referee.bout.evening import Change
from referee.cli.output import emit_json
from referee.cli.typed import WHOLE, utf8_text
from referee.errors import NotationError, VerificationError
from referee.numerals import is_whole


def _split(text: str, option: str, shape: str) -> tuple[str, str, str]:
    """`NAME=VALUE:REASON` (or `NAME:KEY=N:REASON` for --set) into its three parts."""
    head, sep, reason = text.partition(":")
    if option == "--set":
        key_value, sep2, reason = reason.partition(":")
        name, value = head, key_value
        sep = sep and sep2
    else:
        name, _, value = head.partition("=")
    if not sep or not name or not value or not reason.strip():
        raise NotationError(f"bad {option} {text!r} (expected {shape})")
    return name, value, reason.strip()


def changes_from(
    heal: tuple[str, ...], clear: tuple[str, ...], set_: tuple[str, ...]
) -> list[Change]:
    """The referee's changes as the options give them, in that order (heal, clear, set).

    >>> [(c.fighter, c.heal, c.reason) for c in changes_from(("Cara=1:a salve",), (), ())]
    [('Cara', 1, 'a salve')]
    >>> changes_from((), (), ("Ghost:pm=3:a night's sleep",))[0].stats
    {'pm': 3}
    """
    out: list[Change] = []
    for text in heal:
        name, value, reason = _split(text, "--heal", "NAME=HITS:REASON, like Cara=1:a salve")
        if not is_whole(value):
            raise NotationError(f"bad --heal {text!r}: {value!r} is not a number of hits")
        out.append(Change(name, reason, heal=int(value)))
    for text in clear:
        name, value, reason = _split(text, "--clear", "NAME=CONDITION:REASON")
        out.append(Change(name, reason, clear=(value,)))
    for text in set_:
        name, value, reason = _split(text, "--set", "NAME:KEY=N:REASON, like Ghost:pm=3:sleep")
        key, eq, number = value.partition("=")
        if not eq or not key or not is_whole(number, signs="-"):
            raise NotationError(f"bad --set {text!r}: {value!r} is not KEY=N")
        out.append(Change(name, reason, stats={key: int(number)}))
    return out


@click.command("next-fight")
@click.argument("bout_id", metavar="BOUT_ID", callback=utf8_text)
@click.option("--db", "db_url", envvar="REFEREE_DB", metavar="URL", help="Database (as export).")
@click.option(
    "--token",
    envvar="REFEREE_TOKEN",
    required=True,
    callback=utf8_text,
    help="The referee's token.",
)
@click.option("--name", help="The next fight's name (default: the last one's).")
@click.option("--minutes", type=WHOLE, default=0, help="Minutes of play that pass first.")
@click.option("--reason", default="", help="Why they pass (a rest, the walk to the hall).")
@click.option("--heal", multiple=True, help="NAME=HITS:REASON, hits taken back.")
@click.option("--clear", multiple=True, help="NAME=CONDITION:REASON, a condition ended.")
@click.option("--set", "set_", multiple=True, help="NAME:KEY=N:REASON, a stat changed.")
@click.option("--leave", multiple=True, help="A fighter that does not come along (repeat).")
def next_fight_command(
    bout_id: str,
    db_url: str | None,
    token: str,
    name: str | None,
    minutes: int,
    reason: str,
    heal: tuple[str, ...],
    clear: tuple[str, ...],
    set_: tuple[str, ...],
    leave: tuple[str, ...],
) -> None:
    """Start the next fight of an evening after BOUT_ID: close it, open a bout that names it,
    carry every fighter as it ended, let the minutes pass and make the changes, each with its
    reason (one transaction). Prints the new bout, its referee token and each fighter's token.

    \b
    Examples:
      referee srp next-fight b1 --token "$REFEREE_TOKEN" --minutes 60 --reason "a rest" \\
          --heal "Cara=1:Ann binds her wounds" --clear "Ann=stunned:it wore off"
    """
    from referee.service.bouts import RefereeService
    from referee.store import Store

    changes = changes_from(heal, clear, set_)
    with Store.open(db_url, create=False) as store:
        service = RefereeService(store)
        with service.unit():
            caller = service.writer(bout_id, token)
            answer = service.next_fight(
                bout_id,
                caller,
                name=name,
                minutes=minutes,
                reason=reason,
                changes=changes,
                leave=leave,
            )
    emit_json(answer)


@click.command("evening")
@click.argument("files", nargs=-1, required=True, metavar="EXPORT...")
@click.option("--json", "as_json", is_flag=True, help="The report as JSON.")
def evening_command(files: tuple[str, ...], as_json: bool) -> None:
    """Check an evening: each export (chain, dice, rules: `referee verify`), then each link
    (the next fight names the one before and its final hash, and carries every fighter as it
    ended it). Give the exports in play order. Exit status 1 when anything does not check
    out (the first problem named), 2 when a file cannot be read as an export.

    \b
    Examples:
      referee srp evening ford.json barrow.json hall.json
    """
    from referee.bout.evening import check_evening
    from referee.bout.replay import check_export
    from referee.cli.ledger import read_export
    from referee.ledger import verify_export

    docs: list[dict[str, Any]] = []
    problems: list[str] = []
    for path in files:
        doc = read_export(path)
        report = verify_export(doc, replay=check_export)
        problems += [f"{path}: {p}" for p in report.problems]
        docs.append(doc)
    if not problems:  # the links are read off exports that hold together by themselves
        problems += [str(p) for p in check_evening(docs)]
    if as_json:
        emit_json({"ok": not problems, "fights": len(docs), "problems": problems})
    else:
        for line in problems:
            click.echo(line)
        if not problems:
            click.echo(f"evening ok: {len(docs)} fights, each carried from the one before")
    if problems:
        more = len(problems) - 1
        raise VerificationError(problems[0] + (f" (+{more} more)" if more else ""))
