"""`referee roll`: roll dice notation or an AOL chat `//roll`, as text or JSON."""

from __future__ import annotations

from typing import Any

import click

from referee.cli.output import emit_json
from referee.dice import HostLine, RollResult, parse, parse_chat, roll
from referee.rng import Rng, SeededRng, SystemRng


def result_record(result: RollResult) -> dict[str, Any]:
    """A rolled expression as JSON-ready data: expression, total, every die, rendered line.

    >>> from referee.dice import roll_text
    >>> from referee.rng import ScriptedRng
    >>> result_record(roll_text("1d100", rng=ScriptedRng([47])))["dice"]
    [{'sides': 100, 'face': 47, 'kept': True, 'exploded': False}]
    """
    return {
        "expression": str(result.expression),
        "total": result.total,
        "dice": [
            {"sides": d.sides, "face": d.face, "kept": d.kept, "exploded": d.exploded}
            for d in result.dice
        ],
        "rendered": str(result),
    }


def host_record(line: HostLine) -> dict[str, Any]:
    """An OnlineHost answer as JSON-ready data.

    >>> host_record(HostLine("Tarl", 1, 100, (47,)))["line"]
    'OnlineHost: Tarl rolled 1 100-sided die: 47'
    """
    return {
        "name": line.name,
        "count": line.count,
        "sides": line.sides,
        "faces": list(line.faces),
        "line": str(line),
    }


@click.command("roll")
@click.argument("expression", required=False)
@click.option(
    "--chat", "chat_text", metavar="COMMAND", help="An AOL chat roll: //roll -dice1 -sides100"
)
@click.option("--name", default="You", show_default=True, help="Who rolls, in --chat mode.")
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    help="Roll reproducibly from this seed (printed to stderr as 'seed: N').",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def roll_command(
    expression: str | None, chat_text: str | None, name: str, seed: int | None, as_json: bool
) -> None:
    """Roll dice notation, or answer an AOL chat roll as OnlineHost did.

    Notation: NdS, dS, d% (= d100), numbers, + - *, parentheses, keep/drop
    (4d6kh3, kl, dh, dl), exploding dice (6d6!), success counting (8d10>=7).
    Dropped dice are shown ~~struck~~, exploded ones with '!', successes with '*'.
    Put '--' before an expression that starts with '-'.

    \b
    Examples:
      referee roll 2d20+1d6
      referee roll 4d6kh3 --seed 7
      referee roll "3d6! + 2" --json
      referee roll -- -1d6+10
      referee roll --chat "//roll -sides100 -dice1" --name Tarl
      referee roll --chat "//roll-dice2-sides20" --seed 1
    """
    if (expression is None) == (chat_text is None):
        raise click.UsageError("give either EXPRESSION or --chat, not both and not neither")
    rng: Rng = SystemRng() if seed is None else SeededRng(seed)
    if chat_text is not None:
        line = _chat_roll(chat_text, name, rng)
        record, text = host_record(line), str(line)
    else:
        assert expression is not None
        result = roll(parse(expression), rng=rng)
        record, text = result_record(result), str(result)
    if seed is not None:  # only once the roll worked: a bad input stays one stderr line
        click.echo(f"seed: {seed}", err=True)
        record["seed"] = seed
    if as_json:
        emit_json(record)
    else:
        click.echo(text)


def _chat_roll(text: str, name: str, rng: Rng) -> HostLine:
    group = parse_chat(text)
    faces = rng.throw((group.sides,) * group.count).faces
    return HostLine(name, group.count, group.sides, faces)
