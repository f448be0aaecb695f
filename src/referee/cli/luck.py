"""`referee luck EXPORTS...`: a record and a luck report of verified exports (docs/luck.md)."""

from __future__ import annotations

import click

from referee.cli.ledger import read_export
from referee.cli.output import echo, emit_json
from referee.cli.typed import Share
from referee.errors import NotationError, NotFoundError, RefereeError
from referee.lab.luck_exports import (
    Reading,
    as_character,
    counted_once,
    luck_report,
    reading,
    verified,
)
from referee.lab.luck_text import report_lines


def read_all(files: tuple[str, ...], quiet: bool) -> tuple[list[Reading], list[RefereeError]]:
    """Each file read and verified, in order, with a line of progress on stderr for each (a
    refused one with its reason): the readings of the verified ones and the refusals."""
    readings: list[Reading] = []
    refused: list[RefereeError] = []
    seen: dict[str, str] = {}
    for number, path in enumerate(files, 1):
        where = f"[{number}/{len(files)}] {path}"
        try:
            read = counted_once(reading(verified(read_export(path), repr(path))), seen, repr(path))
        except RefereeError as err:
            refused.append(err)
            echo(f"{where}: refused: {err}", err=True)
            continue
        readings.append(read)
        if not quiet:
            echo(f"{where}: verified (bout {read.bout.id}, {read.bout.name})", err=True)
    return readings, refused


@click.command("luck")
@click.argument("files", nargs=-1, metavar="EXPORTS...")
@click.option("--fighter", metavar="NAME", help="Whose dice (case aside): else every fighter's.")
@click.option(
    "--character",
    metavar="ID",
    help="A saved character's dice and record, whatever names it fought under (its id).",
)
@click.option(
    "--alpha",
    type=Share(0.0001, 0.5),
    default=0.01,
    show_default=True,
    help="The verdict's false-alarm rate.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="Say only the refused exports on stderr.")
def luck_command(
    files: tuple[str, ...],
    fighter: str | None,
    character: str | None,
    alpha: float,
    as_json: bool,
    quiet: bool,
) -> None:
    """A record and a luck report anyone can check: the bouts a fighter fought, won and
    lost, and how its faces compare with the exact distribution (docs/luck.md).

    Every export is verified first, as `referee verify` does (chain, seeds, every face,
    the rules, the close); one that does not verify is refused with its reason and left
    out. The verdict reads one test, the low halves of every die against their exact
    distribution, at --alpha: fair dice are called unlikely that share of the time
    (the report says the exact rate for the dice it read). The hits against the exact
    expected number, the longest run of misses, the total damage and a chi-square over
    the faces are descriptive.

    Exit status: 0 when every export verified, 1 when one was refused (the report reads
    the others; a second export of a bout read already is refused too: each bout counts
    once), 2 when a file cannot be read as an export (the report still reads the others)
    or no file is given.

    \b
    Examples:
      referee luck bout-b1.json bout-b2.json --fighter Tarl
      referee luck exports/*.json --json > luck.json
      referee luck exports/*.json --character Hk3rT0aX9bQz
    """
    if not files:
        raise NotationError("give one or more exports (referee luck bout-b1.json ...)")
    if fighter and character:
        raise NotationError("give --fighter or --character, not both")
    readings, refused = read_all(files, quiet)
    if character is not None and readings:
        readings, fighter = as_character(readings, character)
        if fighter is None:
            raise NotFoundError(f"character {character!r} fought in none of the exports given")
    if readings:
        report = luck_report(readings, fighter, alpha)
        if as_json:
            emit_json(report.as_json())
        else:
            for line in report_lines(report):
                echo(line)
    if refused:
        worst = max(refused, key=lambda err: err.exit_code)  # unreadable (2) before unverified (1)
        message = f"{len(refused)} of {len(files)} exports refused; {worst}"
        raise type(worst)(message)
