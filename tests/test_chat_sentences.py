"""The chat endpoint's answers and the judge's report say events as `referee.sentences` says
them (issue #28): the same events rendered through the chat answer and through the sentences
read the same, and a bout's chat export judged back reads its attacks and its order as the
bout's own events say them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from referee.chat import said
from referee.chat.answers import SAID
from referee.sentences import order_text, receipt, roll_line, sentence
from referee.service.bouts import Caller, RefereeService
from referee.service.chat import answer_chat
from referee.store import Role, Store
from referee.transcripts import Use, bout_as_chat, judge_log
from referee.transcripts.render import text_report
from referee.vocabulary import EventType
from tests.every_event import every_event
from tests.seeds import for_test
from tests.test_judge_export import play

REFEREE = Caller(Role.REFEREE)
Record = Mapping[str, Any]


def groups(records: Sequence[Record]) -> list[list[Record]]:
    """Each action with the events that follow it (its rolls and consequences)."""
    out: list[list[Record]] = []
    for record in records:
        if record["type"] == EventType.ACTION:
            out.append([record])
        elif out and (record["actor"] == "system" or out[-1][-1]["type"] == EventType.ROLL):
            out[-1].append(record)
    return out


def left_after_sentences(answer: str, group: Sequence[Record], system: str | None) -> str:
    """What the answer says beyond its events' sentences and its rolls' receipts, in order."""
    actor = str(group[0]["actor"])
    rest = answer
    for record in group:
        if record["type"] == EventType.ROLL:
            said_receipt = receipt(record["payload"], actor)
            assert said_receipt in rest, (said_receipt, answer)
            rest = rest.replace(said_receipt, "", 1)
    position = 0
    for record in group:
        if record["type"] in SAID:
            text = sentence(record, system)
            found = rest.find(text, position)
            assert found >= 0, (text, answer)
            rest = rest[:found] + rest[found + len(text) :]
            position = found
    return re.sub(r"[. ]+", " ", rest).strip()


@pytest.mark.parametrize("bout", ["msv", "srp"])
def test_every_action_answer_is_its_events_sentences(bout: str) -> None:
    records = every_event(bout)
    system = str(records[0]["payload"]["system"])
    checked = 0
    for group in groups(records):
        if not any(r["type"] in (EventType.OUTCOME, EventType.FAILED) for r in group):
            continue
        answer = said(group, system)
        rest = left_after_sentences(answer, group, system)
        outcome = next((r for r in group if r["type"] == EventType.OUTCOME), None)
        again = outcome is not None and outcome["payload"].get("extra_action")
        assert rest == (f"{group[0]['actor']} acts again at once" if again else ""), answer
        checked += 1
    assert checked >= 3


def test_an_answer_without_a_reading_says_done() -> None:
    assert said([{"type": "action", "actor": "Tarl", "payload": {"kind": "pass"}}]) == "done"


def test_the_chat_endpoint_says_the_ledger_s_sentences(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "bouts.db")) as store:
        service = RefereeService(store, 0, for_test())
        bout_id = service.create_bout("msv", "Spar", "table")["id"]
        for name, skill in (("Tarl", 65), ("Pa-Kur", 70)):
            service.add_fighter(bout_id, REFEREE, name, {"cs": skill})
        started = answer_chat(service, bout_id, REFEREE, "init")
        events = service.export(bout_id, REFEREE)["events"]
        settled = next(e for e in events if e["type"] == EventType.INITIATIVE)
        assert started == sentence(settled, "msv")
        for _ in range(40):
            state = service.state(bout_id)
            if state.winner or state.status.value != "running":
                break
            foe = next(f.name for f in state.fighters if f.name != state.current)
            seen = len(service.export(bout_id, REFEREE)["events"])
            answer = answer_chat(service, bout_id, REFEREE, f"attack {state.current} {foe}")
            group = service.export(bout_id, REFEREE)["events"][seen:]
            assert answer == said(group, "msv")
            outcome = next(e for e in group if e["type"] == EventType.OUTCOME)
            said_roll = receipt(group[1]["payload"], state.current)
            assert answer.startswith(sentence(outcome, "msv") + said_roll + ". ")
        assert service.state(bout_id).winner


def test_the_judge_reads_a_chat_export_as_its_events_say_it(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "bouts.db")) as store:
        bout_id = play(store)
        doc = RefereeService(store).export(bout_id, REFEREE)
    events = doc["events"]
    voids = [(e["payload"]["from"], e["payload"]["to"]) for e in events if e["type"] == "voided"]
    outcomes = [
        e
        for e in events
        if e["type"] == EventType.OUTCOME and not any(a <= e["seq"] <= b for a, b in voids)
    ]
    case = judge_log("\n".join(bout_as_chat(doc)), export=doc)
    attacks = [r for r in case.verdict.rolls if r.use in (Use.ATTACK, Use.FREE_ATTACK)]
    assert len(attacks) == len(outcomes) > 3
    for reading, outcome in zip(attacks, outcomes, strict=True):
        # the judge's reading of an attack starts with what its outcome says (a last attack
        # goes on to say who fell and who won)
        assert reading.text.split("; ")[0] == sentence(outcome, "msv")
    settled = next(e for e in events if e["type"] == EventType.INITIATIVE)
    assert order_text(case.verdict.order) == sentence(settled, "msv")
    assert sentence(settled, "msv") in list(text_report(case))


def test_the_chat_roll_answer_is_the_sentences_host_line(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "bouts.db")) as store:
        service = RefereeService(store, 0, for_test())
        bout_id = service.create_bout("msv", "Spar", "table")["id"]
        service.add_fighter(bout_id, REFEREE, "Tarl", {"cs": 65})
        answer = answer_chat(service, bout_id, REFEREE, "//roll -sides6 -dice3")
        events = service.export(bout_id, REFEREE)["events"]
        signature = service.key.sign(bout_id, "Referee", next(
            e for e in events if e["type"] == EventType.ROLL)["payload"])  # fmt: skip
    roll = next(e for e in events if e["type"] == EventType.ROLL)
    assert answer == roll_line("Referee", roll["payload"], signature)  # signed by the service
    assert re.fullmatch(
        r"OnlineHost: Referee rolled 3 6-sided dice: [1-6] [1-6] [1-6] \(nonce 0, referee\)"
        r" sig:\S{112}",
        answer,
    ), answer
