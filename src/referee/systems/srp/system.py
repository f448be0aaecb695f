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
    ConditionChange,
    Initiative,
    Outcome,
    RuleSystem,
    StatChange,
    Wound,
    register,
)
from referee.systems.srp import melee, missile, payloads
from referee.systems.srp.actions import (
    Condition,
    Special,
    break_free,
    special_action,
    why_blocked,
)
from referee.systems.srp.combatants import attack_from, defense_from
from referee.systems.srp.gear import Weapon
from referee.systems.srp.geometry import Body, can_attack, distance, rear_attack
from referee.systems.srp.rules import TurnOrder, hits_to_down, load_rules
from referee.systems.srp.sheet import Sheet, parse_defense
from referee.systems.srp.stats import check_stats, sheet_from_stats
from referee.systems.srp.system_moves import moving
from referee.systems.srp.system_spirit import passed_out, spirit_round
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
        return replace(outcome, stats=(*stood, *outcome.stats)) if stood else outcome

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


def _allowed(options: Mapping[str, Any], kind: str, allowed: set[str]) -> None:
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise RuleError(f"unknown {kind} options {unknown!r} (expected {sorted(allowed)!r})")


def _target(bout: BoutState, actor: str, options: Mapping[str, Any], kind: str) -> Fighter:
    enemies = bout.enemies_of(actor)
    if "target" not in options:
        if len(enemies) == 1:
            return enemies[0]
        raise RuleError(
            f"name the target of the {kind}: one of {', '.join(f.name for f in enemies)}"
        )
    name = options["target"]
    target = bout.fighter(name) if isinstance(name, str) else None
    if target is None or target not in enemies:
        raise RuleError(f"{actor} cannot {kind} {name!r}: not a standing enemy")
    return target


def _weapon(sheet: Sheet, options: Mapping[str, Any]) -> Weapon:
    name = options.get("weapon")
    return sheet.weapon if name is None else sheet.find_weapon(str(name))


def _body(sheet: Sheet, weapon: Weapon | None = None) -> Body:
    reach = (weapon or sheet.weapon).reach
    return Body(sheet.name, sheet.x, sheet.y, sheet.facing, reach)


def _check_reach(att: Sheet, weapon: Weapon, target: Sheet) -> None:
    if att.placed and target.placed and not can_attack(_body(att, weapon), (target.x, target.y)):
        gap = distance((att.x, att.y), (target.x, target.y))
        band = "beyond 1.5 m up to" if weapon.long else "up to"
        raise RuleError(
            f"{target.name} is {gap:g} m from {att.name}; the {weapon.name} reaches "
            f"{band} {weapon.reach:g} m (SRP-15)"
        )


def _rear(att: Sheet, target: Sheet, options: Mapping[str, Any]) -> bool:
    rear = bool_option(options, "rear")
    if att.placed and target.placed:
        return rear_attack((att.x, att.y), _body(target))
    return rear


def bool_option(options: Mapping[str, Any], key: str, default: bool = False) -> bool:
    """An option that is true or false: a JSON boolean, never text or a number.

    `"no"`, `"false"` and `"0"` are not false (nor true): they are a clear error naming the
    option, as is anything but `true` and `false`.

    >>> bool_option({"rear": True}, "rear"), bool_option({}, "rear")
    (True, False)
    >>> bool_option({"rear": "no"}, "rear")
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: rear 'no' is not true or false (a JSON boolean: true or false)
    """
    value = options.get(key, default)
    if not isinstance(value, bool):
        raise RuleError(f"{key} {value!r} is not true or false (a JSON boolean: true or false)")
    return value


def _int_option(options: Mapping[str, Any], key: str) -> int:
    value = options.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not -50 <= value <= 50:
        raise RuleError(f"{key} {value!r} is not a whole number -50..50")
    return value


def _holding(bout: BoutState, actor: Fighter, target: Fighter) -> bool:
    return (
        actor.has(Condition.GRAPPLING.value)
        and actor.stats.get("holds") == target.name
        and target.has(Condition.GRAPPLED.value)
    )


