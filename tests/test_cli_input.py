"""What a new user hits on the command line: one clear line and exit 2, words not internal names."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from referee.cli.srp_fight import event_lines

EXAMPLE_FIGHT = Path(__file__).resolve().parent.parent / "examples" / "srp" / "fight.toml"
NOT_UTF8 = b'name = "Ambush \xff at the ford"\n'


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["msv", "duel", "60", "65", "--rules"],
        ["msv", "attack", "--cs", "65", "--roll", "47", "--rules"],
        ["msv", "spar", "A=60", "B=65", "--seed", "1", "--rules"],
        ["srp", "attack", "--skill", "15", "--defend", "none", "--dice", "3,4,5", "--rules"],
        ["srp", "odds", "--attacker", "skill=15", "--defender", "defense=12", "--rules"],
    ],
)
def test_a_rule_pack_that_is_not_utf8_is_one_line(tmp_path: Path, args: list[str]) -> None:
    pack = tmp_path / "pack.toml"
    pack.write_bytes(NOT_UTF8)
    assert run(*args, str(pack)) == (2, "", f"error: rule pack '{pack}' is not UTF-8 text\n")


def test_a_missing_rule_pack_is_one_line(tmp_path: Path) -> None:
    pack = tmp_path / "none.toml"
    code, out, err = run("msv", "duel", "60", "65", "--rules", str(pack))
    assert (code, out, err) == (
        2,
        "",
        f"error: cannot read rule pack '{pack}': No such file or directory\n",
    )


def test_a_fight_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    fight = tmp_path / "fight.toml"
    fight.write_bytes(NOT_UTF8)
    code, out, err = run("srp", "fight", str(fight))
    assert (code, out, err) == (2, "", f"error: fight file '{fight}' is not UTF-8 text\n")


def test_a_gear_pack_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "gear.toml").write_bytes(NOT_UTF8)
    fight = tmp_path / "fight.toml"
    text = EXAMPLE_FIGHT.read_text(encoding="utf-8")
    fight.write_text(text.replace('gear = "example"', 'gear = "gear.toml"'), encoding="utf-8")
    code, out, err = run("srp", "fight", str(fight))
    assert (code, out) == (2, "")
    assert err == f"error: gear pack '{tmp_path / 'gear.toml'}' is not UTF-8 text\n"


@pytest.mark.parametrize(
    ("old", "new", "err"),
    [
        (
            "position = [7.5, 0]",
            "position = [1e308, 0]",
            "error: fighter[0].position = [1e+308, 0] is not [x, y] in metres "
            "(each within -10000..10000)\n",
        ),
        (
            "position = [7.5, 0]",
            "position = [nan, 0]",
            "error: fighter[0].position = [nan, 0] is not [x, y] in metres "
            "(each within -10000..10000)\n",
        ),
        (
            "position = [7.5, 0]",
            "position = [0, -10000.5]",
            "error: fighter[0].position = [0, -10000.5] is not [x, y] in metres "
            "(each within -10000..10000)\n",
        ),
    ],
)
def test_positions_out_of_bounds_are_one_line(tmp_path: Path, old: str, new: str, err: str) -> None:
    text = EXAMPLE_FIGHT.read_text(encoding="utf-8")
    assert old in text
    fight = tmp_path / "fight.toml"
    fight.write_text(text.replace(old, new, 1), encoding="utf-8")
    assert run("srp", "fight", str(fight), "--seed", "1") == (2, "", err)


def test_a_scripted_path_out_of_bounds_is_one_line(tmp_path: Path) -> None:
    text = EXAMPLE_FIGHT.read_text(encoding="utf-8")
    fight = tmp_path / "fight.toml"
    extra = '\n[[action]]\nactor = "Bran"\nkind = "move"\npath = [[1e308, 0]]\n'
    fight.write_text(text + extra, encoding="utf-8")
    code, out, err = run("srp", "fight", str(fight), "--seed", "1")
    assert (code, out) == (2, "")
    assert err.startswith("error: action[") and err.endswith(
        "].path: [1e+308, 0] is not [x, y] in metres (each within -10000..10000)\n"
    )


def test_positions_at_the_bound_still_load(tmp_path: Path) -> None:
    text = EXAMPLE_FIGHT.read_text(encoding="utf-8")
    fight = tmp_path / "fight.toml"
    fight.write_text(text.replace("position = [7.5, 0]", "position = [10000, 0]"), "utf-8")
    code, _, err = run("srp", "fight", str(fight), "--seed", "1")
    assert (code, err) == (0, "")


def test_msv_duel_columns_never_run_together() -> None:
    code, out, _ = run("msv", "duel", "1", "1")
    assert code == 0
    assert out.splitlines()[1:] == [
        "                  with criticals      without criticals",
        "P(A acts first)   0.5000              0.5000",
        "P(A wins)         0.5000              0.5000",
        "P(B wins)         0.5000              0.5000",
        "expected rounds   1284.390            1284.390",
        "rounds 50/90/99%  1269 / 1657 / 2010  1269 / 1657 / 2010",
    ]


def test_srp_odds_without_hits_gives_no_duel() -> None:
    code, out, err = run(
        "srp", "odds", "--attacker", "skill=15 damage=3 dam=1", "--defender",
        "defend=shield shield=medium",
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert "duel to 1 / 1" not in out and "attacker wins" not in out
    assert out.splitlines()[-1] == (
        "(no duel: give both specs hits=N for the odds of a duel to the end)"
    )


def test_srp_odds_json_without_hits_has_no_duel() -> None:
    import json

    code, out, _ = run("srp", "odds", "--attacker", "skill=15", "--defender", "hits=3", "--json")
    assert code == 0 and json.loads(out)["duel"] is None


@pytest.mark.parametrize(
    ("attacker", "defender", "option"),
    [("", "", "--attacker"), ("skill=15", "  ", "--defender"), (",", "hits=2", "--attacker")],
)
def test_srp_odds_empty_spec_is_one_line(attacker: str, defender: str, option: str) -> None:
    assert run("srp", "odds", "--attacker", attacker, "--defender", defender) == (
        2,
        "",
        f"error: {option} is empty (expected a spec like 'skill=15 damage=3')\n",
    )


def test_srp_odds_a_duel_nobody_can_win_says_so() -> None:
    code, out, _ = run(
        "srp", "odds", "--attacker", "skill=0 hits=3", "--defender", "skill=0 hits=2"
    )
    assert code == 0
    assert out.splitlines()[-1] == (
        "duel to 3 / 2 hits, attacker first: it never ends (neither side can ever deal a hit)"
    )


@pytest.mark.parametrize("seed", ["zz", "0" * 63, "0" * 64 + "\n", "A" * 64])
def test_verify_roll_bad_seed_is_bad_input(seed: str) -> None:
    code, out, err = run(
        "verify-roll", "--server-seed", seed, "--client-seed", "t", "--nonce", "0", "--dice", "d20"
    )
    assert (code, out) == (2, "")
    assert err == f"error: --server-seed {seed!r} is not 64 lowercase hex characters\n"


def test_fight_log_uses_words_not_internal_names() -> None:
    code, out, _ = run("srp", "fight", str(EXAMPLE_FIGHT), "--seed", "1")
    assert code == 0
    for internal in (
        "breaking_free",
        "lost_action",
        "holds =",
        "= None",
        "with the unarmed",
    ):
        assert internal not in out
    lines = out.splitlines()
    for line in (
        "  Cara holds Ann",
        "  Ann: breaking free (until cleared)",
        "  Cara attacks Ann bare-handed: special hit, 3 hits",
        "  Cara lets go",
        "Bout ended: side guards wins (one side is left)",
    ):
        assert line in lines


@pytest.mark.parametrize(
    ("kind", "payload", "lines"),
    [
        ("condition", {"target": "Hal", "condition": "lost_action", "rounds": 2},
         ["  Hal: loses an action (2 turns left)"]),
        ("condition", {"target": "Hal", "condition": "lost_action", "rounds": 0},
         ["  Hal: loses an action ends"]),
        ("stat", {"target": "Sir", "key": "mounted", "value": False}, ["  Sir is on foot"]),
        ("stat", {"target": "Sir", "key": "mounted", "value": True}, ["  Sir is mounted"]),
        ("stat", {"target": "Cara", "key": "holds", "value": None}, ["  Cara lets go"]),
        ("ended", {"winner": None, "reason": "stopped"}, ["Bout ended: no winner (stopped)"]),
    ],
)  # fmt: skip
def test_event_lines_in_words(kind: str, payload: dict[str, object], lines: list[str]) -> None:
    assert event_lines(kind, payload) == lines


def test_unhorse_effects_read_as_words() -> None:
    code, out, _ = run(
        "srp", "special", "unhorse", "--skill", "15", "--defend", "weapon", "--mounted",
        "--dice", "3,18,1",
    )  # fmt: skip
    assert code == 0
    assert (
        "unhorse works: defender dismounted, defender loses an action, attacker loses an action"
        in out
    )


def test_spirit_shows_both_sides_pm_after_each_round() -> None:  # SRP-17
    code, out, err = run(
        "srp", "spirit", "Andrea=5/1", "--vs", "Ghost=4", "Ghost=3",
        "--dice", "6,6,1,1,3,3,3,3,1,1,6,6",
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "round 1:",
        "  Andrea: 2d6 (6+6) + Spirit 5 = 17",
        "  Ghost#1: 2d6 (1+1) + Spirit 4 + 1 helpers = 7",
        "  Andrea wins: Ghost#1 loses 1 PM",
        "  PM now: Andrea 1 | Ghost#1 3, Ghost#2 3",
        "round 2:",
        "  Andrea: 2d6 (3+3) + Spirit 5 = 11",
        "  Ghost#1: 2d6 (3+3) + Spirit 4 + 1 helpers = 11",
        "  tie at 11: nobody loses PM",
        "  PM now: Andrea 1 | Ghost#1 3, Ghost#2 3",
        "round 3:",
        "  Andrea: 2d6 (1+1) + Spirit 5 = 7",
        "  Ghost#1: 2d6 (6+6) + Spirit 4 + 1 helpers = 17",
        "  Ghost#1 wins: Andrea loses 1 PM",
        "  PM now: Andrea 0 | Ghost#1 3, Ghost#2 3",
        "ended: Andrea is at 0 PM or below: Ghost#1 and Ghost#2 end the combat",
        "at 0 PM, open to command/bind/ally spells: Andrea",
    ]


def test_spirit_json_carries_pm_after_each_round() -> None:
    import json

    code, out, _ = run(
        "srp", "spirit", "Andrea=5/1", "--vs", "Imp=2", "--dice", "1,1,6,6", "--json",
    )  # fmt: skip
    data = json.loads(out)
    assert code == 0
    assert data["rounds"][0]["pm_after"] == [
        [{"name": "Andrea", "pm": 0}],
        [{"name": "Imp", "pm": 2}],
    ]
    assert data["ended"] == "Andrea is at 0 PM or below: Imp ends the combat"


UNREAD_BYTE = "A\udcffB"  # the byte 0xff of a terminal in another encoding, as Python reads it


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["verify-roll", "--server-seed", "0" * 64, "--client-seed", UNREAD_BYTE, "--nonce", "0",
          "--dice", "d6"], "--client-seed"),
        (["verify-roll", "--server-seed", "0" * 64, "--client-seed", "x", "--nonce", "0",
          "--dice", "d6", "--stream", f"act:{UNREAD_BYTE}"], "--stream"),
        (["export", UNREAD_BYTE, "--db", "{db}"], "BOUT_ID"),
        (["export", "b1", "--db", "{db}", "--token", UNREAD_BYTE], "--token"),
        (["srp", "next-fight", UNREAD_BYTE, "--db", "{db}", "--token", "x"], "BOUT_ID"),
        (["srp", "next-fight", "b1", "--db", "{db}", "--token", UNREAD_BYTE], "--token"),
    ],
    ids=["client-seed", "stream", "export-bout", "export-token", "next-bout", "next-token"],
)  # fmt: skip
def test_text_that_is_not_utf8_is_one_line(tmp_path: Path, args: list[str], named: str) -> None:
    """A bout id, a token, a client seed or a stream is looked up or hashed as text: one that
    holds a byte the terminal's encoding could not read is one line, not a traceback."""
    from referee.store import Store

    db = tmp_path / "bouts.db"
    Store.open(str(db)).close()
    given = [a.replace("{db}", str(db)) for a in args]
    value = f"act:{UNREAD_BYTE}" if named == "--stream" else UNREAD_BYTE
    assert run(*given) == (
        2,
        "",
        f"error: {named} {value!r} is not UTF-8 text (a byte this terminal's encoding could "
        "not read)\n",
    )


