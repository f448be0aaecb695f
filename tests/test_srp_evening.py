"""An SRP evening of three fights through the service (SQLite, and PostgreSQL when the suite
has one): every fighter's hits, PM, Spirit and conditions carried exactly from one fight to the
next, the referee's changes between them recorded with their reasons, SRP-17's hour of play
time, and each fight's export verified with its link to the one before (docs/srp.md)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.bout import commands as c
from referee.bout.evening import check_evening
from referee.bout.replay import check_export
from referee.cli.main import cli
from referee.ledger import verify_export
from referee.rng import Entropy
from referee.service.bouts import RefereeService
from referee.store import Store
from tests.seeds import SeededEntropy
from tests.service_fixtures import LiveServer


@pytest.fixture
def entropy() -> Entropy:
    """The same server seeds on every database: the evening's dice are known in advance."""
    return SeededEntropy("srp evening of three fights")


SHEETS: dict[str, tuple[str, dict[str, Any]]] = {
    "Ann": (
        "heroes",
        {
            "hits": 12,
            "skills": {"sword": 15},
            "defense": 12,
            "armor": 2,
            "pm": 7,
            "spirit": 9,
            "weapons": [{"name": "sword", "damage": 2}],
        },
    ),
    "Cara": (
        "heroes",
        {
            "hits": 9,
            "skills": {"mace": 14},
            "defense": 10,
            "armor": 1,
            "pm": 4,
            "spirit": 4,
            "weapons": [{"name": "mace", "damage": 3, "codes": ["S*"]}],
        },
    ),
    "Ghost": ("haunts", {"hits": 6, "pm": 0, "spirit": 1}),
    "Bran": (
        "haunts",
        {
            "hits": 40,
            "skills": {"club": 11},
            "defense": 9,
            "armor": 0,
            "pm": 3,
            "spirit": 3,
            "weapons": [{"name": "club", "damage": 1}],
        },
    ),
}


def first_fight(live: LiveServer) -> tuple[str, str]:
    made = live.post("/api/bouts", json={"system": "srp", "name": "The ford", "client_seed": "e"})
    assert made.status_code == 201, made.text
    bid, ref = made.json()["id"], made.json()["referee_token"]
    for name, (side, sheet) in SHEETS.items():
        r = live.post(
            f"/api/bouts/{bid}/fighters", ref, json={"name": name, "side": side, "sheet": sheet}
        )
        assert r.status_code == 201, r.text
    assert live.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    return bid, ref


