"""`referee srp ...`: SRP combat and contests from the command line (RULINGS SRP-1..SRP-20).

Every command resolves with dice that are given (`--dice`), seeded (`--seed`), or drawn
from a fresh seed that is reported, and prints each step of the rules it applied.
"""

from __future__ import annotations

from typing import Any

import click

from referee.cli import srp_contests  # noqa: F401  (registers its commands on the group)
from referee.cli.output import emit_json
from referee.cli.srp_base import (
    dice_option,
    json_option,
    numbers,
    pick_rng,
    read_rules,
    rules_option,
    seed_option,
    show,
)
from referee.cli.srp_base import srp as srp  # the group, with every command of this module
from referee.cli.typed import WHOLE
from referee.errors import RuleError
from referee.rng import SeededRng
from referee.systems.srp import actions, levels, melee, missile
from referee.systems.srp.gear import Weapon, parse_shield
from referee.systems.srp.rules import SrpRules
from referee.systems.srp.sheet import parse_defense


@srp.command("levels")
@click.option("--max", "max_skill", type=WHOLE, default=40, show_default=True, help="Last skill.")
@rules_option
@json_option
def levels_command(max_skill: int, rules_path: str | None, as_json: bool) -> None:
    """The special/critical table, generated from SRP-5 (rows 1..30 are the text's table).

    With --rules, the table of that pack's level formulas (a 20 still fails).

    \b
    Examples:
      referee srp levels
      referee srp levels --max 30 --json
      referee srp levels --rules my-pack.toml
    """
    rows = read_rules(rules_path).level_rows(max_skill)
    if as_json:
        emit_json([{"skills": a, "special": b, "critical": c} for a, b, c in rows])
        return
    click.echo("Skill\tSpecial\tCritical")
    for row in rows:
        click.echo("\t".join(row))


def _defense(
    defend: str, skill: int, armor: int, shield: str | None, rules: SrpRules
) -> melee.Defense:
    kind = parse_defense(defend)
    held = parse_shield(shield, pavise_ap=rules.pavise_ap) if shield else None
    return melee.Defense(
        kind=kind, skill=levels.check_skill(skill, "defense"), armor=armor, shield=held
    )


def _strike_summary(s: melee.Strike) -> str:
    if s.hit_level is None:
        return "result: no effect"
    plural = "hit" if s.hits == 1 else "hits"
    return f"result: {s.hits} {plural} ({s.hit_level.label} hit, damage {s.damage} vs AP {s.armor})"


@srp.command("attack")
@click.option("--skill", type=WHOLE, required=True, help="Attacker's weapon skill.")
@click.option("--defense", type=WHOLE, default=10, show_default=True, help="Defender's skill.")
@click.option("--defend", required=True, help="weapon, shield, avoid or none.")
@click.option("--shield", help="buckler, medium, large, pavise or a notation like '(6)'.")
@click.option("--armor", type=WHOLE, default=0, help="Defender's armor AP.")
@click.option("--weapon-damage", type=WHOLE, default=0, help="Weapon damage bonus.")
@click.option("--dam", type=WHOLE, default=0, help="Attacker's damage bonus DAM.")
@click.option("--rear", is_flag=True, help="Attack from the rear arc (+4 skill).")
@click.option("--modifier", type=WHOLE, default=0, help="Referee modifier to skill.")
@click.option("--stun", is_flag=True, help="The weapon is marked S* (stuns on special).")
@dice_option
@seed_option
@rules_option
@json_option
def attack_command(
    skill: int,
    defense: int,
    defend: str,
    shield: str | None,
    armor: int,
    weapon_damage: int,
    dam: int,
    rear: bool,
    modifier: int,
    stun: bool,
    dice: str | None,
    seed: int | None,
    rules_path: str | None,
    as_json: bool,
) -> None:
    """One melee attack: attack d20, defense d20, damage d6 (SRP-4..11, 14).

    \b
    Examples:
      referee srp attack --skill 15 --defense 12 --defend weapon --armor 5 --dice 3,14,6
      referee srp attack --skill 22 --defend shield --shield "(6)" --rear --seed 7 --json
    """
    rules = read_rules(rules_path)
    att = melee.Attack(
        skill=levels.check_skill(skill),
        weapon_damage=weapon_damage,
        dam=dam,
        rear=rear,
        modifier=modifier,
        stun=stun,
    )
    dfn = _defense(defend, defense, armor, shield, rules)
    rng, drawn = pick_rng(dice, seed, melee.THREE_DICE, 3)
    result = melee.strike(att, dfn, rng, rules)
    show(as_json, result.as_dict(), [*result.explanation, _strike_summary(result)], drawn)


