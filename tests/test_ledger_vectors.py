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
from referee.vocabulary import EVENT_TYPES, EventType
from tests.depth import examples
from tests.vectors.generate import (
    ANY,
    Shape,
    Vector,
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


@pytest.mark.parametrize("vector", spirit_vectors(), ids=lambda v: v.name)
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


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=shapes())
def test_fresh_valid_exports(shape: Shape, node: NodeVerifier) -> None:
    for vector in valid_vectors(shape):
        check(vector, node)
        COUNT["generated"] += 1


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
    """static/js/api.js's EVENT_TYPES (the SSE messages the console listens to) is the
    vocabulary's EVENT_TYPES, in the same order; a type the engine adds shows up in both."""
    api = STATIC_JS / "api.js"
    assert tuple(js_strings(api, r"export const EVENT_TYPES = \[(.*?)\];")) == EVENT_TYPES
    assert len(EVENT_TYPES) == len(set(EVENT_TYPES)) == 24


def test_the_browser_verifier_spells_the_ledger_event_types_as_the_vocabulary_does() -> None:
    verifier = STATIC_JS / "verifier.js"
    for const, kind in (
        ("SEED_ROTATED", EventType.SEED_ROTATED),
        ("CLOSED", EventType.CLOSED),
        ("ROLL", EventType.ROLL),
        ("OPENED", EventType.BOUT_OPENED),
    ):
        assert js_strings(verifier, rf"\nconst {const} = (\"[^\"]*\");") == [kind.value]
    # and the Python verifier reads the very same names
    assert (SEED_ROTATED, CLOSED, ROLL, OPENED) == (
        EventType.SEED_ROTATED,
        EventType.CLOSED,
        EventType.ROLL,
        EventType.BOUT_OPENED,
    )
