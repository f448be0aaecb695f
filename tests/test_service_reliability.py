"""Reliability and security of the service, tested rather than promised.

- an acknowledged action survives `kill -9` of the server process;
- concurrent writers on one bout never fork or interleave its chain (SQLite and PostgreSQL),
  also from two service instances sharing one PostgreSQL database;
- every route x {referee, the fighter, another fighter, anonymous} answers as designed.
"""

from __future__ import annotations

import signal
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from referee.ledger import verify_chain, verify_export
from tests import coin_system  # noqa: F401  (registers the "coin-test" rule system)
from tests.service_fixtures import LiveServer, serve_process


def _open(client: httpx.Client, system: str = "coin-test") -> tuple[str, str]:
    r = client.post(
        "/api/bouts", json={"system": system, "name": "Reliability", "client_seed": "r"}
    )
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["referee_token"]


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _serve(db: Path | str) -> tuple[subprocess.Popen[str], str]:
    return serve_process(db)


def test_acknowledged_actions_survive_kill_9(tmp_path: Path) -> None:
    db = tmp_path / "referee.db"
    proc, url = _serve(db)
    acknowledged: list[int] = []
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            bout, ref = _open(client, "msv")
            for name, cs in (("Tarl", 65), ("Pa-Kur", 70)):
                r = client.post(
                    f"/api/bouts/{bout}/fighters", json={"name": name, "cs": cs}, headers=_auth(ref)
                )
                assert r.status_code == 201
            for _ in range(20):
                r = client.post(
                    f"/api/bouts/{bout}/rolls", json={"dice": "1d100"}, headers=_auth(ref)
                )
                assert r.status_code == 200
                acknowledged.append(r.json()["seq"])
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    proc, url = _serve(db)
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            log = client.get(f"/api/bouts/{bout}/log").json()
            assert {e["seq"] for e in log} >= set(acknowledged)
            assert verify_chain(log) == []
            assert client.post(f"/api/bouts/{bout}/close", headers=_auth(ref)).status_code == 200
            assert verify_export(client.get(f"/api/bouts/{bout}/export").json()).ok
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)


def _hammer(urls: list[str], bout: str, ref: str, per_client: int, clients: int) -> list[int]:
    """`clients` threads each make `per_client` free rolls, spread over the given servers."""

    def work(i: int) -> list[int]:
        seqs = []
        with httpx.Client(base_url=urls[i % len(urls)], timeout=30) as client:
            for _ in range(per_client):
                r = client.post(
                    f"/api/bouts/{bout}/rolls", json={"dice": "2d20"}, headers=_auth(ref)
                )
                assert r.status_code == 200, r.text
                seqs.append(r.json()["seq"])
        return seqs

    with ThreadPoolExecutor(clients) as pool:
        return [s for seqs in pool.map(work, range(clients)) for s in seqs]


def test_concurrent_writers_never_fork_the_chain(live: LiveServer) -> None:
    bout, ref = _open(live.client)
    seqs = _hammer([live.url], bout, ref, per_client=10, clients=8)
    assert len(set(seqs)) == 80
    log = live.get(f"/api/bouts/{bout}/log").json()
    assert verify_chain(log) == []
    rolls = [e for e in log if e["type"] == "roll"]
    assert [e["payload"]["nonce"] for e in rolls] == list(range(80))
    assert live.post(f"/api/bouts/{bout}/close", ref).status_code == 200
    assert verify_export(live.get(f"/api/bouts/{bout}/export").json()).ok


@pytest.mark.postgres
def test_two_service_processes_share_one_postgres_database(pg_url: str) -> None:
    started = [_serve(pg_url), _serve(pg_url)]
    procs = [proc for proc, _ in started]
    urls = [url for _, url in started]
    try:
        with httpx.Client(base_url=urls[0], timeout=60) as client:
            bout, ref = _open(client, "msv")
        seqs = _hammer(urls, bout, ref, per_client=8, clients=6)
        assert len(set(seqs)) == 48
        logs = []
        for url in urls:
            with httpx.Client(base_url=url, timeout=60) as client:
                logs.append(client.get(f"/api/bouts/{bout}/log").json())
                assert client.get(f"/api/bouts/{bout}").json()["events"] == len(logs[-1])
        assert logs[0] == logs[1]
        assert verify_chain(logs[0]) == []
        rolls = [e for e in logs[0] if e["type"] == "roll"]
        assert [e["payload"]["nonce"] for e in rolls] == list(range(48))
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)


# -- the permission matrix ---------------------------------------------------------------------

REF, OWN, OTHER, ANON = "referee", "the fighter", "another fighter", "anonymous"


