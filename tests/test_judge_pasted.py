"""Logs as players paste them (issue 46, item 1): each shape the judge misread, with its
verdict worked out by hand from RULINGS MSV-1..MSV-7.

Damage is MSV-3's ceil(roll / 15) capped at 4 when the roll is at most the CS; the effect
number of an initiative roll is that damage (MSV-5); a critical (a success ending in 0) gives
a free attack (MSV-4).
"""

from __future__ import annotations

from referee.transcripts import Use, judge_log
from referee.transcripts.rolls import HostRoll, read_roll
from tests.judge_samples import sample


def _kinds(case: object) -> list[tuple[int, str]]:
    return [(a.line, a.kind.value) for a in case.verdict.anomalies]  # type: ignore[attr-defined]


def test_a_log_hard_wrapped_at_72_columns_is_judged_not_crashed() -> None:
    """Five lines and a final newline stopped the reader with an IndexError."""
    log = (
        "[21:03:12] Proctor Marcus: Spar between Tarl Cabot (CS 65) and Pa-Kur\n"
        "(CS 70)\n"
        "[21:03:14] OnlineHost: Tarl Cabot rolled 1 100-sided die: 47\n"
        "[2026-11-29 21:03:15] OnlineHost: Pa-Kur rolled 1 100-sided die: 12\n"
        "[2026-11-29 21:03:20] OnlineHost: Tarl Cabot rolled 1 100-sided\n"
        "die: 40\n"
    )
    case = judge_log(log)
    verdict = case.verdict
    # MSV-5: 47 vs CS 65 is effect 4, 12 vs CS 70 effect 1; MSV-3: 40 vs 65 hits for 3
    assert verdict.order == ("Tarl Cabot", "Pa-Kur")
    assert (verdict.winner, verdict.damage_dealt, verdict.attacks) == (
        None,
        {"Tarl Cabot": 3, "Pa-Kur": 0},
        1,
    )
    assert verdict.anomalies == ()
    assert [r.line for r in verdict.rolls] == [3, 4, 5]
    assert "2 lines hard-wrapped at 72 columns were joined to the line before" in verdict.notes


def test_second_life_stamps_without_a_date_are_read() -> None:
    """`[21:03]  OnlineHost: ...`, two spaces after a date-less stamp (the viewer's)."""
    log = (
        "[21:02]  Proctor Marcus: Spar between Tarl (CS 65) and Pa-Kur (CS 70)\n"
        "[21:03]  OnlineHost: Tarl rolled 1 100-sided die: 47\n"
        "[21:03]  OnlineHost: Pa-Kur rolled 1 100-sided die: 12\n"
        "[21:04]  Pa-Kur (pakur.resident): OnlineHost: Pa-Kur rolled 1 100-sided die: 99\n"
        "[21:04]  OnlineHost: Tarl rolled 1 100-sided die: 40\n"
    )
    case = judge_log(log)
    assert case.transcript.format.name == "second-life"
    assert (case.verdict.damage_dealt, case.verdict.attacks) == ({"Tarl": 3, "Pa-Kur": 0}, 1)
    assert _kinds(case) == [(4, "forged")]


def test_gorean_meter_without_a_date_is_read() -> None:
    log = (
        "[21:04]  Proctor Marcus: Spar between Tarl (CS 65) and Ost (CS 70)\n"
        "[21:05]  Gorean Meter: Ost rolled 47\n"
        "[21:05]  Gorean Meter: Tarl rolled 12\n"
        "[21:06]  Gorean Meter: Ost rolled 44\n"
    )
    case = judge_log(log)
    # MSV-5: Ost 47 vs 70 effect 4, Tarl 12 vs 65 effect 1; MSV-3: Ost's 44 hits for 3
    assert case.transcript.format.name == "second-life"
    assert case.verdict.order == ("Ost", "Tarl")
    assert (case.verdict.damage_dealt, case.verdict.attacks) == ({"Tarl": 0, "Ost": 3}, 1)
    assert case.verdict.anomalies == ()


