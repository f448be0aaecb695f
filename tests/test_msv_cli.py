"""`referee msv ...`: exact output, JSON and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli.main import cli


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["msv", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("args", "out"),
    [
        (["--cs", "65", "--roll", "47"], "47 vs CS 65: hit, 4 damage\n"),
        (["--cs", "65", "--roll", "80"], "80 vs CS 65: miss\n"),
        (
            ["--cs", "65", "--roll", "40"],
            "40 vs CS 65: critical hit, 3 damage - the foe is stunned and the attacker makes a "
            "free attack at once\n",
        ),
        (["--cs", "65", "--seed", "7"], "42 vs CS 65: hit, 3 damage\n"),
    ],
)
def test_attack_text(args: list[str], out: str) -> None:
    assert run("attack", *args) == (0, out, "")


def test_attack_json_and_rules(tmp_path: Path) -> None:
    code, out, _ = run("attack", "--cs", "65", "--roll", "47", "--json")
    assert code == 0
    data = json.loads(out)
    assert {k: data[k] for k in ("cs", "roll", "success", "damage", "critical")} == {
        "cs": 65, "roll": 47, "success": True, "damage": 4, "critical": False,
    }  # fmt: skip
    pack = tmp_path / "cap3.toml"
    pack.write_text("damage_cap = 3\n", encoding="utf-8")
    assert run("attack", "--cs", "65", "--roll", "47", "--rules", str(pack))[1] == (
        "47 vs CS 65: hit, 3 damage\n"
    )


@pytest.mark.parametrize(
    ("args", "err"),
    [
        (["attack", "--cs", "-5"], "error: CS must be a whole number >= 0 (MSV-2), got -5\n"),
        (
            ["attack", "--cs", "65", "--roll", "101"],
            "error: a d100 roll must be a whole number in 1..100, got 101\n",
        ),
        (
            ["convert", "2d31"],
            "error: dice '2d31' out of range: expected 2d10..2d30\n",
        ),
        (
            ["convert", "--cs", "62"],
            "error: CS 62 has no old dice: MSV-8 gives CS 0..100 in steps of 5 (2d10..2d30)\n",
        ),
        (
            ["initiative", "Tarl65"],
            "error: bad fighter 'Tarl65' (expected NAME=CS, e.g. 'Tarl Cabot=65', or old dice "
            "NAME=2dN, e.g. 'PaKur=2d24')\n",
        ),
        (
            ["initiative", "Tarl=-1"],
            "error: CS must be a whole number >= 0 (MSV-2), got -1\n",
        ),
        (
            ["old-roll", "2d22", "--faces", "14,23"],
            "error: face 23 does not fit a d22 (1..22)\n",
        ),
        (
            ["old-roll", "2d22", "--faces", "14"],
            "error: bad faces '14' (expected two faces like '14,17')\n",
        ),
        (
            ["duel", "0", "0"],
            "error: CS 0 vs CS 0 never ends: neither fighter can ever succeed (MSV-2)\n",
        ),
        (["matrix", "--from", "50", "--to", "40"], "error: --to 40 is below --from 50\n"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], err: str) -> None:
    assert run(*args) == (2, "", err)


TOO_HIGH = "error: CS must be 0..100 (MSV-2: CS 100 always succeeds), got {}\n"
NEGATIVE = "error: CS must be a whole number >= 0 (MSV-2), got {}\n"


@pytest.mark.parametrize(
    ("args", "err"),
    [
        (["attack", "--cs", str(10**23), "--roll", "47"], TOO_HIGH.format(10**23)),
        (["attack", "--cs", "101", "--roll", "47"], TOO_HIGH.format(101)),
        (["duel", "60", str(10**23)], TOO_HIGH.format(10**23)),
        (["matrix", "--from", "40", "--to", str(10**23)], TOO_HIGH.format(10**23)),
        (["convert", "--cs", "500"], TOO_HIGH.format(500)),
        (["initiative", "Tarl=101", "Pa-Kur=70"], TOO_HIGH.format(101)),
        (["attack", "--cs", "1e5", "--roll", "47"], NEGATIVE.format("'1e5'")),
        (["duel", "60", "-65"], NEGATIVE.format(-65)),  # not "No such option '-6'"
        (["duel", "-60", "65", "--json"], NEGATIVE.format(-60)),
        (["matrix", "--from", "-5"], NEGATIVE.format(-5)),
    ],
)
def test_a_cs_out_of_bounds_is_the_rules_one_line(args: list[str], err: str) -> None:  # MSV-2
    assert run(*args) == (2, "", err)


def test_an_unknown_option_is_still_one_click_names() -> None:
    code, _, err = run("duel", "60", "65", "--jsn")
    assert code == 2
    assert err.splitlines()[-1] == "Error: No such option '--jsn'. Did you mean '--json'?"


def test_unknown_pack_key_exits_2(tmp_path: Path) -> None:
    pack = tmp_path / "x.toml"
    pack.write_text("dmg_cap = 3\n", encoding="utf-8")
    code, out, err = run("duel", "60", "65", "--rules", str(pack))
    assert (code, out) == (2, "")
    assert err.startswith(f"error: unknown key 'dmg_cap' in rule pack '{pack}' (known: band_width")
    assert err.count("\n") == 1


def test_initiative_text_and_json() -> None:
    assert run("initiative", "Tarl=65", "Pa-Kur=70", "--seed", "1") == (
        0,
        "round 1: Tarl 18 (effect 2), Pa-Kur 73 (effect 0)\norder: Tarl, Pa-Kur\n",
        "",
    )
    code, out, _ = run("initiative", "A=0", "B=0", "--json", "--seed", "1")
    assert code == 0
    assert json.loads(out)["rounds"] == [
        {"round": 1, "group": ["A", "B"], "rolls": [], "ties": [], "unrollable": True}
    ]
    # names may contain '=': split on the last one
    assert run("initiative", "a=b=60", "--seed", "2")[1].endswith("order: a=b\n")


def test_convert() -> None:
    assert json.loads(run("convert", "2d22", "--json")[1]) == {
        "dice": "2d22", "cs": 60, "label": "typical warrior",
    }  # fmt: skip
    assert run("convert", "--cs", "60") == (0, "2d22 = CS 60 (typical warrior)\n", "")
    assert run("convert", "2d10") == (0, "2d10 = CS 0\n", "")
    out = run("convert")[1].splitlines()
    assert (len(out), out[0], out[-1]) == (21, "2d10 = CS 0", "2d30 = CS 100")
    assert run("convert", "2d22", "--cs", "60")[0] == 2


def test_old_roll() -> None:
    assert run("old-roll", "2d22", "--faces", "14,17") == (
        0,
        "2d22: 14 17 -> 0 + 1 = 1 damage, hit\n",
        "",
    )
    data = json.loads(run("old-roll", "2d22", "--seed", "3", "--json")[1])
    assert data == {
        "dice": "2d22", "faces": [8, 19], "scores": [0, 1], "damage": 1, "hit": True, "seed": 3,
    }  # fmt: skip


def test_duel_text_and_json() -> None:
    code, out, _ = run("duel", "60", "65")
    assert code == 0
    assert out == (
        "A = CS 60 vs B = CS 65 (criticals: stun-free-attack, tie-break: reroll, defeat at 15)\n"
        "                  with criticals    without criticals\n"
        "P(A acts first)   0.4525            0.4525\n"
        "P(A wins)         0.3923            0.3856\n"
        "P(B wins)         0.6077            0.6144\n"
        "expected rounds   7.800             8.312\n"
        "rounds 50/90/99%  8 / 11 / 14       8 / 11 / 14\n"
    )
    data = json.loads(run("duel", "60", "65", "--json")[1])
    n, d = (int(x) for x in data["p_a_wins_exact"].split("/"))
    assert abs(n / d - data["p_a_wins"]) < 1e-15
    assert abs(data["p_a_wins"] + data["p_b_wins"] - 1) < 1e-15
    assert round(data["expected_rounds"], 6) == 7.800074
    assert round(data["without_criticals"]["p_a_wins"], 4) == 0.3856
    assert abs(sum(data["length_distribution"]) - 1) < 1e-8


def test_matrix_csv_text_and_plot(tmp_path: Path) -> None:
    code, out, _ = run("matrix", "--from", "40", "--to", "60", "--step", "10", "--csv")
    assert (code, out) == (
        0,
        "cs,40,50,60\n"
        "40,0.500000,0.200779,0.064085\n"
        "50,0.799221,0.500000,0.249482\n"
        "60,0.935915,0.750518,0.500000\n",
    )
    png = tmp_path / "m.png"
    code, out, err = run("matrix", "--from", "0", "--to", "10", "--step", "5", "--plot", str(png))
    assert code == 0
    assert out.splitlines()[:2] == ["  A\\B     0     5    10", "    0   n/a 0.000 0.000"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert err == f"heat map written to {png.resolve()}\n"  # stderr: stdout stays the table


def test_matrix_plot_says_where_it_wrote_and_the_csv_stays_csv(tmp_path: Path) -> None:
    png = tmp_path / "m.png"
    code, out, err = run("matrix", "--from", "40", "--to", "50", "--step", "10", "--csv",
                         "--plot", str(png))  # fmt: skip
    assert (code, out) == (0, "cs,40,50\n40,0.500000,0.200779\n50,0.799221,0.500000\n")
    assert err == f"heat map written to {png.resolve()}\n"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare(tmp_path: Path) -> None:
    code, out, _ = run("compare")
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == "Old system 2d20..2d25, Rhy'Din scoring (MSV-9)"
    assert "Average Damage per Round      2d21      0.84     0.857    0.857    - *" in lines
    assert "Average Rounds to 15 Damage   s60       10       10.000   10.666   10.133" in lines
    assert "% to Hit ratio                s75/2d25  1.08     1.093    1.093    - *!" in lines
    png = tmp_path / "c.png"
    code, out, err = run("compare", "--json", "--plot", str(png))
    assert err == f"bar chart written to {png.resolve()}\n"
    data = json.loads(out)
    assert len(data) == 48
    cell = next(c for c in data if c["column"] == "2d21" and c["stat"] == "damage")
    assert (cell["printed"], cell["method"], cell["differs"]) == ("0.84", 0.857, True)
    assert png.stat().st_size > 1000


def test_help_has_examples() -> None:
    for command in ("attack", "initiative", "convert", "old-roll", "duel", "matrix", "compare"):
        code, out, _ = run(command, "--help")
        assert code == 0
        assert "Examples:" in out, command


def test_spar_chat_log() -> None:
    code, out, err = run("spar", "Tarl=65", "Pa-Kur=70", "--seed", "7")
    lines = out.splitlines()
    assert (code, err) == (0, "")
    assert lines[:16] == [
        "Spar: Tarl (CS 65) vs Pa-Kur (CS 70), seed 7",
        "Initiative (MSV-5):",
        "OnlineHost: Tarl rolled 1 100-sided die: 42",
        "  Tarl: 42 vs CS 65, effect 3",
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 20",
        "  Pa-Kur: 20 vs CS 70, effect 2",
        "Initiative: Tarl > Pa-Kur",
        "Round 1",
        "OnlineHost: Tarl rolled 1 100-sided die: 51",
        "  Tarl attacks Pa-Kur: 51 vs CS 65: hit, 4 damage",
        "  Pa-Kur takes 4 damage (4 in all)",
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 84",
        "  Pa-Kur attacks Tarl: 84 vs CS 70: miss",
        "Round 2",
        "OnlineHost: Tarl rolled 1 100-sided die: 7",
        "  Tarl attacks Pa-Kur: 7 vs CS 65: hit, 1 damage",
    ]
    assert (
        "  Pa-Kur attacks Tarl: 10 vs CS 70: critical hit, 1 damage - the foe is stunned and "
        "the attacker makes a free attack at once" in lines
    )
    assert lines[-3:] == [
        "  Pa-Kur takes 4 damage (15 in all)",
        "  Pa-Kur is defeated",
        "Bout ended: side Tarl wins (one side is left)",
    ]
    assert "  Tarl: stunned (until cleared)" in lines  # the critical's stun (MSV-4)


def test_spar_sides_and_json() -> None:
    code, out, _ = run(
        "spar", "Tarl=65", "Rask=60", "Pa-Kur=70", "--side", "Tarl=Ar", "--side", "Rask=Ar",
        "--seed", "3", "--json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["seed"] == 3
    assert data["winner"] in ("Ar", "Pa-Kur")
    assert data["events"][0]["type"] == "bout_opened"
    assert data["log"][-1] == f"Bout ended: side {data['winner']} wins (one side is left)"
    rolls = [e for e in data["events"] if e["type"] == "roll"]
    assert sum(line.startswith("OnlineHost: ") for line in data["log"]) == len(rolls)


@pytest.mark.parametrize(
    ("args", "err"),
    [
        (["A=0", "B=0"], "error: every fighter has CS 0: nobody can ever hit, the spar would "
         "never end\n"),
        (["A=5", "B=6", "--side", "C=x"], "error: bad --side 'C=x' (expected NAME=SIDE for one "
         "of: A, B)\n"),
        (["A=5", "B=6", "--side", "A=x", "--side", "B=x"], "error: initiative needs fighters on "
         "at least two sides\n"),
    ],
)  # fmt: skip
def test_spar_bad_input(args: list[str], err: str) -> None:
    assert run("spar", *args) == (2, "", err)
