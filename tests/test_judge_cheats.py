"""The cheats a judge is there to catch, each a pinned log, and the wrappings logs come in.

Verdicts worked out by hand from RULINGS MSV-1..MSV-7 (Tarl CS 65, Pa-Kur CS 70 unless said).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.errors import NotationError
from referee.transcripts import judge_log
from referee.transcripts.announce import announced
from referee.transcripts.judgement import Judgement

CHEATS = Path(__file__).resolve().parent / "data" / "judge" / "cheats"


def summary(case: Judgement) -> tuple[object, ...]:
    v = case.verdict
    return (v.winner, v.damage_dealt, v.attacks, [(a.line, a.kind.value) for a in v.anomalies])


def test_a_receipt_pasted_again_is_forged_and_flips_nothing() -> None:
    """Pa-Kur pastes his own nonce-2 receipt (61, a hit for 4 that would make his 16 and win),
    then Tarl's nonce-4 receipt is pasted in again: both are reused, from the text alone."""
    case = judge_log((CHEATS / "receipt-pasted-again.log").read_bytes())
    assert summary(case) == (
        "Tarl",
        {"Tarl": 15, "Pa-Kur": 12},
        9,
        [(12, "forged"), (14, "forged"), (16, "out-of-turn")],
    )
    assert case.verdict.anomalies[0].reason == (
        "a receipt seen before: Pa-Kur's nonce 2 is on line 8 (reused)"
    )


def test_a_host_line_posted_as_one_s_own_discord_message_is_forged() -> None:
    """60 would be a critical and a free attack; posted by Pa-Kur himself, it is nothing."""
    case = judge_log((CHEATS / "discord-own-host-line.txt").read_bytes())
    assert case.transcript.format.name == "discord-txt"
    assert summary(case) == (None, {"Tarl": 0, "Pa-Kur": 1}, 2, [(19, "forged")])
    assert case.verdict.anomalies[0].reason == (
        "a host line typed after the speaker's name 'Pa-Kur#2210'"
    )


def test_second_life_impostors_of_the_host_object() -> None:
    case = judge_log((CHEATS / "second-life-host-impostors.txt").read_bytes())
    assert summary(case) == (
        None,
        {"Tarl Cabot": 4, "Pa-Kur": 3},
        3,
        [(5, "forged"), (6, "forged"), (7, "forged")],
    )
    assert [a.reason for a in case.verdict.anomalies] == [
        "an emote (/me) or a name 'Bosk OnlineHost' made to read as OnlineHost",
        "an avatar 'OnlineHost (bosk.trader)' shows the name OnlineHost (user name 'bosk.trader')",
        "'\u041enlineHost' only looks like OnlineHost (other letters drawn alike)",
    ]


def test_a_host_the_judge_is_told_to_trust() -> None:
    log = "\n".join(
        [
            "Marcus: Spar between Tarl (CS 65) and Pa-Kur (CS 70)",
            "Dice Bot: Tarl rolled 1 100-sided die: 48",
            "Dice Bot: Pa-Kur rolled 1 100-sided die: 22",
            "OnlineHost: Tarl rolled 1 100-sided die: 60",
        ]
    )
    # untrusted, no roll of the log counts: refused, naming the bot and --host
    with pytest.raises(NotationError, match="no roll line of the log counts: the first, line 2"):
        judge_log(log.replace("OnlineHost", "Bosk"))
    case = judge_log(log, hosts=["Dice Bot"])
    assert summary(case) == (None, {"Tarl": 4, "Pa-Kur": 0}, 1, [])
    assert case.transcript.trust.hosts == ("OnlineHost", "Dice Bot")


LINES = [
    "Marcus: Spar between Tarl (CS 65) and Pa-Kur (CS 70)",
    "OnlineHost: Tarl rolled 1 100-sided die: 48",
    "OnlineHost: Pa-Kur rolled 1 100-sided die: 22",
    "OnlineHost: Tarl rolled 1 100-sided die: 60",
    "OnlineHost: Tarl rolled 1 100-sided die: 46",
]
VERDICT = (None, {"Tarl": 8, "Pa-Kur": 0}, 2, [])


def test_a_log_quoted_in_an_e_mail() -> None:
    case = judge_log("".join(f"> {line}\n" for line in ["Hi judge, here is our spar:", *LINES]))
    assert summary(case)[:3] == VERDICT[:3]
    assert case.verdict.notes == ("the log is quoted in an e-mail: read without its '> ' marks",)


def test_lines_hard_wrapped_at_72_columns_are_joined() -> None:
    wrapped = [
        "Marcus: Spar between Tarl of Ko-ro-ba the Warrior of the Scarlet (CS 65)",
        "and Pa-Kur (CS 70)",
        "[21:03:12] OnlineHost: Tarl of Ko-ro-ba the Warrior rolled 1 100-sided",
        "die: 48",
        "[21:03:14] OnlineHost: Pa-Kur rolled 1 100-sided die: 22",
        "[21:03:20] OnlineHost: Tarl of Ko-ro-ba the Warrior rolled 1 100-sided",
        "die: 60",
    ]
    case = judge_log("\n".join(wrapped))
    assert summary(case) == (None, {"Tarl of Ko-ro-ba the Warrior": 4, "Pa-Kur": 0}, 1, [])
    assert [r.line for r in case.verdict.rolls] == [3, 5, 6]
    assert "3 lines hard-wrapped" in case.verdict.notes[0]