def test_a_genuine_roll_quoted_in_double_brackets_is_a_quote_as_after_a_mark() -> None:
    log = (
        "Proctor Marcus: Spar between Tarl (CS 65) and Rask (CS 70)\n"
        "OnlineHost: Tarl rolled 1 100-sided die: 47\n"
        "OnlineHost: Rask rolled 1 100-sided die: 81\n"
        "Bosk: (( OnlineHost: Rask rolled 1 100-sided die: 81 ))\n"
        "Bosk: > OnlineHost: Rask rolled 1 100-sided die: 81\n"
        "Bosk: [[ OnlineHost: Rask rolled 1 100-sided die: 81 ]]\n"
        "Bosk: (( OnlineHost: Rask rolled 1 100-sided die: 99 ))\n"
        "OnlineHost: Tarl rolled 1 100-sided die: 40\n"
    )
    verdict = judge_log(log).verdict
    quoted = [(r.line, r.text) for r in verdict.rolls if r.use is Use.QUOTED]
    assert quoted == [(n, "quoted from line 3: no effect") for n in (4, 5, 6)]
    # a quote of a roll no host line says stays forged
    assert [(a.line, a.kind.value) for a in verdict.anomalies] == [(7, "forged")]
    assert verdict.anomalies[0].reason == "a quoted roll by 'Bosk' that no host line before it says"
    assert (verdict.damage_dealt, verdict.attacks) == ({"Tarl": 3, "Rask": 0}, 1)


DISCORD_COPY = (
    "Proctor Marcus — 11/29/2026 9:00 PM\n"
    "Spar between Tarl (CS 65) and Pa-Kur (CS 70)\n"
    "Dice Maiden APP — 11/29/2026 9:03 PM\n"
    "@Tarl Request: `[1d100]` Roll: `[47]` Result: `47`\n"
    "@Pa-Kur Request: `[1d100]` Roll: `[12]` Result: `12`\n"
    "Pa-Kur — 11/29/2026 9:04 PM\n"
    "my turn\n"
    "@Pa-Kur Request: [1d100] Roll: [55] Result: 55\n"
    "Dice Maiden APP — 11/29/2026 9:05 PM\n"
    "@Tarl Request: [1d100] Roll: [40] Result: 40\n"
)


def test_a_discord_copy_reports_a_forged_line_on_its_own_line() -> None:
    """The second line of a grouped message, Dice Maiden's words without their code marks
    (a copy from Discord's window drops the backticks)."""
    case = judge_log(DISCORD_COPY)
    assert case.transcript.format.name == "discord-copy"
    assert _kinds(case) == [(8, "forged")]
    assert case.verdict.anomalies[0].reason.startswith("posted by 'Pa-Kur', not by OnlineHost")
    assert (case.verdict.damage_dealt, case.verdict.attacks) == ({"Tarl": 3, "Pa-Kur": 0}, 1)
    assert [(r.line, r.use) for r in case.verdict.rolls] == [
        (4, Use.INITIATIVE),
        (5, Use.INITIATIVE),
        (8, Use.ANOMALY),
        (10, Use.ATTACK),
    ]


def test_a_member_named_as_a_bot_in_a_discord_copy_rolls_for_nobody() -> None:
    """In a copy from Discord's window every bot's name has its tag after it (APP; BOT before
    2024), a member's none: a member who took the name `Dice Maiden` (or `referee`) writes the
    bot's words without it, and they are that member's, an anomaly, not a roll."""
    copy = (
        "Proctor Marcus — 11/29/2026 9:00 PM\n"
        "Spar between Tarl (CS 65) and Pa-Kur (CS 70)\n"
        "Dice Maiden APP — 11/29/2026 9:03 PM\n"
        "@Tarl Request: [1d100] Roll: [47] Result: 47\n"
        "@Pa-Kur Request: [1d100] Roll: [12] Result: 12\n"
        "Dice Maiden — 11/29/2026 9:04 PM\n"
        "@Pa-Kur Request: [1d100] Roll: [55] Result: 55\n"
        "referee — 11/29/2026 9:04 PM\n"
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 50 (nonce 1)\n"
        "Dice Maiden BOT — 11/29/2026 9:05 PM\n"
        "@Tarl Request: [1d100] Roll: [40] Result: 40\n"
    )
    case = judge_log(copy)
    assert case.transcript.format.name == "discord-copy"
    assert _kinds(case) == [(7, "forged"), (9, "forged")]
    reasons = [a.reason for a in case.verdict.anomalies]
    assert reasons == [
        f"posted by {who!r} with no bot tag (APP or BOT), which the chat shows after every "
        "bot's name: a member who took a host's name"
        for who in ("Dice Maiden", "referee")
    ]
    # Both tags are a bot's: the attack is line 11's, BOT as APP.
    assert (case.verdict.damage_dealt, case.verdict.attacks) == ({"Tarl": 3, "Pa-Kur": 0}, 1)
    # The same lines with the tag are the bots' own rolls: Pa-Kur's, out of turn.
    tagged = copy.replace("Dice Maiden —", "Dice Maiden APP —").replace(
        "referee —", "referee APP —"
    )
    assert _kinds(judge_log(tagged)) == [(7, "out-of-turn"), (9, "out-of-turn")]


