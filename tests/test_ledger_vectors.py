"""Both verifiers on every test vector: Python's and the browser's (the same ES module file the
page loads, run by Node), on the stored vectors and on fresh ones drawn each run.

Each vector carries the verdict it must get and the first event it must name; the two
verifiers must also agree exactly (verdict, every problem, every ruling, what went unchecked).
Where JavaScript cannot do what Python does (integers beyond 2^53), the browser must say so
plainly ("cannot verify here") rather than give a verdict. Any disagreement fails and prints
the vector.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.bout.replay import check_export
from referee.errors import RefereeError
from referee.ledger import (
    CLOSED,
    OPENED,
    ROLL,
    SEED_ROTATED,
    parse_export,
    verify_export,
)
from referee.ledger.record import opened_events
from referee.vocabulary import EVENT_TYPES, EventType
from tests.depth import examples
from tests.vectors.generate import (
    ANY,
    Shape,
    Vector,
    ruling_vectors,
    shapes,
    spirit_vectors,
    stored,
    tampered,
    texts_beyond_python,
    valid_vectors,
)

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "tests" / "vectors" / "run_js.mjs"
STATIC_JS = ROOT / "src" / "referee" / "service" / "static" / "js"
SAFE = 2**53 - 1

#: How many vectors this run gave each verifier (printed at the end of the module).
COUNT = {"stored": 0, "generated": 0}


class NodeVerifier:
    """One Node process running verifier.js on vectors, one JSON line each way."""

    def __init__(self, node: str) -> None:
        self.process = subprocess.Popen(
            [node, str(RUNNER), str(ROOT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def judge(self, vector: Vector) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        line = json.dumps({"text": vector.text, "partial": vector.partial})
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, "node stopped answering"
        result: dict[str, Any] = json.loads(answer)
        return result

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


@pytest.fixture(scope="module")
def node() -> Iterator[NodeVerifier]:
    found = shutil.which("node") or shutil.which("nodejs")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("Node.js is needed for the browser verifier's vectors (Debian: nodejs)")
        pytest.skip("no Node.js here")
    verifier = NodeVerifier(found)
    yield verifier
    verifier.close()
    print(f"\nvectors run by both verifiers: {COUNT}")


def unsafe_integers(value: Any) -> bool:
    """Whether the JSON value holds an integer JavaScript cannot hold exactly."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) > SAFE
    if isinstance(value, list):
        return any(unsafe_integers(v) for v in value)
    if isinstance(value, dict):
        return any(unsafe_integers(v) for v in value.values())
    return False


def python_judge(vector: Vector) -> dict[str, Any]:
    try:
        doc = parse_export(vector.text)
        report = verify_export(doc, partial=vector.partial)
    except RefereeError as err:
        return {"error": str(err)}
    result = {
        "verdict": report.verdict,
        "problems": [str(p) for p in report.problems],
        "rulings": [str(r) for r in report.rulings],
        "skipped": [s for s in report.skipped if not s.startswith("rules:")],
        "rolls": report.rolls,
        "last": list(report.last),
    }
    if unsafe_integers(doc):
        result["unsafe"] = True
    return result


def first_seq(vector: Vector) -> Any:
    doc = parse_export(vector.text)
    report = verify_export(doc, partial=vector.partial)
    return None if report.first is None else report.first.seq


def check(vector: Vector, node: NodeVerifier) -> None:
    """Python's verdict is the vector's; the browser's verifier says exactly the same."""
    python = python_judge(vector)
    js = node.judge(vector)
    shown = f"vector {vector.name!r}:\n{vector.text}\npython: {python}\njs: {js}"
    assert "crash" not in js, shown
    if "error" in python:
        assert vector.verdict == "error", shown
        assert "error" in js, shown
        if python["error"].startswith(("not a referee export", "an export is")):
            assert js["error"] == python["error"], shown
        return
    assert python["verdict"] == vector.verdict, shown
    if vector.verdict == "rejected" and vector.first != ANY:
        assert first_seq(vector) == vector.first, shown
    if python.pop("unsafe", False):
        assert "cannot" in js and "beyond 2^53" in js["cannot"], shown
        return
    assert js == python, shown


@pytest.mark.parametrize("index", range(len(stored())))
def test_every_stored_vector(index: int, node: NodeVerifier) -> None:
    vector = stored()[index]
    check(Vector(**vector), node)
    COUNT["stored"] += 1


@pytest.mark.parametrize("vector", texts_beyond_python(), ids=lambda v: v.name)
def test_texts_python_reads_its_own_way(vector: Vector, node: NodeVerifier) -> None:
    check(vector, node)
    COUNT["generated"] += 1


