"""The hash chain: canonical JSON, event hashes, chaining, tamper detection (DESIGN.md)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import RuleError
from referee.ledger import (
    GENESIS,
    canonical,
    canonical_json,
    chain,
    check_json,
    event_hash,
    link,
    utc_time,
    verify_chain,
)
from referee.ledger.canonical import MAX_DEPTH, checked_canonical_text, is_plain_json
from referee.ledger.canonical import _encodable as encodable  # unchanged: the reference's too
from tests.depth import examples

AT = "2026-11-29T22:40:12.123456Z"


def reference_hash(event: dict[str, Any]) -> str:
    """The contract, written out: SHA-256 of the sorted, compact, UTF-8 JSON without `hash`."""
    body = {k: v for k, v in event.items() if k != "hash"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def make_chain(n: int) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    last = None
    for i in range(n):
        last = chain(last, "note", "Tarl", {"i": i, "text": f"line {i}"}, AT)
        events.append(last)
    return events


def test_canonical_json_is_sorted_compact_utf8() -> None:
    assert canonical_json({"b": [1, {"d": None, "c": True}], "a": "Pa-Kur é"}) == (
        '{"a":"Pa-Kur é","b":[1,{"c":true,"d":null}]}'.encode()
    )


def test_first_event_golden() -> None:
    event = chain(None, "roll", "Tarl", {"nonce": 0, "dice": ["d100"], "faces": [47]}, AT)
    assert event == {
        "seq": 0,
        "type": "roll",
        "actor": "Tarl",
        "at": AT,
        "payload": {"nonce": 0, "dice": ["d100"], "faces": [47]},
        "prev": "0" * 64,
        "hash": reference_hash(event),
    }
    text = (
        '{"actor":"Tarl","at":"2026-11-29T22:40:12.123456Z","payload":{"dice":["d100"],'
        '"faces":[47],"nonce":0},"prev":"' + "0" * 64 + '","seq":0,"type":"roll"}'
    )
    assert event["hash"] == hashlib.sha256(text.encode()).hexdigest()


def test_worked_example_of_docs_ledger_md() -> None:
    event = chain(
        None,
        "roll",
        "Tarl",
        {"nonce": 0, "dice": ["d20", "d20", "d6"], "faces": [6, 14, 6]},
        AT,
    )
    assert event["hash"] == "d864e07982c082fc3198dd824edf98dbc68d4a18edf32836add5b7c342051ceb"


def test_next_event_links_to_previous() -> None:
    first, second = make_chain(2)
    assert (second["seq"], second["prev"]) == (1, first["hash"])
    assert second["hash"] == reference_hash(second) == event_hash(second)


def test_non_ascii_is_hashed_as_utf8_not_escaped() -> None:
    event = chain(None, "say", "Élise", {"text": "ça va ✓"}, AT)
    body = {k: v for k, v in event.items() if k != "hash"}
    escaped = json.dumps(body, sort_keys=True, separators=(",", ":"))  # ensure_ascii=True
    assert event["hash"] != hashlib.sha256(escaped.encode()).hexdigest()
    assert event["hash"] == reference_hash(event)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"damage": 1.5}, "float 1.5 at note.payload.damage"),
        ({"rolls": [1, 2.0]}, "float 2.0 at note.payload.rolls[1]"),
        ({"x": {"y": float("nan")}}, "float nan at note.payload.x.y"),
        ({"t": (1, 2)}, "tuple (1, 2) at note.payload.t is not JSON"),
        ({"k": {1: "a"}}, "key 1 at note.payload.k is not a string"),
    ],
)
def test_chain_rejects_non_json_and_floats(payload: dict[str, Any], message: str) -> None:
    with pytest.raises(RuleError) as err:
        chain(None, "note", None, payload, AT)
    assert message in str(err.value)


@pytest.mark.parametrize("at", ["2026-11-29 22:40:12", "2026-11-29T22:40:12+00:00", "", 5])
def test_chain_rejects_times_that_are_not_rfc3339_utc(at: Any) -> None:
    with pytest.raises(RuleError, match="is not RFC 3339 UTC"):
        chain(None, "note", None, {}, at)


def test_chain_rejects_a_previous_event_without_seq_and_hash() -> None:
    with pytest.raises(RuleError, match="previous event has no valid seq and hash"):
        chain({"seq": 0}, "note", None, {}, AT)


def test_utc_time_round_trips_through_the_format_check() -> None:
    assert verify_chain([chain(None, "note", None, {}, utc_time())]) == []


def test_intact_chain_has_no_problem() -> None:
    assert verify_chain(make_chain(6)) == []


def test_changed_payload_names_that_event() -> None:
    events = make_chain(6)
    events[3]["payload"]["text"] = "edited"
    assert [str(p) for p in verify_chain(events)] == [
        "event 3 (note): hash does not match the event (someone changed it)"
    ]


def test_changed_and_rehashed_event_breaks_the_next_link() -> None:
    events = make_chain(6)
    events[3]["payload"]["text"] = "edited"
    events[3]["hash"] = event_hash(events[3])
    problems = verify_chain(events)
    assert [(p.seq, p.check) for p in problems] == [(4, "chain")]
    assert str(problems[0]).startswith("event 4 (note): prev ")


def test_reordered_events_are_named() -> None:
    events = make_chain(6)
    events[2], events[3] = events[3], events[2]
    problems = verify_chain(events)
    assert str(problems[0]) == (
        "event 3 (note): seq 3 follows event 1 (expected 2: an event is missing or out of order)"
    )
    assert [p.seq for p in problems] == [3, 2, 4]


def test_dropped_event_is_named() -> None:
    events = make_chain(6)
    del events[2]
    assert [str(p) for p in verify_chain(events)] == [
        "event 3 (note): seq 3 follows event 1 (expected 2: an event is missing or out of order)"
    ]


def test_missing_key_and_bad_types_are_format_problems() -> None:
    events = make_chain(3)
    del events[1]["actor"]
    events[2]["payload"] = [1]
    problems = verify_chain(events)
    assert [(p.seq, p.check) for p in problems] == [(1, "format"), (2, "format")]
    assert problems[0].message.startswith("missing key 'actor'")
    assert problems[1].message == "payload is not an object"


def test_float_in_a_stored_event_is_a_problem_not_a_crash() -> None:
    events = make_chain(2)
    events[1]["payload"]["x"] = 0.5
    assert [p.message for p in verify_chain(events)] == [
        "float 0.5 at event.payload.x: events hold no floats (use integers)"
    ]


def test_extra_top_level_keys_are_covered_by_the_hash() -> None:
    event = chain(None, "note", None, {}, AT)
    event["visible_to"] = ["referee"]
    assert verify_chain([event])[0].message.startswith("hash does not match")
    event["hash"] = event_hash(event)
    assert verify_chain([event]) == []


def test_first_event_must_link_to_genesis() -> None:
    event = chain(None, "note", None, {}, AT)
    event["prev"] = "1" * 64
    event["hash"] = event_hash(event)
    assert verify_chain([event])[0].check == "chain"
    assert GENESIS == "0" * 64


json_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)
payloads = st.dictionaries(st.text(max_size=6), json_value, max_size=4)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(payloads, min_size=1, max_size=6), st.data())
def test_any_single_edit_is_caught_at_or_after_the_edited_event(
    items: list[dict[str, Any]], data: st.DataObject
) -> None:
    events: list[dict[str, Any]] = []
    last = None
    for payload in items:
        last = chain(last, "note", "x", payload, AT)
        events.append(last)
    assert verify_chain(events) == []
    target = data.draw(st.integers(0, len(events) - 1))
    events[target]["payload"]["__edit__"] = data.draw(json_leaf)
    problems = verify_chain(events)
    assert problems and problems[0].seq == target


@settings(max_examples=examples(100), deadline=None)
@given(
    payloads,
    st.text(min_size=1, max_size=8),
    st.none() | st.text(max_size=8),
    st.integers(0, 10**6),
)
def test_link_gives_the_payload_text_and_hashes_as_event_hash(
    payload: dict[str, Any], kind: str, actor: str | None, seq: int
) -> None:
    """What the store keeps: the payload's canonical JSON, and the very hash `event_hash`
    gives (quotes, backslashes, control characters and non-ASCII text included)."""
    prev = {"seq": seq, "hash": "ab" * 32}
    event, text = link(prev, kind, actor, payload, AT)
    assert text.encode("utf-8") == canonical_json(payload)
    assert event["hash"] == event_hash(event)
    assert event == chain(prev, kind, actor, payload, AT)
    assert (event["seq"], event["prev"]) == (seq + 1, "ab" * 32)


#: Text made of the pieces `link` cuts an event's text at (`,"payload":` and `,"prev":"`),
#: the keys themselves, and what a quote is escaped with.
cutting_text = st.lists(
    st.sampled_from([',"payload":', ',"prev":"', "payload", "prev", '"', "\\", ",", ":", "é"]),
    max_size=4,
).map("".join)
cutting_value = st.recursive(
    st.none() | st.integers() | cutting_text,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(cutting_text | st.sampled_from(["prev", "payload", "seq"]), inner)
    ),
    max_leaves=8,
)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.dictionaries(cutting_text | st.sampled_from(["prev", "payload"]), cutting_value),
    cutting_text.filter(bool),
    st.none() | cutting_text,
)
def test_the_payload_text_is_cut_right_whatever_the_texts_around_it_hold(
    payload: dict[str, Any], kind: str, actor: str | None
) -> None:
    """`link` cuts the payload's text out of the event's: an actor, a type or a payload whose
    texts or keys hold the very pieces it cuts at (`,"payload":`, `,"prev":"`, quotes) still
    gives the payload's own canonical JSON, the text `json.dumps` writes."""
    _, text = link({"seq": 4, "hash": "cd" * 32}, kind, actor, payload, AT)
    assert text == json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def test_link_refuses_a_lone_surrogate_in_the_actor() -> None:
    with pytest.raises(RuleError, match="lone surrogate"):
        link(None, "note", "\ud800", {}, AT)


