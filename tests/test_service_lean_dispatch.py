"""Where the lean lanes (`referee.service.lean`) sit: each is the app of its own declared route,
so the router's own dispatch picks the route as it always has: every request gets the answer it
gets without them, byte for byte (a 404, a 405 and its Allow header, a redirect of a trailing
slash, the console), and a route that an earlier one may take first is left to that one; a
route's quick look at its path's last segment turns down only what FastAPI's match would."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from fastapi import FastAPI
from fastapi.routing import APIRoute

from referee.service.app import create_app
from referee.service.lean import LeanWrite, add_lanes
from referee.service.limits import NO_RATE_LIMITS
from referee.service.routing import Ask, TailRoute, Writer
from referee.store import Store
from tests.seeds import SeededEntropy, current_test
from tests.test_service_lean import lanes_of, standard

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


def test_the_lanes_answer_every_path_as_the_routers_own_dispatch(tmp_path: Any) -> None:
    got = []
    for kind in ("lean", "standard"):
        with Store.open(str(tmp_path / f"{kind}.db")) as store:
            app = create_app(store, limits=NO_RATE_LIMITS, entropy=SeededEntropy(current_test()))
            if kind == "standard":
                app = standard(app)
            got.append(asyncio.run(answers(app, paths_of(app))))
    lean, plain = got
    assert len(lean) > 1000
    for one, other in zip(lean, plain, strict=True):
        assert one == other


def test_a_route_an_earlier_one_may_take_is_left_to_it(tmp_path: Any) -> None:
    app = FastAPI()

    async def any_write(bout_id: str, what: str, write: Writer) -> dict[str, Any]:
        return {"by": "any_write"}

    async def attack(bout_id: str, write: Writer) -> dict[str, Any]:
        return {"by": "attack"}

    app.router.add_api_route("/b/{bout_id}/{what}", any_write, methods=["POST"])
    app.router.add_api_route("/b/{bout_id}/attacks", attack, methods=["POST"])
    add_lanes(app.router.routes)
    assert [route.path for route in lanes_of(app)] == [
        "/b/{bout_id}/{what}",
        "/b/{bout_id}/attacks",
    ]

    async def ask() -> list[Any]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return [(await client.post(path)).json() for path in ("/b/1/attacks", "/b/1/x")]

    with Store.open(str(tmp_path / "shadow.db")) as store:
        app.state.ask = Ask(None, store, None, None)  # type: ignore[arg-type]
        assert asyncio.run(ask()) == [{"by": "any_write"}, {"by": "any_write"}]


def test_a_declaration_the_lane_cannot_run_exactly_gets_no_lane() -> None:
    app = FastAPI()

    async def with_query(bout_id: str, write: Writer, page: int = 1) -> dict[str, Any]:
        return {}

    async def numbered(bout_id: int, write: Writer) -> dict[str, Any]:
        return {}

    def blocking(bout_id: str, write: Writer) -> dict[str, Any]:
        return {}

    async def unset(bout_id: str, write: Writer) -> dict[str, Any]:
        return {}

    async def fine(bout_id: str, write: Writer) -> dict[str, Any]:
        return {}

    app.router.add_api_route("/q/{bout_id}", with_query, methods=["POST"])
    app.router.add_api_route("/n/{bout_id:int}", numbered, methods=["POST"])
    app.router.add_api_route("/s/{bout_id}", blocking, methods=["POST"])
    app.router.add_api_route(
        "/u/{bout_id}", unset, methods=["POST"], response_model_exclude_none=True
    )
    app.router.add_api_route("/f/{bout_id}", fine, methods=["POST"])
    add_lanes(app.router.routes)
    assert [route.path for route in lanes_of(app)] == ["/f/{bout_id}"]
    add_lanes(app.router.routes)  # once is all: a lane is never a lane's fallback
    lane = lanes_of(app)[0].app
    assert isinstance(lane, LeanWrite) and not isinstance(lane.standard, LeanWrite)


def test_a_route_turns_down_only_what_fastapis_match_turns_down(tmp_path: Any) -> None:
    with Store.open(str(tmp_path / "tails.db")) as store:
        app = create_app(store)
        routes = [r for r in app.router.routes if isinstance(r, TailRoute)]
        assert len(routes) > 30 and sum(r.tail is not None for r in routes) > 20
        for route in routes:
            for path in paths_of(app):
                for method in METHODS:
                    scope = {**_scope(method, path), "root_path": ""}
                    assert route.matches(scope) == APIRoute.matches(route, scope), (route, path)


def _scope(method: str, path: str) -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "headers": [], "query_string": b""}
