"""`referee roll`: exact output, JSON, seeds, chat mode, errors and exit codes."""

from __future__ import annotations

import json

from click.testing import CliRunner

from referee.cli.main import cli
from referee.dice import format_host_line, parse, render, roll
from referee.rng import SeededRng


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["roll", *args])
    return result.exit_code, result.stdout, result.stderr


def seeded_line(text: str, seed: int) -> str:
    return render(roll(parse(text), rng=SeededRng(seed)))


def test_seeded_roll_prints_the_rendered_line_and_the_seed_on_stderr() -> None:
    code, out, err = run("2d20+1d6", "--seed", "7")
    assert code == 0
    assert out == seeded_line("2d20+1d6", 7) + "\n"
    assert err == "seed: 7\n"


def test_seeded_roll_is_reproducible_and_known() -> None:
    faces = SeededRng(7).throw((6, 6, 6, 6)).faces
    kept = sorted(faces, reverse=True)[:3]
    code, out, _ = run("4d6kh3", "--seed", "7")
    assert code == 0
    assert out.endswith(f" = {sum(kept)}\n")
    assert out == run("4d6kh3", "--seed", "7")[1]


def test_unseeded_roll_prints_one_line_within_bounds() -> None:
    code, out, err = run("1d100")
    assert code == 0 and err == ""
    head, middle, total = out.rstrip("\n").split(" = ")
    assert head == "1d100" and middle == f"[{total}]" and 1 <= int(total) <= 100


def test_json_output() -> None:
    code, out, err = run("2d6!+1", "--seed", "3", "--json")
    assert code == 0
    assert err == "seed: 3\n"
    data = json.loads(out)
    expected = roll(parse("2d6!+1"), rng=SeededRng(3))
    assert data == {
        "expression": "2d6!+1",
        "total": expected.total,
        "dice": [
            {
                "sides": d.sides,
                "face": d.face,
                "kept": d.kept,
                "exploded": d.exploded,
                "rerolled": d.rerolled,
                "value": d.worth,
            }
            for d in expected.dice
        ],
        "rendered": str(expected),
        "seed": 3,
    }


def test_json_without_seed_has_no_seed_key() -> None:
    data = json.loads(run("1d6", "--json")[1])
    assert set(data) == {"expression", "total", "dice", "rendered"}


def test_bad_notation_exits_2_with_one_line_quoting_it() -> None:
    code, out, err = run("3d6x2")
    assert code == 2
    assert out == ""
    assert err == (
        "error: unexpected 'x' at column 4 in '3d6x2' (expected a modifier (! !! !p < <= = > "
        ">= cf cs d dh dl f k kh kl r ro s sa sd), an operator (+ - * / %) or end of input)\n"
    )


def test_limits_exit_2() -> None:
    code, _, err = run("1001d6")
    assert code == 2
    assert err == "error: too many dice: '1001d6' at column 1 in '1001d6' (at most 1000)\n"


def test_negative_expression_after_double_dash() -> None:
    code, out, _ = run("--seed", "1", "--", "-1d6+10")
    assert code == 0
    assert out == seeded_line("-1d6+10", 1) + "\n"


def test_chat_mode_prints_the_online_host_line() -> None:
    code, out, err = run("--chat", "//roll -sides100 -dice1", "--name", "Tarl", "--seed", "5")
    assert code == 0
    face = SeededRng(5).throw((100,)).faces[0]
    assert out == f"OnlineHost: Tarl rolled 1 100-sided die: {face}\n"
    assert err == "seed: 5\n"


def test_chat_mode_defaults_to_you_and_two_d6() -> None:
    code, out, _ = run("--chat", "//roll", "--seed", "9")
    assert code == 0
    assert out == format_host_line("You", 6, SeededRng(9).throw((6, 6)).faces) + "\n"


def test_chat_mode_json() -> None:
    code, out, _ = run("--chat", "//roll-dice2-sides20", "--seed", "1", "--json")
    assert code == 0
    faces = list(SeededRng(1).throw((20, 20)).faces)
    assert json.loads(out) == {
        "name": "You",
        "count": 2,
        "sides": 20,
        "faces": faces,
        "line": format_host_line("You", 20, faces),
        "seed": 1,
    }


def test_chat_mode_outside_aol_ranges_exits_2() -> None:
    code, out, err = run("--chat", "//roll -dice16")
    assert (code, out) == (2, "")
    assert err == "error: AOL rolled 1..15 dice, got 16 in '//roll -dice16' (MSV-1)\n"


def test_expression_and_chat_together_is_a_usage_error() -> None:
    assert run("1d6", "--chat", "//roll")[0] == 2
    assert run()[0] == 2


def test_help_has_examples() -> None:
    code, out, _ = run("--help")
    assert code == 0
    assert "Examples:\n    referee roll 2d20+1d6\n" in out


def test_bad_input_with_a_seed_is_still_one_stderr_line() -> None:
    code, out, err = run("3d6x2", "--seed", "4")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("error: unexpected 'x'")


def test_bad_screen_name_exits_2() -> None:
    code, _, err = run("--chat", "//roll", "--name", " Tarl")
    assert code == 2
    assert err == "error: a screen name must be text without outer spaces, got ' Tarl'\n"


def test_scripted_faces_in_throw_order_as_json() -> None:
    code, out, err = run("3d6!>5", "--faces", "6,5,1,2,3", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["rendered"] == "3d6!>5 = [6!, 5!, 1, 2, 3] = 17"
    assert [(d["face"], d["exploded"]) for d in data["dice"]] == [
        (6, True),
        (5, True),
        (1, False),
        (2, False),
        (3, False),
    ]


def test_scripted_faces_in_another_dialect() -> None:
    code, out, _ = run("4d6k3", "--dialect", "d20", "--faces", "3,1,3,6")
    assert (code, out) == (0, "4d6k3 = [3, ~~1~~, 3, ~~6~~] = 6\n")


def test_scripted_faces_that_run_out_misfit_or_are_left_over_exit_2() -> None:
    assert run("2d6", "--faces", "3")[2].startswith("error: scripted dice ran out")
    assert run("1d6", "--faces", "7")[2] == "error: scripted face 7 does not fit a d6 (1..6)\n"
    assert run("1d6", "--faces", "3,4")[2] == "error: --faces gave 2 faces but the roll threw 1\n"
    assert run("1d6", "--faces", "3,x")[0] == 2
    assert run("1d6", "--faces", "3", "--seed", "1")[0] == 2


def test_a_face_longer_than_python_reads_is_one_line() -> None:
    """Thousands of digits (past Python's 4,300-digit `int()` limit) are no face of any die."""
    huge = "9" * 5000
    code, out, err = run("1d6", "--faces", huge)
    assert (code, out) == (2, "")
    assert (
        err == f"error: --faces takes whole numbers separated by commas, got {huge!r} in {huge!r}\n"
    )
    assert run("1d6", "--faces", "9" * 19)[2].startswith("error: --faces takes whole numbers")
    assert run("1d6", "--faces", "0006")[1] == "1d6 = [6] = 6\n"


def test_odds_too_small_for_a_float_are_not_shown_as_0() -> None:
    """The highest of 1,000 d10 is 1 with chance 10^-1000 and 2 with (2^1000 - 1) / 10^1000:
    not 0, which a float would make of them."""
    code, out, _ = run("{1000d10}kh1", "--odds")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[2:7]]
    assert [row[:2] for row in rows] == [
        ["1", "1.000e-1000"],
        ["2", "1.072e-699"],
        ["3", "1.322e-523"],
        ["4", "1.148e-398"],
        ["5", "9.333e-302"],  # within a float's range: as before
    ]