@pytest.mark.parametrize("vector", spirit_vectors() + spirit_vectors(2), ids=lambda v: v.name)
def test_spirit_combat_exports(vector: Vector, node: NodeVerifier) -> None:
    # SRP-17 rounds are ordinary events: both verifiers judge them alike; the rules replay
    # of `referee verify` decides every round again from its dice.
    check(vector, node)
    if vector.verdict == "verified":
        report = verify_export(parse_export(vector.text), replay=check_export)
        assert report.ok and report.verdict == "verified", report
        kinds = [e["payload"].get("kind") for e in json.loads(vector.text)["events"]]
        assert kinds.count("spirit") >= 4  # two rounds at least: action and outcome each
    COUNT["generated"] += 1


@pytest.mark.parametrize("vector", ruling_vectors(), ids=lambda v: v.name)
def test_rotations_and_notes_are_worded_alike(vector: Vector, node: NodeVerifier) -> None:
    # Every seed rotation is a ruling (who, when, after which roll), and a note's control
    # characters or lone surrogate are shown escaped, never as they are: both verifiers alike.
    check(vector, node)
    doc = parse_export(vector.text)
    texts = [str(r) for r in verify_export(doc).rulings]
    events = doc["events"]
    for i, event in enumerate(events):
        if event["type"] != SEED_ROTATED:
            continue
        before = [e["seq"] for e in events[:i] if e["type"] == ROLL]
        who = {"referee": "the referee", "system": "the service (its own rotation)"}
        assert (
            f"event {event['seq']} (seed_rotated): {who[event['actor']]} rotated the server seed "
            f"to seed {event['payload']['index']} at {event['at']}, after the roll at event "
            f"{before[-1]}"
        ) in texts
    for text in texts:
        assert text.isprintable() and text.encode("utf-8")
    notes = [t for t in texts if "(overridden)" in t]
    assert notes and notes[0].endswith(
        {
            "an override note with control characters": ": strap\\u000abroke\\u001b[2J\\u0007",
            "an override note with a lone surrogate, chain forged": ": x\\ud800y",
        }.get(vector.name, notes[0][-8:])
    )
    COUNT["generated"] += 1


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=shapes())
def test_fresh_valid_exports(shape: Shape, node: NodeVerifier) -> None:
    for vector in valid_vectors(shape):
        check(vector, node)
        COUNT["generated"] += 1
    # and the rules replay decides every action again, each roll from the stream it names
    closed = parse_export(valid_vectors(shape)[0].text)
    report = verify_export(closed, replay=check_export)
    assert report.ok, (shape, [str(p) for p in report.problems])


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), shape=shapes(8))
def test_fresh_tampered_exports(data: st.DataObject, shape: Shape, node: NodeVerifier) -> None:
    check(data.draw(tampered(shape)), node)
    COUNT["generated"] += 1


def js_strings(path: Path, pattern: str) -> list[str]:
    """The string literals of the first `pattern` match in a JS file (a const's value)."""
    found = re.search(pattern, path.read_text(encoding="utf-8"), re.S)
    assert found, f"{pattern!r} not in {path.name}"
    return re.findall(r'"([^"]*)"', found.group(1))


def test_the_console_names_every_event_type_as_the_vocabulary_does() -> None:
    """static/js/vocabulary.js's EventType (the console's, the browser verifier's and the SSE
    messages' names) is the vocabulary's EventType, name for name, in the same order; a type
    the engine adds shows up in both."""
    js = (STATIC_JS / "vocabulary.js").read_text(encoding="utf-8")
    body = re.search(r"export const EventType = Object\.freeze\(\{(.*?)\}\);", js, re.S)
    assert body, "EventType not in vocabulary.js"
    pairs = re.findall(r'^\s*([A-Z_]+): "([a-z_]+)",$', body.group(1), re.M)
    assert pairs == [(t.name, t.value) for t in EventType]
    assert len(EVENT_TYPES) == len(set(EVENT_TYPES)) == 28


def test_the_browser_verifier_spells_the_ledger_event_types_as_the_vocabulary_does() -> None:
    verifier = (STATIC_JS / "verifier.js").read_text(encoding="utf-8")
    assert "const { SEED_ROTATED, CLOSED, ROLL, BOUT_OPENED: OPENED } = EventType;" in verifier
    assert 'import { EventType } from "./vocabulary.js";' in verifier
    # and the Python verifier reads the very same names
    assert (SEED_ROTATED, CLOSED, ROLL, OPENED) == (
        EventType.SEED_ROTATED,
        EventType.CLOSED,
        EventType.ROLL,
        EventType.BOUT_OPENED,
    )