@pytest.mark.parametrize(
    ("args", "option", "given"),
    [
        (["msv", "attack", "--cs", "65", "--roll", "٤٧"], "--roll", "٤٧"),
        (["msv", "attack", "--cs", "65", "--roll", "4_7"], "--roll", "4_7"),
        (["roll", "1d6", "--seed", "٧"], "--seed", "٧"),
        (["msv", "matrix", "--step", "٥"], "--step", "٥"),
        (["srp", "attack", "--skill", "١٥", "--defend", "none"], "--skill", "١٥"),
        (["srp", "opposed", "--active", "1_8", "--passive", "15"], "--active", "1_8"),
        (["verify-roll", "--server-seed", "0" * 64, "--client-seed", "x", "--nonce", "٣",
          "--dice", "d6"], "--nonce", "٣"),
        (["lab", "battle", "A=60", "B=65", "--n", "1_000"], "--n", "1_000"),
    ],
)  # fmt: skip
def test_numbers_are_ascii_digits_only_in_every_option(
    args: list[str], option: str, given: str
) -> None:
    """`int()` reads `٤٧` and `4_7` as 47; a CS and the dice notation refuse them, and so does
    every number option (referee.numerals)."""
    code, out, err = run(*args)
    assert (code, out) == (2, "")
    assert err.endswith(f"Error: Invalid value for '{option}': {given!r} is not a valid integer.\n")


def test_ascii_numbers_still_read_with_signs_and_spaces() -> None:
    assert run("msv", "attack", "--cs", "65", "--roll", " 47") == (
        0,
        "47 vs CS 65: hit, 4 damage\n",
        "",
    )
    assert run("srp", "attack", "--skill", "15", "--defend", "none", "--modifier", "-3",
               "--dice", "3,1,5")[0] == 0  # fmt: skip
