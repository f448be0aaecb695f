"""Group spars (three or four fighters, sides) and the two properties of issue 30.

1. A spar played on the service and written as chat (`referee export --chat`) is judged back
   to the bout's own verdict (winner, damage dealt, attacks) for any dice, with two, three or
   four fighters, from the text alone and against the export.
2. A roll line inserted by anyone but the trusted host, in any format, is exactly one `forged`
   anomaly on its line and changes nothing else.

And the names of a group spar as chat gives them (issue 46): a foe named by one word of the
name (`*at Tarl*` for Tarl Cabot), sides given in a sentence (`Tarl and Kamchak against Pa-Kur`).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.bout import commands as c
from referee.service.bouts import Caller, RefereeService
from referee.store import Role, Store
from referee.transcripts import Use, bout_as_chat, judge_log
from tests.judge_samples import STYLES, WRITERS, Post, script
from tests.seeds import SeededEntropy

REFEREE = Caller(Role.REFEREE)
NAMES = ("Tarl Cabot", "Pa-Kur", "Rask", "Verna")
SETTINGS = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def play(seed: int, skills: list[int], sides: list[str | None], pick: int) -> dict[str, Any]:
    """A closed MSV spar on the service: each attacker hits the `pick`-th foe standing."""
    with Store.open("sqlite://") as store:
        service = RefereeService(store, 5, SeededEntropy(f"groups-{seed}"))
        bout = service.create_bout("msv", "Group spar", "table")["id"]
        for name, cs, side in zip(NAMES, skills, sides, strict=False):
            service.add_fighter(bout, REFEREE, name, {"cs": cs}, side=side)
        service.command(bout, REFEREE, c.RollInitiative())
        for _ in range(400):
            state = service.state(bout)
            if state.winner or state.status.value != "running":
                break
            actor = str(state.current)
            foes = [f.name for f in state.enemies_of(actor)]
            options = {} if state.free_attack == actor else {"target": foes[pick % len(foes)]}
            service.act(bout, REFEREE, actor, "attack", options)
        service.close(bout, REFEREE)
        return service.export(bout, REFEREE)


def truth(doc: dict[str, Any]) -> tuple[object, dict[str, int], int]:
    """The bout's own verdict from its events: winner, damage dealt, attacks."""
    dealt = {e["payload"]["name"]: 0 for e in doc["events"] if e["type"] == "fighter_added"}
    actor, attacks, winner = "", 0, None
    for event in doc["events"]:
        if event["type"] == "action":
            actor = event["actor"]
            attacks += event["payload"]["kind"] == "attack"
        elif event["type"] == "wound":
            dealt[actor] += event["payload"]["amount"]
        elif event["type"] == "ended":
            winner = event["payload"]["winner"]
    return winner, dealt, attacks


@SETTINGS
@given(
    seed=st.integers(0, 10**6),
    count=st.sampled_from([2, 3, 4]),
    skills=st.lists(st.integers(40, 95), min_size=4, max_size=4),
    teams=st.booleans(),
    pick=st.integers(0, 3),
)
def test_the_chat_export_of_a_group_spar_is_judged_to_the_bout_s_verdict(
    seed: int, count: int, skills: list[int], teams: bool, pick: int
) -> None:
    sides: list[str | None] = (
        ["Ar", "Cos", "Ar", "Cos"][:count] if teams and count == 4 else [None] * count
    )
    doc = play(seed, skills[:count], sides, pick)
    log = "\n".join(bout_as_chat(doc))
    want = truth(doc)
    for case in (judge_log(log), judge_log(log, export=doc)):
        verdict = case.verdict
        assert verdict.anomalies == ()
        assert (verdict.winner, verdict.damage_dealt, verdict.attacks) == want


