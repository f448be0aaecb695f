"""What the Second Life scripts need of the service: the glance route and positions from the
world (SRP `world_positions`, `at`, `target_at`), over HTTP on a live server."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.service_fixtures import LiveServer

SHEET = {"weapons": [{"name": "broadsword", "damage": 3}], "skills": {"broadsword": 15}, "hits": 12}


def _bout(live: LiveServer, system: str, rules: dict[str, Any] | None = None) -> tuple[str, str]:
    body: dict[str, Any] = {"system": system, "name": "Spar"}
    if rules is not None:
        body["rules"] = rules
    made = live.post("/api/bouts", json=body).json()
    return made["id"], made["referee_token"]


def _join(live: LiveServer, bout: str, name: str, **stats: Any) -> str:
    answer = live.post(f"/api/bouts/{bout}/join", json={"name": name, **stats})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["token"])


def test_glance_is_small_public_and_quiet_when_nothing_changed(live: LiveServer) -> None:
    bout, ref = _bout(live, "msv")
    _join(live, bout, "Tarl", cs=65)
    _join(live, bout, "Pa-Kur", cs=70, client_seed="abc")
    opened = live.get(f"/api/bouts/{bout}/glance").json()
    assert opened["status"] == "open" and opened["turn"] is None and opened["actions"] == {}
    assert opened["announce"] == "Spar between Tarl (CS 65) and Pa-Kur (CS 70)"
    assert "positions" not in opened  # MSV has no ground
    live.post(f"/api/bouts/{bout}/initiative", ref)
    seen = live.get(f"/api/bouts/{bout}/glance")
    doc = seen.json()
    assert len(seen.content) < 2048 and seen.headers["cache-control"] == "no-store"
    first, other = doc["turn"], next(f["name"] for f in doc["fighters"] if f["name"] != doc["turn"])
    assert doc["actions"] == {"attack": [other]}
    assert doc["fighters"][0] == {
        "name": "Tarl", "wounds": 0, "threshold": 15, "stunned": False, "down": False,
    }  # fmt: skip
    export = live.get(f"/api/bouts/{bout}/export").json()
    assert doc["hash"] == export["events"][-1]["hash"] and doc["seq"] == len(export["events"]) - 1
    assert doc["commitment"] == export["fairness"]["commitment"]
    quiet = live.get(f"/api/bouts/{bout}/glance?after={doc['seq']}")
    assert quiet.status_code == 204 and quiet.content == b""
    assert live.get(f"/api/bouts/{bout}/glance?after={doc['seq'] - 1}").json() == doc
    assert first in doc["turn"]


def test_glance_refuses_what_it_should(live: LiveServer) -> None:
    assert live.get("/api/bouts/nosuchbout/glance").status_code == 404
    assert live.get("/api/bouts/nosuchbout/glance?after=3").status_code == 404
    bout, _ = _bout(live, "msv")
    for bad in ("-2", "100001", "x", "1.5"):
        assert live.get(f"/api/bouts/{bout}/glance?after={bad}").status_code in (400, 422)


def test_glance_leaves_hidden_stats_out_and_gives_the_head_hash(live: LiveServer) -> None:
    """The HUD keeps the newest hash it saw: with a hidden stat in the bout the glance still
    gives the head's hash (the event that holds the stat is sealed, docs/ledger.md), and
    nothing of the stat."""
    bout, ref = _bout(live, "msv")
    live.post(f"/api/bouts/{bout}/fighters", ref, json={"name": "Tarl", "cs": 65, "hidden": ["cs"]})
    live.post(f"/api/bouts/{bout}/fighters", ref, json={"name": "Bosk", "cs": 60})
    doc = live.get(f"/api/bouts/{bout}/glance").json()
    assert doc["announce"] == "Spar between Tarl (CS hidden) and Bosk (CS 60)"
    assert doc["hash"] == live.store.events(bout)[-1]["hash"]
    assert not re.search(r"\b65\b", json.dumps(doc))


def test_srp_actions_take_positions_from_the_world_when_the_referee_says_so(
    live: LiveServer,
) -> None:
    bout, ref = _bout(live, "srp", {"world_positions": True})
    ann = _join(live, bout, "Ann", sheet=SHEET)
    _join(live, bout, "Orc", sheet=SHEET)
    live.post(f"/api/bouts/{bout}/initiative", ref)
    glance = live.get(f"/api/bouts/{bout}/glance").json()
    assert glance["positions"] == "world" and glance["turn"] == "Ann"
    assert "attack" in glance["actions"] and "move" not in glance["actions"]
    behind = {"target": "Orc", "at": [1000, 0, 0], "target_at": [1100, 0, 0]}
    hit = live.post(
        f"/api/bouts/{bout}/actions",
        ann,
        json={"actor": "Ann", "kind": "attack", "options": behind},
    )
    assert hit.status_code == 200, hit.text
    assert hit.json()["rear"] is True and hit.json()["effective_skill"] == 19  # SRP-14: +4
    placed = [
        e["payload"] for e in live.get(f"/api/bouts/{bout}/log").json() if e["type"] == "stat"
    ]
    assert {(p["target"], p["key"], p["value"]) for p in placed} >= {
        ("Ann", "x_cm", 1000), ("Orc", "x_cm", 1100), ("Orc", "facing", 0),
    }  # fmt: skip


def test_positions_from_the_world_are_refused_when_the_map_keeps_them(live: LiveServer) -> None:
    bout, ref = _bout(live, "srp")
    ann = _join(live, bout, "Ann", sheet=SHEET)
    _join(live, bout, "Orc", sheet=SHEET)
    live.post(f"/api/bouts/{bout}/initiative", ref)
    assert live.get(f"/api/bouts/{bout}/glance").json()["positions"] == "map"
    before = len(live.get(f"/api/bouts/{bout}/log").json())
    for options in (
        {"target": "Orc", "at": [0, 0, 0]},
        {"target": "Orc", "target_at": [100, 0, 0]},
    ):
        answer = live.post(
            f"/api/bouts/{bout}/actions",
            ann,
            json={"actor": "Ann", "kind": "attack", "options": options},
        )
        assert answer.status_code == 400 and "map's positions" in answer.json()["message"]
    assert len(live.get(f"/api/bouts/{bout}/log").json()) == before


def test_a_reported_position_is_checked(live: LiveServer) -> None:
    bout, ref = _bout(live, "srp", {"world_positions": True})
    ann = _join(live, bout, "Ann", sheet=SHEET)
    _join(live, bout, "Orc", sheet=SHEET)
    live.post(f"/api/bouts/{bout}/initiative", ref)
    for at in ([0, 0], [0, 0, 1.5], [0, True, 0], [10**7, 0, 0], [0, 0, 400], "here"):
        answer = live.post(
            f"/api/bouts/{bout}/actions",
            ann,
            json={"actor": "Ann", "kind": "attack", "options": {"target": "Orc", "at": at}},
        )
        assert answer.status_code in (400, 413, 422), (at, answer.text)


def test_glance_never_exceeds_what_a_script_reads(live: LiveServer) -> None:
    """32 fighters with 40-character names of 3 bytes a character: every answer still fits a
    Second Life script's default 2,048-byte read, keeps the asking fighter's row and the
    actor's, and says it was cut."""
    bout, ref = _bout(live, "msv")
    names = [("戦士" * 19) + chr(0x4E00 + i) + chr(0x4E80 + i) for i in range(32)]
    for name in names:
        added = live.post(f"/api/bouts/{bout}/fighters", ref, json={"name": name, "cs": 50})
        assert added.status_code == 201, added.text
    opened = live.get(f"/api/bouts/{bout}/glance")
    assert len(opened.content) <= 2048 and opened.json()["announce"] is None  # over 1,024 bytes
    live.post(f"/api/bouts/{bout}/initiative", ref)
    for asker in (names[7], names[31]):  # a row past the first 16 too
        seen = live.get(f"/api/bouts/{bout}/glance", params={"fighter": asker})
        doc = seen.json()
        assert len(seen.content) <= 2048 and doc["cut"] is True
        assert {row["name"] for row in doc["fighters"]} == {asker, doc["turn"]}
        foes = doc["actions"]["attack"]
        assert 1 <= len(foes) < 31 and doc["turn"] not in foes
    whole = live.get(f"/api/bouts/{bout}/glance", params={"fighter": names[0]})
    assert len(whole.content) <= 2048
    for after in ("-1", "100000"):  # a quiet poll is no excuse
        missing = live.get(
            f"/api/bouts/{bout}/glance", params={"fighter": "Nobody", "after": after}
        )
        assert missing.status_code == 404 and "Nobody" in missing.json()["message"]
    assert live.get(f"/api/bouts/{bout}/glance", params={"fighter": "x" * 41}).status_code == 422
    # A small bout is never cut.
    small, ref2 = _bout(live, "msv")
    _join(live, small, "Tarl", cs=65)
    _join(live, small, "Pa-Kur", cs=70)
    live.post(f"/api/bouts/{small}/initiative", ref2)
    assert "cut" not in live.get(f"/api/bouts/{small}/glance", params={"fighter": "Tarl"}).json()


