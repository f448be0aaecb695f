"""SRP group battles (RULINGS SRP-4..9, 16, 19): the exact chain against `referee srp odds`'s
duel and against a roll-by-roll brute force written here, the Monte Carlo against the exact
chain, and the command line."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from referee.analysis.srp_odds import attack_odds, duel_odds, hit_distribution
from referee.cli.main import cli
from referee.errors import LimitError, RuleError
from referee.lab.battle import Policy
from referee.lab.srp_battle import (
    exact_battle,
    parse_srp_side,
    simulate_battle,
    strike_outcomes,
)
from referee.systems.srp.combatants import attack_from, defense_from
from referee.systems.srp.melee import Attack, Defense, resolve
from referee.systems.srp.rules import Down, SrpRules, TurnOrder, load_rules
from referee.systems.srp.sheet import DefenseKind, Sheet

EXAMPLE_FIGHT = Path(__file__).parent.parent / "examples" / "srp" / "fight.toml"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


DUELS = [
    ("A=skill=14 damage=3 hits=4", "B=skill=12 hits=4"),
    ("A=skill=15 damage=3 dam=1 hits=9", "B=skill=13 damage=4 defense=12 armor=5 hits=7"),
    ("A=skill=22 damage=2 hits=6", "B=skill=18 defend=shield shield=(6) defense=15 hits=8"),
    ("A=skill=9 damage=1 hits=3", "B=skill=11 defend=avoid avoid=14 armor=1 hits=5"),
]


@pytest.mark.parametrize(("one", "two"), DUELS)
@pytest.mark.parametrize("rules", [SrpRules(), SrpRules(down=Down.EXCEED, shield_keeps_level=True)])
def test_one_on_one_is_the_odds_duel(one: str, two: str, rules: SrpRules) -> None:  # SRP-9
    a, b = parse_srp_side(one)[0], parse_srp_side(two)[0]
    forward = hit_distribution(attack_from(a), defense_from(b), rules)
    back = hit_distribution(attack_from(b), defense_from(a), rules)
    duel = duel_odds(forward, back, a.hits, b.hits, rules)
    result = exact_battle([a], [b], rules)
    assert result.p_first_side == pytest.approx(float(duel.first), abs=1e-12)
    # the same duel as `referee srp odds` prints it
    spec = one.partition("=")[2], two.partition("=")[2]
    code, out, _ = run("srp", "odds", "--attacker", spec[0], "--defender", spec[1], "--json")
    assert code == 0
    if rules == SrpRules():
        shown = Fraction(json.loads(out)["duel"]["first_wins"])
        assert result.p_first_side == pytest.approx(float(shown), abs=1e-12)


@pytest.mark.parametrize("automatic", [False, True])
def test_strike_outcomes_are_the_engines_over_every_face(automatic: bool) -> None:
    """Brute force: the 2,400 face triples through `melee.resolve`, including a grappler's
    automatic attack on the foe it holds (SRP-16), whose failures hit at success level."""
    attack = Attack(skill=9, weapon_damage=2, stun=True, automatic=automatic)
    defense = Defense(kind=DefenseKind.WEAPON, skill=12, armor=3)
    counts: dict[tuple[int, bool], int] = {}
    for a in range(1, 21):
        for d in range(1, 21):
            for die in range(1, 7):
                strike = resolve(attack, defense, (a, d, die))
                key = (strike.hits, strike.stun)
                counts[key] = counts.get(key, 0) + 1
    brute = {k: Fraction(n, 2400) for k, n in sorted(counts.items())}
    assert strike_outcomes(attack, defense, SrpRules()) == brute


def test_strike_outcomes_add_up_to_the_odds() -> None:  # SRP-16 S*
    pack = load_rules({"critical": "roll <= floor(skill / 5)"})
    for one, two in DUELS:
        a = parse_srp_side(one.replace("A=", "A=codes=S* "))[0]
        b = parse_srp_side(two)[0]
        for rules in (SrpRules(), pack):
            joint = strike_outcomes(attack_from(a), defense_from(b), rules)
            marginal: dict[int, Fraction] = {}
            for (hits, _), p in joint.items():
                marginal[hits] = marginal.get(hits, Fraction(0)) + p
            assert dict(sorted(marginal.items())) == hit_distribution(
                attack_from(a), defense_from(b), rules
            )
            stun = sum((p for (_, s), p in joint.items() if s), Fraction(0))
            assert stun == attack_odds(attack_from(a), defense_from(b), rules).p_hit - sum(
                (p for (h, s), p in joint.items() if h and not s), Fraction(0)
            )


# --- a brute force: the whole chain by repeated steps, written again here -------------------


def brute_force(
    first: list[Sheet], second: list[Sheet], rules: SrpRules, policy: Policy, steps: int = 3000
) -> tuple[float, float, list[float]]:
    """P(side 1 wins), expected rounds, P(each fighter standing) by pushing probability mass
    one turn at a time through every (order, hits taken, stunned, turn) state."""
    sheets = [*first, *second]
    side = [0] * len(first) + [1] * len(second)
    n = len(sheets)
    need = [s.hits if rules.down is Down.REACH else s.hits + 1 for s in sheets]
    skill = [s.skill() for s in sheets]
    pair = {
        (a, b): strike_outcomes(attack_from(sheets[a]), defense_from(sheets[b]), rules)
        for a in range(n)
        for b in range(n)
        if side[a] != side[b]
    }
    orders: dict[tuple[int, ...], Fraction] = {}
    if rules.turn_order is TurnOrder.LISTED:
        orders[tuple(range(n))] = Fraction(1)
    else:
        import itertools

        for faces in itertools.product(range(1, 21), repeat=n):
            totals = [faces[i] + sheets[i].initiative for i in range(n)]
            order = tuple(sorted(range(n), key=lambda i: (-totals[i], i)))
            orders[order] = orders.get(order, Fraction(0)) + Fraction(1, 20**n)

    def target(actor: int, taken: tuple[int, ...]) -> list[tuple[int, float]]:
        foes = [j for j in range(n) if side[j] != side[actor] and taken[j] < need[j]]
        if policy is Policy.RANDOM:
            return [(j, 1 / len(foes)) for j in foes]
        if policy is Policy.FOCUS_WEAKEST:
            best = min(foes, key=lambda j: (need[j] - taken[j], skill[j], j))
        elif policy is Policy.FOCUS_STRONGEST:
            best = min(foes, key=lambda j: (-skill[j], need[j] - taken[j], j))
        else:
            best = min(foes, key=lambda j: (taken[j], j))
        return [(best, 1.0)]

    State = tuple[tuple[int, ...], tuple[int, ...], frozenset[int], int]
    mass: dict[State, float] = {
        (order, (0,) * n, frozenset(), 0): float(p) for order, p in orders.items()
    }
    won, rounds, standing = 0.0, 1.0, [0.0] * n
    for _ in range(steps):
        if sum(mass.values()) < 1e-13:
            break
        after: dict[State, float] = {}
        for (order, taken, stunned, pos), m in mass.items():
            actor = order[pos]
            moves: list[tuple[float, tuple[int, ...], frozenset[int]]] = []
            if actor in stunned:
                moves.append((1.0, taken, stunned - {actor}))
            else:
                for j, q in target(actor, taken):
                    for (hits, stun), p in pair[actor, j].items():
                        new = list(taken)
                        new[j] = min(need[j], taken[j] + hits)
                        hit_set = stunned | {j} if stun and new[j] < need[j] else stunned - {j}
                        moves.append((q * float(p), tuple(new), hit_set if stun else stunned))
            for p, taken2, stunned2 in moves:
                stunned2 = frozenset(x for x in stunned2 if taken2[x] < need[x])
                up = [any(taken2[j] < need[j] for j in range(n) if side[j] == s) for s in (0, 1)]
                if not (up[0] and up[1]):
                    won += m * p if up[0] else 0.0
                    for j in range(n):
                        standing[j] += m * p if taken2[j] < need[j] else 0.0
                    continue
                nxt = pos
                for _ in range(n):
                    nxt = (nxt + 1) % n
                    if taken2[order[nxt]] < need[order[nxt]]:
                        break
                if nxt <= pos:
                    rounds += m * p
                key = (order, taken2, stunned2, nxt)
                after[key] = after.get(key, 0.0) + m * p
        mass = after
    assert sum(mass.values()) < 1e-12  # all but nothing has ended
    return won, rounds, standing


SMALL_1 = "Ann=skill=14 damage=2 hits=3 codes=S*; Bo=skill=11 damage=1 hits=2"
SMALL_2 = "Orc=skill=13 damage=2 hits=4 armor=1"


@pytest.mark.parametrize("policy", list(Policy))
def test_two_on_one_with_stuns_equals_brute_force(policy: Policy) -> None:  # SRP-16, SRP-19
    first, second = parse_srp_side(SMALL_1), parse_srp_side(SMALL_2)
    exact = exact_battle(first, second, SrpRules(), policy)
    won, rounds, standing = brute_force(first, second, SrpRules(), policy)
    assert exact.p_first_side == pytest.approx(won, abs=1e-10)
    assert exact.expected_rounds == pytest.approx(rounds, abs=1e-9)
    assert list(exact.p_survives) == pytest.approx(standing, abs=1e-10)
    assert sum(exact.survivors[0]) == pytest.approx(exact.p_first_side, abs=1e-12)
    for dist, mean in zip(exact.hits, exact.mean_hits, strict=True):
        assert sum(dist) == pytest.approx(1.0, abs=1e-12)
        assert sum(k * p for k, p in enumerate(dist)) == pytest.approx(mean, abs=1e-12)


def test_rolled_turn_order_and_a_formula_pack_equal_brute_force() -> None:  # SRP-19
    rules = load_rules({"turn_order": "roll", "critical": "roll <= floor(skill / 4)"})
    first = parse_srp_side("Ann=skill=14 damage=2 hits=3 codes=S*")
    second = parse_srp_side("Orc=skill=13 damage=2 hits=4 armor=1; Gob=skill=9 hits=2")
    second = [s if s.name != "Gob" else _with_initiative(s, 5) for s in second]
    exact = exact_battle(first, second, rules, Policy.FOCUS_WEAKEST)
    won, rounds, standing = brute_force(first, second, rules, Policy.FOCUS_WEAKEST)
    assert exact.p_first_side == pytest.approx(won, abs=1e-10)
    assert exact.expected_rounds == pytest.approx(rounds, abs=1e-9)
    assert list(exact.p_survives) == pytest.approx(standing, abs=1e-10)
    assert exact.p_first_side != pytest.approx(
        exact_battle(first, second, SrpRules(), Policy.FOCUS_WEAKEST).p_first_side, abs=1e-3
    )


def _with_initiative(sheet: Sheet, bonus: int) -> Sheet:
    from dataclasses import replace

    return replace(sheet, initiative=bonus)


MC_1 = "Ann=skill=15 damage=3 hits=8 codes=S*; Bo=skill=12 damage=2 hits=7"
MC_2 = "Orc=skill=13 damage=2 hits=9 armor=2; Orc=skill=11 damage=1 hits=6"


@pytest.mark.parametrize("policy", list(Policy))
def test_monte_carlo_within_three_standard_errors(policy: Policy) -> None:
    first, second = parse_srp_side(MC_1), parse_srp_side(MC_2)
    exact = exact_battle(first, second, SrpRules(), policy)
    mc = simulate_battle(first, second, SrpRules(), policy, 60_000, np.random.default_rng(7))
    assert exact.method == "exact" and mc.method == "monte-carlo" and mc.states == exact.states
    assert abs(mc.p_first_side - exact.p_first_side) < 3 * mc.se_first_side
    assert abs(mc.expected_rounds - exact.expected_rounds) < 3 * mc.se_rounds
    for i in range(4):
        assert abs(mc.p_survives[i] - exact.p_survives[i]) < 3 * mc.se_survives[i]
    binomial = (exact.p_first_side * exact.p_second_side / 60_000) ** 0.5
    assert mc.se_first_side == pytest.approx(binomial, rel=0.05)


def test_monte_carlo_rolled_order_within_three_standard_errors() -> None:
    rules = SrpRules(turn_order=TurnOrder.ROLL)
    first = [_with_initiative(parse_srp_side("A=skill=12 damage=2 hits=5")[0], 6)]
    second = parse_srp_side("B=skill=14 damage=2 hits=5")
    exact = exact_battle(first, second, rules)
    mc = simulate_battle(first, second, rules, "spread", 60_000, np.random.default_rng(3))
    assert abs(mc.p_first_side - exact.p_first_side) < 3 * mc.se_first_side
    assert abs(mc.expected_rounds - exact.expected_rounds) < 3 * mc.se_rounds


def test_battles_that_never_end_and_bounds_are_errors() -> None:
    tank = parse_srp_side("T=skill=5 armor=100 hits=5")
    with pytest.raises(RuleError, match="can ever deal a hit"):
        exact_battle(tank, parse_srp_side("U=skill=5 armor=100 hits=5"), SrpRules())
    # Ann can hurt only Bo; focus-strongest sends her at the armored Orc for ever
    stuck_1 = parse_srp_side("Ann=skill=9 hits=5 armor=100")
    stuck_2 = parse_srp_side("Orc=skill=3 hits=3 armor=100; Bo=skill=1 hits=2")
    with pytest.raises(RuleError, match="go on forever"):
        exact_battle(stuck_1, stuck_2, SrpRules(), "focus-strongest")
    with pytest.raises(LimitError, match=r"1\.\.6 fighters"):
        parse_srp_side(";".join(f"O{i}=hits=2" for i in range(7)))
    big = parse_srp_side("; ".join(f"O{i}=skill=12 hits=30" for i in range(4)))
    with pytest.raises(LimitError, match="use the Monte Carlo"):
        exact_battle(big, big, SrpRules())
    duel = parse_srp_side("A=skill=10 hits=3"), parse_srp_side("B=skill=10 hits=3")
    with pytest.raises(LimitError, match=r"battles 1 is out of range \(expected 2\.\."):
        simulate_battle(*duel, SrpRules(), "spread", 1, np.random.default_rng(1))
    two = simulate_battle(*duel, SrpRules(), "spread", 2, np.random.default_rng(1))
    assert math.isfinite(two.se_first_side)


def test_cli_battle_srp_exact_and_monte_carlo(tmp_path: Path) -> None:
    code, out, err = run("lab", "battle", "--system", "srp", "A=skill=14 damage=3 hits=4",
                         "B=skill=12 hits=4")  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "SRP, exact, policy focus-weakest (a chain of 32 cells)"
    assert lines[1].startswith("P(side 1 wins)    0.7557   A (skill 14, 4 hits)")
    code, out, _ = run("lab", "battle", "--system", "srp", MC_1, MC_2, "--monte-carlo",
                       "--n", "20000", "--seed", "1", "--json")  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["method"] == "monte-carlo" and data["battles"] == 20_000
    assert data["system"] == "srp" and data["states"] == 48_384
    sheet = tmp_path / "orc.toml"
    sheet.write_text('weapon = "mace"\nskill = 13\nhits = 9\narmor = "leather"\n')
    code, out, err = run("lab", "battle", "--system", "srp", f"Orc={sheet}",
                         "Ann=weapon=spear skill=15 hits=10", "--json")  # fmt: skip
    assert code == 0, err
    fighters = json.loads(out)["fighters"]
    assert fighters[0] == {"name": "Orc", "side": 1, "skill": 13, "hits": 9}


def test_cli_battle_from_a_fight_file_and_a_formula_pack(tmp_path: Path) -> None:
    args = ["lab", "battle", "--system", "srp", "--fight", str(EXAMPLE_FIGHT), "raiders", "guards"]
    code, out, err = run(*args, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert [f["name"] for f in data["fighters"]] == ["Bran", "Cara", "Ann", "Dorn"]
    pack = tmp_path / "pack.toml"
    pack.write_text('critical = "roll <= floor(skill / 3)"\n')
    code, out, _ = run(*args, "--json", "--rules", str(pack))
    assert code == 0 and json.loads(out)["p_side_1_wins"] > data["p_side_1_wins"]
    code, _, err = run("lab", "battle", "--system", "srp", "--fight", str(EXAMPLE_FIGHT),
                       "raiders", "pirates")  # fmt: skip
    assert code == 2 and "no side 'pirates' (sides: guards, raiders)" in err
    code, _, err = run("lab", "battle", "A=60", "B=60", "--gear", "x.toml")
    assert code == 2 and "--gear and --fight are for --system srp" in err
    code, _, err = run("lab", "battle", "--system", "srp", "Ann", "B=hits=3")
    assert code == 2 and "bad fighter 'Ann'" in err


def test_srp_report_is_self_contained_and_exact(tmp_path: Path) -> None:
    from html.parser import HTMLParser

    from referee.lab.srp_report import BATTLES

    class Tags(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: list[str] = []
            self.refs: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.tags.append(tag)
            self.refs += [v or "" for k, v in attrs if k in ("src", "href")]

    pack = tmp_path / "c5.toml"
    pack.write_text('critical = "roll <= floor(skill / 5)"\n', encoding="utf-8")
    out = tmp_path / "report.html"
    code, stdout, err = run("lab", "report", "--system", "srp", str(pack), "-o", str(out))
    assert code == 0, err
    assert stdout.startswith(f"wrote {out} (")
    page = out.read_text("utf-8")
    tags = Tags()
    tags.feed(page)
    assert tags.refs == [] and "script" not in tags.tags and tags.tags.count("svg") == 2
    assert "<code>critical</code></td><td>roll &lt;= floor(skill / 5)</td><td>-</td>" in page
    # skill 15: the text has 10 plain successes, 4 specials, 1 critical; the pack 10, 2, 3
    assert "<tr><td>15</td><td><span class='up'>10/2/3, +0, +4/+4</span></td>" in page
    assert "<td>10/4/1, +0, +4/+4</td>" in page
    rules = load_rules({"critical": "roll <= floor(skill / 5)"})
    one, two = BATTLES[0]
    mine = exact_battle(parse_srp_side(one), parse_srp_side(two), rules)
    theirs = exact_battle(parse_srp_side(one), parse_srp_side(two), SrpRules())
    assert f"<td>{mine.p_first_side:.4f}</td><td>{theirs.p_first_side:.4f}</td>" in page
    # a heat-map cell: skill 10 against skill 20, each attacking first half the time
    from referee.systems.srp.melee import Attack, Defense

    ten = hit_distribution(Attack(skill=10, weapon_damage=3), Defense(skill=20, armor=3), rules)
    twenty = hit_distribution(Attack(skill=20, weapon_damage=3), Defense(skill=10, armor=3), rules)
    p = (duel_odds(ten, twenty, 10, 10).first + duel_odds(twenty, ten, 10, 10).second) / 2
    assert f"<title>skill 10 vs skill 20: {float(p):.3f}</title>" in page
