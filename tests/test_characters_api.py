"""Characters over HTTP (a real server on 127.0.0.1, SQLite and PostgreSQL): made with a new
key handed back once, listed, changed to a new version, joined to a bout with its id and
version in the join, and every bad key or id refused with nothing changed. The key is a bearer
secret: only its hash is stored, and no answer or log line says it."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from sqlalchemy import text

from referee.bout.replay import check_export
from referee.ledger import verify_export
from referee.store import token_hash
from tests.service_fixtures import LiveServer
from tests.test_ledger_vectors import NodeVerifier, check
from tests.test_ledger_vectors import node as node  # the fixture
from tests.vectors.generate import Vector

#: A sheet over the 4,096 bytes a character's may hold (within a request body's bounds).
BIG_SHEET = {f"k{n}": "x" * 200 for n in range(25)}
TARL = {"name": "Tarl", "system": "msv", "sheet": {"cs": 65}, "gear": ["rope", "torch"]}


def made(live: LiveServer, key: str | None = None, **body: Any) -> dict[str, Any]:
    r = live.post("/api/characters", key, json={**TARL, **body})
    assert r.status_code == 201, r.text
    return dict(r.json())


def key_header(key: str) -> dict[str, str]:
    return {"X-Character-Key": key}


def table_count(live: LiveServer, table: str) -> int:
    with live.store.engine.connect() as conn:
        return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar() or 0)


def test_a_first_character_makes_the_key_and_the_key_holds_the_next(live: LiveServer) -> None:
    first = made(live)
    key = first["key"]
    assert key.startswith("ck_") and len(key) == 35
    assert first["character"] == {
        "id": first["character"]["id"], "version": 1, "name": "Tarl", "system": "msv",
        "sheet": {"cs": 65}, "gear": ["rope", "torch"], "hidden": [],
    }  # fmt: skip
    second = made(live, key, name="Pa-Kur", sheet={"cs": 70})
    assert "key" not in second  # handed back once, when it is made
    listed = live.get("/api/characters", key).json()["characters"]
    assert [c["name"] for c in listed] == ["Pa-Kur", "Tarl"]
    # Only the key's hash is kept.
    with live.store.engine.connect() as conn:
        hashes = [r[0] for r in conn.execute(text("SELECT key_hash FROM character_keys"))]
    assert hashes == [token_hash(key)]
    assert all(key not in str(row) for row in _every_row(live))


def _every_row(live: LiveServer) -> list[Any]:
    rows: list[Any] = []
    with live.store.engine.connect() as conn:
        for table in ("character_keys", "characters", "character_versions", "events"):
            rows += conn.execute(text(f"SELECT * FROM {table}")).all()
    return rows


def test_a_change_is_a_new_version_and_the_old_one_stays(live: LiveServer) -> None:
    first = made(live)
    key, cid = first["key"], first["character"]["id"]
    r = live.request("PATCH", f"/api/characters/{cid}", key, json={"sheet": {"cs": 72}})
    assert r.status_code == 200, r.text
    assert (r.json()["version"], r.json()["sheet"], r.json()["gear"]) == (
        2,
        {"cs": 72},
        ["rope", "torch"],
    )
    assert live.get(f"/api/characters/{cid}", key).json()["version"] == 2
    assert live.store.character_version(cid, 1).sheet == {"cs": 65}


def test_bad_keys_and_ids_are_refused_and_change_nothing(live: LiveServer) -> None:
    first = made(live)
    key, cid = first["key"], first["character"]["id"]
    other = made(live)["key"]
    before = table_count(live, "character_versions"), table_count(live, "character_keys")
    unknown = "ck_" + "A" * 32
    cases = [
        ("GET", "/api/characters", None, None, 401, "needs a character key"),
        ("GET", "/api/characters", "not-a-key", None, 401, "not a character key"),
        ("GET", "/api/characters", unknown, None, 401, "unknown character key"),
        ("POST", "/api/characters", unknown, TARL, 401, "unknown character key"),
        ("GET", f"/api/characters/{cid}", other, None, 403, "held by another key"),
        ("PATCH", f"/api/characters/{cid}", other, {"sheet": {"cs": 1}}, 403, "another key"),
        ("GET", "/api/characters/nosuch", key, None, 404, "no character 'nosuch'"),
        ("PATCH", f"/api/characters/{cid}", key, {"sheet": {"cs": 500}}, 400, "CS must be"),
        ("POST", "/api/characters", key, {**TARL, "sheet": {"cs": 65, "x": 1}}, 400, ""),
        ("POST", "/api/characters", key, {**TARL, "name": "Tarl\u202e"}, 400, ""),
        ("POST", "/api/characters", key, {**TARL, "gear": ["x"] * 31}, 422, ""),
        ("POST", "/api/characters", key, {**TARL, "hidden": ["hits"]}, 400, "cannot hide"),
        ("POST", "/api/characters", key, {**TARL, "sheet": BIG_SHEET}, 413, "bytes of JSON"),
        ("POST", "/api/characters", key, {**TARL, "name": "T" * 41}, 422, ""),
    ]
    for method, path, given, body, status, words in cases:
        r = (
            live.request(method, path, given, json=body)
            if body
            else live.request(method, path, given)
        )
        assert r.status_code == status, (method, path, r.text)
        assert words in r.json()["message"]
        assert unknown not in r.text and key not in r.text and other not in r.text
    after = table_count(live, "character_versions"), table_count(live, "character_keys")
    assert after == before


def test_a_key_holds_at_most_fifty_characters(live: LiveServer) -> None:
    key = made(live)["key"]
    for n in range(49):
        made(live, key, name=f"Tarl {n}")
    r = live.post("/api/characters", key, json=TARL)
    assert r.status_code == 413 and "at most 50 characters" in r.json()["message"]


def test_a_joined_character_is_named_with_its_version_in_the_chain_and_the_export(
    live: LiveServer,
) -> None:
    first = made(live)
    key, cid = first["key"], first["character"]["id"]
    live.request("PATCH", f"/api/characters/{cid}", key, json={"sheet": {"cs": 72}})
    bout = live.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    r = live.post(
        f"/api/bouts/{bout['id']}/characters", json={"character": cid}, headers=key_header(key)
    )
    assert r.status_code == 201, r.text
    assert r.json()["name"] == "Tarl" and r.json()["character"] == {"id": cid, "version": 2}
    export = live.get(f"/api/bouts/{bout['id']}/export", bout["referee_token"]).json()
    joined = [e for e in export["events"] if e["type"] == "fighter_added"]
    assert joined[0]["payload"]["character"] == cid
    assert joined[0]["payload"]["character_version"] == 2
    assert joined[0]["payload"]["stats"] == {"cs": 72}
    # A join with another key's character, or with no key, changes nothing.
    other = made(live)["key"]
    seq = len(export["events"])
    for headers, status in ((key_header(other), 403), ({}, 401), (key_header("ck_x"), 401)):
        r = live.post(
            f"/api/bouts/{bout['id']}/characters", json={"character": cid}, headers=headers
        )
        assert r.status_code == status, r.text
    assert (
        len(live.get(f"/api/bouts/{bout['id']}/export", bout["referee_token"]).json()["events"])
        == seq
    )
    # Closed, the export verifies, the rules replayed, the join and its character included.
    assert live.post(f"/api/bouts/{bout['id']}/close", bout["referee_token"]).status_code == 200
    closed = live.get(f"/api/bouts/{bout['id']}/export").json()
    assert verify_export(closed, replay=check_export).ok


def test_an_npcs_hidden_stats_stay_hidden_in_lists_joins_and_exports(
    live: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    npc = made(live, name="Pa-Kur", sheet={"cs": 83}, hidden=["cs"])
    key, cid = npc["key"], npc["character"]["id"]
    assert live.get("/api/characters", key).json()["characters"][0]["sheet"] == {"cs": "hidden"}
    assert live.get(f"/api/characters/{cid}", key).json()["sheet"] == {"cs": 83}  # its holder
    bout = live.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    path = f"/api/bouts/{bout['id']}/characters"
    # A player cannot field an NPC: only the referee does.
    r = live.post(path, json={"character": cid}, headers=key_header(key))
    assert r.status_code == 400 and "the referee adds it" in r.json()["message"]
    r = live.post(path, bout["referee_token"], json={"character": cid}, headers=key_header(key))
    assert r.status_code == 201, r.text
    tarl = live.post(f"/api/bouts/{bout['id']}/join", json={"name": "Tarl", "cs": 65}).json()
    public = live.get(f"/api/bouts/{bout['id']}/export").json()
    theirs = live.get(f"/api/bouts/{bout['id']}/export", tarl["token"]).json()
    for doc in (public, theirs):
        added = next(e for e in doc["events"] if e["type"] == "fighter_added")
        assert added["payload"]["character"] == cid
        assert "83" not in str(added["payload"]["stats"])
    view = live.get(f"/api/bouts/{bout['id']}", tarl["token"]).text
    assert '"cs":83' not in view.replace(" ", "")
    assert key not in caplog.text


def test_both_verifiers_take_a_characters_join_and_refuse_it_changed(
    live: LiveServer, node: NodeVerifier
) -> None:
    first = made(live)
    key, cid = first["key"], first["character"]["id"]
    bout = live.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    path = f"/api/bouts/{bout['id']}/characters"
    assert live.post(path, json={"character": cid}, headers=key_header(key)).status_code == 201
    live.post(f"/api/bouts/{bout['id']}/join", json={"name": "Pa-Kur", "cs": 70})
    live.post(f"/api/bouts/{bout['id']}/initiative", bout["referee_token"])
    live.post(f"/api/bouts/{bout['id']}/close", bout["referee_token"])
    export = live.get(f"/api/bouts/{bout['id']}/export").json()
    check(Vector("character join", json.dumps(export), "verified"), node)
    changed = json.loads(json.dumps(export))
    joined = next(e for e in changed["events"] if e["type"] == "fighter_added")
    joined["payload"]["character_version"] = 7  # another sheet than the one that fought
    check(Vector("character changed", json.dumps(changed), "rejected", joined["seq"]), node)


def chat(live: LiveServer, bout_id: str, line: str, key: str | None = None) -> Any:
    headers = {"content-type": "text/plain", **(key_header(key) if key else {})}
    return live.post(f"/api/bouts/{bout_id}/chat", content=line, headers=headers)


def test_a_chat_client_makes_lists_changes_and_fights_with_its_key(live: LiveServer) -> None:
    key = made(live)["key"]  # Tarl, CS 65
    bout = live.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    bid = bout["id"]
    r = chat(live, bid, "char new Pa-Kur cs=70", key)
    assert (r.status_code, r.text) == (200, "Saved Pa-Kur (MSV, version 1).")
    r = chat(live, bid, "char set pa-kur cs=72", key)
    assert r.text == "Saved Pa-Kur (MSV, version 2)."
    listed = chat(live, bid, "char list", key).text
    assert listed == "Your characters: Pa-Kur (MSV v2: CS 72); Tarl (MSV v1: CS 65)"
    r = chat(live, bid, "join tarl", key)
    assert r.status_code == 200 and r.text.startswith(
        "Tarl joins the bout (your character, version 1)"
    )
    assert key not in r.text
    live.post(f"/api/bouts/{bid}/join", json={"name": "Orc", "cs": 40})
    live.post(f"/api/bouts/{bid}/initiative", bout["referee_token"])
    # The key acts for Tarl: no token needed.
    assert chat(live, bid, "status", key).status_code == 200
    assert chat(live, bid, "status").status_code == 401
    # Bad keys: 401 with one error line, and nothing stored.
    before = table_count(live, "character_versions")
    for given in (None, "ck_short", "ck_" + "Z" * 32):
        r = chat(live, bid, "char new Bob cs=50", given)
        assert r.status_code == 401 and r.text.startswith("error: ")
        assert (given or "ck_") not in r.text or given is None
    assert chat(live, bid, "char new Bob cs=500", key).status_code == 400
    assert table_count(live, "character_versions") == before


def test_a_chat_list_never_says_an_npcs_hidden_stat(live: LiveServer) -> None:
    key = made(live, name="Pa-Kur", sheet={"cs": 83}, hidden=["cs"])["key"]
    bout = live.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    listed = chat(live, bout["id"], "char list", key).text
    assert listed == "Your characters: Pa-Kur (MSV v1: CS hidden)"
    r = chat(live, bout["id"], "join Pa-Kur", key)
    assert r.status_code == 400 and "the referee adds it" in r.text


def test_a_character_carried_to_the_next_fight_is_still_its_keys(live: LiveServer) -> None:
    # An evening's next fight carries the fighter as the character it is: its join there names
    # the character and the version that first joined, and the player's key acts for it still.
    key = made(live)["key"]  # Tarl, CS 65
    bout = live.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    bid, ref = bout["id"], bout["referee_token"]
    assert chat(live, bid, "join tarl", key).status_code == 200
    live.post(f"/api/bouts/{bid}/join", json={"name": "Orc", "cs": 40})
    live.post(f"/api/bouts/{bid}/initiative", ref)
    r = live.post(f"/api/bouts/{bid}/next", ref, json={"minutes": 10, "reason": "a rest"})
    assert r.status_code == 200, r.text
    bid2 = r.json()["id"]
    joins = {
        e["payload"]["name"]: e["payload"]
        for e in live.get(f"/api/bouts/{bid2}/log").json()
        if e["type"] == "fighter_added"
    }
    first = next(
        e["payload"]
        for e in live.get(f"/api/bouts/{bid}/log").json()
        if e["type"] == "fighter_added" and e["payload"]["name"] == "Tarl"
    )
    assert (joins["Tarl"]["character"], joins["Tarl"]["character_version"]) == (
        first["character"],
        1,
    )
    assert joins["Tarl"]["carried"] is True and "character" not in joins["Orc"]
    live.post(f"/api/bouts/{bid2}/initiative", r.json()["referee_token"])
    assert chat(live, bid2, "status", key).status_code == 200  # the key acts for Tarl there
    assert chat(live, bid2, "status").status_code == 401
