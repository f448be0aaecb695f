"""`POST /api/judge` on a real service: the verdict document, and a clear 4xx for bad input."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.browser_fixtures import web  # noqa: F401
from tests.service_fixtures import LiveServer

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "pakur-stun.log"


def test_judge_a_pasted_log(web: LiveServer) -> None:  # noqa: F811
    text = EXAMPLE.read_text(encoding="utf-8")
    r = web.post("/api/judge", json={"log": text})
    assert r.status_code == 200, r.text
    doc = r.json()
    assert (doc["winner"], doc["damage_dealt"], doc["attacks"]) == (
        "Tarl",
        {"Tarl": 16, "Pa-Kur": 0},
        6,
    )
    assert [(a["line"], a["kind"]) for a in doc["anomalies"]] == [(8, "forged"), (9, "out-of-turn")]
    assert doc["verdict"].startswith("Verdict: Tarl wins")
    assert doc["fighters"] == [{"name": "Tarl", "cs": 65}, {"name": "Pa-Kur", "cs": 70}]
    assert (doc["source"], doc["order"], doc["threshold"]) == (
        "announced on line 1",
        ["Tarl", "Pa-Kur"],
        15,
    )
    assert len(doc["lines"]) == 15
    assert doc["lines"][8] == {
        "line": 9,
        "text": "[2026/11/29 21:05]  OnlineHost: Pa-Kur rolled 1 100-sided die: 55",
        "roll": True,
        "anomaly": True,
        "notes": ["! out-of-turn: it is Tarl's free attack (MSV-4)"],
    }
    assert "content-security-policy" not in r.headers  # an API answer, not a console page


def test_fighters_and_rules_in_the_body(web: LiveServer) -> None:  # noqa: F811
    body = {
        "log": EXAMPLE.read_text(encoding="utf-8"),
        "fighters": ["Tarl=65", "Pa-Kur=70", ""],
        "rules": {"critical_effect": "none", "defeat_threshold": 10},
    }
    doc = web.post("/api/judge", json=body).json()
    assert (doc["winner"], doc["damage_dealt"], doc["source"]) == (
        None,
        {"Tarl": 8, "Pa-Kur": 4},
        "given",
    )


@pytest.mark.parametrize(
    ("body", "status", "code", "message"),
    [
        ({"log": ""}, 400, "bad_notation", "the log is empty"),
        ({"log": "Tarl: hi"}, 400, "bad_notation", "the log has no roll lines"),
        (
            {"log": "OnlineHost: A rolled 1 100-sided die: 4"},
            400,
            "bad_notation",
            "announces no spar",
        ),
        ({"log": "x\x00\x01\x02\x03" * 30}, 400, "bad_notation", "is not text"),
        (
            {"log": "OnlineHost: A rolled 1 100-sided die: 4", "fighters": ["A"]},
            400,
            "bad_notation",
            "bad fighter 'A'",
        ),
        (
            {"log": "OnlineHost: A rolled 1 100-sided die: 4", "fighters": ["A=5", "B=6"]},
            400,
            "bad_notation",
            "fighter 'B' (given) never rolls",
        ),
        ({"log": "x", "rules": {"dmg": 3}}, 400, "bad_rule_pack", "unknown key 'dmg'"),
        (
            {"log": "OnlineHost: A rolled 1 100-sided die: 4", "export": {"events": []}},
            400,
            "bad_notation",
            "not a referee export",
        ),
        ({"text": "x"}, 422, "bad_request", "log"),
        ({"log": "x", "extra": 1}, 422, "bad_request", "extra"),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_bad_input_is_a_clear_4xx(
    web: LiveServer,  # noqa: F811
    body: object,
    status: int,
    code: str,
    message: str,
) -> None:
    r = web.post("/api/judge", json=body)
    assert r.status_code == status, r.text
    assert r.json()["error"] == code
    assert message in r.json()["message"]


def test_the_body_limit_is_256_kib_here_and_16_kib_elsewhere(web: LiveServer) -> None:  # noqa: F811
    line = "OnlineHost: Tarl rolled 1 100-sided die: 47\n"
    fits = {"log": "Spar between Tarl (CS 65) and Pa-Kur (CS 70)\n" + line * 3000}
    r = web.post("/api/judge", json=fits)
    assert r.status_code == 400, r.text  # 130 KB is read; Pa-Kur never rolls
    assert "'Pa-Kur' (announced on line 1) never rolls" in r.json()["message"]
    r = web.post("/api/judge", json={"log": line * 6000})
    assert (r.status_code, r.json()["error"]) == (413, "too_large")
    assert r.json()["message"] == "request body over 262144 bytes"
    r = web.post("/api/bouts", json={"system": "msv", "name": "x" * 20_000})
    assert (r.status_code, r.json()["message"]) == (413, "request body over 16384 bytes")
    r = httpx.post(
        f"{web.url}/api/judge",
        content=b"\xff\xfe\x00binary",
        headers={"content-type": "application/json"},
    )
    assert (r.status_code, r.json()["message"]) == (400, "There was an error parsing the body")
