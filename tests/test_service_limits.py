"""Rate limits (per token, per client address, bout creation per address) and live-stream caps,
over a real service on 127.0.0.1. Clients come from distinct loopback addresses (127.0.0.x),
so the service sees distinct peers. The limits' clock is the test's own: numbers are exact."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.errors import RefereeError
from referee.service.limits import (
    Buckets,
    Limits,
    Rate,
    RateSpecError,
    parse_limits,
    parse_rate,
)
from referee.service.live import LiveHub
from referee.store import Store
from referee.store.counters import counter_key
from tests.service_fixtures import LiveServer, start_server


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def client(url: str, source: str) -> httpx.Client:
    """A client whose connections come from `source` (any 127.0.0.0/8 address is loopback)."""
    transport = httpx.HTTPTransport(local_address=source)
    return httpx.Client(base_url=url, transport=transport, timeout=60)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def limited(db_url: str, clock: Clock) -> Iterator[LiveServer]:
    """A limited service over SQLite (limits in memory) and PostgreSQL (shared counters)."""
    limits = Limits(
        token=Rate(3, 30.0),
        address=Rate(10, 60.0),
        create=Rate(2, 3600.0),
        streams_per_address=2,
        streams_total=3,
        clock=clock,
    )
    server, thread, store, url = start_server(db_url, limits=limits)
    HUBS[url] = server.config.app.state.live
    with client(url, "127.0.0.2") as http:
        yield LiveServer(url, store, http)
    HUBS.pop(url)
    server.stop()
    thread.join(10)
    store.close()


def test_bucket_refills_at_its_rate() -> None:
    buckets = Buckets(Rate(25, 20.0))  # Second Life's 25 per 20 s: 1.25 per second
    assert [buckets.take("hud", 0.0) for _ in range(25)] == [0.0] * 25
    assert buckets.take("hud", 0.0) == 0.8
    assert buckets.take("other", 0.0) == 0.0  # one key never limits another
    assert buckets.take("hud", 0.8) == 0.0
    assert buckets.take("hud", 0.8) == 0.8
    assert buckets.take("hud", 20.8) == 0.0  # refilled: a burst again
    assert [buckets.take("hud", 20.8) for _ in range(24)] == [0.0] * 24
    assert buckets.take("hud", 20.8) == 0.8


@given(st.lists(st.floats(min_value=0, max_value=1000), min_size=1, max_size=200))
def test_a_bucket_never_allows_more_than_its_rate(gaps: list[float]) -> None:
    """Property: over any span, allowed requests <= burst + rate * span."""
    rate = Rate(5, 10.0)
    buckets, now, allowed, start = Buckets(rate), 0.0, 0, 0.0
    for gap in sorted(gaps):
        now = gap
        for _ in range(3):
            if buckets.take("k", now) == 0.0:
                allowed += 1
    assert allowed <= rate.requests + (now - start) * rate.requests / rate.seconds + 1e-9


def test_rate_specs() -> None:
    assert parse_rate("25/20s") == Rate(25, 20.0)
    assert parse_rate("600/1m") == Rate(600, 60.0)
    assert parse_rate("30/1h") == Rate(30, 3600.0)
    assert parse_rate("7/2.5") == Rate(7, 2.5)
    assert parse_rate("OFF") is None
    limits = parse_limits(["address=100/1m", "token=off"])
    assert (limits.token, limits.address, limits.create) == (None, Rate(100, 60.0), Rate(30, 3600))
    assert parse_limits(["off"]) == Limits(token=None, address=None, create=None)
    for bad in ("25", "25/0s", "0/20s", "-1/20s", "1/100000h", "25/20 s", "a/b"):
        with pytest.raises(RateSpecError, match=r"is not N/SECONDS|needs at least"):
            parse_rate(bad)
    for bad in ("tokens=1/1s", "1/1s", "=off"):
        with pytest.raises(RefereeError, match="is not KIND=N/SECONDS"):
            parse_limits([bad])


def test_a_token_over_its_limit_gets_429_with_retry_after(
    limited: LiveServer, clock: Clock
) -> None:
    bout = limited.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    ref = bout["referee_token"]
    path = f"/api/bouts/{bout['id']}"
    assert [limited.get(path, ref).status_code for _ in range(3)] == [200] * 3
    refused = limited.get(path, ref)
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "10"  # 3 per 30 s: one every 10 s
    assert refused.json() == {
        "error": "rate_limited",
        "message": "too many requests with this token; try again in 10 s",
    }
    assert refused.headers["x-content-type-options"] == "nosniff"
    assert limited.get(path).status_code == 200  # without the token: only the address counts
    clock.now += 9.5
    assert limited.get(path, ref).headers["retry-after"] == "1"
    clock.now += 10
    assert limited.get(path, ref).status_code == 200
    # The token as ?token= (EventSource) counts the same.
    assert limited.get(f"{path}/log?token={ref}").status_code == 429


def test_the_chat_endpoint_answers_a_plain_text_line(limited: LiveServer, clock: Clock) -> None:
    bout = limited.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    ref = bout["referee_token"]
    answers = [limited.chat(bout["id"], ref, "help") for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[3].headers["content-type"].startswith("text/plain")
    assert answers[3].text == "error: too many requests with this token; try again in 10 s"
    assert answers[3].headers["retry-after"] == "10"


def test_one_address_over_its_limit_does_not_limit_another(
    limited: LiveServer, clock: Clock
) -> None:
    answers = [limited.get("/api/bouts").status_code for _ in range(11)]
    assert answers == [200] * 10 + [429]
    refused = limited.get("/api/bouts")
    assert refused.headers["retry-after"] == "6"  # 10 per 60 s
    assert refused.json()["message"] == "too many requests from 127.0.0.2; try again in 6 s"
    assert limited.get("/healthz").status_code == 200  # health checks are never limited
    with client(limited.url, "127.0.0.3") as other:
        assert other.get("/api/bouts").status_code == 200
    clock.now += 6
    assert limited.get("/api/bouts").status_code == 200


def test_bout_creation_is_limited_per_address(limited: LiveServer, clock: Clock) -> None:
    made = [limited.post("/api/bouts", json={"system": "msv", "name": "S"}) for _ in range(3)]
    assert [m.status_code for m in made] == [201, 201, 429]
    assert made[2].headers["retry-after"] == "1800"
    assert made[2].json()["message"] == "too many new bouts from 127.0.0.2; try again in 1800 s"
    assert len(limited.get("/api/bouts").json()) == 2  # the refused one wrote nothing
    with client(limited.url, "127.0.0.4") as other:
        assert other.post("/api/bouts", json={"system": "msv", "name": "S"}).status_code == 201


def test_live_streams_are_capped_per_address_and_in_all(limited: LiveServer) -> None:
    bout = limited.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    path = f"{limited.url}/api/bouts/{bout['id']}/events"
    clients = [client(limited.url, f"127.0.0.{n}") for n in (5, 5, 5, 6, 7)]
    opened: list[httpx.Response] = []
    try:

        def open_stream(http: httpx.Client) -> httpx.Response:
            response = http.send(http.build_request("GET", path), stream=True)
            opened.append(response)
            return response

        first, second, third = (open_stream(clients[i]) for i in range(3))
        assert (first.status_code, second.status_code) == (200, 200)
        assert third.status_code == 429
        third.read()
        assert third.headers["retry-after"] == "5"
        assert third.json() == {
            "error": "rate_limited",
            "message": "127.0.0.5 has 2 live streams open, the most per address; close one first",
        }
        assert open_stream(clients[3]).status_code == 200  # another address: the third in all
        fifth = open_stream(clients[4])
        assert fifth.status_code == 503
        fifth.read()
        assert fifth.json()["error"] == "busy"
        assert fifth.headers["retry-after"] == "5"
        # Closing a stream gives its slot back (an event wait: the server notices the close).
        first.close()
        hub = limited_hub(limited)
        wait_for(lambda: hub.streams == 2)
        assert open_stream(clients[4]).status_code == 200
    finally:
        for response in opened:
            response.close()
        for http in clients:
            http.close()


def limited_hub(server: LiveServer) -> LiveHub:
    """The service's LiveHub (the app runs in this process)."""
    return HUBS[server.url]


