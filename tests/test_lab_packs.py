"""Formula rule packs: the text written as formulas gives every figure of the default pack;
a changed damage chart agrees with a brute-force enumeration; every --rules command and the
service's bouts take formula packs."""

from __future__ import annotations

import json
from fractions import Fraction
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.analysis.msv_duel import analyse_duel
from referee.analysis.msv_matrix import win_matrix
from referee.bout.replay import check_export
from referee.cli.main import cli
from referee.errors import RuleError, RulePackError
from referee.ledger import verify_export
from referee.systems.msv.attack import interpret
from referee.systems.msv.rules import (
    CriticalEffect,
    MsvRules,
    rules_from_mapping,
    rules_from_text,
)
from tests.service_fixtures import LiveServer

TEXT_PACK = resources.files("referee.lab").joinpath("packs/msv-text.toml")


@pytest.fixture
def text_pack(tmp_path: Path) -> str:
    path = tmp_path / "text.toml"
    path.write_text(TEXT_PACK.read_text("utf-8"), encoding="utf-8")
    return str(path)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def _strip(data: object) -> object:
    if isinstance(data, dict):
        return {k: _strip(v) for k, v in data.items() if k != "rules"}
    if isinstance(data, list):
        return [_strip(v) for v in data]
    return data


def _without_rules(text: str) -> object:
    return _strip(json.loads(text))


def test_the_text_as_formulas_is_the_default_pack_in_every_figure() -> None:
    pack = rules_from_text(TEXT_PACK.read_text("utf-8"), "msv-text.toml")
    assert pack.uses_formulas and pack != MsvRules()
    for cs in (0, 1, 9, 10, 50, 65, 99, 100, 130):
        for roll in range(1, 101):
            assert interpret(cs, roll, pack) == interpret(cs, roll, MsvRules())
    for a, b in ((60, 65), (0, 40), (100, 100), (50, 75)):
        assert analyse_duel(a, b, pack) == analyse_duel(a, b, MsvRules()).__class__(
            a, b, pack, *(getattr(analyse_duel(a, b, MsvRules()), k)
                          for k in ("p_a_first", "p_a_wins", "expected_rounds"))
        )  # fmt: skip
    skills = range(0, 101, 5)
    assert win_matrix(skills, pack).tobytes() == win_matrix(skills, MsvRules()).tobytes()


@pytest.mark.parametrize(
    "args",
    [
        ["msv", "duel", "60", "65", "--json"],
        ["msv", "duel", "0", "40", "--json"],
        ["msv", "duel", "75", "50", "--json"],
        ["msv", "duel", "60", "65"],
        ["msv", "matrix", "--from", "0", "--to", "100", "--step", "10", "--csv"],
        ["msv", "matrix", "--from", "40", "--to", "60", "--step", "5"],
        ["msv", "compare", "--json"],
        ["msv", "compare"],
        ["msv", "spar", "Tarl=65", "Pa-Kur=70", "--seed", "7"],
        ["msv", "spar", "Tarl=65", "Rask=60", "Pa-Kur=70", "--side", "Tarl=Ar", "--side",
         "Rask=Ar", "--seed", "3"],
        ["msv", "attack", "--cs", "65", "--roll", "40", "--json"],
        ["msv", "initiative", "Tarl=65", "Pa-Kur=70", "Orc=65", "--seed", "11", "--json"],
    ],
)  # fmt: skip
def test_every_rules_command_gives_the_same_answer(args: list[str], text_pack: str) -> None:
    code, plain, err = run(*args)
    assert (code, err) == (0, "")
    code, formulas, err = run(*args, "--rules", text_pack)
    assert (code, err) == (0, "")
    if "--json" in args:
        assert _without_rules(formulas) == _without_rules(plain)
    else:
        assert formulas == plain


def test_spar_json_with_a_formula_pack_records_the_formulas(text_pack: str) -> None:
    code, out, _ = run("msv", "spar", "A=60", "B=65", "--seed", "5", "--json", "--rules", text_pack)
    assert code == 0
    header = json.loads(out)["events"][0]["payload"]["rules"]
    assert header["damage"] == "min(4, ceil(roll / 15))"
    assert "band_width" not in header


CHART = {1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 0}  # d100 tens-ish bands -> damage, brute force


def chart_damage(roll: int) -> int:
    """The changed chart, written out: 1-20 -> 1, 21-40 -> 2, 41-50 -> 3, 51+ -> 0 on a 7s."""
    if roll <= 20:
        return 1
    if roll <= 40:
        return 2
    if roll <= 50:
        return 3
    return 0 if roll % 7 == 0 else 4