def test_the_project_s_own_discord_bot_is_a_host() -> None:
    copy = (
        "Proctor Marcus — 11/29/2026 9:00 PM\n"
        "Spar between Tarl (CS 65) and Pa-Kur (CS 70)\n"
        "referee APP — 11/29/2026 9:03 PM\n"
        "OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 0)\n"
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 12 (nonce 0)\n"
        "OnlineHost: Tarl rolled 1 100-sided die: 40 (nonce 1)\n"
    )
    exported = (
        "[11/29/2026 9:00 PM] Marcus#1234\n"
        "Spar between Tarl (CS 65) and Pa-Kur (CS 70)\n"
        "\n"
        "[11/29/2026 9:03 PM] referee#4821\n"
        "OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 0)\n"
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 12 (nonce 0)\n"
        "OnlineHost: Tarl rolled 1 100-sided die: 40 (nonce 1)\n"
    )
    for log, fmt in ((copy, "discord-copy"), (exported, "discord-txt")):
        case = judge_log(log)
        assert case.transcript.format.name == fmt
        assert case.verdict.anomalies == ()
        assert (case.verdict.damage_dealt, case.verdict.attacks) == ({"Tarl": 3, "Pa-Kur": 0}, 1)


def test_the_irc_dicebot_is_read() -> None:
    log = (
        "[21:00] <Marcus> Spar between Tarl (CS 65) and Kamchak (CS 60)\n"
        "[21:03] <DiceBot> Tarl rolls 1d100: [47] = 47\n"
        "[21:03] <DiceBot> Kamchak rolls 1d100: [30] = 30\n"
        "[21:04] <DiceBot> Tarl rolls 1d100: [40] = 40\n"
        "[21:04] <Kamchak> Kamchak rolls 1d100: [5] = 5\n"
        "[21:05] <DiceBot> Kamchak rolls 2d20: [14, 17] = 31\n"
    )
    case = judge_log(log)
    assert case.transcript.format.name == "mirc"
    # MSV-5: 47 vs 65 effect 4, 30 vs 60 effect 2; MSV-3: 40 hits for 3
    assert (case.verdict.damage_dealt, case.verdict.attacks) == ({"Tarl": 3, "Kamchak": 0}, 1)
    assert _kinds(case) == [(5, "forged"), (6, "wrong-dice")]
    assert read_roll("Kamchak rolls 1d100: [30] = 30") == HostRoll("Kamchak", 1, 100, (30,))


def test_dice_maiden_without_its_request_is_read() -> None:
    log = (
        "[11/29/2026 9:00 PM] Marcus#1234\n"
        "Spar between Tarl Cabot (CS 65) and Kamchak (CS 60)\n"
        "\n"
        "[11/29/2026 9:03 PM] Dice Maiden#5465\n"
        "Tarl Cabot Roll: [29] Result: 29\n"
        "\n"
        "[11/29/2026 9:03 PM] Dice Maiden#5465\n"
        "Kamchak Roll: [10] Result: 10\n"
        "\n"
        "[11/29/2026 9:04 PM] Dice Maiden#5465\n"
        "Tarl Cabot Roll: [46] Result: 46\n"
    )
    case = judge_log(log)
    assert case.transcript.format.name == "discord-txt"
    # MSV-5: 29 vs 65 effect 2, 10 vs 60 effect 1; MSV-3: 46 hits for 4
    assert case.verdict.anomalies == ()
    assert (case.verdict.damage_dealt, case.verdict.attacks) == (
        {"Tarl Cabot": 4, "Kamchak": 0},
        1,
    )
    assert read_roll("Tarl Cabot Roll: [29] Result: 29") == HostRoll("Tarl Cabot", 1, 100, (29,))


def test_an_html_entity_for_a_line_end_keeps_the_lines_the_file_s_own() -> None:
    """`&#10;` in a Pidgin HTML log made more lines than the file has (an IndexError)."""
    text, anomalies = sample("pidgin-html", True)
    broken = text.replace("ready when you are", "ready&#10;&#10;when you are")
    case = judge_log(broken)
    assert [(a.line, a.kind.value) for a in case.verdict.anomalies] == [
        (line, kind) for line, kind in anomalies
    ]
    assert len(case.lines) == len(text.splitlines())
