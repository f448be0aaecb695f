"""`RouteIndex` (`referee.service.lean`): the router's dispatch, quicker for the lean routes;
every request gets the answer the router's own dispatch gives, byte for byte (a 404, a 405
and its Allow header, a redirect of a trailing slash, the console), and a route that an
earlier one may take first is never found by the index."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from fastapi import FastAPI

from referee.service.app import create_app
from referee.service.lean import LeanRoute, RouteIndex
from referee.service.limits import NO_RATE_LIMITS
from referee.service.routing import Writer
from referee.store import Store
from tests.seeds import SeededEntropy, current_test

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def paths_of(app: FastAPI) -> list[str]:
    """Every route's path with its parameters filled, and near misses of each."""
    out = {"/", "/nope", "/api", "/api/", "/static/nope.css", "/favicon.ico", "/healthz/"}
    for route in app.router.routes:
        path = getattr(route, "path", None)
        if not path:
            continue
        filled = path.replace("{bout_id}", "b0").replace("{name}", "Tarl")
        out |= {filled, filled + "/", filled + "/more", "/x" + filled}
        out.add(filled.rpartition("/")[0] + "/" + "attacks")
    return sorted(out)


async def answers(app: FastAPI, paths: list[str]) -> list[tuple[Any, ...]]:
    transport = httpx.ASGITransport(app=app)
    out = []
    async with httpx.AsyncClient(transport=transport, base_url="http://referee.test") as client:
        for path in paths:
            for method in METHODS:
                for body in (None, b"{}"):
                    headers = {"Content-Type": "application/json"} if body else {}
                    r = await client.request(method, path, content=body, headers=headers)
                    out.append((method, path, body, r.status_code, r.headers.raw, r.content))
    return out


def test_the_index_answers_as_the_routers_own_dispatch(tmp_path: Any) -> None:
    got = []
    for kind in ("indexed", "scanned"):
        with Store.open(str(tmp_path / f"{kind}.db")) as store:
            app = create_app(store, limits=NO_RATE_LIMITS, entropy=SeededEntropy(current_test()))
            assert isinstance(app.router.middleware_stack, RouteIndex)
            if kind == "scanned":
                app.router.middleware_stack = app.router.app
            got.append(asyncio.run(answers(app, paths_of(app))))
    indexed, scanned = got
    assert len(indexed) > 1000
    for one, other in zip(indexed, scanned, strict=True):
        assert one == other


def test_the_index_holds_the_lean_routes_no_earlier_route_may_take(tmp_path: Any) -> None:
    with Store.open(str(tmp_path / "index.db")) as store:
        app = create_app(store)
        index = app.router.middleware_stack
        assert isinstance(index, RouteIndex)
        found = [route.path for routes in index._tails.values() for route in routes]
        assert "/api/bouts/{bout_id}/attacks" in found
        assert "/favicon.ico" not in found  # after the included routers: not reasoned about


def test_a_route_an_earlier_one_may_take_is_left_to_the_router() -> None:
    app = FastAPI()
    app.router.route_class = LeanRoute

    async def any_write(bout_id: str, what: str, write: Writer) -> dict[str, Any]:
        return {}

    async def attack(bout_id: str, write: Writer) -> dict[str, Any]:
        return {}

    async def glance(bout_id: str, write: Writer) -> dict[str, Any]:
        return {}

    app.router.add_api_route("/b/{bout_id}/{what}", any_write, methods=["POST"])
    app.router.add_api_route("/b/{bout_id}/attacks", attack, methods=["POST"])
    app.router.add_api_route("/b/{bout_id}/glance", glance, methods=["GET"])
    index = RouteIndex(app.router)
    assert sorted(index._tails) == ["glance"]  # another method: never taken first
    app.router.add_api_route("/c/{x}/glance", glance, methods=["GET"])
    asyncio.run(index(_scope("GET", "/none"), _nothing, _nothing))  # re-indexed, then a 404
    assert [r.path for r in index._tails["glance"]] == ["/b/{bout_id}/glance", "/c/{x}/glance"]


def _scope(method: str, path: str) -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "headers": [], "query_string": b""}


async def _nothing(*_: Any) -> Any:
    return {"type": "http.disconnect"}