def _matrix() -> list[tuple[str, str, Any, dict[str, int]]]:
    """(method, path, body, {caller: expected status}) for every route that takes a token."""
    ok201 = {REF: 201, OWN: 403, OTHER: 403, ANON: 401}
    referee_only = {REF: 200, OWN: 403, OTHER: 403, ANON: 401}
    public = {REF: 200, OWN: 200, OTHER: 200, ANON: 200}
    return [
        ("GET", "", None, public),
        ("GET", "/scoreboard", None, public),
        ("GET", "/log", None, public),
        ("POST", "/fighters", {"name": "New", "sheet": {}}, ok201),
        ("PATCH", "/fighters/B", {"sheet": {"power": 2}}, referee_only),
        ("POST", "/fighters/B/reveal", {"keys": []}, {REF: 400, OWN: 403, OTHER: 403, ANON: 401}),
        (
            "POST",
            "/attacks",
            {"attacker": "A", "target": "B"},
            {REF: 200, OWN: 200, OTHER: 403, ANON: 401},
        ),
        (
            "POST",
            "/rolls",
            {"dice": "1d6", "actor": "A"},
            {REF: 200, OWN: 200, OTHER: 403, ANON: 401},
        ),
        ("POST", "/pause", None, referee_only),
        ("POST", "/resume", None, {REF: 409, OWN: 403, OTHER: 403, ANON: 401}),
        ("POST", "/skip", None, referee_only),
        ("POST", "/void", None, referee_only),
        ("POST", "/rotate-seed", None, referee_only),
        ("POST", "/end", {"winner": None}, referee_only),
        ("POST", "/close", None, referee_only),
        ("POST", "/cancel", None, referee_only),
        ("POST", "/handover", None, referee_only),
        ("POST", "/fighters/B/token", None, referee_only),
        (
            "POST",
            "/override",
            {"of": 999, "wounds": {"B": 1}},
            {REF: 404, OWN: 403, OTHER: 403, ANON: 401},
        ),
        ("DELETE", "/fighters/A", None, {REF: 200, OWN: 200, OTHER: 403, ANON: 401}),
        (
            "POST",
            "/join",
            {"name": "Late", "sheet": {}},
            {REF: 409, OWN: 409, OTHER: 409, ANON: 409},
        ),
        ("GET", "/export", None, public),
    ]


@pytest.mark.parametrize(
    ("method", "path", "body", "expected"),
    _matrix(),
    ids=[f"{m} {p or '/'}" for m, p, *_ in _matrix()],
)
@pytest.mark.parametrize("caller", [REF, OWN, OTHER, ANON])
def test_permission_matrix(
    shared_live: LiveServer,
    method: str,
    path: str,
    body: Any,
    expected: dict[str, int],
    caller: str,
) -> None:
    bout, ref = _open(shared_live.client)
    tokens: dict[str, str | None] = {REF: ref, ANON: None}
    for name in ("A", "B", "C"):
        r = shared_live.post(f"/api/bouts/{bout}/fighters", ref, json={"name": name, "sheet": {}})
        tokens[name] = r.json()["token"]
    # A and B on one side each; make sure A has the turn.
    shared_live.post(f"/api/bouts/{bout}/initiative", ref)
    while shared_live.get(f"/api/bouts/{bout}").json()["turn"] != "A":
        assert shared_live.post(f"/api/bouts/{bout}/skip", ref).status_code == 200
    tokens[OWN], tokens[OTHER] = tokens["A"], tokens["C"]
    before = shared_live.get(f"/api/bouts/{bout}/log").json()
    r = shared_live.request(method, f"/api/bouts/{bout}{path}", tokens[caller], json=body)
    assert r.status_code == expected[caller], (caller, method, path, r.text)
    if r.status_code >= 400:
        assert r.json()["error"]
        assert shared_live.get(f"/api/bouts/{bout}/log").json() == before


def test_wrong_tokens_never_reach_another_bout(live: LiveServer) -> None:
    bout_a, ref_a = _open(live.client)
    bout_b, _ = _open(live.client)
    r = live.post(f"/api/bouts/{bout_b}/pause", ref_a)
    assert r.status_code == 403
    r = live.post(f"/api/bouts/{bout_a}/pause", "x" * 43)
    assert r.status_code == 401


def test_server_log_holds_no_token_or_seed(tmp_path: Path) -> None:
    db = tmp_path / "referee.db"
    proc, url = _serve(db)
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            bout, ref = _open(client, "msv")
            r = client.post(
                f"/api/bouts/{bout}/fighters", json={"name": "Tarl", "cs": 65}, headers=_auth(ref)
            )
            fighter = r.json()["token"]
            client.post(f"/api/bouts/{bout}/rolls", json={"dice": "1d100"}, headers=_auth(ref))
            seed = client.post(f"/api/bouts/{bout}/close", headers=_auth(ref)).json()["server_seed"]
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    log = err
    for secret in (ref, fighter, seed):
        assert secret not in log


def test_live_events_reach_another_client(live: LiveServer) -> None:
    """A roll made after the stream opened reaches it (an event wait with a generous timeout;
    the delivery latency is measured in benchmarks/bench_streams.py)."""
    bout, ref = _open(live.client)
    seen: list[str] = []
    ready = threading.Event()
    arrived = threading.Event()

    def listen() -> None:
        with httpx.stream("GET", f"{live.url}/api/bouts/{bout}/events", timeout=60) as response:
            ready.set()
            for line in response.iter_lines():
                if line.startswith("event: "):
                    seen.append(line.removeprefix("event: "))
                if line == "event: roll":
                    arrived.set()
                    return

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    assert ready.wait(60)
    assert live.post(f"/api/bouts/{bout}/rolls", ref, json={"dice": "1d100"}).status_code == 200
    assert arrived.wait(60), f"no roll event arrived; saw {seen}"
    thread.join(60)
    assert seen[-1] == "roll"