@srp.command("shoot")
@click.option("--skill", type=WHOLE, required=True, help="Missile skill.")
@click.option("--rof", type=WHOLE, default=1, show_default=True, help="Weapon's rate of fire.")
@click.option(
    "--range", "distance", default="effective", show_default=True, help="effective or long."
)
@click.option("--fire", default="aimed", show_default=True, help="aimed or rapid.")
@click.option("--thrown", is_flag=True, help="A thrown weapon (adds ceil(DAM / 2)).")
@click.option("--dam", type=WHOLE, default=0, help="Thrower's DAM (thrown weapons only).")
@click.option("--weapon-damage", type=WHOLE, default=0, help="Weapon damage bonus.")
@click.option("--shield", help="Target's shield: its missile value is the defense.")
@click.option("--armor", type=WHOLE, default=0, help="Target's armor AP.")
@click.option("--modifier", type=WHOLE, default=0, help="Referee modifier to skill.")
@click.option("--dice", multiple=True, help="A,D,K faces for one shot; repeat per shot.")
@seed_option
@rules_option
@json_option
def shoot_command(
    skill: int,
    rof: int,
    distance: str,
    fire: str,
    thrown: bool,
    dam: int,
    weapon_damage: int,
    shield: str | None,
    armor: int,
    modifier: int,
    dice: tuple[str, ...],
    seed: int | None,
    rules_path: str | None,
    as_json: bool,
) -> None:
    """A round of missile fire: shots, the skill of each, each shot resolved (SRP-12, 13).

    \b
    Examples:
      referee srp shoot --skill 15 --thrown --dam 2 --weapon-damage 2 --dice 8,1,4
      referee srp shoot --skill 15 --rof 2 --fire rapid --range long --shield large --seed 3
    """
    rules = read_rules(rules_path)
    shot = missile.Shot(
        skill=levels.check_skill(skill),
        weapon_damage=weapon_damage,
        dam=dam,
        thrown=thrown,
        modifier=modifier,
        rof=rof,
        fire=_choice(missile.Fire, fire, "--fire"),
        distance=_choice(missile.Range, distance, "--range"),
    )
    held = parse_shield(shield, pavise_ap=rules.pavise_ap) if shield else None
    drawn = None
    if dice:
        faces = [_shot_faces(d) for d in dice]
        result = missile.resolve_volley(shot, held, armor, faces, rules)
    else:
        rng = SeededRng(seed)
        drawn = rng.seed
        result = missile.shoot(shot, held, armor, rng, rules)
    lines = [result.volley.reason]
    for number, one in enumerate(result.shots, 1):
        lines += [
            f"shot {number}:",
            *(f"  {line}" for line in one.explanation),
            f"  {_strike_summary(one)}",
        ]
    lines.append(f"total: {result.hits} hits")
    data = {
        "shots": [s.as_dict() for s in result.shots],
        "skill": result.volley.skill,
        "reason": result.volley.reason,
        "hits": result.hits,
    }
    show(as_json, data, lines, drawn)


def _shot_faces(text: str) -> tuple[int, ...]:
    pick_rng(text, None, melee.THREE_DICE, 3)
    return numbers(text, "--dice", 3)


def _choice(kind: Any, text: str, option: str) -> Any:
    try:
        return kind(text.strip().lower())
    except ValueError:
        allowed = ", ".join(k.value for k in kind)
        raise RuleError(f"{option} {text!r} is not one of: {allowed}") from None


@srp.command("special")
@click.argument("action")
@click.option("--skill", type=WHOLE, required=True, help="Attacker's weapon skill.")
@click.option("--defense", type=WHOLE, default=10, show_default=True, help="Defender's skill.")
@click.option("--defend", required=True, help="weapon, shield, avoid or none.")
@click.option("--shield", help="The defender's shield, for a shield defense.")
@click.option("--mounted", is_flag=True, help="The defender is mounted (unhorse).")
@dice_option
@seed_option
@rules_option
@json_option
def special_command(
    action: str,
    skill: int,
    defense: int,
    defend: str,
    shield: str | None,
    mounted: bool,
    dice: str | None,
    seed: int | None,
    rules_path: str | None,
    as_json: bool,
) -> None:
    """A special combat action: disarm, entangle, grapple or unhorse (SRP-16).

    The weapon is taken to carry the action's code (D, E, G, U).

    \b
    Examples:
      referee srp special grapple --skill 13 --defend weapon --dice 5,15,1
      referee srp special entangle --skill 12 --defend avoid --defense 11 --seed 2
    """
    rules = read_rules(rules_path)
    kind = _choice(actions.Special, action, "action")
    weapon = Weapon(kind.value, codes=frozenset({kind.code}))
    att = melee.Attack(skill=levels.check_skill(skill))
    dfn = _defense(defend, defense, 0, shield, rules)
    rng, drawn = pick_rng(dice, seed, melee.THREE_DICE, 3)
    result = actions.special_action(kind, weapon, att, dfn, rng, mounted=mounted, rules=rules)
    show(as_json, result.as_dict(), result.explanation, drawn)
