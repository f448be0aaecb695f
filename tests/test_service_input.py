"""Typed input on every path of a real server on 127.0.0.1 (SQLite, PostgreSQL): an option that
is true or false takes a JSON boolean (a chat line's `true`/`false`), never text or a number read
as true; a refused request says which field and stores nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service_fixtures import LiveServer
from tests.test_service_trust import chain, srp_bout, whose_turn

#: What `rear` must never be read as true (or false) from: text, numbers, null, lists.
NOT_BOOLEANS: list[Any] = ["no", "false", "0", "", "yes", "true", 0, 1, None, [], {}]


def turn_pair(live: LiveServer, bid: str) -> tuple[str, str]:
    me = whose_turn(live, bid)
    return me, "Bran" if me == "Ann" else "Ann"


@pytest.mark.parametrize("value", NOT_BOOLEANS, ids=repr)
def test_rear_takes_a_json_boolean_only(shared_live: LiveServer, value: Any) -> None:
    bid, ref, _ = srp_bout(shared_live)
    me, foe = turn_pair(shared_live, bid)
    before = chain(shared_live, bid)
    attack = {"attacker": me, "target": foe, "rear": value}
    refused = shared_live.post(f"/api/bouts/{bid}/attacks", ref, json=attack)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"] == "rule_violation"
    assert refused.json()["message"].startswith(f"rear {value!r} is not true or false")
    action = {"actor": me, "kind": "disarm", "options": {"target": foe, "rear": value}}
    refused = shared_live.post(f"/api/bouts/{bid}/actions", ref, json=action)
    assert refused.status_code == 400 and "rear" in refused.json()["message"], refused.text
    assert chain(shared_live, bid) == before


@pytest.mark.parametrize("rear", [True, False])
def test_rear_true_and_false_are_read_as_given(live: LiveServer, rear: bool) -> None:
    bid, ref, _ = srp_bout(live)
    me, foe = turn_pair(live, bid)
    r = live.post(
        f"/api/bouts/{bid}/attacks", ref, json={"attacker": me, "target": foe, "rear": rear}
    )
    assert r.status_code == 200, r.text
    assert r.json()["rear"] is rear


def test_a_chat_line_reads_true_and_false_and_refuses_other_words(live: LiveServer) -> None:
    bid, ref, _ = srp_bout(live)
    me, foe = turn_pair(live, bid)
    before = chain(live, bid)
    for word in ("no", "yes", "0", "1", "off"):
        said = live.chat(bid, ref, f"act attack actor={me} target={foe} rear={word}")
        assert said.status_code == 400, said.text
        shown = int(word) if word.isdigit() else repr(word)
        assert said.text.startswith(f"error: rear {shown} is not true or false"), said.text
    assert chain(live, bid) == before
    said = live.chat(bid, ref, f"act attack actor={me} target={foe} rear=FALSE")
    assert said.status_code == 200, said.text
    action = next(e for e in live.store.events(bid)[::-1] if e["type"] == "action")
    assert action["payload"]["options"]["rear"] is False


BOW = {"name": "bow", "damage": 2, "effective_range_cm": 3000, "long_range_cm": 9000, "rof": 2}


def test_fire_that_is_not_aimed_or_rapid_is_refused_by_name(live: LiveServer) -> None:
    bout = live.post("/api/bouts", json={"system": "srp", "name": "Butts", "client_seed": "gm"})
    bid, ref = bout.json()["id"], bout.json()["referee_token"]
    archer = {"hits": 9, "skills": {"bow": 14}, "weapons": [BOW]}
    for name in ("Ann", "Bran"):
        r = live.post(f"/api/bouts/{bid}/fighters", ref, json={"name": name, "sheet": archer})
        assert r.status_code == 201, r.text
    assert live.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    me, foe = turn_pair(live, bid)
    before = chain(live, bid)
    for fire in ("volley", 3, True, ["aimed"], None):
        body = {"actor": me, "kind": "shoot", "options": {"target": foe, "fire": fire}}
        r = live.post(f"/api/bouts/{bid}/actions", ref, json=body)
        assert r.status_code == 400, r.text
        assert r.json()["message"] == f"fire {fire!r} is not one of: aimed, rapid"
    assert chain(live, bid) == before
    body = {"actor": me, "kind": "shoot", "options": {"target": foe, "fire": "rapid"}}
    assert live.post(f"/api/bouts/{bid}/actions", ref, json=body).status_code == 200


# -- JSON nested deeper than any route takes --------------------------------------------------

#: How deep the probe nested its bodies (2 KB of brackets).
DEPTH = 1_000


def deep(levels: int = DEPTH) -> str:
    return "[" * levels + "]" * levels


def body_with(field: str, levels: int) -> str:
    """A JSON body whose `field` holds a value nested `levels` deep (the whole body, for "")."""
    return deep(levels) if field == "" else f'{{"{field}": {deep(levels)}}}'


def json_bodies(live: LiveServer) -> list[tuple[str, str, str]]:
    """(method, path, field) of every operation that takes a JSON body, each field of its body
    (and "" for the whole body), from the service's own schema."""
    schema = live.get("/openapi.json").json()
    out = []
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            content = (operation.get("requestBody") or {}).get("content") or {}
            if "application/json" not in content:
                continue
            ref = content["application/json"]["schema"].get("$ref", "")
            model = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]] if ref else {}
            fields = [*sorted(model.get("properties") or {}), "extra", ""]
            out += [(method.upper(), path, field) for field in fields]
    return out


