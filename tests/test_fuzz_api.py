"""The API fuzzed from its own schema: schemathesis reads /openapi.json of a real service on
127.0.0.1 and sends generated requests to every operation, with the tokens of a real bout
(referee, fighter, none, another bout's), running all of its checks: no server error, every
answer's status, content type, headers and body as the schema declares. Each case gets a fresh
bout in play, so a case that closes or hands over its bout leaves the next one something to act
on; generated requests are mostly refused, so each operation is also sent one request it
accepts (`ACCEPTED`), whose success answer goes through the same checks. Bounded: a fixed number
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
from tests.test_judge_api import EXAMPLE as JUDGED_LOG

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
    """A server, a bout of another rule system (SRP), and for every case a fresh MSV bout in
    play (two fighters, initiative rolled) with its tokens: a case that closes, cancels or hands
    over its bout, or removes its fighter, leaves the next case a bout the routes can act on."""

    def __init__(self, live: LiveServer) -> None:
        self.live = live
        other = live.post("/api/bouts", json={"system": "srp", "name": "Other"}).json()
        self.other_bout, self.other_referee = other["id"], other["referee_token"]
        #: A character key and one of its characters (the character routes' caller).
        made = live.post(
            "/api/characters", json={"name": "Rask", "system": "msv", "sheet": {"cs": 65}}
        ).json()
        self.key, self.character = made["key"], made["character"]["id"]
        #: (method, path) -> the status codes its cases were answered with.
        self.answers: dict[tuple[str, str], list[int]] = {}
        self.fresh()

    def fresh(self, *, initiative: bool = True) -> None:
        live = self.live
        made = live.post("/api/bouts", json={"system": "msv", "name": "Fuzz"}).json()
        self.bout, self.referee = made["id"], made["referee_token"]
        added = live.post(
            f"/api/bouts/{self.bout}/fighters", self.referee, json={"name": "Tarl", "cs": 65}
        )
        self.fighter = added.json()["token"]
        live.post(
            f"/api/bouts/{self.bout}/fighters", self.referee, json={"name": "Pa-Kur", "cs": 70}
        )
        if initiative:
            live.post(f"/api/bouts/{self.bout}/initiative", self.referee)

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
    server.stop()
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
        fuzzed.fresh()
        seed = zlib.crc32(repr((case.path_parameters, case.query, case.body)).encode())
        if case.path_parameters and "bout_id" in case.path_parameters and seed % 5:
            case.path_parameters["bout_id"] = fuzzed.bout_for(seed)
        if case.path_parameters and "name" in case.path_parameters and seed % 2:
            case.path_parameters["name"] = "Tarl"
        token = fuzzed.token_for(seed // 7)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = case.call_and_validate(
            headers=headers, timeout=60, excluded_checks=list(PENDING_CHECKS)
        )
        fuzzed.answers.setdefault((method, path), []).append(response.status_code)

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


#: A character to make, and the path of the fuzz's own character (`Bouts.character`).
KAI = {"name": "Kai", "system": "msv", "sheet": {"cs": 60}}
KEPT = {"character_id": "kept"}
#: One request each operation accepts, on a fresh bout in play (`Bouts.fresh`): (token:
#: "referee", "fighter", "key" (the fuzz's character key) or None; path parameters besides
#: bout_id; JSON body, text, or None).
#: Some need the bout in a state of their own first (`_before`). Generated cases are mostly
#: refused; these make sure every operation's success answer is checked against the schema too.
ACCEPTED: dict[tuple[str, str], tuple[str | None, dict[str, str], Any]] = {
    ("GET", "/api/bouts"): (None, {}, None),
    ("GET", "/api/bouts/{bout_id}"): ("referee", {}, None),
    ("GET", "/api/bouts/{bout_id}/export"): ("fighter", {}, None),
    ("GET", "/api/bouts/{bout_id}/glance"): (None, {}, None),
    ("GET", "/api/bouts/{bout_id}/log"): (None, {}, None),
    ("GET", "/api/bouts/{bout_id}/scoreboard"): (None, {}, None),
    ("GET", "/api/bouts/{bout_id}/why-not"): ("fighter", {}, None),
    ("GET", "/api/systems"): (None, {}, None),
    ("GET", "/healthz"): (None, {}, None),
    ("POST", "/api/bouts"): (None, {}, {"system": "msv", "name": "Accepted", "client_seed": "c"}),
    ("POST", "/api/bouts/{bout_id}/actions"): ("fighter", {}, "attack"),
    ("POST", "/api/bouts/{bout_id}/attacks"): ("fighter", {}, "attack"),
    ("POST", "/api/bouts/{bout_id}/cancel"): ("referee", {}, None),
    ("POST", "/api/bouts/{bout_id}/chat"): ("referee", {}, "roll 1d20"),
    ("POST", "/api/bouts/{bout_id}/close"): ("referee", {}, None),
    ("POST", "/api/bouts/{bout_id}/close-joining"): ("referee", {}, None),
    ("POST", "/api/bouts/{bout_id}/end"): ("referee", {}, {"winner": "Tarl", "reason": "time"}),
    ("POST", "/api/bouts/{bout_id}/fighters"): ("referee", {}, {"name": "Bran", "cs": 55}),
    ("PATCH", "/api/bouts/{bout_id}/fighters/{name}"): ("referee", {"name": "Tarl"}, {"wounds": 2}),
    ("DELETE", "/api/bouts/{bout_id}/fighters/{name}"): ("fighter", {"name": "Tarl"}, None),
    ("POST", "/api/bouts/{bout_id}/fighters/{name}/reveal"): ("referee", {"name": "Ghost"}, {}),
    ("POST", "/api/bouts/{bout_id}/fighters/{name}/token"): ("referee", {"name": "Tarl"}, None),
    ("POST", "/api/bouts/{bout_id}/handover"): ("referee", {}, None),
    ("POST", "/api/bouts/{bout_id}/initiative"): ("referee", {}, None),
    ("POST", "/api/bouts/{bout_id}/join"): (None, {}, {"name": "Kai", "cs": 60}),
    ("POST", "/api/bouts/{bout_id}/next"): ("referee", {}, {"minutes": 60, "reason": "a rest"}),
    ("POST", "/api/bouts/{bout_id}/override"): ("referee", {}, "override"),
    ("POST", "/api/bouts/{bout_id}/pass-time"): ("referee", {}, {"minutes": 30, "reason": "walk"}),
    ("POST", "/api/bouts/{bout_id}/pause"): ("referee", {}, None),
    ("POST", "/api/bouts/{bout_id}/resume"): ("referee", {}, None),
    ("POST", "/api/bouts/{bout_id}/rolls"): ("fighter", {}, {"dice": "2d6+1", "actor": "Tarl"}),
    ("POST", "/api/bouts/{bout_id}/rotate-seed"): ("referee", {}, None),
    ("POST", "/api/bouts/{bout_id}/skip"): ("referee", {}, None),
    ("POST", "/api/bouts/{bout_id}/void"): ("referee", {}, None),
    ("POST", "/api/judge"): (None, {}, "judge"),
    ("GET", "/api/characters"): ("key", {}, None),
    ("POST", "/api/characters"): ("key", {}, KAI),
    ("GET", "/api/characters/{character_id}"): ("key", KEPT, None),
    ("PATCH", "/api/characters/{character_id}"): ("key", KEPT, {"sheet": {"cs": 61}}),
    ("DELETE", "/api/characters/{character_id}"): ("key", {"character_id": "new"}, None),
    ("POST", "/api/bouts/{bout_id}/characters"): (None, {}, "join character"),
    ("POST", "/api/lab/analyse"): (None, {}, {"pack": {}, "from": 40, "to": 60, "step": 10}),
    ("POST", "/api/luck"): (None, {}, "luck"),
    ("GET", "/api/signing-key"): (None, {}, None),
    ("POST", "/api/signatures/check"): (None, {},{"line": "OnlineHost: A rolled 1 2-sided die: 2"}),
}  # fmt: skip


def _before(bouts: Bouts, method: str, path: str) -> Any:
    """Put the fresh bout in the state the operation needs; the body it needs, if made here."""
    live, bout, referee = bouts.live, bouts.bout, bouts.referee
    body = ACCEPTED[(method, path)][2]
    if path.endswith(("/initiative", "/join", "/close-joining", "/characters")):
        bouts.fresh(initiative=False)
    elif path.endswith("/resume"):
        assert live.post(f"/api/bouts/{bout}/pause", referee).status_code == 200
    elif path.endswith("/reveal"):
        hidden = {"name": "Ghost", "cs": 50, "hidden": ["cs"]}
        assert live.post(f"/api/bouts/{bout}/fighters", referee, json=hidden).status_code == 201
    if body == "attack":
        # Tarl's token, so Tarl attacks: give Tarl the turn (skip Pa-Kur's when it is first).
        state = live.get(f"/api/bouts/{bout}", referee).json()
        if state["turn"] != "Tarl":
            assert live.post(f"/api/bouts/{bout}/skip", referee).status_code == 200
        attack = {"attacker": "Tarl", "target": "Pa-Kur"}
        if path.endswith("/actions"):
            return {"actor": "Tarl", "kind": "attack", "options": {"target": "Pa-Kur"}}
        return attack
    if body == "override":
        _before(bouts, "POST", "/api/bouts/{bout_id}/attacks")
        attack = {"attacker": "Tarl", "target": "Pa-Kur"}
        seq = live.post(f"/api/bouts/{bout}/attacks", referee, json=attack).json()["seq"]
        return {"of": seq, "wounds": {"Pa-Kur": 1}, "note": "judged again"}
    if body == "judge":
        return {"log": JUDGED_LOG.read_text(encoding="utf-8")}
    if body == "join character":
        return {"character": bouts.character}
    if body == "luck":  # a closed bout of the server, by id
        assert live.post(f"/api/bouts/{bout}/close", referee).status_code == 200
        return {"bouts": [bout], "fighter": "Tarl"}
    return body


def test_every_operation_has_a_request_it_accepts() -> None:
    assert sorted(ACCEPTED) == sorted(operations())


@pytest.mark.parametrize(("method", "path"), sorted(ACCEPTED))
def test_a_request_each_operation_accepts_answers_as_its_schema_says(
    method: str, path: str, api_schema: Any, fuzzed: Bouts
) -> None:
    fuzzed.fresh()
    body = _before(fuzzed, method, path)
    token_kind, names, _ = ACCEPTED[(method, path)]
    token = {"referee": fuzzed.referee, "fighter": fuzzed.fighter, "key": fuzzed.key}.get(
        token_kind or ""
    )
    parameters = {"bout_id": fuzzed.bout, **names} if "{bout_id}" in path else None
    if names.get("character_id") == "kept":
        parameters = {"character_id": fuzzed.character}
    elif names.get("character_id") == "new":  # one to retire, the kept one stays
        made = fuzzed.live.post(
            "/api/characters", fuzzed.key, json=ACCEPTED[("POST", "/api/characters")][2]
        )
        parameters = {"character_id": made.json()["character"]["id"]}
    more: dict[str, Any] = {}
    if path.endswith("/why-not"):  # the one operation asked by its query
        more = {"query": {"actor": "Tarl", "kind": "attack", "target": "Pa-Kur"}}
    elif isinstance(body, str):
        more = {"body": body, "media_type": "text/plain"}
    elif body is not None:
        more = {"body": body, "media_type": "application/json"}
    case = api_schema[path][method].Case(path_parameters=parameters, **more)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if path.endswith("/characters") and "{bout_id}" in path:
        headers["X-Character-Key"] = fuzzed.key
    response = case.call_and_validate(headers=headers, timeout=60)
    assert 200 <= response.status_code < 300, (response.status_code, response.text)
