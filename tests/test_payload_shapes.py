"""Each event type's payload has one declared shape (referee.payloads; an outcome's and an
initiative's rule-system part in systems/*/payloads.py): the engine writes nothing else, the
fold reads it back whole, the published JSON Schema is made from it and checks every event,
in Python and in the browser verifier's tests."""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.bout import commands as c
from referee.bout.engine import decide
from referee.bout.state import BoutState
from referee.errors import RuleError
from referee.payloads import SHAPES, Shape, Visibility, events
from referee.payloads.fields import Declared, pick, shapes_in
from referee.rng import ScriptedRng
from referee.systems.base import Outcome, find_system
from referee.systems.msv.system import MsvSystem
from referee.systems.schema import event_schema, schema_text
from referee.systems.srp import payloads as srp
from referee.vocabulary import EVENT_TYPES, EventType
from tests.depth import examples
from tests.every_event import every_event

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = ROOT / "src" / "referee" / "service" / "static" / "schema" / "events.json"
BOUTS = ("msv", "srp", "cancelled")


def system_of(records: list[dict[str, Any]]) -> str:
    return str(records[0]["payload"]["system"])


def shape_of(record: dict[str, Any], system: str) -> list[type[Shape]]:
    """The shapes an event's payload is made of (an outcome: the engine's and the system's)."""
    kind = EventType(record["type"])
    if kind is EventType.OUTCOME:
        return [SHAPES[kind], find_system(system).outcomes[record["payload"]["kind"]]]
    return [SHAPES[kind]]


def test_every_event_type_has_one_shape_and_the_bouts_show_them_all() -> None:
    assert set(SHAPES) == set(EventType)
    seen = {r["type"] for bout in BOUTS for r in every_event(bout)}
    assert seen == set(EVENT_TYPES)


@pytest.mark.parametrize("bout", BOUTS)
def test_every_payload_the_engine_writes_is_its_shape_read_back_whole(bout: str) -> None:
    """No key outside its shape: each payload read in its declared shape and written again is
    the payload, key for key (an outcome: both parts, the system's first)."""
    records = every_event(bout)
    system = system_of(records)
    for record in records:
        payload = record["payload"]
        shapes = shape_of(record, system)
        again: dict[str, Any] = {}
        for shape in reversed(shapes):
            again = {**shape.read(payload).to_json(), **again}
        if record["type"] == "initiative":
            detail = find_system(system).initiative_detail.read(payload["detail"])
            assert detail.to_json() == payload["detail"]
        assert again == payload, record
        assert list(again) == list(payload) or record["type"] == "outcome"


@pytest.mark.parametrize("system", ["msv", "srp"])
def test_every_action_kind_declares_its_outcome(system: str) -> None:
    rules = find_system(system)
    assert set(rules.outcomes) == set(rules.actions)
    for shape in rules.outcomes.values():
        assert all(isinstance(d.visibility, Visibility) for d in shape.declared())


def test_srp_strikes_are_declared_alike_wherever_they_are() -> None:
    """An attack's, a volley's shot's and an extra attack's strike fields are one strike."""
    strike = {d.name: d.kind for d in srp.Strike.declared()}
    for shape in (srp.Attack, srp.ExtraStrike, srp.Shot):
        fields = {d.name: d.kind for d in shape.declared() if d.name in strike}
        assert fields == strike, shape


def test_the_engine_refuses_an_outcome_its_system_did_not_declare() -> None:
    class Sloppy(MsvSystem):
        def act(self, *args: Any) -> Outcome:
            made = super().act(*args)
            return Outcome(made.kind, srp.Face(facing=3), made.summary)

    state = BoutState()
    for command in (
        c.Open("msv", "Spar"),
        c.AddFighter("Tarl", {"cs": 60}),
        c.AddFighter("Orc", {"cs": 50}),
        c.RollInitiative(),
    ):
        state = decide(state, command, ScriptedRng([10, 90]), system=MsvSystem()).state
    with pytest.raises(RuleError, match="not in the shape its system declares"):
        decide(state, c.Act("Tarl", "attack"), ScriptedRng([5]), system=Sloppy())


