"""The `referee srp` group and what its commands share: the dice they are given, seeded or
drawn (`pick_rng`), the rules file, the options and the printing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from referee.cli.output import emit_json
from referee.cli.typed import WHOLE
from referee.errors import NotationError, RuleError
from referee.numerals import is_whole
from referee.rng import Rng, ScriptedRng, SeededRng
from referee.systems.files import read_text_file
from referee.systems.srp.gear import parse_toml
from referee.systems.srp.rules import DEFAULT_RULES, SrpRules, load_rules

#: Most faces one --dice option may list (a stated bound).
MAX_FACES = 400


def numbers(text: str, option: str, count: int | None = None) -> tuple[int, ...]:
    """`3,14,6` -> (3, 14, 6); a NotationError quoting the text otherwise.

    >>> numbers("3, 14,6", "--dice", 3)
    (3, 14, 6)
    """
    parts = [p.strip() for p in text.split(",")]
    if not all(is_whole(p, signs="-") for p in parts) or len(parts) > MAX_FACES:
        raise NotationError(f"{option} {text!r} is not a list of whole numbers like '3,14,6'")
    if count is not None and len(parts) != count:
        raise NotationError(f"{option} {text!r} has {len(parts)} numbers (expected {count})")
    return tuple(int(p) for p in parts)


def pick_rng(
    dice: str | None, seed: int | None, sides: tuple[int, ...], count: int | None = None
) -> tuple[Rng, int | None]:
    """Scripted dice when given (each face checked against its die), else a seeded source.

    `sides` are the dice of one throw, repeated for longer lists: (20, 20, 6) or (6, 6).

    >>> pick_rng("3,14,6", None, (20, 20, 6), 3)[1] is None
    True
    """
    if dice is None:
        rng = SeededRng(seed)
        return rng, rng.seed
    faces = numbers(dice, "--dice", count)
    for position, face in enumerate(faces):
        size = sides[position % len(sides)]
        if not 1 <= face <= size:
            raise RuleError(
                f"--dice {dice!r}: face {face} (number {position + 1}) does not fit a d{size}"
            )
    return ScriptedRng(faces), None


def read_rules(path: str | None) -> SrpRules:
    """A rule pack file (TOML; its `[srp]` table, or the whole file), or the defaults."""
    if path is None:
        return DEFAULT_RULES
    data = parse_toml(read_text_file(path, "rule pack"), path)
    return load_rules(data.get("srp", data))


def show(as_json: bool, data: dict[str, Any], lines: Sequence[str], seed: int | None) -> None:
    """Print JSON, or the explanation lines (and the seed, when one was drawn)."""
    if seed is not None:
        data = {**data, "seed": seed}
    if as_json:
        emit_json(data)
        return
    for line in lines:
        click.echo(line)
    if seed is not None:
        click.echo(f"(seed {seed})")


dice_option = click.option("--dice", help="Faces to use instead of rolling, comma-separated.")


seed_option = click.option("--seed", type=WHOLE, help="Seed for reproducible rolls.")


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


rules_option = click.option("--rules", "rules_path", help="Rule pack TOML with SRP options.")


@click.group("srp")
def srp() -> None:
    """SRP (Simple Role Playing) combat and contests.

    \b
    Examples:
      referee srp levels --max 30
      referee srp attack --skill 15 --defense 12 --defend shield --shield medium --dice 3,8,5
      referee srp shoot --skill 14 --rof 2 --fire rapid --weapon-damage 3
      referee srp opposed --active 18 --passive 15 --passive-bonus 3
      referee srp spirit Andrea=5 --vs Ghost=4 Ghost=3 Ghost=2 --seed 1
      referee srp odds --attacker "skill=15 damage=3 hits=12" --defender "defense=12 hits=10"
    """
