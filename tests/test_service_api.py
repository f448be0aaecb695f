"""The HTTP contract, over a real server on 127.0.0.1 and a real database (SQLite, PostgreSQL).

These use the tiny "coin" rule system so that every answer is about the service itself; the
MSV and SRP bouts over HTTP are in test_service_bouts.py.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from referee.ledger import verify_export
from referee.rng import commitment, verifiable_faces
from referee.store.schema import SCHEMA_VERSION
from tests import coin_system  # noqa: F401  (registers the "coin-test" rule system)
from tests.service_fixtures import LiveServer, start_server


def open_bout(live: LiveServer, **extra: Any) -> dict[str, Any]:
    r = live.post("/api/bouts", json={"system": "coin-test", "name": "Test bout", **extra})
    assert r.status_code == 201, r.text
    return dict(r.json())


def add(live: LiveServer, bout: dict[str, Any], name: str, **extra: Any) -> str:
    r = live.post(
        f"/api/bouts/{bout['id']}/fighters",
        bout["referee_token"],
        json={"name": name, "sheet": {"power": 1}, **extra},
    )
    assert r.status_code == 201, r.text
    assert r.json()["name"] == name
    return str(r.json()["token"])


def started(live: LiveServer) -> tuple[dict[str, Any], dict[str, str]]:
    bout = open_bout(live, client_seed="table")
    tokens = {name: add(live, bout, name) for name in ("A", "B")}
    r = live.post(f"/api/bouts/{bout['id']}/initiative", bout["referee_token"])
    assert r.status_code == 200, r.text
    return bout, tokens


def test_healthz(live: LiveServer) -> None:
    r = live.get("/healthz")
    assert r.status_code == 200 and r.json()["status"] == "ok"
    assert r.json()["schema"] == SCHEMA_VERSION


def test_create_publishes_the_commitment_before_any_roll(live: LiveServer) -> None:
    bout = open_bout(live, client_seed="table")
    assert set(bout) >= {"id", "referee_token", "commitment", "client_seed"}
    assert bout["client_seed"] == "table"
    assert len(bout["commitment"]) == 64
    view = live.get(f"/api/bouts/{bout['id']}").json()
    assert view["commitment"] == bout["commitment"]
    assert {"id", "system", "fighters", "turn", "winner"} <= set(view)


def test_a_drawn_client_seed_is_shown(live: LiveServer) -> None:
    bout = open_bout(live)
    assert len(bout["client_seed"]) == 16


def test_fighters_need_the_referee_token(live: LiveServer) -> None:
    bout = open_bout(live)
    token_a = add(live, bout, "A")
    body = {"name": "X", "sheet": {}}
    assert live.post(f"/api/bouts/{bout['id']}/fighters", json=body).status_code == 401
    assert (
        live.post(f"/api/bouts/{bout['id']}/fighters", "nonsense-token", json=body).status_code
        == 401
    )
    assert live.post(f"/api/bouts/{bout['id']}/fighters", token_a, json=body).status_code == 403
    other = open_bout(live)
    assert (
        live.post(
            f"/api/bouts/{bout['id']}/fighters", other["referee_token"], json=body
        ).status_code
        == 403
    )


def test_an_attack_rolls_verifiable_dice_in_turn(live: LiveServer) -> None:
    bout, tokens = started(live)
    view = live.get(f"/api/bouts/{bout['id']}").json()
    first = view["turn"]
    second = "B" if first == "A" else "A"
    body = {"attacker": second, "target": first}
    assert (
        live.post(f"/api/bouts/{bout['id']}/attacks", tokens[second], json=body).status_code == 409
    )
    assert (
        live.post(
            f"/api/bouts/{bout['id']}/attacks",
            tokens[second],
            json={"attacker": first, "target": second},
        ).status_code
        == 403
    )
    r = live.post(
        f"/api/bouts/{bout['id']}/attacks",
        tokens[first],
        json={"attacker": first, "target": second},
    )
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["rolls"][0]["dice"] == ["d6"]
    # the attacker's own stream: its initiative roll took nonce 0 (the other fighter's initiative
    # roll was drawn from that fighter's stream, so it moved nothing here)
    assert (answer["rolls"][0]["stream"], answer["rolls"][0]["nonce"]) == (f"act:{first}", 1)
    assert answer["face"] == answer["rolls"][0]["faces"][0]


def test_close_reveals_the_seed_and_every_face_checks(live: LiveServer) -> None:
    bout, tokens = started(live)
    for _ in range(4):
        view = live.get(f"/api/bouts/{bout['id']}").json()
        if view["winner"]:
            break
        me = view["turn"]
        foe = "B" if me == "A" else "A"
        r = live.post(
            f"/api/bouts/{bout['id']}/attacks", tokens[me], json={"attacker": me, "target": foe}
        )
        assert r.status_code == 200, r.text
    assert live.post(f"/api/bouts/{bout['id']}/close", tokens["A"]).status_code == 403
    r = live.post(f"/api/bouts/{bout['id']}/close", bout["referee_token"])
    assert r.status_code == 200
    seed = r.json()["server_seed"]
    assert commitment(seed) == bout["commitment"]
    export = live.get(f"/api/bouts/{bout['id']}/export").json()
    assert export["fairness"]["server_seed"] == seed
    rolls = [e["payload"] for e in export["events"] if e["type"] == "roll"]
    for stream in {"act:A", "act:B"}:  # nonces run from 0 per stream
        mine = [p["nonce"] for p in rolls if p["stream"] == stream]
        assert mine == list(range(len(mine)))
    for p in rolls:
        sides = [int(d[1:]) for d in p["dice"]]
        client = export["fairness"]["client_seed"]
        expected = verifiable_faces(seed, client, p["nonce"], sides, p["stream"])
        assert p["faces"] == list(expected)
    # After the close nothing more happens.
    r = live.post(
        f"/api/bouts/{bout['id']}/attacks", tokens["A"], json={"attacker": "A", "target": "B"}
    )
    assert r.status_code == 409


def test_referee_powers_pause_resume_skip_void(live: LiveServer) -> None:
    bout, tokens = started(live)
    bid, ref = bout["id"], bout["referee_token"]
    assert live.post(f"/api/bouts/{bid}/pause", tokens["A"]).status_code == 403
    assert live.post(f"/api/bouts/{bid}/pause", ref).status_code == 200
    view = live.get(f"/api/bouts/{bid}").json()
    me = view["turn"]
    foe = "B" if me == "A" else "A"
    r = live.post(f"/api/bouts/{bid}/attacks", tokens[me], json={"attacker": me, "target": foe})
    assert r.status_code == 409 and "paused" in r.json()["message"]
    assert live.post(f"/api/bouts/{bid}/resume", ref).status_code == 200
    assert live.post(f"/api/bouts/{bid}/skip", ref).status_code == 200
    assert live.get(f"/api/bouts/{bid}").json()["turn"] == foe
    r = live.post(f"/api/bouts/{bid}/attacks", ref, json={"attacker": foe, "target": me})
    assert r.status_code == 200
    assert live.post(f"/api/bouts/{bid}/void", ref).status_code == 200
    view = live.get(f"/api/bouts/{bid}").json()
    assert view["turn"] == foe
    assert all(f["wounds"] == 0 for f in view["fighters"])


def test_bad_requests_get_json_errors_and_change_nothing(live: LiveServer) -> None:
    bout, _tokens = started(live)
    bid, ref = bout["id"], bout["referee_token"]
    before = live.get(f"/api/bouts/{bid}/log").json()
    cases = [
        live.post("/api/bouts", json={"system": "chess", "name": "x"}),
        live.post("/api/bouts", json={"system": "coin-test"}),
        live.post("/api/bouts", content=b"{not json", headers={"content-type": "application/json"}),
        live.post(f"/api/bouts/{bid}/fighters", ref, json={"name": "", "sheet": {}}),
        live.post(f"/api/bouts/{bid}/fighters", ref, json={"name": "Z", "sheet": {"speed": 3}}),
        live.post(f"/api/bouts/{bid}/fighters", ref, json={"name": "A", "sheet": {}}),
        live.post(f"/api/bouts/{bid}/attacks", ref, json={"attacker": "Nobody", "target": "A"}),
        live.post(f"/api/bouts/{bid}/override", ref, json={"of": 0, "wounds": {"A": 1}}),
        live.post("/api/bouts/no-such-bout/initiative", ref),
        live.get("/api/bouts/no-such-bout"),
        live.post(f"/api/bouts/{bid}/pause", ref, headers={"Authorization": "Basic abc"}),
    ]
    for r in cases:
        assert 400 <= r.status_code < 500, (r.status_code, r.text)
        body = r.json()
        assert body["error"] and body["message"], body
    assert live.get(f"/api/bouts/{bid}/log").json() == before


def test_oversized_requests_are_refused(live: LiveServer) -> None:
    r = live.post(
        "/api/bouts", json={"system": "coin-test", "name": "x", "rules": {"pad": "x" * 20_000}}
    )
    assert r.status_code == 413
    assert r.json()["error"] == "too_large"


def test_chat_endpoint_answers_in_plain_text(live: LiveServer) -> None:
    bout, tokens = started(live)
    bid = bout["id"]
    r = live.chat(bid, tokens["A"], "//roll -sides100 -dice1")
    assert r.status_code == 200, r.text
    assert r.text.startswith("OnlineHost: A rolled 1 100-sided die: ")
    assert len(r.content) <= 1024
    r = live.chat(bid, tokens["A"], "score")
    assert r.status_code == 200 and "A 0/3" in r.text
    r = live.chat(bid, tokens["A"], "dance wildly")
    assert r.status_code == 400 and r.text == (
        "error: not a command: 'dance wildly' (say `help` for the list)"
    )


def test_openapi_lists_the_contract(live: LiveServer) -> None:
    paths = live.get("/openapi.json").json()["paths"]
    for path in (
        "/healthz",
        "/api/bouts",
        "/api/bouts/{bout_id}",
        "/api/bouts/{bout_id}/fighters",
        "/api/bouts/{bout_id}/initiative",
        "/api/bouts/{bout_id}/attacks",
        "/api/bouts/{bout_id}/close",
        "/api/bouts/{bout_id}/export",
        "/api/bouts/{bout_id}/events",
        "/api/bouts/{bout_id}/chat",
    ):
        assert path in paths, path


def test_tokens_are_stored_only_as_hashes(live: LiveServer) -> None:
    bout, tokens = started(live)
    from sqlalchemy import text

    engine = live.store._engine
    with engine.connect() as conn:
        dump = " ".join(str(row) for row in conn.execute(text("SELECT * FROM tokens")))
        dump += " ".join(str(row) for row in conn.execute(text("SELECT * FROM bouts")))
    for token in (bout["referee_token"], *tokens.values()):
        assert token not in dump


def test_hand_over_gives_a_new_referee_token_and_retires_the_old(live: LiveServer) -> None:
    bout, tokens = started(live)
    bid, old = bout["id"], bout["referee_token"]
    r = live.post(f"/api/bouts/{bid}/handover", tokens["A"])
    assert r.status_code == 403
    r = live.post(f"/api/bouts/{bid}/handover", old)
    assert r.status_code == 200
    new = r.json()["referee_token"]
    assert live.post(f"/api/bouts/{bid}/pause", old).status_code == 401
    assert live.post(f"/api/bouts/{bid}/pause", new).status_code == 200
    log = live.get(f"/api/bouts/{bid}/log").json()
    assert log[0]["payload"]["commitment"] == bout["commitment"]
    assert [e["type"] for e in log][-2:] == ["referee_changed", "paused"]


def test_long_bouts_rotate_their_server_seed(tmp_path: Path) -> None:
    """After `rotate_every` rolls the seed is revealed and a new one committed; all verifies."""
    server, thread, store, url = start_server(str(tmp_path / "rotate.db"), rotate_every=3)
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            bout = client.post("/api/bouts", json={"system": "coin-test", "name": "Long"}).json()
            auth = {"Authorization": f"Bearer {bout['referee_token']}"}
            nonces = []
            for _ in range(7):
                r = client.post(
                    f"/api/bouts/{bout['id']}/rolls", json={"dice": "1d6"}, headers=auth
                )
                nonces.append(r.json()["nonce"])
            assert nonces == [0, 1, 2, 0, 1, 2, 0]
            # The referee throws the rest of seed 2 away: a ruling, like the service's own.
            rotated = client.post(f"/api/bouts/{bout['id']}/rotate-seed", headers=auth)
            assert rotated.status_code == 200, rotated.text
            client.post(f"/api/bouts/{bout['id']}/close", headers=auth)
            export = client.get(f"/api/bouts/{bout['id']}/export").json()
            assert len(export["fairness"]["rotations"]) == 3
            events = export["events"]
            assert [e["type"] for e in events].count("seed_rotated") == 3
            report = verify_export(export)
            assert report.ok
            said = [str(r) for r in report.rulings if r.type == "seed_rotated"]
            expected = []
            for i, e in enumerate(events):
                if e["type"] == "seed_rotated":
                    who = (
                        "the referee"
                        if e["actor"] == "referee"
                        else "the service (its own rotation)"
                    )
                    roll = [r["seq"] for r in events[:i] if r["type"] == "roll"][-1]
                    expected.append(
                        f"event {e['seq']} (seed_rotated): {who} rotated the server seed to seed "
                        f"{e['payload']['index']} at {e['at']}, after the roll at event {roll}"
                    )
            assert said == expected and [
                e["actor"] for e in events if e["type"] == "seed_rotated"
            ] == ["system", "system", "referee"]
    finally:
        server.stop()
        thread.join(10)
        store.close()


def test_systems_are_listed(live: LiveServer) -> None:
    systems = {s["name"]: s for s in live.get("/api/systems").json()}
    assert systems["msv"]["actions"] == ["attack"]
    assert "attack" in systems["srp"]["actions"] and "disarm" in systems["srp"]["actions"]


def test_the_console_is_served_with_a_strict_policy(live: LiveServer) -> None:
    page = live.get("/")
    assert page.status_code == 200 and "<html" in page.text.lower()
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    api = live.get("/healthz")
    assert "content-security-policy" not in api.headers
    assert api.headers["referrer-policy"] == "no-referrer"


def test_the_favicon_is_served_where_browsers_ask_for_it(live: LiveServer) -> None:
    """Browsers ask for /favicon.ico by themselves: an icon, not a 404 on every first load;
    every page names the SVG one."""
    ico = live.get("/favicon.ico")
    assert ico.status_code == 200 and ico.headers["content-type"] == "image/x-icon"
    assert ico.content[:4] == b"\x00\x00\x01\x00"  # an ICO file's header
    svg = live.get("/static/favicon.svg")
    assert svg.status_code == 200 and svg.text.startswith("<svg")
    for page in ("index", "referee", "fighter", "join", "board", "verify", "judge", "lab"):
        html = live.get(f"/static/{page}.html").text
        assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in html, page


def test_the_live_stream_of_an_unknown_bout_is_a_404(live: LiveServer) -> None:
    r = live.get("/api/bouts/no-such-bout/events")
    assert r.status_code == 404 and r.json()["error"] == "not_found"


#: What anyone is told when the database is unusable: never where it is (path, host, user).
UNAVAILABLE = {
    "error": "storage_unavailable",
    "message": "the database is unavailable right now; nothing was stored; try again later",
}


def test_healthz_answers_503_when_the_database_is_unusable(
    live: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A monitor pointed at /healthz sees the database too: its schema table gone (or another
    schema version than this code's) is 503 storage_unavailable, and 200 again once it is back.
    The answer never says where the database is; the log does."""
    engine = live.store._engine
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE schema_version RENAME TO schema_version_away"))
    try:
        with caplog.at_level(logging.WARNING, logger="referee.service"):
            r = live.get("/healthz")
        assert (r.status_code, r.json()) == (503, UNAVAILABLE)
        assert "schema_version" in caplog.text  # the detail is the operator's, in the log
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE schema_version (version INTEGER NOT NULL)"))
            conn.execute(text(f"INSERT INTO schema_version VALUES ({SCHEMA_VERSION + 1})"))
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="referee.service"):
            r = live.get("/healthz")
        assert (r.status_code, r.json()) == (503, UNAVAILABLE)
        assert (
            f"has schema version {SCHEMA_VERSION + 1}; this referee reads version {SCHEMA_VERSION}"
        ) in caplog.text
    finally:
        with engine.begin() as conn:
            conn.execute(text("DROP TABLE IF EXISTS schema_version"))
            conn.execute(text("ALTER TABLE schema_version_away RENAME TO schema_version"))
    assert live.get("/healthz").json()["schema"] == SCHEMA_VERSION
