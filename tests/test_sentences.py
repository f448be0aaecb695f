"""One renderer per language: referee.sentences (Python) and static/js/sentences.js (the web
console) say every event type of both rule systems word for word alike, public views (hidden
stats redacted) as well as the referee's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from referee.sentences import roll_line, sentence, sentences
from referee.service.redaction import hidden_stats, redact_hidden
from referee.transcripts import bout_as_chat
from referee.vocabulary import EVENT_TYPES
from tests.every_event import every_event

STATIC_JS = Path(__file__).resolve().parent.parent / "src/referee/service/static/js"
SENTENCES_JS = (STATIC_JS / "sentences.js").as_uri()
TRANSCRIPT_JS = (STATIC_JS / "transcript.js").as_uri()
BOUTS = ("msv", "srp", "cancelled")


def node_says(batches: list[list[dict[str, Any]]], calls: list[list[Any]]) -> Any:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("Node.js is needed to run the console's renderer (Debian: nodejs)")
        pytest.skip("no Node.js here")
    script = (
        "let text = '';"
        "process.stdin.on('data', (d) => { text += d; });"
        "process.stdin.on('end', async () => {"
        f"  const m = await import({json.dumps(SENTENCES_JS)});"
        f"  const t = await import({json.dumps(TRANSCRIPT_JS)});"
        "  const input = JSON.parse(text);"
        "  const said = input.batches.map((events) => m.sentences(events));"
        "  const chat = input.batches.map((events) => t.boutAsChat(events));"
        "  const lines = input.calls.map(([roller, payload]) => m.rollLine(roller, payload));"
        "  console.log(JSON.stringify({ said, chat, lines }));"
        "});"
    )
    out = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps({"batches": batches, "calls": calls}),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def batches() -> list[list[dict[str, Any]]]:
    """Every bout as the referee sees it, and as everyone else does (hidden stats redacted)."""
    out = []
    for bout in BOUTS:
        records = every_event(bout)
        out.append(records)
        hidden = hidden_stats(records)
        if hidden:
            out.append(redact_hidden(records, hidden))
    return out


def test_every_event_type_of_both_systems_is_said_alike_in_python_and_javascript() -> None:
    views = batches()
    rolls = [(str(e["actor"]), e["payload"]) for view in views for e in view if e["type"] == "roll"]
    rolls += [
        ("Tarl", {"nonce": 3, "dice": ["d100"], "faces": [47], "stream": "act:Tarl"}),
        ("Tarl", {"nonce": 0, "dice": ["d6", "d6"], "faces": [2, 5], "stream": "free:Tarl"}),
    ]
    js = node_says(views, [list(r) for r in rolls])
    python = [sentences(view) for view in views]
    for said_py, said_js, view in zip(python, js["said"], views, strict=True):
        for py, j, event in zip(said_py, said_js, view, strict=True):
            assert py == j, event
    assert [roll_line(r, p) for r, p in rolls] == js["lines"]
    # and the chat transcript (`referee export --chat`, the console's "Copy as chat")
    for view, chat in zip(views, js["chat"], strict=True):
        assert bout_as_chat({"events": view}) == chat
    assert {e["type"] for view in views for e in view} == set(EVENT_TYPES)
    assert any(e.get("redacted") for view in views for e in view)


def said(
    kind: str, payload: dict[str, Any], system: str | None = None, actor: str = "system"
) -> str:
    return sentence({"type": kind, "actor": actor, "payload": payload}, system)


def test_sentences_name_the_systems_words() -> None:
    wound = {"target": "Orc", "amount": 1, "total": 5}
    assert said("wound", wound, "msv") == "Orc takes 1 damage (5 in all)"
    assert said("wound", wound, "srp") == "Orc takes 1 hit (5 in all)"
    lost = {"target": "Ann", "condition": "lost_action", "rounds": 2}
    assert said("condition", lost, "srp") == "Ann: loses an action (2 turns left)"
    assert said("stat", {"target": "Orc", "key": "mounted", "value": False}) == "Orc is on foot"
    assert said("stat", {"target": "Orc", "key": "pm", "value": "hidden"}) == (
        "Orc's pm is now hidden"
    )
    assert said("paused", {}, actor="referee") == "The bout is paused"


def test_a_roll_is_said_with_its_receipt() -> None:
    assert said("roll", {"nonce": 4, "dice": ["d20"], "faces": [9], "stream": "act:Ann"}) == (
        "d20 9 (nonce 4 of act:Ann)"
    )
    assert roll_line("Ann", {"nonce": 1, "dice": ["d20", "d6"], "faces": [9, 2]}) == (
        "Ann rolls d20 d6: 9 2 (nonce 1)"
    )
