"""The write routes' lean lanes (`referee.service.lean`): the same answer as FastAPI's own handler
of the same declaration, byte for byte, for every write route, well-formed or not; FastAPI's
handler answers what the lane does not take; the schema is FastAPI's; the body limit and a
client that goes away."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
from fastapi import FastAPI
from fastapi.routing import APIRoute

from referee.errors import AuthError
from referee.service.app import create_app
from referee.service.lean import LeanWrite
from referee.service.limits import NO_RATE_LIMITS
from referee.service.routing import Writer, writing
from referee.store import Store
from tests.seeds import SeededEntropy, current_test
from tests.service_fixtures import LiveServer

#: Every write route of the bouts, as (method, path): all lean.
WRITES = {
    ("POST", "/api/bouts"),
    ("POST", "/api/bouts/{bout_id}/fighters"),
    ("POST", "/api/bouts/{bout_id}/join"),
    ("PATCH", "/api/bouts/{bout_id}/fighters/{name}"),
    ("DELETE", "/api/bouts/{bout_id}/fighters/{name}"),
    ("POST", "/api/bouts/{bout_id}/fighters/{name}/token"),
    ("POST", "/api/bouts/{bout_id}/fighters/{name}/reveal"),
    ("POST", "/api/bouts/{bout_id}/initiative"),
    ("POST", "/api/bouts/{bout_id}/attacks"),
    ("POST", "/api/bouts/{bout_id}/actions"),
    ("POST", "/api/bouts/{bout_id}/rolls"),
    ("POST", "/api/bouts/{bout_id}/chat"),
    ("POST", "/api/bouts/{bout_id}/pause"),
    ("POST", "/api/bouts/{bout_id}/resume"),
    ("POST", "/api/bouts/{bout_id}/skip"),
    ("POST", "/api/bouts/{bout_id}/void"),
    ("POST", "/api/bouts/{bout_id}/cancel"),
    ("POST", "/api/bouts/{bout_id}/close-joining"),
    ("POST", "/api/bouts/{bout_id}/end"),
    ("POST", "/api/bouts/{bout_id}/override"),
    ("POST", "/api/bouts/{bout_id}/handover"),
    ("POST", "/api/bouts/{bout_id}/rotate-seed"),
    ("POST", "/api/bouts/{bout_id}/close"),
    ("POST", "/api/bouts/{bout_id}/characters"),
    ("POST", "/api/characters"),
    ("PATCH", "/api/characters/{character_id}"),
    ("DELETE", "/api/characters/{character_id}"),
    ("POST", "/api/bouts/{bout_id}/next"),
    ("POST", "/api/bouts/{bout_id}/pass-time"),
}


def lanes_of(app: FastAPI) -> list[APIRoute]:
    """The app's routes that run lean, in the router's order."""
    return [
        r for r in app.router.routes if isinstance(r, APIRoute) and isinstance(r.app, LeanWrite)
    ]


def takes_a_write(route: APIRoute) -> bool:
    """Whether a declared route's function takes the `Writer` dependency."""
    parameters = inspect.signature(route.endpoint, eval_str=True).parameters.values()
    return any(p.annotation is Writer for p in parameters)


def test_every_write_route_runs_lean_and_no_read_route_does(tmp_path: Any) -> None:
    with Store.open(str(tmp_path / "lean.db")) as store:
        app = create_app(store)
        lanes = lanes_of(app)
        assert {(m, route.path) for route in lanes for m in route.methods} == WRITES
        for route in lanes:
            assert isinstance(route.app, LeanWrite)
            assert route.app.declared is route and not isinstance(route.app.standard, LeanWrite)
        declared_writes = {
            (m, r.path)
            for r in app.router.routes
            if isinstance(r, APIRoute) and takes_a_write(r)
            for m in r.methods
        }
        assert declared_writes == WRITES


def standard(app: FastAPI) -> FastAPI:
    """The app without its lanes: every write answered by FastAPI's own handler only."""
    for route in lanes_of(app):
        assert isinstance(route.app, LeanWrite)
        route.app = route.app.standard
    return app


def test_the_schema_is_fastapis_own_byte_for_byte(tmp_path: Any) -> None:
    schemas = []
    for kind in ("lean", "standard"):
        with Store.open(str(tmp_path / f"{kind}.db")) as store:
            app = create_app(store)
            if kind == "standard":
                app = standard(app)
            schemas.append(json.dumps(app.openapi()).encode())
    assert schemas[0] == schemas[1]


