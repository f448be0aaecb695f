"""`referee srp opposed|challenge|spirit|magic|odds`: SRP's contests (opposed rolls and
challenges, SRP-18), Spirit combat (SRP-17), magic and the exact odds of a duel."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import click
from rich.console import Console

from referee.analysis import srp_odds as odds
from referee.cli.srp_base import (
    dice_option,
    json_option,
    pick_rng,
    read_rules,
    rules_option,
    seed_option,
    show,
    srp,
)
from referee.cli.typed import WHOLE
from referee.errors import NotationError
from referee.numerals import is_whole
from referee.systems.srp import contest, magic, spirit
from referee.systems.srp.combatants import attack_from, defense_from, sheet_from_spec, spec_keys


def _assistants(
    skills: Sequence[int], strength: Sequence[str] = ()
) -> tuple[contest.Assistant, ...]:
    return (*(contest.Assistant(s) for s in skills), *(_strength(t) for t in strength))


def _strength(text: str) -> contest.Assistant:
    """`SKILL:DAM`: an assistant in a strength contest, which adds max(1, DAM) (SRP-2)."""
    skill, sep, dam = text.partition(":")
    if not sep or not is_whole(skill) or not is_whole(dam, signs="-"):
        raise NotationError(f"bad strength assistant {text!r} (expected SKILL:DAM, like 9:2)")
    return contest.Assistant(int(skill), int(dam))


def _by_round(texts: Sequence[str], option: str) -> dict[int, tuple[str, ...]]:
    """`ROUND=NAME` pairs (repeated) as names by round."""
    out: dict[int, tuple[str, ...]] = {}
    for text in texts:
        number, sep, name = text.partition("=")
        if not sep or not is_whole(number) or int(number) < 1 or not name:
            raise NotationError(f"bad {option} {text!r} (expected ROUND=NAME, like 2=Ghost#1)")
        out[int(number)] = (*out.get(int(number), ()), name)
    return out


@srp.command("opposed")
@click.option("--active", type=WHOLE, required=True, help="Active side's skill or ability.")
@click.option("--passive", type=WHOLE, required=True, help="Passive side's skill or ability.")
@click.option("--active-bonus", type=WHOLE, default=0, help="Circumstance bonus, active side.")
@click.option("--passive-bonus", type=WHOLE, default=0, help="Circumstance bonus, passive side.")
@click.option("--assist", type=WHOLE, multiple=True, help="An active assistant's skill (repeat).")
@click.option("--passive-assist", type=WHOLE, multiple=True, help="A passive assistant's skill.")
@click.option("--research", is_flag=True, help="Research: each assistant adds +2.")
@click.option(
    "--strength-assist",
    multiple=True,
    help="SKILL:DAM of an active assistant in a strength contest: adds max(1, DAM) (SRP-2).",
)
@click.option("--passive-strength-assist", multiple=True, help="SKILL:DAM, passive side.")
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
    strength_assist: tuple[str, ...],
    passive_strength_assist: tuple[str, ...],
    dice: str | None,
    seed: int | None,
    as_json: bool,
) -> None:
    """An opposed roll: 2d6 + skill + bonuses per side; strictly higher wins (SRP-1, 2).

    \b
    Examples:
      referee srp opposed --active 18 --passive 15 --passive-bonus 3 --dice 3,4,2,3
      referee srp opposed --active 12 --passive 12 --assist 7 --assist 6 --seed 5 --json
      referee srp opposed --active 14 --passive 16 --strength-assist 9:2 --dice 3,4,3,4
    """
    one = contest.Side(active, active_bonus, _assistants(assist, strength_assist), research)
    other = contest.Side(
        passive, passive_bonus, _assistants(passive_assist, passive_strength_assist), research
    )
    rng, drawn = pick_rng(dice, seed, contest.TWO_D6, 4)
    result = contest.opposed(one, other, rng)
    show(as_json, result.as_dict(), result.explanation, drawn)


@srp.command("challenge")
@click.option("--skill", type=WHOLE, required=True, help="Skill or ability.")
@click.option("--target", type=WHOLE, required=True, help="The challenge number.")
@click.option("--bonus", type=WHOLE, default=0, help="Circumstance bonus.")
@click.option("--assist", type=WHOLE, multiple=True, help="An assistant's skill (repeat).")
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
@click.option("--max-rounds", type=WHOLE, default=100, show_default=True, help="Round limit.")
@click.option("--lead", "leads", multiple=True, help="ROUND=NAME: who leads its side that round.")
@click.option(
    "--elsewhere",
    multiple=True,
    help="ROUND=NAME: does something else that round and loses 1 PM (SRP-17).",
)
@dice_option
@seed_option
@rules_option
@json_option
def spirit_command(
    tokens: tuple[str, ...],
    fight_on: bool,
    max_rounds: int,
    leads: tuple[str, ...],
    elsewhere: tuple[str, ...],
    dice: str | None,
    seed: int | None,
    rules_path: str | None,
    as_json: bool,
) -> None:
    """Spirit combat, round by round: 2d6 + Spirit per side, the loser's lead loses 1 PM (SRP-17).

    Write one side, then --vs and the other. NAME=SPIRIT (PM starts at Spirit) or
    NAME=SPIRIT/PM. Each round the many side's lead is the one --lead names for that round,
    else the one with most PM; each other member adds +1. With --rules, the pack's
    `spirit_at_zero` says whether a side that starts at 0 PM fights the first round.

    \b
    Examples:
      referee srp spirit Andrea=5 --vs Ghost=4 Ghost=3 Ghost=2 --seed 1
      referee srp spirit Andrea=5/8 --vs Wraith=6 --fight-on --json --seed 2
      referee srp spirit Andrea=5 --vs Ghost=4 Ghost=3 --lead 2=Ghost#2 --elsewhere 3=Andrea
    """
    if tokens.count("--vs") != 1:
        raise NotationError(f"expected one side, --vs, then the other, got {' '.join(tokens)!r}")
    cut = tokens.index("--vs")
    everyone = spirit.parse_spirits([*tokens[:cut], *tokens[cut + 1 :]])
    sides = (everyone[:cut], everyone[cut:])
    rng, drawn = pick_rng(dice, seed, contest.TWO_D6)
    end = (lambda sides, spent: False) if fight_on else spirit.end_when_spent
    away = {n: frozenset(names) for n, names in _by_round(elsewhere, "--elsewhere").items()}
    fight = spirit.spirit_combat(
        sides,
        rng,
        end=end,
        max_rounds=max_rounds,
        distracted=away,
        leads=_by_round(leads, "--lead"),
        rules=read_rules(rules_path),
    )
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
@click.option("--target-pm", type=WHOLE, required=True, help="The target's PM.")
@click.option("--defense", type=WHOLE, default=0, help="The target's magical defense.")
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
