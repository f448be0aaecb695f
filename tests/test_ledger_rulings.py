"""The referee's rulings in a verified export, apart from what the dice decided (and old
exports, whose chain lacks the bout's id and created time, still verify and say so)."""

from __future__ import annotations

import copy

from referee.bout import commands as c
from referee.bout.events import Event
from referee.ledger import event_hash, verify_export
from referee.rng import VerifiableRng
from tests.vectors.bouts import Step, play
from tests.vectors.generate import Shape, _Builder

SEED = "00" * 32
SHAPE = Shape(
    (Step("attack", 0), Step("attack", 1)),
    (SEED,),
    "table",
    ("Tarl", "Pa-Kur"),
    frozenset(),
    (1,),
    6,
)


def export_with_rulings() -> dict:
    builder = _Builder(SHAPE)
    bout = play(list(SHAPE.plan), VerifiableRng(SEED, "table"))
    outcome = max(bout.state.outcome_wounds)
    bout.run(c.Override(outcome, {"Pa-Kur": 2}, note="a clean blow"))
    bout.run(c.Void())
    bout.run(c.UpdateFighter("Tarl", {"cs": 61}, wounds=1))
    bout.run(c.End("Tarl", "yield"))
    bout.events.append(Event("closed", "referee", builder.closing()))
    return builder.export(bout.events, closed=True, cut=None)


def test_every_ruling_is_listed_with_what_was_decided() -> None:
    doc = export_with_rulings()
    report = verify_export(doc)
    assert report.verdict == "verified", report.problems
    kinds = [(e["seq"], e["type"]) for e in doc["events"] if e["actor"] == "referee"]
    listed = [(r.seq, r.type) for r in report.rulings]
    assert listed == [
        k for k in kinds if k[1] in ("overridden", "voided", "fighter_updated", "ended")
    ]
    texts = [r.text for r in report.rulings]
    assert texts[0].startswith("the referee replaced the wounds of event ")
    assert texts[0].endswith(" with Pa-Kur 2: a clean blow")
    assert texts[1].startswith("the referee voided events ")
    assert texts[2:] == [
        "the referee changed 'Tarl': stats cs; wounds to 1",
        "the referee declared side 'Tarl' the winner (yield)",
    ]
    assert report.as_json()["rulings"][-1]["text"] == str(report.rulings[-1])


def test_a_ruling_is_never_a_roll_and_a_roll_never_a_ruling() -> None:
    report = verify_export(export_with_rulings())
    rolls = {e["seq"] for e in export_with_rulings()["events"] if e["type"] == "roll"}
    assert rolls and not rolls & {r.seq for r in report.rulings}


def test_an_export_from_before_the_chained_header_still_verifies_and_says_so() -> None:
    doc = copy.deepcopy(export_with_rulings())
    payload = doc["events"][0]["payload"]
    del payload["id"], payload["created_at"]
    prev = "0" * 64
    for event in doc["events"]:
        event["prev"] = prev
        event["hash"] = prev = event_hash(event)
    report = verify_export(doc)
    assert report.verdict == "verified", report.problems
    assert report.skipped[0] == (
        "header: the first event carries no id and created_at (an export made before the "
        "header was chained), so bout.id and bout.created_at are not covered by the chain"
    )
    doc["bout"]["name"] = "Renamed"
    assert str(verify_export(doc).first) == (
        "event 0 (bout_opened): bout.name 'Renamed' differs from the name 'spar' the chain "
        "opens with"
    )