class Session:
    """One app driven through a script; its bout ids and tokens are named as the script
    names them, so two apps' answers can be compared byte for byte."""

    def __init__(self, app: FastAPI) -> None:
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://referee.test"
        )
        self.names: dict[str, str] = {}  # name in the script -> this app's value

    def fill(self, text: str) -> str:
        for name, value in self.names.items():
            text = text.replace(f"<{name}>", value)
        return text

    def named(self, body: bytes) -> bytes:
        """The body with this app's ids and tokens named, and its clock's times (and so the
        hashes over them) left out."""
        text = body.decode("utf-8", "replace")
        for name, value in self.names.items():
            text = text.replace(value, f"<{name}>")
        text = re.sub(r'"at":"[^"]*"', '"at":"<at>"', text)
        text = re.sub(r'"(hash|prev)":"[0-9a-f]{64}"', r'"\1":"<hash>"', text)
        return text.encode()

    async def send(self, step: dict[str, Any]) -> tuple[int, list[tuple[str, str]], bytes]:
        headers = {k: self.fill(v) for k, v in step.get("headers", {}).items()}
        if "token" in step:
            headers["Authorization"] = f"Bearer {self.names[step['token']]}"
        content = step.get("content")
        if "json" in step:
            content = json.dumps(step["json"]).encode()
            headers.setdefault("Content-Type", "application/json")
        r = await self.client.request(
            step["method"], self.fill(step["path"]), content=content, headers=headers
        )
        for name, key in step.get("keep", {}).items():
            self.names[name] = str(r.json()[key])
        shown = [(k, v) for k, v in r.headers.items() if k != "content-length"]
        return r.status_code, shown, self.named(r.content)


def post(path: str, token: str | None = None, **more: Any) -> dict[str, Any]:
    step: dict[str, Any] = {"method": "POST", "path": path, **more}
    if token is not None:
        step["token"] = token
    return step


