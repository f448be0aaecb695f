"""`referee lab duel|matrix|compare|ladder`: exact figures, the text pack against itself."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.analysis.msv_duel import analyse_duel
from referee.analysis.msv_matrix import win_matrix
from referee.cli.main import cli
from referee.systems.msv.rules import MsvRules, rules_from_mapping

DAMAGE_12 = 'damage = "min(5, ceil(roll / 12))"\n'


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["lab", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def pack(tmp_path: Path) -> str:
    path = tmp_path / "d12.toml"
    path.write_text(DAMAGE_12, encoding="utf-8")
    return str(path)


def test_duel_against_the_text(pack: str) -> None:
    code, out, err = run("duel", pack, "60", "65")
    assert (code, err) == (0, "")
    assert out.splitlines()[1:] == [
        "                  pack      against   change",
        "P(A acts first)   0.4527    0.4525    +0.0002",
        "P(A wins)         0.3988    0.3923    +0.0065",
        "P(B wins)         0.6012    0.6077    -0.0065",
        "expected rounds   6.502     7.800     -1.298",
    ]
    data = json.loads(run("duel", pack, "60", "65", "--json")[1])
    rules = rules_from_mapping({"damage": "min(5, ceil(roll / 12))"})
    exact = analyse_duel(60, 65, rules).p_a_wins
    assert data["pack"]["p_a_wins_exact"] == f"{exact.numerator}/{exact.denominator}"
    text = analyse_duel(60, 65, MsvRules()).expected_rounds
    assert data["against"]["expected_rounds_exact"] == f"{text.numerator}/{text.denominator}"


def test_matrix_of_the_text_is_msv_matrix() -> None:
    args = ["--from", "40", "--to", "60", "--step", "10", "--csv"]
    lab = run("matrix", "text", *args)
    msv = CliRunner().invoke(cli, ["msv", "matrix", *args])
    assert lab == (0, msv.stdout, "")


def test_difference_matrix_and_its_heat_maps(pack: str, tmp_path: Path) -> None:
    svg, png = tmp_path / "d.svg", tmp_path / "d.png"
    code, out, _ = run("matrix", pack, "--against", "text", "--from", "50", "--to", "60",
                       "--plot", str(svg))  # fmt: skip
    assert code == 0
    assert out.splitlines() == [
        "    A\\B      50      55      60",
        "     50 +0.0000 +0.0061 +0.0113",
        "     55 -0.0061 +0.0000 +0.0075",
        "     60 -0.0113 -0.0075 +0.0000",
    ]
    rules = rules_from_mapping({"damage": "min(5, ceil(roll / 12))"})
    expected = win_matrix([50, 60], rules) - win_matrix([50, 60], MsvRules())
    assert round(float(expected[1, 0]), 4) == -0.0113
    text = svg.read_text("utf-8")
    root = ET.fromstring(text)
    assert (
        root.tag.endswith("svg") and len([e for e in root.iter() if e.tag.endswith("rect")]) == 11
    )  # 9 cells, the background and the colour scale
    labels = [e.text for e in root.iter() if e.tag.endswith("text")]
    assert labels[-7:] == [
        "CS of the row's fighter",
        "CS of the column's fighter",
        "-0.0113",
        "0",
        "+0.0113",
        "colour: change in the row's",  # wrapped to the drawing's width
        "fighter's chance to win",
    ]
    assert "<script" not in text and "href" not in text
    assert "CS 60 vs CS 50: -0.0113" in text
    assert run("matrix", pack, "--against", "text", "--plot", str(png))[0] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    gif = str(tmp_path / "x.gif")
    message = f"error: --plot {gif!r}: the file must end in .svg or .png\n"
    assert run("matrix", pack, "--plot", gif) == (2, "", message)


def test_compare_for_a_pack(pack: str) -> None:
    code, out, _ = run("compare", pack)
    lines = out.splitlines()
    assert code == 0
    assert lines[:5] == [
        "% to Hit",
        "                               s50       s55       s60       s65       s70       s75",
        "  printed in the text          50%       55%       60%       65%       70%       75%",
        "  text                        50.0      55.0      60.0      65.0      70.0      75.0",
        f"  {pack[:22]:<22}      50.0      55.0      60.0      65.0      70.0      75.0",
    ]
    assert (
        "  text                       1.571     1.517     1.500     1.504     1.520     1.458"
        in lines
    )
    data = json.loads(run("compare", pack, "--json")[1])
    damage = next(r for r in data if (r["table"], r["stat"]) == ("new", "damage"))
    # mean damage of one plain hit-or-miss at CS 50 with bands of 12, capped at 5: by hand
    by_hand = sum(min(5, -(-r // 12)) for r in range(1, 51)) / 100
    assert damage["pack"][0] == by_hand == 1.3
    assert damage["against"][0] == 1.1


def test_compare_of_the_text_against_itself_is_msv_compare() -> None:
    data = json.loads(run("compare", "text", "--json")[1])
    msv = json.loads(CliRunner().invoke(cli, ["msv", "compare", "--json"]).stdout)
    rounds = next(r for r in data if r["stat"] == "rounds")
    exact = [c["exact"] for c in msv if (c["table"], c["stat"]) == ("new", "rounds")]
    assert [round(x, 3) for x in rounds["pack"]] == [round(x, 3) for x in exact]
    assert rounds["pack"] == rounds["against"]


def test_ladder(pack: str) -> None:
    code, out, _ = run("ladder", "text", "--cs", "50,60,70")
    msv = CliRunner().invoke(cli, ["msv", "matrix", "--from", "50", "--to", "70", "--step", "10"])
    assert code == 0
    assert [line.split()[1:] for line in out.splitlines()[2:5]] == [
        line.split()[1:] for line in msv.stdout.splitlines()[1:]
    ]
    assert out.splitlines() == [
        "P(row beats column)",
        " A\\B      50     60     70",
        "   50  0.500  0.249  0.111",
        "   60  0.751  0.500  0.294",
        "   70  0.889  0.706  0.500",
        "Each step up the ladder",
        "  CS 60 vs CS 50: wins 0.751, +2.51 points of win chance per CS point",
        "  CS 70 vs CS 60: wins 0.706, +2.06 points of win chance per CS point",
    ]
    data = json.loads(run("ladder", pack, "--json")[1])
    assert data["skills"] == [50, 55, 60, 65, 70, 75]
    assert round(data["steps"][0]["p_higher_wins"], 3) == 0.632


@pytest.mark.parametrize(
    ("args", "err"),
    [
        (["ladder", "text", "--cs", "50"], "error: a ladder needs at least two different CS, "
         "got [50]\n"),
        (["ladder", "text", "--cs", "5x"], "error: bad CS list '5x' (expected numbers like "
         "50,55,60)\n"),
        (["matrix", "text", "--from", "60", "--to", "50"], "error: the highest CS 50 is below "
         "the lowest 60\n"),
        (["duel", "nope.toml", "50", "60"], "error: cannot read rule pack 'nope.toml': No such "
         "file or directory\n"),
        (["duel", "text", "--", "-5", "60"], "error: CS must be a whole number >= 0 (MSV-2), "
         "got -5\n"),
        (["duel", "text", "60", "-5"], "error: CS must be a whole number >= 0 (MSV-2), "
         "got -5\n"),
        (["duel", "text", "60", "101"], "error: CS must be 0..100 (MSV-2: CS 100 always "
         "succeeds), got 101\n"),
        # Every lab command takes a fighter's CS as the duel does: at most 100.
        (["matrix", "text", "--from", "95", "--to", "105"], "error: CS must be 0..100 (MSV-2: "
         "CS 100 always succeeds), got 105\n"),
        (["ladder", "text", "--cs", "50,101"], "error: CS must be 0..100 (MSV-2: CS 100 always "
         "succeeds), got 101\n"),
        (["battle", "Tarl=101", "Orc=50"], "error: CS must be 0..100 (MSV-2: CS 100 always "
         "succeeds), got 101\n"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(args: list[str], err: str) -> None:
    assert run(*args) == (2, "", err)


def test_help_has_examples() -> None:
    for command in ("duel", "matrix", "compare", "ladder"):
        code, out, _ = run(command, "--help")
        assert code == 0 and "Examples:" in out, command


@pytest.mark.parametrize(
    "sides",
    [["Tarl=65", "Orc=50"], ["--system", "srp", "Ann=skill=15 hits=5", "Orc=skill=11 hits=4"]],
    ids=["msv", "srp"],
)
def test_a_negative_battle_seed_is_a_usage_error_not_a_traceback(sides: list[str]) -> None:
    code, out, err = run("battle", *sides, "--monte-carlo", "--n", "10", "--seed", "-1")
    assert (code, out) == (2, "")
    assert err.endswith("Error: Invalid value for '--seed': -1 is not in the range x>=0.\n")
    assert run("battle", *sides, "--monte-carlo", "--n", "10", "--seed", "0")[0] == 0


@pytest.mark.parametrize(
    "args",
    [
        ["duel", "{}", "60", "50"],
        ["duel", "text", "60", "50", "--against", "{}"],
        ["matrix", "{}"],
        ["compare", "{}"],
        ["ladder", "{}"],
        ["battle", "--rules", "{}", "A=60", "B=50"],
    ],
    ids=["duel", "against", "matrix", "compare", "ladder", "battle"],
)
def test_a_pack_that_is_not_utf8_is_one_line_and_exit_2(args: list[str], tmp_path: Path) -> None:
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\xff\xfe\x00damage = 1")
    argv = [str(path) if a == "{}" else a for a in args]
    assert run(*argv) == (2, "", f"error: rule pack {str(path)!r} is not UTF-8 text\n")


def test_an_initiative_that_always_ties_says_so(tmp_path: Path) -> None:
    """Both at CS 100 under `damage = "1"`: every initiative roll succeeds with effect 1, so
    every roll ties (MSV-5); the error must not claim that nobody can succeed."""
    path = tmp_path / "one.toml"
    path.write_text('damage = "1"\n', encoding="utf-8")
    assert run("duel", str(path), "100", "100") == (
        2,
        "",
        "error: CS 100 vs CS 100: initiative never settles and the bout never ends "
        "(every initiative roll ties, so it is rerolled forever; MSV-5)\n",
    )
    no_one = tmp_path / "never.toml"
    no_one.write_text('initiative = "0"\n', encoding="utf-8")
    assert run("duel", str(no_one), "60", "50")[2].endswith("rerolled forever; MSV-5)\n")


def test_compare_for_a_pack_under_which_low_cs_never_hits(tmp_path: Path) -> None:
    """`success = "roll <= cs - 55"`: CS 50 and 55 never succeed, so they never reach 15
    damage ("-"); CS 60, 65, 70 hit on rolls 1..5, 1..10, 1..15 for 1 damage each, so they
    take 15 / (5/100) = 300, 150 and 100 rounds, by the text's method and exactly."""
    path = tmp_path / "hard.toml"
    path.write_text('success = "roll <= cs - 55"\n', encoding="utf-8")
    code, out, err = run("compare", str(path))
    assert (code, err) == (0, "")
    rounds = out.splitlines()[out.splitlines().index("Average Rounds to 15 Damage") + 4]
    assert rounds.split()[-6:-1] == ["-", "-", "300.000", "150.000", "100.000"]
    data = json.loads(run("compare", str(path), "--json")[1])
    row = next(r for r in data if (r["table"], r["stat"]) == ("new", "rounds"))
    assert row["pack"][:3] == [None, None, 300.0]
    assert row["pack_exact"][:3] == [None, None, "300/1"]
    code, out, err = run("report", str(path), "-o", str(tmp_path / "r.html"))
    assert (code, err) == (0, "")
