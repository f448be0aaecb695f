"""`referee lab battle --system srp`: SRP sides from specs, sheet files or a fight file."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.cli.lab_battle import battle_lines
from referee.errors import NotationError
from referee.lab.battle_result import Progress
from referee.lab.srp_battle import SrpBattleResult, battle, parse_srp_side
from referee.systems.srp.gear import GearPack, example_pack, read_pack
from referee.systems.srp.rules import DEFAULT_RULES, SrpRules
from referee.systems.srp.sheet import Sheet
from referee.systems.srp.stats import sheet_from_stats


def srp_sides(
    side_1: str, side_2: str, pack: str, gear: str | None, fight: str | None
) -> tuple[list[Sheet], list[Sheet], SrpRules]:
    """The two sides and the rules: from a fight file (sides by name), or from specs."""
    from referee.cli.srp_base import read_rules

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


def srp_battle_lines(result: SrpBattleResult) -> list[str]:
    """An SRP battle's figures as text; Monte Carlo figures carry their standard errors."""
    labels = [f"{f.name} (skill {f.skill}, {f.sheet.hits} hits)" for f in result.fighters]
    return battle_lines(result, labels, "hits", prefix="SRP, ", width=32)
