"""A payload from outside (an export, a stored row) is read by its declared shape
(`Shape.given`): a key the shape does not declare cannot be read, and the first key that does
not fit its declared JSON type is named, with its event, by `referee verify`'s rules replay."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from referee.bout.events import Event
from referee.bout.replay import check_export, shape_problem
from referee.ledger import verify_export
from referee.payloads.events import SHAPES, Roll, Voided
from referee.payloads.fields import Given, Shape, shapes_in
from referee.systems.base import find_system
from referee.vocabulary import EventType
from tests.every_event import every_event
from tests.vectors.generate import rehash_from

VALID = Path(__file__).resolve().parent / "vectors" / "valid.json"


def test_a_given_payload_reads_declared_fields_only() -> None:
    given = Voided.given({"from": 3, "to": "nine", "note": "x"})
    assert (given.first, given.last, given.has("last")) == (3, "nine", True)
    with pytest.raises(AttributeError, match="Voided declares no field 'note'"):
        _ = given.note
    assert str(given.wrong()) == "payload key 'to' is 'nine', not a whole number"
    assert given.read() is None
    fine = Voided.given({"from": 3, "to": 9})
    assert fine.wrong() is None and fine.read() == Voided(first=3, last=9)


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        ([1], "the payload is [1], not an object"),
        ({"dice": ["d6"], "faces": [1]}, "payload key 'nonce' is missing (a whole number or null)"),
        ({"nonce": True, "dice": ["d6"], "faces": [1]}, "payload key 'nonce' is true, not a whole"),
        (
            {"nonce": 0, "dice": ["d6"], "faces": [1.5]},
            "payload key 'faces[0]' is 1.5, not a whole",
        ),
        (
            {"nonce": 0, "dice": "d6", "faces": [1]},
            "payload key 'dice' is 'd6', not a list of text",
        ),
        ({"nonce": 0, "dice": ["d6"], "faces": [1], "stream": 7}, "key 'stream' is 7, not text"),
    ],
)
def test_the_first_wrong_key_is_named(payload: Any, said: str) -> None:
    assert said in str(Roll.given(payload).wrong())


@pytest.mark.parametrize("bout", ["msv", "srp", "cancelled"])
def test_every_payload_the_engine_writes_fits_its_shape(bout: str) -> None:
    events = [Event.from_dict(r) for r in every_event(bout)]
    assert shape_problem(events) is None
    for event in events:
        assert SHAPES[EventType(event.type)].given(event.payload).wrong() is None


def _spoiled(kind: str, edit: Any) -> list[Event]:
    records = copy.deepcopy(every_event("msv"))
    at = next(i for i, r in enumerate(records) if r["type"] == kind)
    edit(records[at]["payload"])
    return [Event.from_dict(r) for r in records]


@pytest.mark.parametrize(
    ("kind", "edit", "said"),
    [
        (
            "fighter_added",
            lambda p: p.update(stats=5),
            "the fighter_added event is not one the rules write: payload key 'stats' is 5, "
            "not an object or null",
        ),
        (
            "outcome",
            lambda p: p.update(target=7),
            "the outcome event is not one the rules write: payload key 'target' is 7, not text",
        ),
        (
            "outcome",
            lambda p: p.pop("summary"),
            "payload key 'summary' is missing (text)",
        ),
        (
            "initiative",
            lambda p: p["detail"]["rounds"][0]["rolls"][0].update(roll="47"),
            "payload key 'detail.rounds[0].rolls[0].roll' is '47', not a whole number",
        ),
    ],
)
def test_a_misshapen_payload_is_named_with_its_event(kind: str, edit: Any, said: str) -> None:
    events = _spoiled(kind, edit)
    problem = shape_problem(events)
    assert problem is not None and said in problem.message
    assert events[problem.seq].type == kind and problem.check == "rules"


def test_referee_verify_names_the_key_of_a_rehashed_forgery() -> None:
    vector = next(v for v in json.loads(VALID.read_text()) if v["verdict"] == "verified")
    doc = json.loads(vector["text"])
    assert verify_export(doc, replay=check_export).ok
    at = next(i for i, e in enumerate(doc["events"]) if e["type"] == "fighter_added")
    doc["events"][at]["payload"]["side"] = ["Tarl"]
    rehash_from(doc, at)
    report = verify_export(doc, replay=check_export)
    assert [str(p) for p in report.problems] == [
        f"event {at} (fighter_added): the fighter_added event is not one the rules write: "
        "payload key 'side' is [\"Tarl\"], not text or null"
    ]


def test_no_declared_field_hides_behind_a_given_s_own_names() -> None:
    """A `Given` answers its own `has`, `read`, `wrong`, `payload` and `is_object`: a shape
    field of one of those names could not be read through it."""
    own = {name for name in dir(Given) if not name.startswith("_")} | {"is_object"}
    shapes = list(SHAPES.values())
    for system in ("msv", "srp"):
        rules = find_system(system)
        shapes += [*rules.outcomes.values(), rules.initiative_detail]
    seen: set[type[Shape]] = set()
    while shapes:
        shape = shapes.pop()
        if shape in seen:
            continue
        seen.add(shape)
        for declared in shape.declared():
            assert declared.attribute not in own, (shape.__name__, declared.attribute)
            shapes += shapes_in(declared.kind)
    assert len(seen) > 30