B = "/api/bouts/<bout>"
SCRIPT: list[dict[str, Any]] = [
    post("/api/bouts", json={"system": "msv", "name": "Lean", "client_seed": "t"},
         keep={"bout": "id", "ref": "referee_token"}),
    post("/api/bouts", json={"system": "msv", "name": "x" * 300}),  # refused by the rules
    post("/api/bouts", json={"system": "msv"}),  # a field missing: FastAPI's 422
    post("/api/bouts", content=b"{not json", headers={"Content-Type": "application/json"}),
    post("/api/bouts", content=b'{"system": "msv", "name": "a"}',
         headers={"Content-Type": "text/plain"}),  # another content type
    post("/api/bouts", content=b'{"system": "msv", "name": "a"}'),  # no content type
    post("/api/bouts", content=b"", headers={"Content-Type": "application/json"}),
    post("/api/bouts", content=b"null", headers={"Content-Type": "application/json"}),
    post("/api/bouts", content=b'{"system": "msv", "name": "b"}',
         headers={"Content-Type": "application/merge-patch+json"},
         keep={"bout2": "id", "ref2": "referee_token"}),
    post(f"{B}/fighters", "ref", json={"name": "Tarl", "cs": 65}, keep={"tarl": "token"}),
    post(f"{B}/fighters", "ref", json={"name": "Orc", "cs": 70}, keep={"orc": "token"}),
    post(f"{B}/fighters", "ref", json={"name": "Big", "cs": 10**40}),
    post(f"{B}/fighters", json={"name": "Nobody", "cs": 50}),  # no token: 401
    post(f"{B}/join", json={"name": "Kai", "cs": 55, "client_seed": "k"}, keep={"kai": "token"}),
    {"method": "PATCH", "path": f"{B}/fighters/Kai", "token": "ref", "json": {"wounds": 1}},
    {"method": "PATCH", "path": f"{B}/fighters/Kai", "token": "ref", "json": {"wounds": True}},
    {"method": "DELETE", "path": f"{B}/fighters/Kai", "token": "kai"},
    post(f"{B}/fighters/Orc/token", "ref", keep={"orc": "token"}),
    post(f"{B}/fighters/Orc/reveal", "ref"),  # nothing hidden: 400
    post(f"{B}/rolls", "tarl", json={"dice": "2d6+1"}),
    post(f"{B}/rolls", "tarl", content=b'{"dice": "1d6"}',
         headers={"Content-Type": "Application/JSON; charset=utf-8"}),
    post(f"{B}/rolls", "tarl", content='{"dice": "1d4"}'.encode("utf-16"),
         headers={"Content-Type": "application/json"}),  # JSON's own detection of UTF-16
    post(f"{B}/rolls", "tarl", content=b'{"dice": "1d4", "dice": "1d8"}',
         headers={"Content-Type": "application/json"}),  # a key twice: the last one
    post(f"{B}/fighters/Orc/reveal", "ref", json={"keys": ["cs"]}),
    post(f"{B}/fighters/Orc/reveal", "ref", json={"keys": "cs"}),
    post(f"{B}/fighters/Orc/reveal", "ref", content=b"null",
         headers={"Content-Type": "application/json"}),
    post(f"{B}/initiative", "ref"),
    post(f"{B}/attacks", "ref", json={"attacker": "Tarl", "target": "Orc"}),
    post(f"{B}/attacks", "ref", json={"attacker": "Orc", "target": "Tarl"}),
    post(f"{B}/attacks", "tarl", json={"attacker": "Tarl", "target": "Orc", "modifier": 5}),
    post(f"{B}/attacks", "ref", json={"attacker": "Nobody", "target": "Orc"}),
    post(f"{B}/attacks", "ref", json={"attacker": 7, "target": "Orc"}),
    post(f"{B}/attacks", "ref", content=b'{"attacker": "Tarl", "target": "Orc", "modifier": NaN}',
         headers={"Content-Type": "application/json"}),
    post(f"{B}/attacks", "ref", json={"attacker": "Tarl", "target": "Orc"},
         headers={"Idempotency-Key": "k-1"}),
    post(f"{B}/attacks", "ref", json={"attacker": "Tarl", "target": "Orc"},
         headers={"Idempotency-Key": "k-1"}),  # the retry: the first answer again
    post(f"{B}/attacks", "ref", json={"attacker": "Orc", "target": "Tarl"},
         headers={"Idempotency-Key": "k-1"}),  # the key with another request: 409
    post(f"{B}/actions", "ref", json={"actor": "Tarl", "kind": "attack",
                                      "options": {"target": "Orc"}}),
    post(f"{B}/chat", "ref", content=b"roll 1d20", headers={"Content-Type": "text/plain"}),
    post(f"{B}/chat", "ref", content=b"", headers={"Content-Type": "text/plain"}),
    post(f"{B}/chat", "ref", content=b"\xff\xfe", headers={"Content-Type": "text/plain"}),
    post(f"{B}/pause", "ref", content=b"{not json", headers={"Content-Type": "application/json"}),
    post(f"{B}/pause", "ref"),  # paused already: 409
    post(f"{B}/resume", "ref"),
    post(f"{B}/skip", "ref"),
    post(f"{B}/void", "ref"),
    post(f"{B}/override", "ref", json={"of": 999, "wounds": {}}),
    post(f"{B}/end", "ref", json={"winner": "Orc", "reason": "time"}),
    post(f"{B}/end", "ref", content=b"", headers={"Content-Type": "application/json"}),
    post(f"{B}/rotate-seed", "ref"),
    post(f"{B}/handover", "tarl"),  # a fighter's token: 403
    post(f"{B}/handover", "ref", keep={"ref": "referee_token"}),
    post(f"{B}/close", "ref"),
    post(f"{B}/close", "ref"),  # closed already: 409
    post("/api/bouts/nope/attacks", "ref", json={"attacker": "Tarl", "target": "Orc"}),
    post(f"{B}/cancel", "ref"),
]  # fmt: skip


async def play(app: FastAPI) -> list[tuple[int, list[tuple[str, str]], bytes]]:
    session = Session(app)
    async with session.client:
        return [await session.send(step) for step in SCRIPT]


def handed_over(app: FastAPI) -> list[int]:
    """Counts, in one list, the requests the lanes hand to FastAPI's handlers."""
    handed: list[int] = []
    for route in lanes_of(app):
        lane = route.app
        assert isinstance(lane, LeanWrite)

        async def counted(
            scope: Any, receive: Any, send: Any, handler: Any = lane.standard
        ) -> None:
            handed.append(1)
            await handler(scope, receive, send)

        route.app = dataclasses.replace(lane, standard=counted)
    return handed


async def play_counted(app: FastAPI, handed: list[int]) -> list[bool]:
    """Whether each step of the script went to FastAPI's handler."""
    session = Session(app)
    went = []
    async with session.client:
        for step in SCRIPT:
            before = len(handed)
            await session.send(step)
            went.append(len(handed) > before)
    return went


