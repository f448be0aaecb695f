"""Hand-written spar logs with verdicts worked out by hand from RULINGS MSV-1..MSV-7.

Each log pins the winner, each fighter's damage dealt, the attacks that counted and every
anomaly (line and kind), for clean spars, every anomaly kind, criticals chaining (the MSV
text's Pa-Kur stun), initiative rerolls, every time-stamp style and every encoding.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.errors import LimitError, NotationError, RuleError
from referee.systems.msv.rules import rules_from_mapping
from referee.transcripts import STAMPS, Stamp, Use, judge_log
from referee.transcripts.judgement import Judgement
from referee.transcripts.reader import read_log

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


def host(name: str, *faces: int, sides: int = 100) -> str:
    noun = "die" if len(faces) == 1 else "dice"
    shown = " ".join(str(f) for f in faces)
    return f"OnlineHost: {name} rolled {len(faces)} {sides}-sided {noun}: {shown}"


def summary(case: Judgement) -> tuple[object, ...]:
    v = case.verdict
    return (v.winner, v.damage_dealt, v.attacks, [(a.line, a.kind.value) for a in v.anomalies])


#: A clean spar between names with spaces, fighters from the announcement (line 2).
CLEAN = [
    'OnlineHost: *** You are in "Gor - Tarn Cot". ***',
    "Judge Marcus: Spar between Tarl Cabot (CS 65) and PaKur (CS 70)",
    "Tarl Cabot: //roll -sides100 -dice1",
    host("Tarl Cabot", 42),  # 4: initiative, effect 3
    host("PaKur", 20),  # 5: initiative, effect 2 -> Tarl Cabot first
    host("Tarl Cabot", 51),  # 6: hit 4 (4)
    "PaKur: *swings low*",
    host("PaKur", 84),  # 8: miss
    host("Tarl Cabot", 46),  # 9: hit 4 (8)
    host("PaKur", 70),  # 10: 70 <= 70, ends in 0: critical, 4, free attack (4)
    host("PaKur", 33),  # 11: free attack, hit 3 (7)
    host("Tarl Cabot", 64),  # 12: hit 4 (12)
    host("PaKur", 99),  # 13: miss
    host("Tarl Cabot", 15),  # 14: hit 1 (13)
    host("PaKur", 5),  # 15: hit 1 (8)
    host("Tarl Cabot", 31),  # 16: hit 3 (16): PaKur is defeated
    "Judge Marcus: Tarl Cabot wins",
]
CLEAN_VERDICT = ("Tarl Cabot", {"Tarl Cabot": 16, "PaKur": 8}, 10, [])


def test_a_clean_spar_from_its_announcement() -> None:
    case = judge_log("\n".join(CLEAN) + "\n")
    assert case.source == "announced on line 2"
    assert summary(case) == CLEAN_VERDICT
    assert case.verdict.order == ("Tarl Cabot", "PaKur")
    uses = [(r.line, r.use) for r in case.verdict.rolls]
    assert uses == [
        (4, Use.INITIATIVE),
        (5, Use.INITIATIVE),
        *((n, Use.ATTACK) for n in (6, 8, 9, 10)),
        (11, Use.FREE_ATTACK),
        *((n, Use.ATTACK) for n in (12, 13, 14, 15, 16)),
    ]
    assert case.verdict.rolls[5].text == (
        "PaKur attacks Tarl Cabot: 70 vs CS 70: critical hit, 4 damage - the foe is stunned "
        "and the attacker makes a free attack at once"
    )


def test_names_match_as_aol_matched_screen_names() -> None:
    case = judge_log("\n".join(CLEAN), ["tarlcabot=65", "Pa Kur=70"])
    assert case.source == "given"
    assert summary(case) == ("tarlcabot", {"tarlcabot": 16, "Pa Kur": 8}, 10, [])


def test_a_roll_after_the_end_is_out_of_turn() -> None:
    case = judge_log("\n".join([*CLEAN, host("PaKur", 50)]))
    assert summary(case)[:3] == CLEAN_VERDICT[:3]
    assert case.verdict.to_json()["anomalies"] == [
        {
            "line": 18,
            "kind": "out-of-turn",
            "reason": "the spar is over (Tarl Cabot won on line 16)",
        }
    ]


#: Every anomaly kind in one log; fighters given on the command line.
ANOMALIES = [
    "[21:00] Judge: fight!",
    "[21:01] " + host("Tarl", 42),  # 2: initiative 3
    "[21:01] " + host("Tarl", 12),  # 3: second initiative roll
    "[21:01] " + host("PaKur", 20),  # 4: initiative 2 -> Tarl first
    "[21:02] PaKur: " + host("Tarl", 99),  # 5: typed after a speaker's name
    "[21:02] " + host("Tarl", 14, 17, sides=20),  # 6: wrong dice
    "[21:02] " + host("Bosk", 3),  # 7: not in the spar
    "[21:03] " + host("Tarl", 51),  # 8: hit 4
    "[21:03] " + host("Tarl", 40),  # 9: a second roll in one turn
    "[21:03] " + host("PaKur", 147),  # 10: broken: no such face
    "[21:04] OnIineHost: PaKur rolled 1 100-sided die: 70",  # 11: a look-alike host
    "[21:04] OnlineHost: PaKur rolled 1 100-sided dice: 70",  # 12: broken: 'dice' for one
    "[21:04] " + host("PaKur", 66),  # 13: hit 4
]


def test_every_anomaly_kind_and_its_reason() -> None:
    case = judge_log("\n".join(ANOMALIES), ["Tarl=65", "PaKur=70"])
    assert case.verdict.to_json()["anomalies"] == [
        {
            "line": 3,
            "kind": "out-of-turn",
            "reason": "Tarl already rolled initiative (round 1, 42); the first roll counts",
        },
        {
            "line": 5,
            "kind": "forged",
            "reason": "a host line typed after the speaker's name 'PaKur'",
        },
        {
            "line": 6,
            "kind": "wrong-dice",
            "reason": "Tarl rolled 2d20; MSV rolls one 100-sided die (MSV-1)",
        },
        {"line": 7, "kind": "not-a-fighter", "reason": "Bosk is not in the spar (Tarl and PaKur)"},
        {"line": 9, "kind": "out-of-turn", "reason": "it is PaKur's turn"},
        {
            "line": 10,
            "kind": "forged",
            "reason": "a broken host line (face 147 on a 100-sided die)",
        },
        {
            "line": 11,
            "kind": "forged",
            "reason": "'OnIineHost' only looks like OnlineHost (other letters drawn alike)",
        },
        {
            "line": 12,
            "kind": "forged",
            "reason": "a broken host line ('1 ... dice' where the host writes 'die' for one)",
        },
    ]
    assert summary(case)[:3] == (None, {"Tarl": 4, "PaKur": 4}, 2)


def test_the_json_document_has_exactly_the_documented_keys() -> None:
    doc = judge_log("\n".join(ANOMALIES), ["Tarl=65", "PaKur=70"]).verdict.to_json()
    assert list(doc) == ["winner", "damage_dealt", "attacks", "anomalies", "rolls"]
    assert [r["line"] for r in doc["rolls"]] == [2, 3, 4, 5, 6, 7, 8, 9, 11, 13]
    assert doc["rolls"][6] == {
        "line": 8,
        "name": "Tarl",
        "dice": "1d100",
        "faces": [51],
        "nonce": None,
        "use": "attack",
        "damage": 4,
        "target": "PaKur",
        "reading": "Tarl attacks PaKur: 51 vs CS 65: hit, 4 damage",
    }


#: The MSV text's example: Tarl stuns Pa-Kur again and again and pounds him to the ground
#: before he can return any attack (MSV-4, criticals chaining).
STUN_CHAIN = [
    "Proctor: Spar between Tarl (CS 65) and Pa-Kur (CS 70)",
    host("Tarl", 40),  # initiative: effect 3 (a critical adds nothing to initiative)
    host("Pa-Kur", 80),  # fails: Tarl first
    host("Tarl", 60),  # 4: critical, 4 (4): stunned
    "Pa-Kur: *Pa-Kur staggers drunkenly, eyes blinking as he fights for focus*",
    host("Pa-Kur", 55),  # 6: not his turn: Tarl's free attack
    host("Tarl", 50),  # 7: critical, 4 (8)
    host("Tarl", 30),  # 8: critical, 2 (10)
    host("Tarl", 20),  # 9: critical, 2 (12)
    host("Tarl", 10),  # 10: critical, 1 (13)
    host("Tarl", 40),  # 11: critical, 3 (16): Pa-Kur is defeated
]


def test_the_pa_kur_stun_chain() -> None:
    case = judge_log("\n".join(STUN_CHAIN))
    assert summary(case) == ("Tarl", {"Tarl": 16, "Pa-Kur": 0}, 6, [(6, "out-of-turn")])
    assert case.verdict.anomalies[0].reason == "it is Tarl's free attack (MSV-4)"
    assert [r.use for r in case.verdict.rolls if r.name == "Tarl"][2:] == [Use.FREE_ATTACK] * 5


def test_a_miss_ends_a_chain_and_other_critical_effects() -> None:
    log = [*STUN_CHAIN[:4], host("Tarl", 66), host("Pa-Kur", 31), host("Tarl", 20)]
    case = judge_log("\n".join(log))
    assert summary(case) == (None, {"Tarl": 6, "Pa-Kur": 3}, 4, [])
    assert case.verdict.rolls[-1].use is Use.ATTACK
    extra = rules_from_mapping({"critical_effect": "extra-damage"})
    case = judge_log("\n".join(STUN_CHAIN), rules=extra)
    # No free attacks: 60 -> 4 + 1; Pa-Kur's 55 -> 4; 50 -> 4 + 1; then Tarl rolls out of turn.
    assert summary(case) == (
        None,
        {"Tarl": 10, "Pa-Kur": 4},
        3,
        [(8, "out-of-turn"), (9, "out-of-turn"), (10, "out-of-turn"), (11, "out-of-turn")],
    )


#: Initiative: a tie, then a double failure, then a second roll in a round, then settled.
REROLLS = [
    host("A", 50),  # A (CS 65): effect 4
    host("B", 47),  # B (CS 70): effect 4 -> tie, reroll
    host("B", 90),  # round 2: B fails
    host("A", 66),  # A fails (66 > 65): both failed, reroll
    host("A", 10),  # round 3: effect 1
    host("A", 11),  # 6: a second roll in the round
    host("B", 16),  # effect 2: B first
    host("A", 5),  # 8: B's turn
    host("B", 45),  # hit 3
]


def test_initiative_ties_and_double_failures_reroll() -> None:
    case = judge_log("\n".join(REROLLS), ["A=65", "B=70"])
    assert summary(case) == (None, {"A": 0, "B": 3}, 1, [(6, "out-of-turn"), (8, "out-of-turn")])
    assert case.verdict.order == ("B", "A")
    readings = [r.text for r in case.verdict.rolls[:4]]
    assert readings == [
        "initiative round 1: 50 vs CS 65, effect 4",
        "initiative round 1: 47 vs CS 70, effect 4 - tied: both reroll (MSV-5)",
        "initiative round 2: 90 vs CS 70, effect 0",
        "initiative round 2: 66 vs CS 65, effect 0 - tied: both reroll (MSV-5)",
    ]


def test_the_tie_break_option_of_the_rule_pack(tmp_path: Path) -> None:
    rules = rules_from_mapping({"tie_break": "higher-raw-roll"})
    case = judge_log("\n".join(REROLLS), ["A=65", "B=70"], rules)
    # 50 beats 47 at once; then A 66 misses, B 16 hits 2, A 5 hits 1, B 45 hits 3.
    assert summary(case) == (
        None,
        {"A": 1, "B": 5},
        4,
        [(3, "out-of-turn"), (5, "out-of-turn"), (6, "out-of-turn")],
    )


@pytest.mark.parametrize("stamp", STAMPS, ids=lambda s: s.name)
def test_every_time_stamp_style(stamp: Stamp) -> None:
    prefix = stamp.example[: stamp.example.index("Tarl")]
    case = judge_log("\n".join(prefix + line for line in CLEAN))
    assert summary(case) == CLEAN_VERDICT
    written = prefix.strip().strip("[]()")
    assert {line.stamp for line in case.transcript.rolls} == {written}


def test_mixed_stamps_and_the_exact_shapes_of_each() -> None:
    shapes = ["[9:03] ", "[21:03:12] ", "[2026/11/29 21:03]  ", "(9:03:12 PM) ", "(9:03 am) "]
    lines = [shapes[i % len(shapes)] + line for i, line in enumerate(CLEAN)]
    assert summary(judge_log("\n".join(lines))) == CLEAN_VERDICT


def test_crlf_bom_cr_and_cp1252_keep_the_file_s_line_numbers() -> None:
    names = ["Séverine=65", "PaKur=70"]
    lines = [line.replace("Tarl", "Séverine") for line in ANOMALIES]
    lines[0] = "[21:00] Judge: Séverine’s spar — fight!"
    expected = summary(judge_log("\n".join(lines), names))[3]
    for data in (
        "\r\n".join(lines).encode("utf-8"),
        b"\xef\xbb\xbf" + "\r\n".join(lines).encode("utf-8"),
        "\r".join(lines).encode("utf-8"),
        "\r\n".join(lines).encode("cp1252"),
        "\n".join(lines).encode("utf-16"),
    ):
        case = judge_log(data, names)
        assert summary(case)[3] == expected
        assert case.lines[0].text == "[21:00] Judge: Séverine’s spar — fight!"
    cp = "\r\n".join(lines).encode("cp1252")
    assert judge_log(cp, names).verdict.damage_dealt == {
        "Séverine": 4,
        "PaKur": 4,
    }


def test_the_service_s_receipts_carry_their_nonce() -> None:
    lines = [f"{host(n, f)} (nonce {i})" for i, (n, f) in enumerate([("A", 9), ("B", 3)])]
    case = judge_log("\n".join(lines), ["A=50", "B=50"])
    assert [r.nonce for r in case.verdict.rolls] == [0, 1]


def test_old_dice_convert_and_the_bundled_example(tmp_path: Path) -> None:
    case = judge_log("\n".join(STUN_CHAIN), ["Tarl=2d23", "Pa-Kur=2d24"])
    assert summary(case)[:3] == ("Tarl", {"Tarl": 16, "Pa-Kur": 0}, 6)
    example = judge_log((EXAMPLES / "pakur-stun.log").read_bytes())
    assert summary(example) == (
        "Tarl",
        {"Tarl": 16, "Pa-Kur": 0},
        6,
        [(8, "forged"), (9, "out-of-turn")],
    )


@pytest.mark.parametrize(
    ("log", "fighters", "error", "message"),
    [
        ("", (), NotationError, "the log is empty"),
        (" \n\r\n", (), NotationError, "the log is empty"),
        ("Tarl: hi\nPaKur: hello", (), NotationError, "the log has no roll lines"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", (), NotationError, "is not text (it has NUL bytes)"),
        (b"\x01\x02\x03\x04rolled" * 50, (), NotationError, "is not text"),
        (b" " * (17 * 1024 * 1024), (), LimitError, "larger than 16777216 bytes"),
        ("\n".join(CLEAN[3:]), (), NotationError, "the log announces no spar"),
        ("\n".join(CLEAN), ("Tarl Cabot",), NotationError, "bad fighter 'Tarl Cabot'"),
        ("\n".join(CLEAN), ("Tarl=sixty",), NotationError, "bad fighter 'Tarl=sixty'"),
        ("\n".join(CLEAN), ("A=65",), RuleError, "a spar needs two fighters or more, got 1"),
        (
            "\n".join(CLEAN),
            ("A=-5", "B=6"),
            RuleError,
            "CS must be a whole number >= 0 (MSV-2), got -5",
        ),
        (
            "\n".join(CLEAN),
            ("Tarl=65", "PaKur=70"),
            NotationError,
            "fighter 'Tarl' (given) never rolls in the log: the roll lines name PaKur, "
            "Tarl Cabot; 9 lines name 'Tarl' (lines 2 to 17) but no roll line does; check the "
            "spelling of the name",
        ),
        ("\n".join(CLEAN), ("PaKur=65", "pakur=70"), RuleError, "two fighters are called"),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_bad_input_gets_one_clear_error(
    log: str | bytes, fighters: tuple[str, ...], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        judge_log(log, fighters)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_public_surface_of_referee_transcripts() -> None:
    import referee.transcripts as t

    public = {
        n
        for n, v in vars(t).items()
        if not n.startswith("_") and str(getattr(v, "__module__", "")).startswith("referee")
    }
    assert public == set(t.__all__) - {"MAX_LOG_BYTES", "STAMPS", "FORMATS"}


def test_a_huge_line_is_only_text_and_read_quickly() -> None:
    hostile = "rolled " + "onlinehost: " * 20_000  # a pattern search would be quadratic
    case = judge_log("\n".join([*CLEAN, f"PaKur: {hostile}", f"OnlineHost: {hostile}"]))
    assert summary(case) == CLEAN_VERDICT
    assert not case.lines[-1].is_roll


def test_talk_about_the_host_is_not_a_forgery() -> None:
    talk = "Tarl Cabot: did the OnlineHost: say I rolled well? *grins*"
    case = judge_log("\n".join([*CLEAN[:5], talk, *CLEAN[5:]]))
    assert summary(case)[:3] == CLEAN_VERDICT[:3]
    assert case.verdict.anomalies == ()


def test_the_lines_asked_for_are_said_as_when_all_are_read() -> None:
    """`Transcript.said(numbers)` splits the text only as far as the last line asked for; it
    says the same as reading every line, including past the end and the last line."""
    log = "[21:00] Judge: hi\n[21:01] OnlineHost: Tarl rolled 1 100-sided die: 4\n\nTarl: x\n"
    transcript = read_log(log)
    every = {said.number: said for said in transcript.said()}
    for numbers in ({1}, {2, 4}, {4}, {5}, {3, 9}, set(), {0, 1}):
        assert list(transcript.said(numbers)) == [every[n] for n in sorted(numbers) if n in every]