def test_a_group_spar_fought_in_chat_with_targets_named_by_the_attackers() -> None:
    """Three fighters; MSV-6: each attacker names the target, the defeated are skipped."""
    log = [
        "Marcus: Spar between Tarl (CS 65), Rask (CS 60) and Pa-Kur (CS 70)",
        "OnlineHost: Rask rolled 1 100-sided die: 10",  # effect 1
        "OnlineHost: Tarl rolled 1 100-sided die: 50",  # effect 4
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 47",  # effect 4: Tarl and Pa-Kur tie
        "OnlineHost: Rask rolled 1 100-sided die: 30",  # 5: not his to reroll
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 5",  # effect 1
        "OnlineHost: Tarl rolled 1 100-sided die: 16",  # effect 2: Tarl, Pa-Kur, Rask
        "OnlineHost: Tarl rolled 1 100-sided die: 55",  # 8: no target named
        "Tarl: *turns on Rask*",
        "OnlineHost: Tarl rolled 1 100-sided die: 55",  # Rask 4
        "Pa-Kur: at Rask too",
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 60",  # Rask 8, critical: free attack
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 59",  # Rask 12
        "Rask: I strike at Pa-Kur",
        "OnlineHost: Rask rolled 1 100-sided die: 99",  # miss
        "OnlineHost: Tarl rolled 1 100-sided die: 31",  # Rask 15: down
        "Pa-Kur: and now you, Tarl",
        "OnlineHost: Rask rolled 1 100-sided die: 40",  # 17: Rask is defeated, not his turn
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 15",  # Tarl 1
    ]
    case = judge_log("\n".join(log))
    verdict = case.verdict
    assert verdict.order == ("Tarl", "Pa-Kur", "Rask")
    assert (verdict.winner, verdict.damage_dealt, verdict.attacks) == (
        None,
        {"Tarl": 7, "Rask": 0, "Pa-Kur": 9},
        6,
    )
    assert verdict.damage_taken == {"Tarl": 1, "Rask": 15, "Pa-Kur": 0}
    assert [(a.line, a.kind.value) for a in verdict.anomalies] == [
        (5, "out-of-turn"),
        (8, "no-target"),
        (18, "out-of-turn"),
    ]
    assert verdict.anomalies[1].reason == (
        "Tarl names no target among Rask and Pa-Kur (MSV-6): the roll counts for nothing"
    )


def test_a_team_wins_when_one_side_is_left() -> None:
    log = [
        "Marcus: Team Ar: Tarl (CS 65) & Rask (CS 60) vs Team Cos: Pa-Kur (CS 70)",
        "OnlineHost: Tarl rolled 1 100-sided die: 50",
        "OnlineHost: Rask rolled 1 100-sided die: 40",
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 5",  # order: Tarl, Rask, Pa-Kur
        "Pa-Kur: at Tarl!",
        *[f"OnlineHost: {n} rolled 1 100-sided die: 46" for n in ("Tarl", "Rask", "Pa-Kur") * 2],
    ]  # 4 damage each: Pa-Kur takes 16 on line 10, his roll on line 11 comes after the end
    verdict = judge_log("\n".join(log)).verdict
    assert [(f.name, f.team) for f in verdict.fighters] == [
        ("Tarl", "Ar"),
        ("Rask", "Ar"),
        ("Pa-Kur", "Cos"),
    ]
    assert (verdict.winner, verdict.damage_taken["Pa-Kur"]) == ("Ar", 16)
    assert verdict.damage_taken["Tarl"] == 4
    assert [(a.line, a.kind.value) for a in verdict.anomalies] == [(11, "out-of-turn")]


@SETTINGS
@given(
    fmt=st.sampled_from(sorted(WRITERS)),
    where=st.integers(3, 40),
    author=st.sampled_from(["Bosk", "Pa-Kur", "Tarl", "0nlineHost", "Marcus", "Dice_Maiden"]),
    roller=st.sampled_from(["A", "B"]),
)
def test_a_roll_line_posted_by_anyone_but_the_host_is_one_forged_anomaly(
    fmt: str, where: int, author: str, roller: str
) -> None:
    style = STYLES[fmt]
    posts = script(style, anomalies=False)
    name = {"A": style.a, "B": style.b}[roller]
    at = min(where, len(posts) - 1)
    forged = Post(author, style.roll(name, 90))
    clean_text, _ = WRITERS[fmt](posts)
    text, lines = WRITERS[fmt]([*posts[:at], forged, *posts[at:]])
    clean, judged = judge_log(clean_text).verdict, judge_log(text).verdict
    assert [(a.line, a.kind.value) for a in judged.anomalies] == [(lines[at], "forged")]
    assert (judged.winner, judged.damage_dealt, judged.attacks) == (
        clean.winner,
        clean.damage_dealt,
        clean.attacks,
    )


