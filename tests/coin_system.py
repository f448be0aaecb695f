"""A tiny rule system for tests of the system-independent parts (engine, service, ledger).

The "coin" system: initiative is one d6 each (highest first, ties broken by joining order); an
attack is one d6: 1-3 miss, 4 one wound, 5 one wound and the target is stunned for its next
turn, 6 two wounds and a free extra action. Three wounds defeat a fighter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from referee.bout.state import BoutState, Fighter
from referee.errors import RuleError
from referee.payloads import Shape, hidden, public
from referee.rng import Rng, die, fighter_dice
from referee.systems.base import (
    JSON,
    ConditionChange,
    Initiative,
    Outcome,
    RuleSystem,
    Wound,
    register,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class CoinAttack(Shape):
    face: int = public()
    target: str = public()
    wounds: int = hidden()


@dataclass(frozen=True, slots=True, kw_only=True)
class CoinInitiative(Shape):
    rolls: Mapping[str, int] = public()


@register
class CoinSystem(RuleSystem):
    name = "coin-test"
    title = "Coin (test only)"
    actions = ("attack",)
    outcomes: ClassVar[Mapping[str, type[Shape]]] = {"attack": CoinAttack}
    initiative_detail = CoinInitiative

    def load_rules(self, data: Mapping[str, Any]) -> dict[str, JSON]:
        return {"threshold": int(data.get("threshold", 3))}

    def check_stats(self, stats: Mapping[str, Any]) -> dict[str, JSON]:
        if set(stats) - {"power"}:
            raise RuleError(f"unknown stats {sorted(set(stats) - {'power'})!r}")
        return {"power": int(stats.get("power", 0))}

    def hidden_stats(self) -> tuple[str, ...]:
        return ("power",)

    def initiative(self, fighters: Sequence[Fighter], rng: Rng) -> Initiative:
        rolls = {f.name: die(fighter_dice(rng, f.name), 6) for f in fighters}
        order = sorted(rolls, key=lambda n: -rolls[n])
        return Initiative(tuple(order), CoinInitiative(rolls=dict(rolls)))

    def act(
        self, bout: BoutState, actor: str, kind: str, options: Mapping[str, Any], rng: Rng
    ) -> Outcome:
        target = bout.fighter(str(options["target"])).name
        face = die(rng, 6)
        wounds = {4: 1, 5: 1, 6: 2}.get(face, 0)
        stun = (ConditionChange(target, "stunned", 1),) if face == 5 else ()
        return Outcome(
            "attack",
            CoinAttack(face=face, target=target, wounds=wounds),
            f"{actor} rolls {face} against {target}",
            wounds=(Wound(target, wounds),),
            conditions=stun,
            extra_action=face == 6,
        )

    def defeat_threshold(self, fighter: Fighter) -> int:
        return int(self.rules["threshold"])  # type: ignore[arg-type]

    def blocked(self, fighter: Fighter, kind: str) -> str | None:
        return "stunned" if kind == "turn" and fighter.has("stunned") else None