def _attack(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    _allowed(options, "attack", {"target", "weapon", "defend", "rear", "modifier"})
    me, foe = bout.fighter(actor), _target(bout, actor, options, "attack")
    att, tgt = system.sheet(me), system.sheet(foe)
    weapon = _weapon(att, options)
    if weapon.missile and not weapon.thrown:
        raise RuleError(f"the {weapon.name} is a missile weapon: use 'shoot'")
    _check_reach(att, weapon, tgt)
    rear = _rear(att, tgt, options)
    attack = attack_from(
        att,
        weapon=weapon,
        rear=rear,
        modifier=_int_option(options, "modifier"),
        automatic=_holding(bout, me, foe),
    )
    attack = replace(attack, missile=False, thrown=False)
    kind = parse_defense(options["defend"]) if "defend" in options else None
    result = melee.strike(attack, defense_from(tgt, kind), rng, system.srp)
    return _strike_outcome("attack", actor, foe.name, weapon, rear, result)


def with_weapon(weapon: Weapon) -> str:
    """How a summary names the weapon used.

    >>> with_weapon(Weapon("mace")), with_weapon(Weapon("unarmed"))
    ('with the mace', 'bare-handed')
    """
    return "bare-handed" if weapon.name == "unarmed" else f"with the {weapon.name}"


def _strike_outcome(
    kind: str, actor: str, target: str, weapon: Weapon, rear: bool, result: melee.Strike
) -> Outcome:
    strike = payloads.strike_fields(result.as_dict())
    payload = payloads.Attack(target=target, weapon=weapon.name, rear=rear, **strike)
    if result.hit_level is None:
        said = "no effect"
    else:
        said = f"{result.hit_level.label} hit, {result.hits} hit{'s' if result.hits != 1 else ''}"
    stun = (ConditionChange(target, Condition.STUNNED.value, 1),) if result.stun else ()
    return Outcome(
        kind,
        payload,
        f"{actor} {kind}s {target} {with_weapon(weapon)}: {said}" + (", stunned" if stun else ""),
        wounds=(Wound(target, result.hits),) if result.hits else (),
        conditions=stun,
    )


def _shoot(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    _allowed(options, "shoot", {"target", "weapon", "fire", "range", "modifier"})
    foe = _target(bout, actor, options, "shoot")
    att, tgt = system.sheet(bout.fighter(actor)), system.sheet(foe)
    weapon = _weapon(att, options)
    if not weapon.missile:
        raise RuleError(f"the {weapon.name} is not a missile weapon (it has no range)")
    shot = missile.Shot(
        skill=att.skill(weapon.name), weapon_damage=weapon.damage, dam=att.dam,
        thrown=weapon.thrown, modifier=_int_option(options, "modifier"), rof=weapon.rof,
        fire=_fire(options), distance=_range(att, tgt, weapon, options),
    )  # fmt: skip
    result = missile.shoot(shot, tgt.shield, tgt.armor, rng, system.srp)
    shots = tuple(payloads.Shot(**payloads.strike_fields(s.as_dict())) for s in result.shots)
    payload = payloads.Shoot(
        target=foe.name, weapon=weapon.name, range=shot.distance.value,
        fire=shot.fire.value, skill=result.volley.skill, reason=result.volley.reason,
        shots=shots, hits=result.hits,
    )  # fmt: skip
    summary = f"{actor} shoots {foe.name} {with_weapon(weapon)}: {result.hits} hits"
    wounds = (Wound(foe.name, result.hits),) if result.hits else ()
    return Outcome("shoot", payload, summary, wounds=wounds)


def _fire(options: Mapping[str, Any]) -> missile.Fire:
    value = options.get("fire", "aimed")
    try:
        return missile.Fire(value)
    except ValueError:
        kinds = ", ".join(f.value for f in missile.Fire)
        raise RuleError(f"fire {value!r} is not one of: {kinds}") from None


def _range(att: Sheet, tgt: Sheet, weapon: Weapon, options: Mapping[str, Any]) -> missile.Range:
    if not (att.placed and tgt.placed):
        try:
            return missile.Range(options.get("range", "effective"))
        except ValueError:
            raise RuleError(f"range {options.get('range')!r} is not effective or long") from None
    gap = distance((att.x, att.y), (tgt.x, tgt.y))
    effective = weapon.effective_range or 0.0
    if gap <= effective:
        return missile.Range.EFFECTIVE
    if gap <= (weapon.long_range or effective):
        return missile.Range.LONG
    raise RuleError(f"{tgt.name} is {gap:g} m away, beyond the {weapon.name}'s range")


def _special(
    system: SrpSystem,
    bout: BoutState,
    actor: str,
    options: dict[str, Any],
    rng: Rng,
    action: Special,
) -> Outcome:
    _allowed(options, action.value, {"target", "weapon", "defend", "rear", "modifier"})
    foe = _target(bout, actor, options, action.value)
    att, tgt = system.sheet(bout.fighter(actor)), system.sheet(foe)
    weapon = _weapon(att, options)
    _check_reach(att, weapon, tgt)
    attack = attack_from(
        att, weapon=weapon, rear=_rear(att, tgt, options), modifier=_int_option(options, "modifier")
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


def _break_free(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    _allowed(options, "break_free", set())
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


def _pick_up(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    _allowed(options, "pick_up", set())
    if not bout.fighter(actor).has(Condition.DISARMED.value):
        raise RuleError(f"{actor} is not disarmed: nothing to pick up")
    return Outcome(
        "pick_up",
        payloads.Empty(),
        f"{actor} picks the weapon up",
        conditions=(ConditionChange(actor, Condition.DISARMED.value, 0),),
    )


def _release(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    _allowed(options, "release", set())
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


def _face(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    _allowed(options, "face", {"facing"})
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
    _allowed(options, "spirit", {"target", "helpers"})
    foe = _target(bout, actor, options, "spirit")
    return spirit_round(system, bout, actor, foe, options, rng)


def _pass(
    system: SrpSystem, bout: BoutState, actor: str, options: dict[str, Any], rng: Rng
) -> Outcome:
    _allowed(options, "pass", set())
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
        return lambda s, b, a, o, r: _special(s, b, a, o, r, action)

    return {action.value: bind(action) for action in Special}


_HANDLERS: dict[str, Handler] = {
    "attack": _attack,
    "shoot": _shoot,
    "break_free": _break_free,
    "pick_up": _pick_up,
    "release": _release,
    "face": _face,
    "spirit": _spirit,
    "pass": _pass,
    **_specials(),
}