def test_a_group_spar_attacker_may_name_a_foe_by_one_word_of_the_name() -> None:
    """MSV-6: `Pa-Kur: *at Tarl*` aims at Tarl Cabot, the one fighter called Tarl."""
    log = (
        "Proctor Marcus: Spar: Tarl Cabot (CS 65), Kamchak (CS 60), Pa-Kur (CS 70)\n"
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 50\n"
        "OnlineHost: Tarl Cabot rolled 1 100-sided die: 20\n"
        "OnlineHost: Kamchak rolled 1 100-sided die: 10\n"
        "Pa-Kur: *at Tarl*\n"
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 44\n"
        "Tarl: at Pa-Kur!\n"
        "OnlineHost: Tarl Cabot rolled 1 100-sided die: 31\n"
        "Kamchak: *swings at Pa-Kur*\n"
        "OnlineHost: Kamchak rolled 1 100-sided die: 16\n"
    )
    verdict = judge_log(log).verdict
    # MSV-5: effects 4, 2, 1; MSV-3: 44 -> 3, 31 -> 3, 16 -> 2
    assert verdict.order == ("Pa-Kur", "Tarl Cabot", "Kamchak")
    assert verdict.anomalies == ()
    assert [(r.line, r.target) for r in verdict.rolls if r.use is Use.ATTACK] == [
        (6, "Tarl Cabot"),
        (8, "Pa-Kur"),
        (10, "Pa-Kur"),
    ]
    assert (verdict.damage_dealt, verdict.attacks) == (
        {"Tarl Cabot": 3, "Kamchak": 2, "Pa-Kur": 3},
        3,
    )


def test_sides_given_in_a_sentence_are_read() -> None:
    """`Tarl and Kamchak against Pa-Kur` after the announcement: two sides (MSV-6, MSV-7)."""
    log = (
        "Proctor Marcus: Spar: Tarl Cabot (CS 65), Kamchak (CS 60), Pa-Kur (CS 70)\n"
        "Proctor Marcus: Tarl and Kamchak against Pa-Kur\n"
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 50\n"
        "OnlineHost: Tarl Cabot rolled 1 100-sided die: 20\n"
        "OnlineHost: Kamchak rolled 1 100-sided die: 10\n"
        "Pa-Kur: *at Kamchak*\n"
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 44\n"
        "OnlineHost: Tarl Cabot rolled 1 100-sided die: 31\n"
        "OnlineHost: Kamchak rolled 1 100-sided die: 16\n"
    )
    verdict = judge_log(log).verdict
    assert [(f.name, f.team) for f in verdict.fighters] == [
        ("Tarl Cabot", "Tarl Cabot & Kamchak"),
        ("Kamchak", "Tarl Cabot & Kamchak"),
        ("Pa-Kur", "Pa-Kur"),
    ]
    # one foe standing for Tarl and Kamchak: nobody needs to be named (MSV-6)
    assert verdict.anomalies == ()
    assert [(r.line, r.target) for r in verdict.rolls if r.use is Use.ATTACK] == [
        (7, "Kamchak"),
        (8, "Pa-Kur"),
        (9, "Pa-Kur"),
    ]
    assert (verdict.damage_dealt, verdict.attacks) == (
        {"Tarl Cabot": 3, "Kamchak": 2, "Pa-Kur": 3},
        3,
    )


def test_sides_in_a_sentence_on_the_announcement_s_own_line() -> None:
    log = (
        "Marcus: Tarl Cabot (CS 65), Kamchak (CS 60), Pa-Kur (CS 70): Tarl & Kamchak vs Pa-Kur\n"
        "OnlineHost: Pa-Kur rolled 1 100-sided die: 50\n"
        "OnlineHost: Tarl Cabot rolled 1 100-sided die: 20\n"
        "OnlineHost: Kamchak rolled 1 100-sided die: 10\n"
    )
    verdict = judge_log(log).verdict
    assert [f.team for f in verdict.fighters] == [
        "Tarl Cabot & Kamchak",
        "Tarl Cabot & Kamchak",
        "Pa-Kur",
    ]