CHART_PACK = {
    "damage": "(roll <= 20) + 2 * (roll > 20 and roll <= 40) + 3 * (roll > 40 and roll <= 50)"
    " + 4 * (roll > 50 and roll % 7 != 0)",
    "critical": "roll % 10 == 0 or roll % 7 == 0",
    "defeat_threshold": 6,
}


def _solve_linear(
    rows: list[dict[int, Fraction]], columns: list[list[Fraction]]
) -> list[list[Fraction]]:
    """Gauss-Jordan elimination in Fractions over sparse rows ({column: coefficient}), for
    several right-hand sides at once: the solution for each of `columns`."""
    n = len(rows)
    a = [dict(row) for row in rows]
    b = [[column[r] for column in columns] for r in range(n)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if a[r].get(col, 0) != 0)
        a[col], a[pivot], b[col], b[pivot] = a[pivot], a[col], b[pivot], b[col]
        inv = 1 / a[col][col]
        a[col] = {k: x * inv for k, x in a[col].items()}
        b[col] = [x * inv for x in b[col]]
        for r in range(n):
            factor = a[r].get(col, 0) if r != col else 0
            if factor != 0:
                row = a[r]
                for k, y in a[col].items():
                    value = row.get(k, 0) - factor * y
                    if value:
                        row[k] = value
                    else:
                        row.pop(k, None)
                b[r] = [x - factor * y for x, y in zip(b[r], b[col], strict=True)]
    return [[b[r][j] for r in range(n)] for j in range(len(columns))]


def brute_force(cs: tuple[int, int], threshold: int) -> tuple[Fraction, Fraction]:
    """P(A wins) and E[rounds] by enumerating every face, as one linear system.

    States: (damage taken by A, by B, who acts, fresh action?). Each face of the actor's d100
    moves to a state; the chain is solved as a linear system, independently of msv_duel.
    """
    states = [
        (ta, tb, who, fresh)
        for ta in range(threshold)
        for tb in range(threshold)
        for who in (0, 1)
        for fresh in (True, False)
    ]
    index = {s: i for i, s in enumerate(states)}

    n = len(states)
    # One matrix (the chain does not depend on who started), three right-hand sides: A's win,
    # and the rounds counted from a start by A, then from a start by B.
    rows: list[dict[int, Fraction]] = [{i: Fraction(1)} for i in range(n)]
    win = [Fraction(0)] * n
    started = {first: [Fraction(0)] * n for first in (0, 1)}
    p = Fraction(1, 100)
    for (ta, tb, who, fresh), i in index.items():
        if fresh:
            started[who][i] += 1
        for roll in range(1, 101):
            hit = roll <= cs[who]
            dmg = chart_damage(roll) if hit else 0
            again = hit and (roll % 10 == 0 or roll % 7 == 0)
            taken = [ta, tb]
            taken[1 - who] += dmg
            if taken[1 - who] >= threshold:
                win[i] += p if who == 0 else 0
                continue
            nxt = (taken[0], taken[1], who, False) if again else (
                taken[0], taken[1], 1 - who, True)  # fmt: skip
            j = index[nxt]
            rows[i][j] = rows[i].get(j, Fraction(0)) - p
    wins_of, from_a, from_b = _solve_linear(rows, [win, started[0], started[1]])
    start = {first: index[(0, 0, first, True)] for first in (0, 1)}

    a_keys = [chart_damage(r) if r <= cs[0] else 0 for r in range(1, 101)]
    b_keys = [chart_damage(r) if r <= cs[1] else 0 for r in range(1, 101)]
    ahead = sum(1 for x in a_keys for y in b_keys if x > y)
    behind = sum(1 for x in a_keys for y in b_keys if x < y)
    p_first = Fraction(ahead, ahead + behind)
    wins = p_first * wins_of[start[0]] + (1 - p_first) * wins_of[start[1]]
    rounds = p_first * from_a[start[0]] + (1 - p_first) * from_b[start[1]]
    return wins, rounds


@pytest.mark.parametrize("pair", [(60, 65), (45, 80)])
def test_a_changed_damage_chart_against_brute_force(pair: tuple[int, int]) -> None:
    pack = rules_from_mapping(CHART_PACK)
    for roll in range(1, 101):
        assert interpret(pair[0], roll, pack).damage == (
            chart_damage(roll) if roll <= pair[0] else 0
        )
    duel = analyse_duel(*pair, pack)
    wins, rounds = brute_force(pair, 6)
    assert duel.p_a_wins == wins
    assert duel.expected_rounds == rounds