def reference_plain(value: Any, depth: int = 0) -> bool:
    """`check_json`'s fast test as first written, one call per value (the oracle of `_plain`)."""
    if isinstance(value, str):
        return value.isascii() or encodable(value)
    if value is None or isinstance(value, int):
        return True
    if depth >= MAX_DEPTH:
        return False
    if type(value) is list:
        return all(reference_plain(item, depth + 1) for item in value)
    if type(value) is dict:
        return all(
            type(k) is str and (k.isascii() or encodable(k)) and reference_plain(v, depth + 1)
            for k, v in value.items()
        )
    return False


class Named(str):
    """A str subclass, as `EventType` is."""


class Count(int):
    """An int subclass."""


class Table(dict[str, Any]):
    """A dict subclass (not plain JSON to `check_json`)."""


def nested(value: Any, levels: int) -> Any:
    for i in range(levels):
        value = [value] if i % 2 else {"k": value}
    return value


# Anything `check_json` may be given: JSON, and what it must refuse or allow by type.
odd_text = st.text(alphabet='a"\\\n\x00é\u2028\ud800\udc00\U0001f600', max_size=6)
any_leaf = (
    json_leaf
    | odd_text
    | st.floats(allow_nan=True)
    | st.integers(-(10**30), 10**30)
    | odd_text.map(Named)
    | st.integers().map(Count)
    | st.just(5000).map(lambda digits: 10**digits)  # too long to write
)
any_value = st.recursive(
    any_leaf,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=2).map(tuple)
        | st.dictionaries(st.text(max_size=3) | odd_text, inner, max_size=3)
        | st.dictionaries(st.integers(0, 3) | st.none(), inner, max_size=2)
        | st.dictionaries(st.text(max_size=3), inner, max_size=2).map(Table)
    ),
    max_leaves=12,
)
any_deep_value = st.builds(nested, any_value, st.integers(MAX_DEPTH - 3, MAX_DEPTH + 2))


