"""MSV as a rule system the bout engine runs (the hooks of `referee.systems.base`).

* Stats: `{"cs": 65}` (MSV-2).
* Initiative: MSV-5 for every living fighter; every roll and reroll is in the payload.
* Action "attack" (MSV-6): one d100 against the attacker's CS, options `{"target": NAME}`.
  With one enemy left the target may be left out.
* A critical (MSV-4, default pack) stuns the target: the attacker keeps the turn
  (`extra_action`) and the free attack must go to the stunned foe (the default target).
  The stun is a "stunned" condition that the free attack clears; if the critical defeats the
  target there is no stunned foe left and no free attack.
* Defeat at the pack's threshold (MSV-7, 15).

>>> from referee.rng import ScriptedRng
>>> from referee.bout.state import Fighter
>>> msv = MsvSystem()
>>> msv.initiative([Fighter("Tarl", "a", {"cs": 65}), Fighter("Pa-Kur", "b", {"cs": 70})],
...                ScriptedRng([47, 12])).order
('Tarl', 'Pa-Kur')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from referee.errors import RuleError
from referee.rng import Rng, die
from referee.systems.base import (
    JSON,
    ConditionChange,
    Initiative,
    Outcome,
    RuleSystem,
    Wound,
    register,
)
from referee.systems.msv import payloads
from referee.systems.msv.attack import D100, MsvAttack, check_cs, interpret
from referee.systems.msv.initiative import roll_initiative
from referee.systems.msv.rules import MsvRules, rules_from_mapping

if TYPE_CHECKING:
    from referee.bout.state import BoutState, Fighter

STUNNED = "stunned"


#: The largest CS a fighter of a bout may have (MSV-2: CS >= 100 always succeeds).
MAX_CS = 100


@register
class MsvSystem(RuleSystem):
    """The Mago System of Vonda: everyone rolls 1d100 against a Combat Skill."""

    name = "msv"
    title = "MSV - Mago System of Vonda (1d100 Combat Skill)"
    actions = ("attack",)
    #: A hidden CS (the attacker's) leaves the roll, hit or miss, the damage and a critical's
    #: stun public; only the CS itself is left out (and said `hidden` in the summary).
    outcomes = payloads.OUTCOMES
    initiative_detail = payloads.Initiative
    wound_words = ("damage", "damage")
    typed_attack = "1d100"
    join_stat = "cs"
    hidden_words = "its CS"

    def __init__(self, rules: Mapping[str, Any] | None = None) -> None:
        super().__init__(rules)
        self.msv: MsvRules = rules_from_mapping(self.rules, "msv")
        self._readings = _readings(self.msv)

    def load_rules(self, data: Mapping[str, Any]) -> dict[str, JSON]:
        """Validate a pack; return it complete (the text's values filled in).

        >>> MsvSystem().load_rules({"damage_cap": 3})["damage_cap"]
        3
        """
        return dict(rules_from_mapping(data, "msv").to_json())

    def check_stats(self, stats: Mapping[str, Any]) -> dict[str, JSON]:
        """A fighter's stats: exactly `{"cs": N}` with 0 <= N <= 100 (MSV-2: CS 100 already
        always succeeds, so no larger CS means anything).

        >>> MsvSystem().check_stats({"cs": 65})
        {'cs': 65}
        """
        unknown = sorted(set(stats) - {"cs"})
        if unknown or "cs" not in stats:
            raise RuleError(f"MSV stats are {{'cs': N}}, got {dict(stats)!r}")
        cs = int(check_cs(stats["cs"]))
        if cs > MAX_CS:
            raise RuleError(f"CS must be 0..{MAX_CS} (MSV-2: CS {MAX_CS} always succeeds)")
        return {"cs": cs}

    def initiative(self, fighters: Sequence[Fighter], rng: Rng) -> Initiative:
        """MSV-5 for every given fighter."""
        result = roll_initiative([(f.name, _cs(f)) for f in fighters], rng, self.msv)
        return Initiative(result.order, payloads.Initiative.read(result.to_json()))

    def act(
        self, bout: BoutState, actor: str, kind: str, options: Mapping[str, Any], rng: Rng
    ) -> Outcome:
        """One attack (plus the bookkeeping of a stun): MSV-2..MSV-4, MSV-6."""
        if kind != "attack":
            raise RuleError(f"unknown MSV action {kind!r} (expected 'attack')")
        free = bout.free_attack == actor
        target = _target(bout, actor, options, free)
        result, said = self._attack(_cs(bout.fighter(actor)), rng)
        defeats = target.wounds + result.damage >= self.msv.defeat_threshold
        stuns = result.free_attack and not defeats
        clear = tuple(
            [ConditionChange(f.name, STUNNED, 0) for f in bout.fighters if STUNNED in f.conditions]
        )
        payload = payloads.Attack(
            cs=result.cs, roll=result.roll, success=result.success, damage=result.damage,
            critical=result.critical, free_attack=result.free_attack,
            extra_damage=result.extra_damage, target=target.name, free=free, stuns=stuns,
        )  # fmt: skip
        return Outcome(
            "attack",
            payload,
            f"{actor} attacks {target.name}: {said}",
            wounds=(Wound(target.name, result.damage),) if result.damage else (),
            conditions=clear + ((ConditionChange(target.name, STUNNED, None),) if stuns else ()),
            extra_action=stuns,
        )

    def _attack(self, cs: int, rng: Rng) -> tuple[MsvAttack, str]:
        """`attack(cs, rng, self.msv)` (one d100 from `rng`, read against a valid `cs`), and
        its text: each (CS, face) is read once per pack and then looked up, since a reading
        depends on nothing else (`interpret` is pure); a face `interpret` refuses is never
        kept."""
        roll = die(rng, D100)
        found = self._readings.get((cs, roll))
        if found is None:
            result = interpret(cs, roll, self.msv)
            found = (result, str(result))
            if cs <= MAX_CS:  # at most 101 x 100 readings
                self._readings[cs, roll] = found
        return found

    @classmethod
    def describe_stats(cls, stats: Mapping[str, Any]) -> str:
        """`CS 65`.

        >>> MsvSystem.describe_stats({"cs": 65})
        'CS 65'
        """
        return f"CS {stats['cs']}"

    def hidden_stats(self) -> tuple[str, ...]:
        """The referee may keep an NPC's CS hidden until revealed or the close, as SRP-10 lets
        it keep skills hidden: the public sees `47 vs CS hidden: hit`, the referee the CS."""
        return ("cs",)

    def defeat_threshold(self, fighter: Fighter) -> int:
        """MSV-7: the pack's threshold (15).

        >>> MsvSystem().defeat_threshold(None)  # type: ignore[arg-type]
        15
        """
        return self.msv.defeat_threshold


@lru_cache(maxsize=64)
def _readings(rules: MsvRules) -> dict[tuple[int, int], tuple[MsvAttack, str]]:
    """The readings of (CS, face) under one pack, shared by every bout of an equal pack and
    filled as they are rolled (`MsvSystem._attack`)."""
    return {}


def _cs(fighter: Fighter) -> int:
    return int(check_cs(fighter.stats.get("cs")))


def _target(bout: BoutState, actor: str, options: Mapping[str, Any], free: bool) -> Fighter:
    """The attack's target: named, or the only enemy, or (free attack) the stunned foe."""
    if len(options) > ("target" in options):  # a key other than "target"
        unknown = sorted(set(options) - {"target"})
        raise RuleError(f"unknown attack options {unknown!r} (expected 'target')")
    enemies = bout.enemies_of(actor)
    stunned = [f for f in enemies if STUNNED in f.conditions] if free else None
    if stunned:
        default = stunned[0]
        named = options.get("target", default.name)
        if named != default.name:
            raise RuleError(
                f"the free attack goes to the stunned foe {default.name!r}, not {named!r} (MSV-4)"
            )
        return default
    if "target" not in options:
        if len(enemies) == 1:
            return enemies[0]
        names = ", ".join(f.name for f in enemies)
        raise RuleError(f"name the target of the attack (MSV-6): one of {names}")
    name = options["target"]
    if not isinstance(name, str):
        raise RuleError(f"a target is a fighter's name, got {name!r}")
    target = bout.fighter(name)
    if target not in enemies:
        raise RuleError(f"{actor} cannot attack {name!r}: not a standing enemy")
    return target
