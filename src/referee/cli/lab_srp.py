"""`referee lab battle --system srp`: SRP sides from specs, sheet files or a fight file."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.errors import NotationError
from referee.lab.srp_battle import Progress, SrpBattleResult, battle, parse_srp_side
from referee.systems.srp.gear import GearPack, example_pack, read_pack
from referee.systems.srp.rules import DEFAULT_RULES, SrpRules
from referee.systems.srp.sheet import Sheet
from referee.systems.srp.stats import sheet_from_stats


def srp_sides(
    side_1: str, side_2: str, pack: str, gear: str | None, fight: str | None
) -> tuple[list[Sheet], list[Sheet], SrpRules]:
    """The two sides and the rules: from a fight file (sides by name), or from specs."""
    from referee.cli.srp import read_rules

    rules = DEFAULT_RULES if pack == "text" else read_rules(pack)
    if fight is not None:
        from referee.systems.srp.fightfile import read_fight
        from referee.systems.srp.rules import load_rules

        plan = read_fight(fight)
        if pack == "text":
            rules = load_rules(plan.rules, "rules")
        sides: list[list[Sheet]] = []
        for name in (side_1, side_2):
            members = [
                sheet_from_stats(e.name, e.stats, pavise_ap=rules.pavise_ap)
                for e in plan.entrants
                if e.side == name
            ]
            if not members:
                known = ", ".join(sorted({e.side for e in plan.entrants}))
                raise NotationError(f"fight file {fight!r} has no side {name!r} (sides: {known})")
            sides.append(members)
        return sides[0], sides[1], rules
    kit: GearPack = example_pack() if gear is None else read_pack(Path(gear))
    first = parse_srp_side(side_1, kit, pavise_ap=rules.pavise_ap)
    second = parse_srp_side(side_2, kit, pavise_ap=rules.pavise_ap)
    return first, second, rules


def run_srp_battle(
    side_1: str,
    side_2: str,
    pack: str,
    gear: str | None,
    fight: str | None,
    policy: str,
    battles: int,
    gen: np.random.Generator,
    progress: Progress,
    exact: bool | None,
) -> SrpBattleResult:
    """Read the sides and run the battle (exact when small, else Monte Carlo)."""
    first, second, rules = srp_sides(side_1, side_2, pack, gear, fight)
    return battle(first, second, rules, policy, battles, gen, progress, exact)


def _figure(value: float, se: float | None, digits: int = 4) -> str:
    return f"{value:.{digits}f}" if se is None else f"{value:.{digits}f} +- {se:.{digits}f}"


def srp_battle_lines(result: SrpBattleResult) -> list[str]:
    """An SRP battle's figures as text; Monte Carlo figures carry their standard errors."""
    mc = result.method == "monte-carlo"
    if mc:
        head = (
            f"SRP, Monte Carlo, {result.battles:,} battles, policy {result.policy.value} "
            f"(+- one standard error; the exact chain would need {result.states:,} cells)"
        )
    else:
        head = f"SRP, exact, policy {result.policy.value} (a chain of {result.states:,} cells)"
    names = [f"{f.name} (skill {f.skill}, {f.sheet.hits} hits)" for f in result.fighters]
    sides = [
        ", ".join(n for n, f in zip(names, result.fighters, strict=True) if f.side == s)
        for s in (0, 1)
    ]
    se = result.se_first_side if mc else None
    lines = [
        head,
        f"P(side 1 wins)    {_figure(result.p_first_side, se)}   {sides[0]}",
        f"P(side 2 wins)    {_figure(result.p_second_side, se)}   {sides[1]}",
        f"expected rounds   {_figure(result.expected_rounds, result.se_rounds if mc else None, 3)}",
        "fighter                           P(standing at the end)   mean hits taken",
    ]
    for i, name in enumerate(names):
        p = _figure(result.p_survives[i], result.se_survives[i] if mc else None)
        lines.append(f"  {name:<32}{p:<25}{result.mean_hits[i]:.3f}")
    for s, dist in enumerate(result.survivors, start=1):
        shown = ", ".join(f"{k} up {p:.4f}" for k, p in enumerate(dist) if k)
        lines.append(f"side {s} wins with: {shown}")
    return lines