def test_both_verifiers_read_one_table_of_printable_characters() -> None:
    """Messages quote values as Python's repr does, which escapes what `str.isprintable` calls
    unprintable: a Unicode-version question. Both verifiers read one fixed table (Unicode 14.0,
    Python 3.11's), so they word a problem alike on any Python and in any browser."""
    import unicodedata

    from referee.ledger.printable import PRINTABLE_RANGES, printable, shown

    js = (STATIC_JS / "printable.js").read_text(encoding="utf-8")
    found = re.search(r"const PRINTABLE_RANGES =\n(.*?);\n", js, re.S)
    assert found is not None
    assert "".join(re.findall(r'"([^"]*)"', found.group(1))) == PRINTABLE_RANGES
    if unicodedata.unidata_version == "14.0.0":  # the table is Python 3.11's isprintable
        assert all(printable(chr(c)) == chr(c).isprintable() for c in range(0x110000))
    assert shown(["\U00018d80", "Ærnir 🗡", {"k": "\n"}]) == (
        "['\\U00018d80', 'Ærnir 🗡', {'k': '\\n'}]"
    )


@pytest.mark.parametrize(
    "value",
    [
        {"\U00018d80": 1, "\uffff": 2},  # a key beyond the BMP, unassigned in Unicode 14.0
        ["\U00018d80", "\U0001f5e1"],
        "\U00031350\u0378\u2028 \u00a0",
    ],
)
def test_characters_newer_than_unicode_14_are_worded_alike(value: Any, node: NodeVerifier) -> None:
    """Found by the generated vectors: a payload key outside the BMP got another message from
    Python than from verifier.js (Node's Unicode is newer than Python 3.11's)."""
    doc = json.loads(stored()[0]["text"])
    roll = next(i for i, e in enumerate(doc["events"]) if e["type"] == "roll")
    doc["events"][roll]["payload"]["nonce"] = value
    vector = Vector("a value beyond Unicode 14.0", json.dumps(doc, ensure_ascii=False), "rejected")
    check(Vector(vector.name, vector.text, "rejected", roll), node)


def schema_verdicts(node: NodeVerifier, doc: dict[str, Any]) -> list[bool]:
    """Each event of `doc` checked by the Node runner against static/schema/events.json."""
    vector = Vector("schema", json.dumps(doc, ensure_ascii=False), "verified")
    assert node.process.stdin is not None and node.process.stdout is not None
    node.process.stdin.write(json.dumps({"text": vector.text, "schema": True}) + "\n")
    node.process.stdin.flush()
    answer = json.loads(node.process.stdout.readline())
    assert "crash" not in answer, answer
    valid: list[bool] = answer["valid"]
    return valid


def test_the_browser_verifiers_tests_check_every_event_by_the_published_schema(
    node: NodeVerifier,
) -> None:
    """The JSON Schema made from the declared payload shapes, loaded under Node: every event
    of every valid vector fits it, Node's reading agrees with jsonschema-rs on every event of
    every vector, and a roll the schema refuses is one the verifiers reject as malformed."""
    from tests.every_event import every_event
    from tests.test_payload_shapes import python_verdicts

    docs = [{"events": every_event(bout)} for bout in ("msv", "srp", "cancelled")]
    for doc in docs:
        for record in doc["events"]:
            record.update(prev=None, hash=None)
    vectors = [Vector(**v) for v in stored()]
    for vector in vectors:
        try:
            doc = json.loads(vector.text)
        except ValueError:
            continue
        events = doc.get("events") if isinstance(doc, dict) else None
        if isinstance(events, list) and all(
            isinstance(e, dict) and isinstance(e.get("payload"), dict) for e in events
        ):
            docs.append(doc)
    refused = 0
    for doc in docs:
        # A sealed event's payload is its public part until the export opens it: the schema
        # is of whole payloads, so each is checked opened (one the export does not open, not).
        whole = {**doc, "events": opened_events(doc)}
        verdicts = schema_verdicts(node, whole)
        assert verdicts == python_verdicts(whole), doc
        if "bout" not in doc:
            assert all(verdicts)
            continue
        report = verify_export(doc, partial=True)
        named = {p.seq for p in report.problems if isinstance(p.seq, int)}
        for event, ok in zip(doc["events"], verdicts, strict=True):
            seq = event.get("seq")
            if event.get("type") == ROLL and not ok and isinstance(seq, int):
                refused += 1
                assert seq in named, event
        if report.verdict != "rejected":
            opened = doc.get("openings") or {}
            assert all(
                ok
                for event, ok in zip(doc["events"], verdicts, strict=True)
                if "sealed" not in event or str(event.get("seq")) in opened
            ), doc
    assert refused, "no vector has a roll the schema refuses"