def act(
    live: LiveServer, bid: str, ref: str, actor: str, kind: str, **options: Any
) -> dict[str, Any]:
    r = live.post(
        f"/api/bouts/{bid}/actions", ref, json={"actor": actor, "kind": kind, "options": options}
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def play_round(live: LiveServer, bid: str, ref: str) -> None:
    """Each fighter's turn once: Ann fights the Ghost's spirit while it has not passed out,
    else strikes Bran; Cara and Bran strike each other; the Ghost, spent at 0 PM or out,
    passes (a spent side may not go on, SRP-17)."""
    for _ in range(4):
        view = live.get(f"/api/bouts/{bid}", ref).json()
        actor = view["turn"]
        if view["status"] != "running" or actor is None:
            return
        if actor == "Ann" and not passed_out(view, "Ghost"):
            act(live, bid, ref, "Ann", "spirit", target="Ghost")
        elif actor in ("Ann", "Cara"):
            act(live, bid, ref, actor, "attack", target="Bran")
        elif actor == "Bran":
            act(live, bid, ref, "Bran", "attack", target="Cara")
        else:
            act(live, bid, ref, actor, "pass")


def passed_out(view: dict[str, Any], name: str) -> bool:
    return bool(fighters(view)[name]["stats"]["pm"] <= -1)


def fighters(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["name"]: f for f in view["fighters"]}


def state(view: dict[str, Any]) -> dict[str, tuple[int, int, int, dict[str, Any]]]:
    """Each fighter's (hits taken, PM, Spirit, conditions)."""
    return {
        f["name"]: (f["wounds"], f["stats"]["pm"], f["stats"]["spirit"], f["conditions"])
        for f in view["fighters"]
    }


def events_of(live: LiveServer, bid: str, ref: str) -> list[dict[str, Any]]:
    return list(live.get(f"/api/bouts/{bid}/log", ref).json())


def test_an_evening_of_three_fights_carries_every_fighter_exactly(live: LiveServer) -> None:
    bid, ref = first_fight(live)
    for _ in range(2):
        play_round(live, bid, ref)
    one = live.get(f"/api/bouts/{bid}", ref).json()
    # Fight 1 (the dice of this module's fixed seeds): the Ghost, at 0 PM, loses its spirit
    # combat with Ann, passes out at -1 PM and loses 1 Spirit for good (SRP-17).
    assert state(one) == {
        "Ann": (0, 7, 9, {"in_spirit_combat": None}),
        "Cara": (3, 4, 4, {}),
        "Ghost": (0, -1, 0, {"in_spirit_combat": None}),
        "Bran": (9, 3, 3, {}),
    }
    assert fighters(one)["Ghost"]["stats"]["out_since"] == 0  # minute 0 of the evening

    r = live.post(
        f"/api/bouts/{bid}/next",
        ref,
        json={
            "name": "The barrow",
            "minutes": 30,
            "reason": "a short rest by the ford",
            "changes": [
                {"fighter": "Cara", "heal": 1, "reason": "Ann binds her wounds"},
                {"fighter": "Ann", "clear": ["in_spirit_combat"], "reason": "the Ghost lies quiet"},
            ],
        },
    )
    assert r.status_code == 200, r.text
    second = r.json()
    bid2, ref2 = second["id"], second["referee_token"]
    closed = live.get(f"/api/bouts/{bid}/export").json()
    assert closed["bout"]["status"] == "closed"  # the fight it follows, closed in the same write
    assert (second["follows"], second["clock"], second["clock_now"]) == (bid, 0, 30)
    assert second["follows_head"] == closed["events"][-1]["hash"]
    assert [f["name"] for f in second["fighters"]] == list(SHEETS)
    two_start = live.get(f"/api/bouts/{bid2}", ref2).json()
    # Carried as fight 1 ended; Cara healed 1 hit; the Ghost is still out: 30 minutes is
    # not the hour (SRP-17).
    assert state(two_start) == {
        "Ann": (0, 7, 9, {}),
        "Cara": (2, 4, 4, {}),
        "Ghost": (0, -1, 0, {"in_spirit_combat": None}),
        "Bran": (9, 3, 3, {}),
    }
    assert two_start["clock"] == 30
    between = [
        (e["type"], e["actor"], e["payload"].get("reason")) for e in events_of(live, bid2, ref2)[5:]
    ]
    assert between == [
        ("time_passed", "referee", "a short rest by the ford"),
        ("fighter_updated", "referee", "Ann binds her wounds"),
        ("condition", "referee", None),
    ]
    assert live.post(f"/api/bouts/{bid2}/initiative", ref2).status_code == 200
    tokens = {f["name"]: f["token"] for f in second["fighters"]}
    act(live, bid2, tokens["Ann"], "Ann", "attack", target="Bran")  # Ann's link in fight 2
    play_round(live, bid2, ref2)
    two = live.get(f"/api/bouts/{bid2}", ref2).json()
    assert state(two) == {
        "Ann": (0, 7, 9, {}),
        "Cara": (5, 4, 4, {}),
        "Ghost": (0, -1, 0, {"in_spirit_combat": None}),
        "Bran": (22, 3, 3, {}),
    }

    r = live.post(
        f"/api/bouts/{bid2}/next",
        ref2,
        json={
            "minutes": 30,
            "reason": "the walk to the hall",
        },
    )
    assert r.status_code == 200, r.text
    third = r.json()
    bid3, ref3 = third["id"], third["referee_token"]
    three_start = live.get(f"/api/bouts/{bid3}", ref3).json()
    # Minute 60: an hour since the Ghost passed out, it is back at 0 PM; its Spirit stays lost.
    assert state(three_start) == {
        "Ann": (0, 7, 9, {}),
        "Cara": (5, 4, 4, {}),
        "Ghost": (0, 0, 0, {"in_spirit_combat": None}),
        "Bran": (22, 3, 3, {}),
    }
    recovery = [e for e in events_of(live, bid3, ref3) if e["type"] == "fighter_updated"]
    assert [(e["actor"], e["payload"]["name"], e["payload"]["reason"]) for e in recovery] == [
        (
            "system",
            "Ghost",
            "recovery: at -1 PM since minute 0, an hour has passed (minute 60): "
            "back to 0 PM (SRP-17)",
        ),
    ]
    assert live.post(f"/api/bouts/{bid3}/close", ref3).status_code == 200
    exports = [live.get(f"/api/bouts/{b}/export").json() for b in (bid, bid2, bid3)]
    for doc in exports:
        report = verify_export(doc, replay=check_export)
        assert report.ok, report
    assert check_evening(exports) == []

    # A carried state the last fight did not end with is found, as is a broken link.
    forged = copy.deepcopy(exports)
    added = next(e for e in forged[1]["events"] if e["type"] == "fighter_added")
    added["payload"]["wounds"] = 1
    assert [p.message for p in check_evening(forged)] == [
        f"bout {bid2}: Ann's wounds is 1; it ended the last fight with 0",
        f"bout {bid3}: Ann's wounds is 0; it ended the last fight with 1",  # its fold has 1
    ]
    assert [str(p) for p in check_evening([exports[0], exports[2]])][:1] == [
        f"event 0 (bout_opened): bout {bid3}: follows {bid2!r}, not bout {bid!r}"
    ]


def test_a_next_fight_that_fails_changes_nothing(live: LiveServer) -> None:
    bid, ref = first_fight(live)
    ann = token_of(live, bid, ref)
    before = events_of(live, bid, ref)
    listed = live.get("/api/bouts").json()
    for body, status in (
        ({"changes": [{"fighter": "Nobody", "heal": 1, "reason": "x"}]}, 404),
        ({"minutes": -5, "reason": "time runs back"}, 422),
        ({"reason": "no time at all"}, 400),
        ({"leave": ["Nobody"]}, 400),
        ({"changes": [{"fighter": "Ghost", "sheet": {"pm": 0}, "reason": "at once"}]}, 200),
    ):
        r = live.post(f"/api/bouts/{bid}/next", ref, json=body)
        if status == 200:  # the Ghost starts at 0 PM: setting 0 is no recovery, so allowed
            assert r.status_code == 200, r.text
            continue
        assert r.status_code == status, (body, r.text)
        assert events_of(live, bid, ref) == before  # not even closed
        assert live.get("/api/bouts").json() == listed
    again = live.post(f"/api/bouts/{bid}/next", ann, json={})
    assert again.status_code == 403  # a fighter's token: only the referee


def token_of(live: LiveServer, bid: str, ref: str) -> str:
    r = live.post(f"/api/bouts/{bid}/fighters/Ann/token", ref)
    return str(r.json()["token"])


def test_only_the_referee_starts_the_next_fight(live: LiveServer) -> None:
    bid, ref = first_fight(live)
    before = events_of(live, bid, ref)
    assert live.post(f"/api/bouts/{bid}/next", json={}).status_code == 401
    r = live.post(f"/api/bouts/{bid}/next", token_of(live, bid, ref), json={})
    assert r.status_code == 403 and "only the referee" in r.text
    assert events_of(live, bid, ref) == before


def test_within_the_hour_the_referee_cannot_bring_a_spirit_back(live: LiveServer) -> None:
    bid, ref = first_fight(live)
    for _ in range(2):
        play_round(live, bid, ref)
    r = live.post(
        f"/api/bouts/{bid}/next",
        ref,
        json={
            "minutes": 59,
            "reason": "a rest",
            "changes": [{"fighter": "Ghost", "sheet": {"pm": 0}, "reason": "woken"}],
        },
    )
    assert r.status_code == 400, r.text
    assert "does not recover to 0 PM before minute 60 (now minute 59" in r.text  # SRP-17
    assert live.get(f"/api/bouts/{bid}/export").json()["bout"]["status"] == "running"


def test_the_cli_starts_the_next_fight_and_checks_the_evening(db_url: str, tmp_path: Path) -> None:
    with Store.open(db_url) as store:
        service = RefereeService(store, entropy=SeededEntropy("srp evening on the CLI"))
        made = service.create_bout("srp", "The ford", "e")
        ref = service.caller(made["id"], made["referee_token"])
        for name, (side, sheet) in SHEETS.items():
            service.add_fighter(made["id"], ref, name, sheet, side)
        service.command(made["id"], ref, c.UpdateFighter("Cara", wounds=4, reason="a fall"))
    run = CliRunner().invoke(
        cli,
        [
            "srp",
            "next-fight",
            made["id"],
            "--db",
            db_url,
            "--token",
            made["referee_token"],
            "--minutes",
            "60",
            "--reason",
            "a rest",
            "--heal",
            "Cara=3:a salve",
            "--set",
            "Bran:pm=1:a bad dream",
            "--leave",
            "Ghost",
        ],
    )
    assert run.exit_code == 0, run.output
    answer = json.loads(run.output)
    assert [f["name"] for f in answer["fighters"]] == ["Ann", "Cara", "Bran"]
    with Store.open(db_url, create=False) as store:
        service = RefereeService(store)
        view = service.view(answer["id"], service.caller(answer["id"], answer["referee_token"]))
        assert {f["name"]: (f["wounds"], f["stats"]["pm"]) for f in view["fighters"]} == {
            "Ann": (0, 7),
            "Cara": (1, 4),
            "Bran": (0, 1),
        }
        closed = service.close(answer["id"], service.caller(answer["id"], answer["referee_token"]))
        assert closed["server_seed"]
        paths = []
        for n, bid in enumerate((made["id"], answer["id"])):
            path = tmp_path / f"fight-{n}.json"
            path.write_text(json.dumps(service.export(bid)), encoding="utf-8")
            paths.append(str(path))
    ok = CliRunner().invoke(cli, ["srp", "evening", *paths])
    assert ok.exit_code == 0, ok.output
    assert ok.output == "evening ok: 2 fights, each carried from the one before\n"
    backwards = CliRunner().invoke(cli, ["srp", "evening", paths[1], paths[0]])
    assert backwards.exit_code == 1
    assert f"follows None, not bout {answer['id']!r}" in backwards.output
    bad = CliRunner().invoke(
        cli,
        [
            "srp",
            "next-fight",
            answer["id"],
            "--db",
            db_url,
            "--token",
            answer["referee_token"],
            "--heal",
            "Cara:3",
        ],
    )
    assert bad.exit_code == 2 and "bad --heal 'Cara:3' (expected NAME=HITS:REASON" in bad.output


def test_a_hidden_stat_stays_hidden_when_carried(live: LiveServer) -> None:
    made = live.post("/api/bouts", json={"system": "srp", "name": "Mist", "client_seed": "h"})
    bid, ref = made.json()["id"], made.json()["referee_token"]
    for name, side, hidden in (("Ann", "heroes", []), ("Ghost", "haunts", ["pm", "spirit"])):
        sheet = SHEETS[name][1]
        r = live.post(
            f"/api/bouts/{bid}/fighters",
            ref,
            json={"name": name, "side": side, "sheet": sheet, "hidden": hidden},
        )
        assert r.status_code == 201, r.text
    r = live.post(f"/api/bouts/{bid}/next", ref, json={"minutes": 5, "reason": "fog"})
    assert r.status_code == 200, r.text
    bid2, ref2 = r.json()["id"], r.json()["referee_token"]
    public = live.get(f"/api/bouts/{bid2}/export").json()
    ghost = next(
        e
        for e in public["events"]
        if e["type"] == "fighter_added" and e["payload"]["name"] == "Ghost"
    )
    assert ghost["payload"]["carried"] is True and ghost["payload"]["hidden"] == ["pm", "spirit"]
    assert ghost["payload"]["stats"]["pm"] == "hidden" == ghost["payload"]["stats"]["spirit"]
    assert set(r.json()["fighters"][1]) == {"name", "token"}  # no stats in the answer
    view = live.get(f"/api/bouts/{bid2}").json()
    assert "pm" not in next(f for f in view["fighters"] if f["name"] == "Ghost")["stats"]
    assert check_evening([live.get(f"/api/bouts/{bid}/export").json(), public]) == []
    assert live.post(f"/api/bouts/{bid2}/close", ref2).status_code == 200
    whole = live.get(f"/api/bouts/{bid2}/export").json()
    assert verify_export(whole, replay=check_export).ok
    assert check_evening([live.get(f"/api/bouts/{bid}/export").json(), whole]) == []