def test_a_field_must_say_who_may_see_it() -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True, slots=True)
    class Careless(Shape):
        roll: int

    with pytest.raises(TypeError, match="not declared public, hidden or private"):
        Careless.declared()


def test_the_published_schema_is_the_declarations() -> None:
    """static/schema/events.json is written by `python -m referee.systems.schema`."""
    assert PUBLISHED.read_text(encoding="utf-8") == schema_text()


def python_verdicts(doc: dict[str, Any]) -> list[bool]:
    """Each event checked against the schema by jsonschema-rs, as tests/vectors/schema.mjs
    checks it in Node."""
    schema = event_schema()
    validator = jsonschema_rs.validator_for(schema)
    system = next(
        (e["payload"].get("system") for e in doc["events"] if e.get("type") == "bout_opened"),
        None,
    )
    out = []
    for event in doc["events"]:
        ok = validator.is_valid(event)
        part: Any = None
        if ok and event["type"] == "outcome":
            part, value = schema["x-outcomes"].get(system, {}).get(event["payload"]["kind"]), event
            value = event["payload"]
        elif ok and event["type"] == "initiative":
            part, value = schema["x-initiatives"].get(system), event["payload"]["detail"]
        if part is not None:
            ok = jsonschema_rs.validator_for({"$defs": schema["$defs"], **part}).is_valid(value)
        out.append(ok)
    return out


@pytest.mark.parametrize("bout", BOUTS)
def test_every_event_the_engine_writes_fits_the_schema(bout: str) -> None:
    doc = {"events": every_event(bout)}
    for record in doc["events"]:
        record.update(prev=None, hash=None)
    assert all(python_verdicts(doc))


def test_the_schema_says_who_may_see_each_field() -> None:
    schema = event_schema()
    attack = schema["$defs"]["msv.Attack"]["properties"]
    assert attack["cs"]["x-visibility"] == "hidden"
    assert attack["roll"]["x-visibility"] == "public"
    stat = schema["$defs"]["payloads.Stat"]["properties"]["value"]
    assert (stat["x-visibility"], stat["x-owner"], stat["x-stat-field"]) == (
        "private",
        "target",
        "key",
    )
    roll = schema["$defs"]["msv.InitiativeRoll"]["properties"]["cs"]
    assert (roll["x-owner"], roll["x-stat"]) == ("name", "cs")


def test_declared_lookup() -> None:
    field = SHAPES[EventType.VOIDED].field("from")
    assert isinstance(field, Declared) and field.attribute == "first"
    assert SHAPES[EventType.VOIDED].field("first") is None
    assert json.loads(schema_text())["$id"].endswith("events.json")


def every_shape() -> list[type[Shape]]:
    """Every shape declared (the engine's and the systems', imported above), as its module
    names it (`dataclass(slots=True)` leaves the class it remade behind, as a subclass too)."""
    found: list[type[Shape]] = []
    todo = list(Shape.__subclasses__())
    while todo:
        shape = todo.pop()
        todo += shape.__subclasses__()
        named = getattr(sys.modules[shape.__module__], shape.__qualname__, None) is shape
        if named and dataclasses.is_dataclass(shape) and shape not in found:
            found.append(shape)
    return sorted(found, key=lambda s: s.__module__ + "." + s.__qualname__)


