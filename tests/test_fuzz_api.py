"""The API fuzzed from its own schema: schemathesis reads /openapi.json of a real service on
127.0.0.1 and sends generated requests to every operation, with the tokens of a real bout
(referee, fighter, none, another bout's), running all of its checks: no server error, every
answer's status, content type, headers and body as the schema declares. Bounded: a fixed number
of cases per operation (`FUZZ_CASES`, more with $REFEREE_FUZZ_CASES) and no deadline per case.

The live stream (`GET .../events`) never ends by design, so it is fuzzed here with its own
parameters (after, Last-Event-ID, token) by hypothesis: the answer starts, is an event stream or
a 4xx JSON error, and is closed."""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.config import SchemathesisConfig

from referee.service.app import create_app
from referee.store import Store
from tests.service_fixtures import LiveServer, start_server

FUZZ_CASES = int(os.environ.get("REFEREE_FUZZ_CASES", "20"))
#: Checks not yet run (every check runs, status codes included; this list only shrinks).
PENDING_CHECKS: tuple[Any, ...] = ()
#: Schema-valid data must be accepted, or refused for a reason the schema cannot state: 400 is a
#: rule's refusal (a dice expression, a fighter name or a stat the rule system refuses, an
#: option the action does not take), never 422 (a body the schema admits and the request
#: models refuse: the schema states exactly what the models accept).
CONFIG = SchemathesisConfig.from_str(
    """
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "413", "429"]
"""
)


class Bouts:
    """A server with a bout in each state the routes care about, and its tokens."""

    def __init__(self, live: LiveServer) -> None:
        self.live = live
        made = live.post("/api/bouts", json={"system": "msv", "name": "Fuzz"}).json()
        self.bout, self.referee = made["id"], made["referee_token"]
        added = live.post(
            f"/api/bouts/{self.bout}/fighters", self.referee, json={"name": "Tarl", "cs": 65}
        )
        self.fighter = added.json()["token"]
        live.post(
            f"/api/bouts/{self.bout}/fighters", self.referee, json={"name": "Pa-Kur", "cs": 70}
        )
        other = live.post("/api/bouts", json={"system": "srp", "name": "Other"}).json()
        self.other_bout, self.other_referee = other["id"], other["referee_token"]

    def token_for(self, seed: int) -> str | None:
        return [self.referee, self.fighter, None, self.other_referee][seed % 4]

    def bout_for(self, seed: int) -> str:
        return [self.bout, self.bout, self.other_bout][seed % 3]


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bouts]:
    path: Path = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    server, thread, store, url = start_server(str(path))
    with httpx.Client(base_url=url, timeout=60) as http:
        yield Bouts(LiveServer(url, store, http))
    server.should_exit = True
    thread.join(10)
    store.close()


@pytest.fixture(scope="module")
def api_schema(fuzzed: Bouts) -> Any:
    return schemathesis.openapi.from_url(f"{fuzzed.live.url}/openapi.json", config=CONFIG)


def operations() -> list[tuple[str, str]]:
    """(method, path) of every operation in the schema, but the never-ending live stream."""
    with Store.open("sqlite://") as store:
        paths = create_app(store).openapi()["paths"]
    return [
        (method.upper(), path)
        for path, item in sorted(paths.items())
        for method in sorted(item)
        if not path.endswith("/events")
    ]


@pytest.mark.parametrize(("method", "path"), operations())
def test_every_operation_answers_as_its_schema_says(
    method: str, path: str, api_schema: Any, fuzzed: Bouts
) -> None:
    operation = api_schema[path][method]

    @given(case=operation.as_strategy())
    @settings(
        max_examples=FUZZ_CASES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def fuzz(case: Any) -> None:
        seed = zlib.crc32(repr((case.path_parameters, case.query, case.body)).encode())
        if case.path_parameters and "bout_id" in case.path_parameters and seed % 5:
            case.path_parameters["bout_id"] = fuzzed.bout_for(seed)
        if case.path_parameters and "name" in case.path_parameters and seed % 2:
            case.path_parameters["name"] = "Tarl"
        token = fuzzed.token_for(seed // 7)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        case.call_and_validate(headers=headers, timeout=60, excluded_checks=list(PENDING_CHECKS))

    fuzz()


@given(
    after=st.one_of(
        st.none(), st.integers(min_value=-(2**70), max_value=2**70), st.text(max_size=30)
    ),
    last_event_id=st.one_of(st.none(), st.text(alphabet="0123456789-x", max_size=30)),
    which=st.integers(min_value=0, max_value=7),
)
@settings(max_examples=FUZZ_CASES, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_live_stream_starts_or_answers_a_4xx(
    fuzzed: Bouts, after: Any, last_event_id: str | None, which: int
) -> None:
    params: dict[str, Any] = {} if after is None else {"after": after}
    token = fuzzed.token_for(which)
    if token and which % 2:
        params["token"] = token
    headers = {"Last-Event-ID": last_event_id} if last_event_id is not None else {}
    bout = fuzzed.bout_for(which) if which < 6 else "no-such-bout"
    url = f"{fuzzed.live.url}/api/bouts/{bout}/events"
    with httpx.stream("GET", url, params=params, headers=headers, timeout=60) as response:
        kind = response.headers.get("content-type", "")
        if response.status_code == 200:
            assert kind.startswith("text/event-stream")
            first = next(response.iter_lines())
            assert first == "retry: 1000"
        else:
            assert 400 <= response.status_code < 500, response.status_code
            response.read()
            assert kind.startswith("application/json")
            assert set(response.json()) == {"error", "message"}
