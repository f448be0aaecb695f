"""SRP as a rule system the bout engine runs (the hooks of `referee.systems.base`).

* Stats: a sheet as JSON (`referee.systems.srp.stats`); defeat at the hit total (SRP-9).
* Initiative: the listed order, or a d20 + `initiative` per fighter (pack option, SRP-19).
* Actions: attack, shoot, the special actions (SRP-16), break_free, pick_up, release,
  move, step (a minimum move), charge, face (free), spirit (one round of spirit combat,
  SRP-17) and pass. Reach and the rear arc are
  checked when both fighters have a position (SRP-14, SRP-15).
* Conditions tick per the bout engine; `blocked` says what a condition forbids.

>>> from referee.rng import ScriptedRng
>>> from referee.bout.state import Fighter
>>> srp = SrpSystem()
>>> srp.initiative([Fighter("Ann", "a", {"hits": 9}), Fighter("Bran", "b", {"hits": 9})],
...                ScriptedRng([])).order
('Ann', 'Bran')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, cast

from referee.errors import RuleError
from referee.rng import Rng, die, fighter_dice
from referee.systems.base import (
    JSON,
    Initiative,
    Outcome,
    RuleSystem,
    StatChange,
    register,
)
from referee.systems.srp import payloads, system_spirit
from referee.systems.srp.actions import (
    Condition,
    Special,
    why_blocked,
)
from referee.systems.srp.rules import TurnOrder, hits_to_down, load_rules
from referee.systems.srp.sheet import Sheet
from referee.systems.srp.stats import check_stats, sheet_from_stats
from referee.systems.srp.system_moves import moving
from referee.systems.srp.system_options import (
    allowed,
    target_of,
)
from referee.systems.srp.system_specials import (
    break_free_handler,
    pick_up_handler,
    release_handler,
    special_handler,
)
from referee.systems.srp.system_spirit import distracted_cost, passed_out, spirit_round
from referee.systems.srp.system_strikes import attack_handler, shoot_handler
from referee.systems.srp.system_world import stand_where_reported

if TYPE_CHECKING:
    from referee.bout.state import BoutState, Fighter

_CONDITIONS = {c.value: c for c in Condition}


@register
class SrpSystem(RuleSystem):
    """SRP, Simple Role Playing: three dice per attack, levels, the chart, hits."""

    name = "srp"
    title = "SRP - Simple Role Playing combat"
    actions = (
        "attack", "shoot", "disarm", "entangle", "grapple", "unhorse", "break_free", "pick_up",
        "release", "move", "step", "charge", "face", "spirit", "pass",
    )  # fmt: skip
    outcomes = payloads.OUTCOMES
    initiative_detail = payloads.Initiative
    wound_words = ("hit", "hits")
    condition_words: ClassVar[Mapping[str, str]] = {c.value: c.words for c in Condition}
    hidden_words = "its skills, defense and armor"

    def __init__(self, rules: Mapping[str, Any] | None = None) -> None:
        super().__init__(rules)
        self.srp = load_rules(self.rules)

    def load_rules(self, data: Mapping[str, Any]) -> dict[str, JSON]:
        """Validate a pack of SRP options; return it complete.

        >>> SrpSystem().load_rules({"challenge": ">"})["challenge"]
        '>'
        """
        return cast(dict[str, JSON], load_rules(data).as_dict())

    def check_stats(self, stats: Mapping[str, Any]) -> dict[str, JSON]:
        """A sheet as JSON stats, validated and normalized.

        >>> SrpSystem().check_stats({"hits": 12})["defense"]
        10
        """
        return check_stats(stats, pavise_ap=self.srp.pavise_ap)

    def sheet(self, fighter: Fighter) -> Sheet:
        """The fighter's sheet, read back from its stats."""
        return sheet_from_stats(fighter.name, fighter.stats, pavise_ap=self.srp.pavise_ap)

    def initiative(self, fighters: Sequence[Fighter], rng: Rng) -> Initiative:
        """The listed order (the referee's), or d20 + initiative, highest first (SRP-19)."""
        names = tuple(f.name for f in fighters)
        if self.srp.turn_order is TurnOrder.LISTED:
            return Initiative(names, payloads.Initiative(method="listed"))
        rolls: list[payloads.InitiativeRoll] = []
        totals = {}
        for f in fighters:
            face = die(fighter_dice(rng, f.name), 20)  # each from its own stream
            bonus = self.sheet(f).initiative
            totals[f.name] = face + bonus
            rolls.append(
                payloads.InitiativeRoll(name=f.name, d20=face, initiative=bonus, total=face + bonus)
            )
        order = tuple(sorted(names, key=lambda n: (-totals[n], names.index(n))))
        return Initiative(order, payloads.Initiative(method="roll", rolls=tuple(rolls)))

    def act(
        self, bout: BoutState, actor: str, kind: str, options: Mapping[str, Any], rng: Rng
    ) -> Outcome:
        """Resolve one SRP action (see the module docstring for the kinds)."""
        handler = _HANDLERS.get(kind) or _move_handler(kind)
        options = dict(options)
        # Positions from the world, when the referee's switch takes them (system_world).
        bout, stood = stand_where_reported(self.srp.world_positions, bout, actor, options)
        outcome = handler(self, bout, actor, options, rng)
        # SRP-17: a fighter in spirit combat that does anything else loses 1 PM.
        cost, said = distracted_cost(bout, actor, kind) if outcome.uses_turn else ([], "")
        if stood or cost:
            stats = (*stood, *outcome.stats, *cost)
            outcome = replace(outcome, stats=stats, summary=outcome.summary + said)
        return outcome

    def recovered(self, fighter: Fighter, clock: int) -> tuple[dict[str, JSON], str] | None:
        """SRP-17: a fighter at -1 PM is back at 0 PM an hour of play after it passed out."""
        return system_spirit.recovered(fighter, clock)

    def refuse_change(self, fighter: Fighter, stats: Mapping[str, Any], clock: int) -> str | None:
        """SRP-17: no 0 PM for a fighter that passed out less than an hour of play ago."""
        return system_spirit.refuse_change(fighter, stats, clock)

    def defeat_threshold(self, fighter: Fighter) -> int:
        """SRP-9: the sheet's hit total (one more when the pack says down means exceeding it)."""
        return hits_to_down(int(fighter.stats.get("hits", 1)), self.srp)

    @classmethod
    def describe_stats(cls, stats: Mapping[str, Any]) -> str:
        """A sheet's hits, defense, skills, weapons and armor.

        >>> SrpSystem.describe_stats({"hits": 10, "defense": 2, "skills": {"sword": 12},
        ...                           "weapons": [{"name": "sword"}], "armor": 3})
        "hits 10, defense 2, skills {'sword': 12}, weapons sword, armor AP 3"
        """
        weapons = ", ".join(str(w["name"]) for w in stats.get("weapons") or [])
        return (
            f"hits {stats.get('hits')}, defense {stats.get('defense')}, "
            f"skills {stats.get('skills')}, weapons {weapons}, armor AP {stats.get('armor')}"
        )

    def hidden_stats(self) -> tuple[str, ...]:
        """SRP-10: the referee may keep skills, defense, armor, PM and Spirit hidden."""
        return ("skills", "defense", "avoid", "armor", "pm", "spirit")

    def blocked(self, fighter: Fighter, kind: str) -> str | None:
        """What the fighter's conditions forbid (SRP-16); kind "turn": whether it loses it.

        A fighter at -1 PM has passed out (SRP-17): it loses every turn until the referee
        sets its PM back.
        """
        if passed_out(fighter) and kind != "pass":
            return f"{fighter.name} has passed out (-1 PM, SRP-17)"
        conditions = [_CONDITIONS[c] for c in fighter.conditions if c in _CONDITIONS]
        weapons = fighter.stats.get("weapons") or [{}]
        hands = int(weapons[0].get("hands", 1)) if isinstance(weapons[0], dict) else 1
        reason = why_blocked(conditions, kind, weapon_hands=hands)
        return None if reason is None else f"{fighter.name} {reason}"