def test_json_nested_1000_deep_is_a_clear_4xx_on_every_route_and_changes_nothing(
    live: LiveServer,
) -> None:
    bid, ref, tokens = srp_bout(live)
    paths = {"bout_id": bid, "name": "Ann", "character_id": "no-such-character"}
    before = chain(live, bid)
    bouts = len(live.get("/api/bouts").json())
    tried = set()
    for method, path, field in json_bodies(live):
        url = path.format(**paths)
        body = body_with(field, DEPTH)
        # application/json takes the lean way on write routes; a `+json` type goes to FastAPI's
        # own handler; with and without an Idempotency-Key (whose digest reads the body).
        for kind, key in (("application/json", None), ("application/vnd.referee+json", "k-1")):
            headers = {"content-type": kind, **({"Idempotency-Key": key} if key else {})}
            r = live.request(method, url, ref, content=body, headers=headers)
            assert r.status_code == 400, (method, path, field, r.status_code, r.text)
            assert r.json() == {
                "error": "bad_request",
                "message": "the request body nests JSON arrays and objects more than 64 deep; "
                "nothing was stored",
            }
        tried.add(field)
    assert {"rules", "extra", "options", "sheet", "wounds"} <= tried
    # The chat endpoint reads a line of text, however it looks: a plain 400 line.
    said = live.chat(bid, tokens["Ann"], deep(500))
    assert said.status_code == 400 and said.text.startswith("error: not a command")
    assert chain(live, bid) == before and len(live.get("/api/bouts").json()) == bouts


def test_json_within_the_nesting_bound_is_judged_by_the_routes_as_before(
    live: LiveServer,
) -> None:
    # 64 levels in all are read, and refused by the fields' own bounds (never a 500); brackets
    # inside strings are text, however many.
    bid, ref, _ = srp_bout(live)
    paths = {"bout_id": bid, "name": "Ann", "character_id": "no-such-character"}
    before = chain(live, bid)
    for method, path, field in json_bodies(live):
        body = body_with(field, 63 if field else 64)
        url = path.format(**paths)
        r = live.request(
            method, url, ref, content=body, headers={"content-type": "application/json"}
        )
        assert 400 <= r.status_code < 500 and "nests JSON" not in r.text, (method, path, r.text)
    text = {"actor": "Ann", "kind": "pass", "options": {"note": "[{" * 90}}
    r = live.post(f"/api/bouts/{bid}/actions", ref, json=text)
    assert r.status_code in (400, 409) and "nests JSON" not in r.text, r.text
    judged = live.post("/api/judge", json={"log": "[" * 5000 + "{" * 5000})
    assert "nests JSON" not in judged.text, judged.text
    assert chain(live, bid) == before


# -- headers: what the schema states is what the service takes --------------------------------


def header_schema(live: LiveServer, path: str, method: str, name: str) -> dict[str, Any]:
    operation = live.get("/openapi.json").json()["paths"][path][method]
    found = [p for p in operation["parameters"] if p["name"].lower() == name.lower()]
    assert len(found) == 1, operation["parameters"]
    schema: dict[str, Any] = found[0]["schema"]
    return schema


def test_an_idempotency_key_the_schema_admits_is_taken_and_others_are_not(
    live: LiveServer,
) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    schema = header_schema(live, "/api/bouts/{bout_id}/rolls", "post", "Idempotency-Key")
    assert schema["type"] == "string" and (schema["minLength"], schema["maxLength"]) == (1, 255)
    bid, ref, _ = srp_bout(live)

    @given(key=st.from_regex(schema["pattern"], fullmatch=True))
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    def admitted(key: str) -> None:
        assert 1 <= len(key) <= 255
        r = live.post(
            f"/api/bouts/{bid}/rolls", ref, json={"dice": "1d6"}, headers={"Idempotency-Key": key}
        )
        assert r.status_code == 200, (key, r.text)

    admitted()
    before = chain(live, bid)
    for key in ("", "k" * 256, "caf\u00e9", "a b", "a\x7fb"):
        r = live.post(
            f"/api/bouts/{bid}/rolls",
            ref,
            json={"dice": "1d6"},
            headers={"Idempotency-Key": key.encode("latin-1")},  # type: ignore[dict-item]
        )
        assert r.status_code == 400, (key, r.text)
    assert chain(live, bid) == before


def test_a_last_event_id_the_schema_admits_is_taken_and_others_are_not(live: LiveServer) -> None:
    import httpx
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    schema = header_schema(live, "/api/bouts/{bout_id}/events", "get", "Last-Event-ID")
    bid, _, _ = srp_bout(live)
    url = f"{live.url}/api/bouts/{bid}/events"

    def status(last: str) -> int:
        with httpx.stream("GET", url, headers={"Last-Event-ID": last}, timeout=60) as r:
            if r.status_code == 200:
                assert next(r.iter_lines()) == "retry: 1000"
            return r.status_code

    @given(last=st.from_regex(schema["pattern"], fullmatch=True))
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    def admitted(last: str) -> None:
        assert len(last) <= schema["maxLength"] and -1 <= int(last) <= 100_000
        assert status(last) == 200, last

    admitted()
    for last in ("--1", "-2", "100001", "007", "5x", "1e3", "-0", "99999999999999"):
        assert status(last) == 400, last
