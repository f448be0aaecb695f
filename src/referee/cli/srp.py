"""`referee srp ...`: SRP combat and contests from the command line (RULINGS SRP-1..SRP-20).

Every command resolves with dice that are given (`--dice`), seeded (`--seed`), or drawn
from a fresh seed that is reported, and prints each step of the rules it applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import click
from rich.console import Console

from referee.analysis import srp_odds as odds
from referee.cli.output import emit_json
from referee.errors import NotationError, RuleError
from referee.numerals import is_whole
from referee.rng import Rng, ScriptedRng, SeededRng
from referee.systems.files import read_text_file
from referee.systems.srp import actions, contest, levels, magic, melee, missile, spirit
from referee.systems.srp.combatants import attack_from, defense_from, sheet_from_spec, spec_keys
from referee.systems.srp.gear import Weapon, parse_shield, parse_toml
from referee.systems.srp.rules import DEFAULT_RULES, SrpRules, load_rules
from referee.systems.srp.sheet import parse_defense

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
seed_option = click.option("--seed", type=int, help="Seed for reproducible rolls.")
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


@srp.command("levels")
@click.option("--max", "max_skill", type=int, default=40, show_default=True, help="Last skill.")
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
@click.option("--skill", type=int, required=True, help="Attacker's weapon skill.")
@click.option("--defense", type=int, default=10, show_default=True, help="Defender's skill.")
@click.option("--defend", required=True, help="weapon, shield, avoid or none.")
@click.option("--shield", help="buckler, medium, large, pavise or a notation like '(6)'.")
@click.option("--armor", type=int, default=0, help="Defender's armor AP.")
@click.option("--weapon-damage", type=int, default=0, help="Weapon damage bonus.")
@click.option("--dam", type=int, default=0, help="Attacker's damage bonus DAM.")
@click.option("--rear", is_flag=True, help="Attack from the rear arc (+4 skill).")
@click.option("--modifier", type=int, default=0, help="Referee modifier to skill.")
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
@click.option("--skill", type=int, required=True, help="Missile skill.")
@click.option("--rof", type=int, default=1, show_default=True, help="Weapon's rate of fire.")
@click.option(
    "--range", "distance", default="effective", show_default=True, help="effective or long."
)
@click.option("--fire", default="aimed", show_default=True, help="aimed or rapid.")
@click.option("--thrown", is_flag=True, help="A thrown weapon (adds ceil(DAM / 2)).")
@click.option("--dam", type=int, default=0, help="Thrower's DAM (thrown weapons only).")
@click.option("--weapon-damage", type=int, default=0, help="Weapon damage bonus.")
@click.option("--shield", help="Target's shield: its missile value is the defense.")
@click.option("--armor", type=int, default=0, help="Target's armor AP.")
@click.option("--modifier", type=int, default=0, help="Referee modifier to skill.")
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
@click.option("--skill", type=int, required=True, help="Attacker's weapon skill.")
@click.option("--defense", type=int, default=10, show_default=True, help="Defender's skill.")
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


def _assistants(skills: Sequence[int]) -> tuple[contest.Assistant, ...]:
    return tuple(contest.Assistant(s) for s in skills)


@srp.command("opposed")
@click.option("--active", type=int, required=True, help="Active side's skill or ability.")
@click.option("--passive", type=int, required=True, help="Passive side's skill or ability.")
@click.option("--active-bonus", type=int, default=0, help="Circumstance bonus, active side.")
@click.option("--passive-bonus", type=int, default=0, help="Circumstance bonus, passive side.")
@click.option("--assist", type=int, multiple=True, help="An active assistant's skill (repeat).")
@click.option("--passive-assist", type=int, multiple=True, help="A passive assistant's skill.")
@click.option("--research", is_flag=True, help="Research: each assistant adds +2.")
@dice_option
@seed_option
@json_option
def opposed_command(
    active: int,
    passive: int,
    active_bonus: int,
    passive_bonus: int,
    assist: tuple[int, ...],
    passive_assist: tuple[int, ...],
    research: bool,
    dice: str | None,
    seed: int | None,
    as_json: bool,
) -> None:
    """An opposed roll: 2d6 + skill + bonuses per side; strictly higher wins (SRP-1, 2).

    \b
    Examples:
      referee srp opposed --active 18 --passive 15 --passive-bonus 3 --dice 3,4,2,3
      referee srp opposed --active 12 --passive 12 --assist 7 --assist 6 --seed 5 --json
    """
    one = contest.Side(active, active_bonus, _assistants(assist), research)
    other = contest.Side(passive, passive_bonus, _assistants(passive_assist), research)
    rng, drawn = pick_rng(dice, seed, contest.TWO_D6, 4)
    result = contest.opposed(one, other, rng)
    show(as_json, result.as_dict(), result.explanation, drawn)


@srp.command("challenge")
@click.option("--skill", type=int, required=True, help="Skill or ability.")
@click.option("--target", type=int, required=True, help="The challenge number.")
@click.option("--bonus", type=int, default=0, help="Circumstance bonus.")
@click.option("--assist", type=int, multiple=True, help="An assistant's skill (repeat).")
@click.option("--research", is_flag=True, help="Research: each assistant adds +2.")
@dice_option
@seed_option
@rules_option
@json_option
def challenge_command(
    skill: int,
    target: int,
    bonus: int,
    assist: tuple[int, ...],
    research: bool,
    dice: str | None,
    seed: int | None,
    rules_path: str | None,
    as_json: bool,
) -> None:
    """An unopposed roll: 2d6 + skill + bonuses must reach the number (SRP-3).

    \b
    Examples:
      referee srp challenge --skill 8 --target 15 --dice 3,4
      referee srp challenge --skill 8 --target 15 --bonus 2 --seed 9 --json
    """
    side = contest.Side(skill, bonus, _assistants(assist), research)
    rng, drawn = pick_rng(dice, seed, contest.TWO_D6, 2)
    result = contest.challenge(side, target, rng, read_rules(rules_path))
    show(as_json, result.as_dict(), result.explanation, drawn)


@srp.command("spirit", context_settings={"ignore_unknown_options": True})
@click.argument("tokens", nargs=-1, type=click.UNPROCESSED)
@click.option("--fight-on", is_flag=True, help="Go on when a side is at 0 PM (to pass out).")
@click.option("--max-rounds", type=int, default=100, show_default=True, help="Round limit.")
@dice_option
@seed_option
@json_option
def spirit_command(
    tokens: tuple[str, ...],
    fight_on: bool,
    max_rounds: int,
    dice: str | None,
    seed: int | None,
    as_json: bool,
) -> None:
    """Spirit combat, round by round: 2d6 + Spirit per side, the loser's lead loses 1 PM (SRP-17).

    Write one side, then --vs and the other. NAME=SPIRIT (PM starts at Spirit) or
    NAME=SPIRIT/PM. The many side's lead is the one with most PM; each other member adds +1.

    \b
    Examples:
      referee srp spirit Andrea=5 --vs Ghost=4 Ghost=3 Ghost=2 --seed 1
      referee srp spirit Andrea=5/8 --vs Wraith=6 --fight-on --json --seed 2
    """
    if tokens.count("--vs") != 1:
        raise NotationError(f"expected one side, --vs, then the other, got {' '.join(tokens)!r}")
    cut = tokens.index("--vs")
    everyone = spirit.parse_spirits([*tokens[:cut], *tokens[cut + 1 :]])
    sides = (everyone[:cut], everyone[cut:])
    rng, drawn = pick_rng(dice, seed, contest.TWO_D6)
    end = (lambda sides, spent: False) if fight_on else spirit.end_when_spent
    fight = spirit.spirit_combat(sides, rng, end=end, max_rounds=max_rounds)
    lines = []
    for rnd in fight.rounds:
        lines += [
            f"round {rnd.number}:",
            *(f"  {line}" for line in rnd.explanation),
            f"  {rnd.pm_line()}",
        ]
    lines.append(f"ended: {fight.ended}")
    if fight.bindable:
        lines.append(f"at 0 PM, open to command/bind/ally spells: {', '.join(fight.bindable)}")
    show(as_json, fight.as_dict(), lines, drawn)


@srp.command("magic")
@click.option("--target-pm", type=int, required=True, help="The target's PM.")
@click.option("--defense", type=int, default=0, help="The target's magical defense.")
@click.option(
    "--spell",
    "spells",
    multiple=True,
    required=True,
    help="CASTER:PM:SPELL:MANA[:diminished], repeat per spell.",
)
@dice_option
@seed_option
@json_option
def magic_command(
    target_pm: int,
    defense: int,
    spells: tuple[str, ...],
    dice: str | None,
    seed: int | None,
    as_json: bool,
) -> None:
    """A round of spells on one target: PM opposed rolls, then mana vs magical defense (SRP-18).

    \b
    Examples:
      referee srp magic --target-pm 11 --defense 5 --spell Mira:12:Bolt:3 --dice 4,4,3,3
      referee srp magic --target-pm 9 --defense 2 --spell Ulf:10:Wither:4:diminished --seed 4
    """
    casts = [magic.parse_cast(s) for s in spells]
    rng, drawn = pick_rng(dice, seed, contest.TWO_D6, 4 * len(casts))
    result = magic.magic_round(target_pm, defense, casts, rng)
    show(as_json, result.as_dict(), result.explanation, drawn)


def _percent(p: Fraction) -> str:
    return f"{float(p) * 100:.2f}%"


def _duel_line(first_hits: int, second_hits: int, duel: odds.DuelOdds) -> str:
    head = f"duel to {first_hits} / {second_hits} hits, attacker first: "
    if duel.never == 1:
        return head + "it never ends (neither side can ever deal a hit)"
    line = f"{head}attacker wins {_percent(duel.first)}, defender wins {_percent(duel.second)}"
    return line + (f", never ends {_percent(duel.never)}" if duel.never else "")


@srp.command("odds")
@click.option("--attacker", required=True, help="Attacker spec: 'skill=15 damage=3 dam=1 hits=12'.")
@click.option("--defender", required=True, help="Defender spec: 'defense=12 defend=shield ...'.")
@click.option("--rear", is_flag=True, help="The attacker strikes from the rear (+4 skill).")
@click.option("--plot", "plot_path", help="Write a bar chart of the hit distribution (PNG).")
@rules_option
@json_option
def odds_command(
    attacker: str,
    defender: str,
    rear: bool,
    plot_path: str | None,
    rules_path: str | None,
    as_json: bool,
) -> None:
    """Exact odds of one attack, and of a duel when both specs give hits (SRP-5..9).

    Spec keys: skill, damage (weapon), dam, codes, defense, avoid, defend, shield, armor,
    hits. The duel: alternating attacks, the attacker first, until one is down.

    \b
    Examples:
      referee srp odds --attacker "skill=15 damage=3 dam=1" --defender "defend=shield shield=medium"
      referee srp odds --attacker "skill=15 damage=3 hits=12" \\
          --defender "skill=13 damage=4 defense=12 armor=5 hits=10" --json
    """
    rules = read_rules(rules_path)
    for option, spec in (("--attacker", attacker), ("--defender", defender)):
        if not spec.replace(",", " ").strip():
            raise NotationError(f"{option} is empty (expected a spec like 'skill=15 damage=3')")
    first = sheet_from_spec("attacker", attacker, pavise_ap=rules.pavise_ap)
    second = sheet_from_spec("defender", defender, pavise_ap=rules.pavise_ap)
    forward = odds.attack_odds(attack_from(first, rear=rear), defense_from(second), rules)
    data: dict[str, Any] = {**forward.as_dict(), "duel": None}
    lines = [
        f"one attack: P(at least one hit) = {forward.p_hit} ({_percent(forward.p_hit)}), "
        f"mean hits {forward.mean} ({float(forward.mean):.4f})",
        "hits  probability",
    ]
    lines += [f"{k:>4}  {p} ({_percent(p)})" for k, p in forward.distribution.items()]
    if "hits" in spec_keys(attacker) and "hits" in spec_keys(defender):
        back = odds.attack_odds(attack_from(second), defense_from(first), rules)
        # A duel to many hits takes seconds: say so on a terminal while it works.
        with Console(stderr=True).status(f"computing the duel to {first.hits}/{second.hits} hits"):
            duel = odds.duel_odds(
                forward.distribution, back.distribution, first.hits, second.hits, rules
            )
        data["duel"] = {**duel.as_dict(), "reply": back.as_dict()}
        lines.append(_duel_line(first.hits, second.hits, duel))
    else:
        lines.append("(no duel: give both specs hits=N for the odds of a duel to the end)")
    if plot_path:
        from referee.analysis.plots import plot_hit_distribution

        plot_hit_distribution(forward.distribution, plot_path)
        lines.append(f"plot written to {plot_path}")
    show(as_json, data, lines, None)