def test_a_pack_round_trips_through_json() -> None:
    pack = rules_from_mapping(
        {**CHART_PACK, "critical_effect": "extra-damage",
         "critical_extra_damage": "ceil(roll / 10)", "initiative": "max(0, cs - roll)",
         "tie_break": "higher-raw-roll"}
    )  # fmt: skip
    assert pack.critical_effect is CriticalEffect.EXTRA_DAMAGE
    assert rules_from_mapping(pack.to_json()) == pack
    hit = interpret(65, 40, pack)
    assert (hit.damage, hit.extra_damage, hit.free_attack) == (2 + 4, 4, False)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"damage": "ceil(roll / 12)", "band_width": 12}, "rule pack '<rules>' gives both "
         "'damage' and 'band_width'/'damage_cap': the damage formula replaces them, give one "
         "or the other"),
        ({"damage": 5}, "key 'damage' in rule pack '<rules>' must be a formula in quotes, got 5"),
        ({"critical": "roll %% 10"}, "rule pack '<rules>': formula 'critical': unexpected '%' "
         "at column 7 in 'roll %% 10' (expected a number, a name or '(')"),
        ({"damage": "roll - 50"}, "rule pack '<rules>': formula 'damage' gave -49 at roll = 1, "
         "cs = 1: damage must be a whole number in 0..100"),
        ({"initiative": "roll / 3"}, "rule pack '<rules>': formula 'initiative' gave 1/3 at "
         "roll = 1, cs = 0: an initiative effect must be a whole number in -100..100 (round it "
         "with ceil or floor)"),
        ({"succes": "1"}, "unknown key 'succes' in rule pack '<rules>' (known: band_width, "
         "damage_cap, critical_effect, critical_extra_damage, tie_break, defeat_threshold, "
         "success, damage, critical, initiative)"),
    ],
)  # fmt: skip
def test_bad_formula_packs_get_one_clear_error(data: dict[str, object], message: str) -> None:
    with pytest.raises(RulePackError) as err:
        rules_from_mapping(data)
    assert str(err.value) == message


def test_a_bad_formula_pack_exits_2_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('damage = "min(5, ceil(rol / 12))"\n', encoding="utf-8")
    code, out, err = run("msv", "duel", "50", "60", "--rules", str(path))
    assert (code, out) == (2, "")
    assert err == (
        f"error: rule pack {str(path)!r}: formula 'damage': unknown name 'rol' at column 13 in "
        "'min(5, ceil(rol / 12))' (known: roll, cs, min, max, ceil, floor, abs)\n"
    )


def test_a_pack_that_never_ends_is_an_error() -> None:
    pack = rules_from_mapping({"damage": "0"})
    with pytest.raises(RuleError, match="neither fighter can ever deal damage"):
        analyse_duel(50, 60, pack)
    loop = rules_from_mapping({"success": "1", "damage": "0", "critical": "1"})
    with pytest.raises(RuleError, match="the attack never ends"):
        analyse_duel(50, 60, loop)


def test_a_service_bout_with_a_formula_pack_verifies(live: LiveServer) -> None:
    rules = {"damage": "min(5, ceil(roll / 12))", "critical": "roll % 25 == 0"}
    bout = live.post(
        "/api/bouts", json={"system": "msv", "name": "Lab", "client_seed": "lab", "rules": rules}
    ).json()
    bid, ref = bout["id"], bout["referee_token"]
    tokens = {}
    for name, cs in (("Tarl", 65), ("Pa-Kur", 70)):
        r = live.post(f"/api/bouts/{bid}/fighters", ref, json={"name": name, "cs": cs})
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["token"]
    assert live.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    for _ in range(300):
        view = live.get(f"/api/bouts/{bid}").json()
        if view["winner"]:
            break
        me = view["turn"]
        foe = "Tarl" if me == "Pa-Kur" else "Pa-Kur"
        r = live.post(f"/api/bouts/{bid}/attacks", tokens[me], json={"attacker": me, "target": foe})
        assert r.status_code == 200, r.text
        answer = r.json()
        cs = 65 if me == "Tarl" else 70
        success = answer["roll"] <= cs
        assert answer["damage"] == (min(5, -(-answer["roll"] // 12)) if success else 0)
        assert answer["critical"] == (success and answer["roll"] % 25 == 0)
    assert view["winner"]
    live.post(f"/api/bouts/{bid}/close", ref)
    export = live.get(f"/api/bouts/{bid}/export").json()
    assert export["events"][0]["payload"]["rules"]["damage"] == "min(5, ceil(roll / 12))"
    assert verify_export(export, replay=check_export).ok


def test_a_bad_formula_in_a_service_bout_is_a_400(live: LiveServer) -> None:
    r = live.post("/api/bouts", json={"system": "msv", "name": "x", "rules": {"damage": "rol"}})
    assert (r.status_code, r.json()["error"]) == (400, "bad_formula")
    assert "formula 'damage': unknown name 'rol'" in r.json()["message"]