def test_lean_routes_answer_as_fastapis_own_handler_byte_for_byte(tmp_path: Any) -> None:
    label = current_test()
    answers = []
    for kind in ("lean", "standard"):
        with Store.open(str(tmp_path / f"{kind}.db")) as store:
            app = create_app(store, limits=NO_RATE_LIMITS, entropy=SeededEntropy(label))
            if kind == "standard":
                app = standard(app)
            answers.append(asyncio.run(play(app)))
    lean, plain = answers
    statuses = [status for status, _, _ in lean]
    assert {200, 201, 400, 401, 403, 404, 409, 422} <= set(statuses), statuses
    for step, one, other in zip(SCRIPT, lean, plain, strict=True):
        # the two bouts' ids differ, and so do the signatures that bind them
        one, other = unsigned(one), unsigned(other)
        assert one == other, (step["method"], step["path"], one, other)


def unsigned(answer: Any) -> Any:
    """An answer with each roll's signature in its place but not its bytes."""
    status, headers, body = answer
    body = re.sub(rb"sig:[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{86}", b"sig:S", body)
    return status, [h for h in headers if h[0] != "content-length"], body


def test_the_lanes_hand_fastapi_exactly_the_bodies_they_do_not_take(tmp_path: Any) -> None:
    with Store.open(str(tmp_path / "handed.db")) as store:
        app = create_app(store, limits=NO_RATE_LIMITS, entropy=SeededEntropy(current_test()))
        went = asyncio.run(play_counted(app, handed_over(app)))
    with Store.open(str(tmp_path / "answers.db")) as store:
        app = create_app(store, limits=NO_RATE_LIMITS, entropy=SeededEntropy(current_test()))
        statuses = [status for status, _, _ in asyncio.run(play(app))]
    # A 422 is FastAPI's answer to a body it refuses; a JSON type other than application/json
    # (merge-patch+json) is FastAPI's to read too. Everything else the lanes run themselves.
    other_json = ["+json" in step.get("headers", {}).get("Content-Type", "") for step in SCRIPT]
    expected = [status == 422 or other for status, other in zip(statuses, other_json, strict=True)]
    assert went == expected
    assert (went.count(False), len(SCRIPT)) == (42, 55)


# -- what only the lean way meets ---------------------------------------------------------------


def test_a_streamed_body_over_the_limit_is_refused_with_413_and_stores_nothing(
    live: LiveServer,
) -> None:
    bout = live.post("/api/bouts", json={"system": "msv", "name": "Limit"}).json()
    before = live.store.events(bout["id"])

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit is counted as it streams
        yield b'{"system": "msv", "name": "'
        for _ in range(40):
            yield b"x" * 1000
        yield b'"}'

    for path in ("/api/bouts", f"/api/bouts/{bout['id']}/fighters"):
        r = live.post(
            path,
            bout["referee_token"],
            content=chunks(),
            headers={"Content-Type": "application/json"},
        )
        assert (r.status_code, r.json()["error"]) == (413, "too_large"), r.text
    assert live.store.events(bout["id"]) == before


def test_a_client_gone_before_its_body_arrived_gets_nothing_done(tmp_path: Any) -> None:
    with Store.open(str(tmp_path / "gone.db")) as store:
        app = create_app(store, limits=NO_RATE_LIMITS)
        opened = asyncio.run(play_one(app, {"system": "msv", "name": "Gone"}))
        bout = json.loads(opened)
        before = store.events(bout["id"])
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        token = f"Bearer {bout['referee_token']}".encode()
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": f"/api/bouts/{bout['id']}/initiative",
            "raw_path": f"/api/bouts/{bout['id']}/initiative".encode(),
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", b"referee.test"), (b"authorization", token)],
            "client": ("127.0.0.1", 50000),
            "server": ("referee.test", 80),
        }
        asyncio.run(app(scope, receive, send))
        assert sent == []
        assert store.events(bout["id"]) == before


async def play_one(app: FastAPI, body: dict[str, Any]) -> bytes:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://referee.test") as client:
        r = await client.post("/api/bouts", json=body)
        assert r.status_code == 201, r.text
        return r.content


def test_while_dependencies_are_overridden_fastapi_answers(tmp_path: Any) -> None:
    async def refusing() -> None:
        raise AuthError("overridden")

    async def post() -> tuple[int, Any]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://referee.test") as client:
            r = await client.post("/api/bouts", json={"system": "msv", "name": "Over"})
            return r.status_code, r.json()

    with Store.open(str(tmp_path / "over.db")) as store:
        app = create_app(store, limits=NO_RATE_LIMITS)
        app.dependency_overrides[writing] = refusing
        assert asyncio.run(post()) == (401, {"error": "unauthorized", "message": "overridden"})
        app.dependency_overrides.clear()
        assert asyncio.run(post())[0] == 201
