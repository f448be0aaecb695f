"""Server seeds: production draws them from the OS's secure source and nothing from outside can
choose them (a server seed known in advance tells every roll); tests pass a deterministic source
(tests/seeds.py), so every test sees the same dice on every run."""

from __future__ import annotations

import inspect
import secrets
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import httpx
import pytest

from referee.cli.discord import discord_command
from referee.cli.main import cli
from referee.cli.serve import _app, serve
from referee.discord.bot import RefereeBot, build_bot
from referee.discord.desk import Desk
from referee.discord.replies import Person, Place
from referee.rng import SECURE_ENTROPY, commitment, new_server_seed
from referee.service.app import create_app
from referee.service.bouts import RefereeService
from referee.store import Store
from tests.seeds import SeededEntropy, for_test
from tests.service_fixtures import LiveServer

SERVE = [sys.executable, "-m", "referee.cli.main", "serve"]
KNOWN = "00" * 32  # a seed someone would like to choose


def first_seed(service: RefereeService) -> str:
    """The server seed of the service's first bout (revealed by closing it)."""
    made = service.create_bout("msv", "Spar", client_seed="table")  # no client seed drawn
    return str(
        service.close(made["id"], service.caller(made["id"], made["referee_token"]))["server_seed"]
    )


@pytest.mark.parametrize(
    "made",
    [RefereeService, create_app, Desk, RefereeBot, build_bot],
    ids=lambda f: f.__name__,
)
def test_every_way_to_build_the_service_defaults_to_the_secure_source(
    made: Callable[..., Any],
) -> None:
    default = inspect.signature(made).parameters["entropy"].default
    assert default is SECURE_ENTROPY is secrets.token_bytes


def test_two_services_built_the_default_way_draw_different_seeds() -> None:
    seeds = [first_seed(RefereeService(Store.open("sqlite://"))) for _ in range(2)]
    assert seeds[0] != seeds[1]
    # A deterministic source gives its first seed again to every service built with it.
    again = [
        first_seed(RefereeService(Store.open("sqlite://"), entropy=SeededEntropy("t")))
        for _ in range(2)
    ]
    assert again[0] == again[1] == new_server_seed(SeededEntropy("t"))
    assert not set(seeds) & set(again)


def test_the_desk_and_the_app_draw_secure_seeds_too() -> None:
    hall, judge = Place(100, 7, "hall"), Person(1, "Judge")
    desks = [Desk(Store.open("sqlite://")) for _ in range(2)]
    commitments = []
    for desk in desks:
        desk.open(hall, judge, "msv Duel")
        bout = desk.links.channel(hall.channel)[0]
        assert bout is not None
        commitments.append(desk.service.store.get_bout(bout).commitment)
    assert commitments[0] != commitments[1]
    apps = [create_app(Store.open("sqlite://")) for _ in range(2)]
    assert first_seed(apps[0].state.service) != first_seed(apps[1].state.service)


def test_the_app_referee_serve_builds_ignores_any_seed_in_its_settings() -> None:
    settings = {
        "db": "sqlite://",
        "rates": [],
        "max_streams": 10,
        "max_streams_per_address": 2,
        "poll_seconds": None,
        "receipt_hours": 24.0,
        # Worker settings travel in an environment variable: a seed there must change nothing.
        "server_seed": KNOWN,
        "entropy": KNOWN,
        "seed": KNOWN,
    }
    seeds = [first_seed(_app(Store.open("sqlite://"), settings).state.service) for _ in range(2)]
    assert seeds[0] != seeds[1] and KNOWN not in seeds


@pytest.mark.parametrize("command", [serve, discord_command], ids=["serve", "discord"])
def test_no_option_of_the_serving_commands_touches_seeds(command: click.Command) -> None:
    assert (
        isinstance(cli, click.Group)
        and cli.get_command(click.Context(cli), command.name or "") is command
    )
    words = [w for p in command.params for w in (p.name or "", *p.opts, str(p.envvar or ""))]
    assert [w for w in words if "seed" in w.lower() or "entropy" in w.lower()] == []
    # the database's address and the bot's proxy (a password kept off the process list) may
    # come from the environment; nothing else may, so no variable can reach the dice
    assert all(p.envvar is None for p in command.params if p.name not in ("db_url", "proxy"))


def request_fields(schema: dict[str, Any]) -> set[str]:
    """Every property name of every request body the API's schema describes."""
    models = schema["components"]["schemas"]
    seen: set[str] = set()
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref not in seen:
                seen.add(ref)
                walk(models[ref.rsplit("/", 1)[1]])
            names.update(node.get("properties", {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for operations in schema["paths"].values():
        for operation in operations.values():
            walk(operation.get("requestBody", {}))
    return names


def test_no_request_can_name_the_server_seed(live: LiveServer) -> None:
    for field in ("server_seed", "seed", "entropy"):
        r = live.post("/api/bouts", json={"system": "msv", "name": "Spar", field: KNOWN})
        assert r.status_code == 422, field
        assert field in r.json()["message"]
    fields = request_fields(live.get("/openapi.json").json())
    assert {"client_seed", "system", "name"} <= fields  # the walk does find the bodies' fields
    assert [f for f in fields if "server" in f or "entropy" in f or f == "seed"] == []


def test_referee_serve_draws_a_new_seed_in_every_process(tmp_path: Path) -> None:
    """Two `referee serve` processes as a user starts them: their first bouts' seeds differ
    (a deterministic source would give both the same)."""
    seeds = []
    for n in range(2):
        proc = subprocess.Popen(
            [*SERVE, "--db", str(tmp_path / f"r{n}.db"), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None
            proc.stdout.readline()  # the database line
            line = proc.stdout.readline()
            port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
                made = client.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
                auth = {"Authorization": f"Bearer {made['referee_token']}"}
                closed = client.post(f"/api/bouts/{made['id']}/close", headers=auth).json()
            assert commitment(closed["server_seed"]) == made["commitment"]
            seeds.append(closed["server_seed"])
        finally:
            proc.terminate()
            proc.communicate(timeout=30)
    assert seeds[0] != seeds[1]
    assert new_server_seed(for_test()) not in seeds