def reference_to_json(value: Any) -> Any:
    """`Shape.to_json` as first written, one declared field at a time (its oracle)."""
    if isinstance(value, Shape):
        return {
            d.name: reference_to_json(getattr(value, d.attribute))
            for d in type(value).declared()
            if not (getattr(value, d.attribute) is None and d.omit)
        }
    if isinstance(value, tuple | list):
        return [reference_to_json(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    return value


class Label(str):
    """A str subclass that is no enum (written as it is)."""


# Whatever a field may hold: `to_json` checks nothing, so it must write anything as before.
field_leaf = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=4)
    | st.text(max_size=3).map(Label)
    | st.sampled_from(EventType)
    | st.sampled_from(Visibility)
    | st.builds(events.Wound, target=st.text(max_size=3), amount=st.integers(), total=st.none())
)
field_value = st.recursive(
    field_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.lists(inner, max_size=3).map(tuple),
    max_leaves=6,
)


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(every_shape()), st.data())
def test_to_json_writes_any_shape_as_one_field_at_a_time(
    shape: type[Shape], data: st.DataObject
) -> None:
    """`to_json` reads the fields through a plan made once and writes text, numbers and
    booleans as they are: the same dict, key order and value types as the first way."""
    values = {d.attribute: data.draw(field_value) for d in shape.declared()}
    value = shape(**values)
    written, expected = value.to_json(), reference_to_json(value)
    assert written == expected
    assert list(written) == list(expected)
    assert repr(written) == repr(expected)  # the types too (an enum is written as its value)


def reference_read(shape: type[Shape], payload: dict[str, Any]) -> Any:
    """`Shape.read` as first written, by the shape's `__init__` (its oracle)."""
    values: dict[str, Any] = {}
    for d in shape.declared():
        if d.name in payload:
            values[d.attribute] = reference_nested(d.kind, payload[d.name])
        elif d.required:
            raise KeyError(d.name)
    return shape(**values)


def reference_nested(kind: Any, value: Any) -> Any:
    shapes = shapes_in(kind)
    if not shapes:
        return value
    if isinstance(value, list):
        return tuple(reference_nested(kind, v) for v in value)
    if isinstance(value, dict):
        shape = pick(shapes, value)
        return value if shape is None else reference_read(shape, value)
    return value


json_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=3)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


@st.composite
def shape_payload(draw: st.DrawFn, shape: type[Shape], depth: int = 0) -> dict[str, Any]:
    """A payload for `shape`: most of its keys, each holding JSON or (a field of shapes) a
    payload of one of them, or a list of such."""
    payload: dict[str, Any] = {}
    for d in shape.declared():
        if draw(st.integers(0, 9)) == 0:
            continue  # the key left out
        shapes = shapes_in(d.kind)
        if shapes and depth < 2:
            inner = st.sampled_from(shapes).flatmap(lambda s: shape_payload(s, depth + 1))
            payload[d.name] = draw(inner | st.lists(inner, max_size=2) | json_value)
        else:
            payload[d.name] = draw(json_value)
    return payload


@settings(max_examples=examples(300), deadline=None)
@given(st.sampled_from(every_shape()), st.data())
def test_read_makes_any_shape_as_its_init_does(shape: type[Shape], data: st.DataObject) -> None:
    """`read` (its plan made once per shape) makes the value the first `read` made (or
    raises the same missing key)."""
    payload = data.draw(shape_payload(shape))
    try:
        expected = reference_read(shape, payload)
    except KeyError as missing:
        with pytest.raises(KeyError) as got:
            shape.read(payload)
        assert got.value.args == missing.args
        return
    read = shape.read(payload)
    assert type(read) is shape
    assert read == expected
    assert repr(read) == repr(expected)


def test_every_shape_is_a_frozen_dataclass_with_slots() -> None:
    """Each shape is a plain frozen dataclass with slots: every field given to `__init__`
    (which `read` calls), no `__post_init__`, no default factory."""
    for shape in every_shape():
        params = shape.__dataclass_params__  # type: ignore[attr-defined]
        assert params.frozen and "__slots__" in shape.__dict__, shape.__name__
        assert not hasattr(shape, "__post_init__"), shape.__name__
        for f in dataclasses.fields(shape):
            assert f.init and f.default_factory is dataclasses.MISSING, (shape.__name__, f.name)