Handler = Callable[[SrpSystem, "BoutState", str, dict[str, Any], Rng], Outcome]


def _face(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    allowed(options, "face", {"facing"})
    facing = options.get("facing")
    if isinstance(facing, bool) or not isinstance(facing, int):
        raise RuleError(f"facing {facing!r} is not whole degrees")
    return Outcome(
        "face",
        payloads.Face(facing=facing % 360),
        f"{actor} turns to face {facing % 360} degrees",
        stats=(StatChange(actor, "facing", facing % 360),),
        uses_turn=False,
    )


def _spirit(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    allowed(options, "spirit", {"target", "helpers"})
    foe = target_of(bout, actor, options, "spirit")
    return spirit_round(system, bout, actor, foe, options, rng)


def _pass(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    allowed(options, "pass", set())
    return Outcome("pass", payloads.Empty(), f"{actor} passes")


def _move_handler(kind: str) -> Handler:
    if kind not in ("move", "step", "charge"):
        raise RuleError(f"unknown SRP action {kind!r}")

    def handler(
        system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
    ) -> Outcome:
        return moving(system, bout, actor, kind, options, rng)

    return handler


def _specials() -> dict[str, Handler]:
    def bind(action: Special) -> Handler:
        return lambda s, b, a, o, r: special_handler(s, b, a, o, r, action)

    return {action.value: bind(action) for action in Special}


_HANDLERS: dict[str, Handler] = {
    "attack": attack_handler,
    "shoot": shoot_handler,
    "break_free": break_free_handler,
    "pick_up": pick_up_handler,
    "release": release_handler,
    "face": _face,
    "spirit": _spirit,
    "pass": _pass,
    **_specials(),
}