HUBS: dict[str, LiveHub] = {}


def wait_for(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    """Wait until `condition()` holds (checked often; generous timeout, no fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.01)


@pytest.mark.postgres
def test_serve_with_two_workers_on_postgresql_shares_one_limit(pg_url: str) -> None:
    """`serve --workers 2`: both processes count against one token's limit (5 per hour), so
    12 requests at once on fresh connections (spread over both) get exactly 5 answers."""
    command = [sys.executable, "-m", "referee.cli.main", "serve", "--db", pg_url, "--port", "0"]
    command += ["--workers", "2", "--rate", "token=5/1h", "--rate", "address=off"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = ""
        for _ in range(5):
            line = proc.stdout.readline()
            if "is serving on" in line:
                break
        url = line.split("is serving on ")[1].split()[0].rstrip("/")
        deadline = time.monotonic() + 90  # both workers up: each answers its health check
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        else:
            pytest.fail("the workers did not answer /healthz within 90 s")
        made = httpx.post(f"{url}/api/bouts", json={"system": "msv", "name": "W"}, timeout=60)
        auth = {"Authorization": f"Bearer {made.json()['referee_token']}"}

        def read(_: int) -> int:
            answer = httpx.get(f"{url}/api/bouts/{made.json()['id']}", headers=auth, timeout=60)
            return answer.status_code

        with ThreadPoolExecutor(12) as pool:
            statuses = sorted(pool.map(read, range(12)))
        assert statuses == [200] * 5 + [429] * 7
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.mark.postgres
def test_shared_counters_are_one_bucket_for_two_processes(pg_url: str) -> None:
    """Two stores (as two processes) take from one GCRA cell: exactly the in-memory bucket's
    answers (a burst of 2, then one every 4 s), whichever process asks."""
    with Store.open(pg_url) as one, Store.open(pg_url) as two:
        first, second = one.shared_counters(), two.shared_counters()
        assert first is not None and second is not None
        key = counter_key("token", "hud")
        cell = [(key, 4.0, 8.0)]  # Rate(2, 8)
        takes = [(first, 0.0), (second, 0.0), (first, 0.0), (second, 2.0), (first, 4.0)]
        takes.append((second, 4.0))
        waits = [counters.take(cell, now).get(key, 0.0) for counters, now in takes]
        buckets = Buckets(Rate(2, 8.0))
        assert waits == [buckets.take("hud", now) for _, now in takes] == [0, 0, 4, 2, 0, 4]
        # Limits are taken in order up to the first that refuses, as in memory: "address"
        # allows and is counted, "hud" refuses, "create" (after it) is not counted.
        other, later = counter_key("address", "hud"), counter_key("create", "hud")
        cells = [(other, 4.0, 8.0), (key, 4.0, 8.0), (later, 4.0, 8.0)]
        assert first.take(cells, 4.0) == {key: 4.0}
        assert second.take([(later, 4.0, 8.0)], 4.0) == {}
        assert second.take([(later, 4.0, 8.0)], 4.0) == {}  # its burst of 2 was untouched
        assert second.take([(later, 4.0, 8.0)], 4.0) == {later: 4.0}
        assert first.take([(other, 4.0, 8.0)], 4.0) == {}  # one of two left: it was counted
        assert first.take([(other, 4.0, 8.0)], 4.0) == {other: 4.0}
        assert "hud" not in key  # the table holds no token


def test_sqlite_keeps_its_limits_in_memory(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "one.db")) as store:
        assert store.shared_counters() is None


@pytest.mark.postgres
def test_when_the_counters_fail_requests_go_on(pg_url: str, clock: Clock) -> None:
    """A broken counter table (here: one of another shape) does not turn requests into bare
    500s: the limiter lets them through to the service's own answers."""
    with Store.open(pg_url) as store, store._engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE rate_counters (key TEXT PRIMARY KEY)")
    limits = Limits(token=Rate(1, 3600.0), address=Rate(1, 3600.0), clock=clock)
    server, thread, store, url = start_server(pg_url, limits=limits)
    try:
        with client(url, "127.0.0.2") as http:
            answers = [http.get("/api/bouts").status_code for _ in range(3)]
        assert answers == [200, 200, 200]
    finally:
        server.stop()
        thread.join(10)
        store.close()
