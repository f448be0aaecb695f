"""A saved character's record and luck (issue 45): over the bouts it fought through any door,
whatever names it fought under, from verified exports only. The store keeps each of its joins
(`character_bouts`), so the service finds its bouts without reading every bout's events; a
fighter of another bout who has its name is not counted as it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from referee.cli.main import cli
from tests.service_fixtures import LiveServer

TARL = {"name": "Tarl", "system": "msv", "sheet": {"cs": 65}}


def fight(live: LiveServer, join: Any, foe: str, attacks: int = 6) -> tuple[str, dict[str, Any]]:
    """A closed MSV bout where `join(bout_id)` fields the character and `foe` fights it; the
    referee acts for whoever's turn it is, then ends it for the character's side."""
    made = live.post("/api/bouts", json={"system": "msv", "name": f"Spar with {foe}"}).json()
    bid, ref = made["id"], made["referee_token"]
    name = join(bid)
    assert live.post(f"/api/bouts/{bid}/fighters", ref, json={"name": foe, "cs": 40}).status_code
    assert live.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    for _ in range(attacks):
        view = live.get(f"/api/bouts/{bid}", ref).json()
        if view["status"] != "running":
            break
        turn = view["turn"]
        target = foe if turn == name else name
        body = {"attacker": turn, "target": target}
        assert live.post(f"/api/bouts/{bid}/attacks", ref, json=body).status_code == 200
    if live.get(f"/api/bouts/{bid}", ref).json()["status"] == "running":
        end = {"winner": name, "reason": "time"}
        assert live.post(f"/api/bouts/{bid}/end", ref, json=end).status_code == 200
    assert live.post(f"/api/bouts/{bid}/close", ref).status_code == 200
    return bid, live.get(f"/api/bouts/{bid}/export").json()


def dice_of(export: dict[str, Any], fighter: str) -> int:
    return sum(
        len(e["payload"]["faces"])
        for e in export["events"]
        if e["type"] == "roll" and e["payload"].get("stream") == f"act:{fighter}"
    )


def test_a_characters_record_and_luck_over_every_bout_it_fought(
    live: LiveServer, tmp_path: Path
) -> None:
    first = live.post("/api/characters", json=TARL).json()
    key, cid = first["key"], first["character"]["id"]

    def by_http(bid: str) -> str:
        r = live.post(
            f"/api/bouts/{bid}/characters",
            json={"character": cid},
            headers={"X-Character-Key": key},
        )
        assert r.status_code == 201, r.text
        return str(r.json()["name"])

    def by_chat(bid: str) -> str:
        headers = {"content-type": "text/plain", "X-Character-Key": key}
        r = live.post(f"/api/bouts/{bid}/chat", content="join Tarl Cabot", headers=headers)
        assert r.status_code == 200, r.text
        return "Tarl Cabot"

    one, export_one = fight(live, by_http, "Orc")
    renamed = {"name": "Tarl Cabot"}  # version 2: it fights on under a new name
    assert live.request("PATCH", f"/api/characters/{cid}", key, json=renamed).status_code == 200
    two, export_two = fight(live, by_chat, "Tarl")  # its foe has its first name
    # A bout it did not fight, with a fighter of its name: not its record.
    stranger, _ = fight(live, lambda bid: by_name(live, bid, "Tarl"), "Orc")

    r = live.post("/api/luck", json={"character": cid})
    assert r.status_code == 200, r.text
    report = r.json()
    assert [b["id"] for b in report["bouts"]] == [one, two]
    assert report["fighter"] == "Tarl"  # the name it first fought under
    won = [e["payload"]["winner"] for e in (export_one, export_two) for e in e["events"]
           if e["type"] == "ended"]  # fmt: skip
    record = report["records"]
    assert record == [
        {
            "name": "Tarl",
            "fought": 2,
            "won": sum(w in ("Tarl", "Tarl Cabot") for w in won),
            "lost": sum(w not in ("Tarl", "Tarl Cabot") and w is not None for w in won),
            "undecided": sum(w is None for w in won),
        }
    ]
    dice = dice_of(export_one, "Tarl") + dice_of(export_two, "Tarl Cabot")
    assert dice > 0 and report["luck"]["dice"] == dice
    assert report["refused"] == []
    # The same over bouts named (one it did not fight among them), and by the CLI from the exports.
    named = live.post("/api/luck", json={"character": cid, "bouts": [stranger, one, two]})
    assert named.json()["records"] == record
    paths = []
    for number, export in enumerate((export_one, export_two), 1):
        path = tmp_path / f"bout-{number}.json"
        path.write_text(json.dumps(export), encoding="utf-8")
        paths.append(str(path))
    ran = CliRunner().invoke(cli, ["luck", *paths, "--character", cid, "--json", "-q"])
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.stdout)["records"] == record


def by_name(live: LiveServer, bid: str, name: str) -> str:
    r = live.post(f"/api/bouts/{bid}/join", json={"name": name, "cs": 55})
    assert r.status_code == 201, r.text
    return name


def test_a_character_of_no_bout_or_with_a_fighter_too_is_refused(live: LiveServer) -> None:
    cid = live.post("/api/characters", json=TARL).json()["character"]["id"]
    r = live.post("/api/luck", json={"character": cid})
    assert r.status_code == 404 and "has fought in no bout" in r.json()["message"]
    r = live.post("/api/luck", json={"character": cid, "fighter": "Tarl"})
    assert r.status_code == 400 and "not both" in r.json()["message"]
    assert live.post("/api/luck", json={"character": ""}).status_code in (400, 422)