def test_an_actions_said_fits_one_chat_message(live: LiveServer) -> None:
    """The HUD says an action's `said` in local chat as it is, and Second Life carries at most
    1,024 bytes a message: a reading that names a long weapon (a sheet's own name for it) is
    cut to fit, as the chat endpoint's answer is, never inside a letter."""
    bout, ref = _bout(live, "srp")
    sword = "\U00020000" * 200  # 200 letters (the most a weapon's name has), 800 bytes
    sheet = {"weapons": [{"name": sword, "damage": 3}], "skills": {sword: 15}, "hits": 12}
    ann, orc = "\U00020bb7" * 40, "\U00029e3d" * 40  # names of 40 letters, 160 bytes each
    tokens = {name: _join(live, bout, name, sheet=sheet) for name in (ann, orc)}
    assert live.post(f"/api/bouts/{bout}/initiative", ref).status_code == 200
    turn = live.get(f"/api/bouts/{bout}/glance").json()["turn"]
    foe = orc if turn == ann else ann
    body = {"actor": turn, "kind": "attack", "options": {"target": foe}}
    acted = live.post(f"/api/bouts/{bout}/actions", tokens[turn], json=body)
    assert acted.status_code == 200, acted.text
    said = acted.json()["said"]
    assert said.startswith(f"{turn} attacks {foe} with the {sword[:50]}")
    assert len(said.encode()) <= 1024 and said.endswith("...")
    whole = live.chat(bout, tokens[foe], "status")  # the chat endpoint cuts its answers so too
    assert whole.status_code == 200 and len(whole.content) <= 1024
