"""The SRP-16 special actions (disarm, grapple, entangle, unhorse) and the actions that undo
their conditions (break free, pick up, release)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.errors import RuleError
from referee.rng import Rng, die
from referee.systems.base import (
    ConditionChange,
    Outcome,
    StatChange,
)
from referee.systems.srp import payloads
from referee.systems.srp.actions import (
    Condition,
    Special,
    break_free,
    special_action,
)
from referee.systems.srp.combatants import attack_from, defense_from
from referee.systems.srp.sheet import parse_defense

if TYPE_CHECKING:
    from referee.bout.state import BoutState
    from referee.systems.srp.system import SrpSystem

from referee.systems.srp.system_options import (
    allowed,
    check_reach,
    from_rear,
    int_option,
    target_of,
    weapon_of,
)


def special_handler(
    system: SrpSystem,
    bout: BoutState,
    actor: str,
    options: dict[str, Any],
    rng: Rng,
    action: Special,
) -> Outcome:
    allowed(options, action.value, {"target", "weapon", "defend", "rear", "modifier"})
    foe = target_of(bout, actor, options, action.value)
    att, tgt = system.sheet(bout.fighter(actor)), system.sheet(foe)
    weapon = weapon_of(att, options)
    check_reach(att, weapon, tgt)
    attack = attack_from(
        att,
        weapon=weapon,
        rear=from_rear(att, tgt, options),
        modifier=int_option(options, "modifier"),
    )
    kind = parse_defense(options["defend"]) if "defend" in options else None
    result = special_action(
        action, weapon, attack, defense_from(tgt, kind), rng, mounted=tgt.mounted, rules=system.srp
    )
    names = {"attacker": actor, "defender": foe.name}
    conditions = tuple(
        # the actor's own timed conditions tick once at the end of this very turn
        ConditionChange(
            names[e.on],
            e.condition.value,
            None
            if e.condition.rounds is None
            else e.condition.rounds + (1 if e.on == "attacker" else 0),
        )
        for e in result.effects
    )
    stats: tuple[StatChange, ...] = ()
    if result.worked and action in (Special.GRAPPLE, Special.ENTANGLE):
        stats = (StatChange(actor, "holds", foe.name),)
    if result.worked and action is Special.UNHORSE:
        stats = (StatChange(foe.name, "mounted", False),)
    verdict = "works" if result.worked else "fails"
    payload = payloads.Special(
        target=foe.name,
        action=action.value,
        dice=tuple(result.faces),
        attack_level=result.attack_level.label,
        defense_level=None if result.defense_level is None else result.defense_level.label,
        worked=result.worked,
        effects=tuple(
            payloads.Effect(on=e.on, condition=e.condition.value) for e in result.effects
        ),
        explanation=tuple(result.explanation),
    )
    return Outcome(
        action.value,
        payload,
        f"{actor} tries to {action.value} {foe.name}: {verdict}",
        conditions=conditions,
        stats=stats,
    )


def break_free_handler(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    allowed(options, "break_free", set())
    me = bout.fighter(actor)
    if not me.has(Condition.GRAPPLED.value):
        raise RuleError(f"{actor} is not grappled")
    step = Condition.BREAKING_FREE.value
    if not me.has(step):
        return Outcome(
            "break_free",
            payloads.BreakFree(step=1),
            f"{actor} spends the first of two actions breaking free",
            conditions=(ConditionChange(actor, step, None),),
        )
    result = break_free(die(rng, 20), system.sheet(me).defense, system.srp)
    changes = [ConditionChange(actor, step, 0)]
    stats: list[StatChange] = []
    if result.freed:
        changes.append(ConditionChange(actor, Condition.GRAPPLED.value, 0))
        for holder in bout.fighters:
            if holder.stats.get("holds") == actor and holder.has(Condition.GRAPPLING.value):
                changes.append(ConditionChange(holder.name, Condition.GRAPPLING.value, 0))
                stats.append(StatChange(holder.name, "holds", None))
    payload = payloads.BreakFree(
        step=2,
        roll=result.roll,
        defense=result.defense,
        freed=result.freed,
        explanation=(result.explanation,),
    )
    return Outcome(
        "break_free",
        payload,
        f"{actor} {'breaks free' if result.freed else 'stays grappled'}",
        conditions=tuple(changes),
        stats=tuple(stats),
    )


def pick_up_handler(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    allowed(options, "pick_up", set())
    if not bout.fighter(actor).has(Condition.DISARMED.value):
        raise RuleError(f"{actor} is not disarmed: nothing to pick up")
    return Outcome(
        "pick_up",
        payloads.Empty(),
        f"{actor} picks the weapon up",
        conditions=(ConditionChange(actor, Condition.DISARMED.value, 0),),
    )


def release_handler(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    allowed(options, "release", set())
    held = bout.fighter(actor).stats.get("holds")
    if not isinstance(held, str):
        raise RuleError(f"{actor} holds nobody")
    changes = [
        ConditionChange(actor, c.value, 0)
        for c in (Condition.GRAPPLING, Condition.ENTANGLING)
        if bout.fighter(actor).has(c.value)
    ]
    if bout.has_fighter(held):
        changes += [
            ConditionChange(held, c.value, 0)
            for c in (Condition.GRAPPLED, Condition.ENTANGLED, Condition.BREAKING_FREE)
            if bout.fighter(held).has(c.value)
        ]
    return Outcome(
        "release",
        payloads.Release(released=held),
        f"{actor} lets go of {held}",
        conditions=tuple(changes),
        stats=(StatChange(actor, "holds", None),),
    )
