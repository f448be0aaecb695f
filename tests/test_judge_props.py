"""Property: a spar played by the bout engine and printed by `referee msv spar` (its chat-log
writer) is judged back to the engine's winner, damage and attack count, for any seed and any
skills; inserting one forged, wrong-dice, outsider or doubled roll line anywhere it can go
yields exactly that one anomaly, on that line, and the same verdict."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cli.main import cli
from referee.transcripts import Use, judge_log
from tests.depth import examples

NAMES = ("Tarl Cabot", "Pa-Kur")
SETTINGS = settings(
    max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@cache
def spar(seed: int, cs_a: int, cs_b: int) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The printed log (with the header line `referee msv spar` prints first) and what the
    engine says happened."""
    argv = ["msv", "spar", f"{NAMES[0]}={cs_a}", f"{NAMES[1]}={cs_b}", "--seed", str(seed)]
    doc = json.loads(CliRunner().invoke(cli, [*argv, "--json"]).stdout)
    header = f"Spar: {NAMES[0]} (CS {cs_a}) vs {NAMES[1]} (CS {cs_b}), seed {seed}"
    dealt = dict.fromkeys(NAMES, 0)
    for event in doc["events"]:
        if event["type"] == "wound":
            target = event["payload"]["target"]
            dealt[next(n for n in NAMES if n != target)] += event["payload"]["amount"]
    attacks = sum(
        1 for e in doc["events"] if e["type"] == "action" and e["payload"]["kind"] == "attack"
    )
    return (header, *doc["log"]), {"winner": doc["winner"], "dealt": dealt, "attacks": attacks}


skills = st.integers(min_value=25, max_value=100)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


@SETTINGS
@given(seed=seeds, cs_a=skills, cs_b=skills)
def test_the_engine_s_spar_is_judged_back_exactly(seed: int, cs_a: int, cs_b: int) -> None:
    lines, truth = spar(seed, cs_a, cs_b)
    verdict = judge_log("\n".join(lines)).verdict  # fighters from the header line
    assert verdict.anomalies == ()
    assert verdict.winner == truth["winner"]
    assert verdict.damage_dealt == truth["dealt"]
    assert verdict.attacks == truth["attacks"]


def _same(verdict: Any, truth: dict[str, Any]) -> None:
    assert (verdict.winner, verdict.damage_dealt, verdict.attacks) == (
        truth["winner"],
        truth["dealt"],
        truth["attacks"],
    )


INSERTS = {
    "forged": lambda: f"{NAMES[1]}: OnlineHost: {NAMES[1]} rolled 1 100-sided die: 10",
    "wrong-dice": lambda: f"OnlineHost: {NAMES[0]} rolled 2 20-sided dice: 14 17",
    "not-a-fighter": lambda: "OnlineHost: Bosk of Port Kar rolled 1 100-sided die: 10",
}


@SETTINGS
@given(
    seed=seeds,
    cs_a=skills,
    cs_b=skills,
    kind=st.sampled_from(sorted(INSERTS)),
    where=st.floats(min_value=0, max_value=1),
)
def test_an_inserted_line_is_exactly_one_anomaly(
    seed: int, cs_a: int, cs_b: int, kind: str, where: float
) -> None:
    lines, truth = spar(seed, cs_a, cs_b)
    at = 1 + int(where * (len(lines) - 1))  # after the header line
    log = [*lines[:at], INSERTS[kind](), *lines[at:]]
    verdict = judge_log("\n".join(log)).verdict
    assert [(a.line, a.kind.value) for a in verdict.anomalies] == [(at + 1, kind)]
    _same(verdict, truth)


@SETTINGS
@given(
    seed=seeds, cs_a=skills, cs_b=skills, pick=st.integers(min_value=0), face=st.integers(1, 100)
)
def test_a_doubled_roll_is_out_of_turn(
    seed: int, cs_a: int, cs_b: int, pick: int, face: int
) -> None:
    """A second roll right after a roll that ended the roller's turn (or the spar)."""
    lines, truth = spar(seed, cs_a, cs_b)
    rolls = judge_log("\n".join(lines)).verdict.rolls
    enders = [
        r
        for i, r in enumerate(rolls)
        if r.use in (Use.ATTACK, Use.FREE_ATTACK)
        and (i + 1 == len(rolls) or rolls[i + 1].name != r.name)
    ]
    roll = enders[pick % len(enders)]
    double = f"OnlineHost: {roll.name} rolled 1 100-sided die: {face}"
    log = [*lines[: roll.line], double, *lines[roll.line :]]
    verdict = judge_log("\n".join(log)).verdict
    assert [(a.line, a.kind.value) for a in verdict.anomalies] == [(roll.line + 1, "out-of-turn")]
    _same(verdict, truth)