@settings(max_examples=examples(400), deadline=None)
@given(any_value | any_deep_value, st.integers(0, 3))
def test_check_json_refuses_exactly_what_it_refused_before(value: Any, depth: int) -> None:
    """`_plain` tests items in place by exact type; it refuses exactly what a call per value
    refused, and `check_json` says the same (its message comes from `_explain`)."""
    assert is_plain_json(value) == reference_plain(value)
    assert canonical._plain(value, depth) == reference_plain(value, depth)


@settings(max_examples=examples(300), deadline=None)
@given(any_value | any_deep_value)
def test_the_canonical_encoder_writes_what_json_dumps_writes(value: Any) -> None:
    """The encoder made once writes the very text of `json.dumps` with the canonical settings,
    and refuses a number too long to write as it does."""
    if not is_plain_json(value):
        return
    try:
        expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except ValueError as err:
        with pytest.raises(ValueError, match="digits"):
            checked_canonical_text(value)
        assert "digits" in str(err)
        return
    assert checked_canonical_text(value) == expected
    assert canonical_json(value) == expected.encode("utf-8")


@pytest.mark.parametrize(
    "payload",
    [{"t": "\ud800"}, {"\udc00": 1}, {"n": [1.0]}, {"a": (1,)}, {1: 2}, {"t": [{"x": 1e9}]}],
)
def test_link_refuses_what_check_json_refuses_with_its_message(payload: dict[Any, Any]) -> None:
    with pytest.raises(RuleError) as expected:
        check_json(payload, "note.payload")
    with pytest.raises(RuleError) as got:
        link(None, "note", "x", payload, AT)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize(
    ("kind", "actor", "message"),
    [
        ("n\ud800te", None, "text at event type has a lone surrogate"),
        ("note", "T\udc00rl", "text at event actor has a lone surrogate"),
    ],
)
def test_link_refuses_a_lone_surrogate_in_the_type_or_actor(
    kind: str, actor: str | None, message: str
) -> None:
    with pytest.raises(RuleError, match=message):
        link(None, kind, actor, {}, AT)


def test_link_takes_a_type_and_actor_of_any_valid_text() -> None:
    event, _ = link(None, "nöte", "Pa-Kur é", {}, AT)
    assert (event["type"], event["actor"]) == ("nöte", "Pa-Kur é")
    assert event["hash"] == event_hash(event)
