"""Lean write routes (`referee.service.lean`): the same answer as FastAPI's own handler, byte for
byte, for every write route, well-formed or not; FastAPI's handler answers what the lean way
does not take; the body limit and a client that goes away."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
from fastapi import FastAPI

from referee.service.app import create_app
from referee.service.lean import LeanRoute
from referee.service.limits import NO_RATE_LIMITS
from referee.service.routing import writing
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
}


def routes_of(app: FastAPI) -> Iterator[tuple[str, str, LeanRoute]]:
    for route in app.router.routes:
        if isinstance(route, LeanRoute):
            for method in sorted(route.methods or ()):
                yield method, route.path, route


def test_every_write_route_is_lean_and_no_read_route_is(tmp_path: Any) -> None:
    with Store.open(str(tmp_path / "lean.db")) as store:
        app = create_app(store)
        lean = {(method, path) for method, path, route in routes_of(app) if route.lean}
        assert lean == WRITES
        for _method, _path, route in routes_of(app):
            takes_a_write = any(d.call is writing for d in route.dependant.dependencies)
            assert route.lean == takes_a_write, route.path


# -- the same answers either way ------------------------------------------------------------------


def standard(app: FastAPI) -> FastAPI:
    """The app with every lean route answering through FastAPI's own handler only."""
    for _method, _path, route in routes_of(app):
        if route.lean:
            route.app = route.standard
    return app


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
    post(f"{B}/initiative", "ref"),
    post(f"{B}/attacks", "ref", json={"attacker": "Tarl", "target": "Orc"}),
    post(f"{B}/attacks", "ref", json={"attacker": "Orc", "target": "Tarl"}),
    post(f"{B}/attacks", "tarl", json={"attacker": "Tarl", "target": "Orc", "modifier": 5}),
    post(f"{B}/attacks", "ref", json={"attacker": "Nobody", "target": "Orc"}),
    post(f"{B}/attacks", "ref", json={"attacker": 7, "target": "Orc"}),
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
    post(f"{B}/pause", "ref"),
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
        assert one == other, (step["method"], step["path"], one, other)


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
