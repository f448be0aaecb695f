"""A fight file (TOML): fighters as sheets, a rule pack, a gear pack, and a scripted start.

    [fight]   name, gear ("example" or a pack path relative to the file), dice (faces
              used first), max_actions
    [rules]   SRP options (RULINGS *(option)*s)
    [[fighter]]  name, side, and sheet keys (see `sheet_from_table`)
    [[action]]   actor, kind, and options; `path` in metres [[x, y], ...]

Pure: it reads text and returns records; running the fight is the CLI's job.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import RulePackError
from referee.rng import Rng, ScriptedRng, Throw
from referee.systems.srp.gear import GearPack, example_pack, parse_toml, read_pack
from referee.systems.srp.packdata import Table
from referee.systems.srp.rules import load_rules
from referee.systems.srp.sheet import MAX_METRES, is_coordinate, sheet_from_table
from referee.systems.srp.stats import sheet_to_stats
from referee.vocabulary import JSON

#: Most fighters and scripted actions a fight file may hold (stated bounds).
MAX_FIGHTERS = 50
MAX_SCRIPT = 500


@dataclass(frozen=True, slots=True)
class Entrant:
    """One fighter to add: name, side, stats as the bout keeps them."""

    name: str
    side: str
    stats: dict[str, JSON]


@dataclass(frozen=True, slots=True)
class Scripted:
    """One scripted action: who, what, options (JSON, paths in centimetres)."""

    actor: str
    kind: str
    options: dict[str, JSON]


@dataclass(frozen=True, slots=True)
class FightPlan:
    """Everything a fight file says."""

    name: str
    rules: dict[str, Any]
    entrants: tuple[Entrant, ...]
    script: tuple[Scripted, ...]
    dice: tuple[int, ...]
    max_actions: int


def read_fight(path: str | Path) -> FightPlan:
    """Read and check a fight file; RulePackError names the bad key."""
    where = Path(path)
    try:
        text = where.read_text(encoding="utf-8")
    except OSError as err:
        raise RulePackError(f"cannot read fight file {str(path)!r}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise RulePackError(f"fight file {str(path)!r} is not UTF-8 text") from None
    return parse_fight(parse_toml(text, str(path)), where.parent)


def parse_fight(data: dict[str, Any], base: Path) -> FightPlan:
    """A fight plan from parsed TOML; gear pack paths are relative to `base`."""
    top = Table(data, "fight file")
    head = Table(top.get("fight", dict, {}), "fight")
    name = head.get("name", str, "SRP fight")
    gear = _gear(head.get("gear", str, "example"), base)
    dice = head.get("dice", list, [])
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in dice):
        raise RulePackError(f"fight.dice = {dice!r} is not a list of faces")
    max_actions = head.integer("max_actions", 200, low=1, high=10_000)
    head.finish()
    rules = top.get("rules", dict, {})
    options = load_rules(rules, "rules")
    entrants = _entrants(top.get("fighter", list, []), gear, options.pavise_ap)
    script = tuple(_scripted(i, item) for i, item in enumerate(top.get("action", list, [])))
    top.finish()
    if len(script) > MAX_SCRIPT:
        raise RulePackError(f"{len(script)} scripted actions (at most {MAX_SCRIPT})")
    return FightPlan(name, dict(rules), entrants, script, tuple(dice), max_actions)


def _gear(name: str, base: Path) -> GearPack:
    return example_pack() if name == "example" else read_pack(base / name)


def _entrants(items: list[Any], gear: GearPack, pavise_ap: int) -> tuple[Entrant, ...]:
    if not 2 <= len(items) <= MAX_FIGHTERS:
        raise RulePackError(f"a fight needs 2..{MAX_FIGHTERS} [[fighter]] tables, got {len(items)}")
    out = []
    for index, item in enumerate(items):
        where = f"fighter[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise RulePackError(f"{where}.name is missing")
        sheet_data = {k: v for k, v in item.items() if k not in ("name", "side")}
        sheet = sheet_from_table(item["name"], sheet_data, gear, pavise_ap=pavise_ap, where=where)
        side = item.get("side", item["name"])
        if not isinstance(side, str):
            raise RulePackError(f"{where}.side = {side!r} is not a string")
        out.append(Entrant(item["name"], side, sheet_to_stats(sheet)))
    return tuple(out)


def _scripted(index: int, item: Any) -> Scripted:
    where = f"action[{index}]"
    if not isinstance(item, dict):
        raise RulePackError(f"{where} is not a table")
    actor, kind = item.get("actor"), item.get("kind")
    if not isinstance(actor, str) or not isinstance(kind, str):
        raise RulePackError(f"{where} needs actor and kind (strings)")
    options: dict[str, JSON] = {}
    for key, value in item.items():
        if key in ("actor", "kind"):
            continue
        options[key] = (
            _centimetres(value, f"{where}.path")
            if key == "path"
            else _plain(value, f"{where}.{key}")
        )
    return Scripted(actor, kind, options)


def _centimetres(value: Any, where: str) -> JSON:
    if not isinstance(value, list):
        raise RulePackError(f"{where} = {value!r} is not a list of [x, y] points in metres")
    points: list[JSON] = []
    for point in value:
        if not (isinstance(point, list) and len(point) == 2 and all(map(is_coordinate, point))):
            raise RulePackError(
                f"{where}: {point!r} is not [x, y] in metres "
                f"(each within -{MAX_METRES}..{MAX_METRES})"
            )
        points.append([round(point[0] * 100), round(point[1] * 100)])
    return points


def _plain(value: Any, where: str) -> JSON:
    if value is None or isinstance(value, bool | int | str):
        return value
    raise RulePackError(f"{where} = {value!r} must be text, a whole number or true/false")


class FacesFirst:
    """A dice source that replays given faces first, then draws from another source.

    >>> rng = FacesFirst(ScriptedRng([4, 5]), ScriptedRng([6]))
    >>> rng.throw((6, 6)).faces, rng.throw((6,)).faces
    ((4, 5), (6,))
    """

    def __init__(self, first: ScriptedRng, then: Rng) -> None:
        self.first = first
        self.then = then

    def throw(self, sides: Sequence[int]) -> Throw:
        """From the given faces while enough are left, else from the other source."""
        if self.first.remaining >= len(sides):
            return self.first.throw(sides)
        return self.then.throw(sides)