def test_utf_16_without_a_bom_and_pidgin_24_hour_stamps() -> None:
    pidgin = [f"(21:03:{i:02}) {line}" for i, line in enumerate(LINES)]
    for data in ("\r\n".join(pidgin).encode("utf-16-le"), "\n".join(pidgin).encode("utf-16-be")):
        case = judge_log(data)
        assert case.transcript.format.name == "pidgin"
        assert summary(case) == VERDICT


def test_a_genuine_roll_quoted_again_is_a_note_and_an_invented_one_forged() -> None:
    log = [*LINES[:4], "Pa-Kur: > OnlineHost: Tarl rolled 1 100-sided die: 60", LINES[4]]
    log += ["Pa-Kur: (( OnlineHost: Pa-Kur rolled 1 100-sided die: 70 ))"]
    case = judge_log("\n".join(log))
    assert summary(case)[:3] == VERDICT[:3]
    assert [(a.line, a.kind.value) for a in case.verdict.anomalies] == [(7, "forged")]
    quoted = next(r for r in case.verdict.rolls if r.line == 5)
    assert (quoted.use.value, quoted.text) == ("quoted", "quoted from line 4: no effect")


@pytest.mark.parametrize(
    ("text", "fighters"),
    [
        ("Spar between Tarl (CS65) and Pa-Kur (CS 70)", [("Tarl", 65, None), ("Pa-Kur", 70, None)]),
        ("Spar: Tarl (2d23) vs Pa-Kur (2d24)", [("Tarl", 65, None), ("Pa-Kur", 70, None)]),
        ("Tarl (CS 65) & Pa-Kur (CS 70) - fight!", [("Tarl", 65, None), ("Pa-Kur", 70, None)]),
        (
            "Practice spar tonight: Tarl [cs: 65] versus Pa-Kur [CS 70]",
            [("Tarl", 65, None), ("Pa-Kur", 70, None)],
        ),
        (
            "Title fight — Lord Tarl of Ko-ro-ba (CS 65) v. Pa-Kur (CS 70)",
            [("Lord Tarl of Ko-ro-ba", 65, None), ("Pa-Kur", 70, None)],
        ),
        (
            "Spar between A (CS 50), B (CS 55) and C (CS 60)",
            [("A", 50, None), ("B", 55, None), ("C", 60, None)],
        ),
        (
            "Team Ar: Tarl (CS 65) & Rask (CS 60) vs Team Cos: Pa-Kur (CS 70)",
            [("Tarl", 65, "Ar"), ("Rask", 60, "Ar"), ("Pa-Kur", 70, "Cos")],
        ),
        (
            "Tarl (CS 65) and Rask (CS 60) against Pa-Kur (CS 70)",
            [("Tarl", 65, "Tarl & Rask"), ("Rask", 60, "Tarl & Rask"), ("Pa-Kur", 70, None)],
        ),
    ],
    ids=lambda v: str(v)[:30],
)
def test_every_wording_of_an_announcement(text: str, fighters: list[tuple[object, ...]]) -> None:
    found = announced(text)
    assert found is not None
    assert [(f.name, f.cs, f.side) for f in found] == fighters


def test_a_titled_announcement_matches_the_name_that_rolls() -> None:
    log = [*LINES[1:], "Marcus: Title fight — Lord Tarl of Ko-ro-ba (CS 65) v. Pa-Kur (CS 70)"]
    assert summary(judge_log("\n".join(log)))[:3] == VERDICT[:3]


def test_no_announcement_names_the_line_that_comes_nearest() -> None:
    log = ["Marcus: tonight's spar is Tarl vs Pa-Kur, CS as usual", *LINES[1:]]
    with pytest.raises(NotationError) as caught:
        judge_log("\n".join(log))
    assert str(caught.value) == (
        "the log announces no spar: line 1 comes nearest (\"tonight's spar is Tarl vs Pa-Kur, "
        "CS as usual\") but does not give each fighter a skill, like 'Spar between Tarl Cabot "
        "(CS 65) and PaKur (CS 70)': name the fighters as NAME=CS (--fighter 'Tarl Cabot=65' "
        "--fighter PaKur=70)"
    )


def test_a_log_in_no_known_format_names_the_nearest() -> None:
    with pytest.raises(NotationError) as caught:
        judge_log("Tarl: hi\nPa-Kur: I rolled well last night")
    assert str(caught.value) == (
        "the log has no roll lines (read as aol: AOL room log (Name: text), with or without "
        "time stamps; expected lines like 'OnlineHost: NAME rolled 1 100-sided die: 47')"
    )
    weird = "\n".join(f"{i} | tarl | swings" for i in range(10)) + "\nrolled"
    with pytest.raises(NotationError) as caught:
        judge_log(weird)
    assert str(caught.value) == (
        "the log is in no format the judge knows: the nearest, aol (AOL room log (Name: text), "
        "with or without time stamps), fits 0 of 11 lines (line 1 is not in its shape: "
        "'0 | tarl | swings'); the formats are listed in docs/judge.md"
    )
