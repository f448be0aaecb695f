"""Whole bouts over HTTP, from creation to a verified export, on SQLite and PostgreSQL."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from referee.bout.replay import check_export
from referee.cli.main import cli
from referee.ledger import event_hash, verify_export
from tests.conftest import need
from tests.service_fixtures import LiveServer, start_server

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def turns(
    live: LiveServer, bout_id: str, pair: tuple[str, str], most: int = 300
) -> Iterator[tuple[str, str]]:
    """(whose turn, the other fighter) until the bout has a winner (at most `most` turns)."""
    for _ in range(most):
        view = live.get(f"/api/bouts/{bout_id}").json()
        if view["winner"]:
            return
        me = view["turn"]
        yield me, pair[1] if me == pair[0] else pair[0]
    raise AssertionError(f"no winner after {most} turns")


def msv_spar(live: LiveServer) -> tuple[dict[str, Any], dict[str, str]]:
    bout = live.post(
        "/api/bouts", json={"system": "msv", "name": "Spar", "client_seed": "judge"}
    ).json()
    bid, ref = bout["id"], bout["referee_token"]
    tokens = {}
    for name, cs in (("Tarl", 65), ("Pa-Kur", 70)):
        r = live.post(f"/api/bouts/{bid}/fighters", ref, json={"name": name, "cs": cs})
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["token"]
    r = live.post(f"/api/bouts/{bid}/initiative", ref)
    assert r.status_code == 200 and sorted(r.json()["order"]) == ["Pa-Kur", "Tarl"]
    for me, foe in turns(live, bid, ("Pa-Kur", "Tarl"), 300):
        r = live.post(f"/api/bouts/{bid}/attacks", tokens[me], json={"attacker": me, "target": foe})
        assert r.status_code == 200, r.text
        answer = r.json()
        assert {"roll", "success", "damage", "critical", "summary", "rolls"} <= set(answer)
        assert answer["roll"] == answer["rolls"][0]["faces"][0]
        assert answer["rolls"][0]["dice"] == ["d100"]
        assert answer["success"] == (answer["roll"] <= (65 if me == "Tarl" else 70))
    view = live.get(f"/api/bouts/{bid}").json()
    assert view["winner"] in ("Tarl", "Pa-Kur")
    loser = next(f for f in view["fighters"] if f["name"] != view["winner"])
    assert loser["defeated"] and loser["wounds"] >= 15
    return bout, tokens


def test_a_whole_msv_spar_verifies(live: LiveServer, tmp_path: Path) -> None:
    bout, _ = msv_spar(live)
    bid = bout["id"]
    seed = live.post(f"/api/bouts/{bid}/close", bout["referee_token"]).json()["server_seed"]
    export = live.get(f"/api/bouts/{bid}/export").json()
    assert export["fairness"]["server_seed"] == seed
    assert export["fairness"]["commitment"] == bout["commitment"]
    report = verify_export(export, replay=check_export)
    assert report.ok, report
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert result.exit_code == 0, result.output


def _rehash_from(events: list[dict[str, Any]], start: int) -> None:
    """Re-chain events from `start` on, as a forger who knows the format would."""
    for i in range(start, len(events)):
        if i:
            events[i]["prev"] = events[i - 1]["hash"]
        body = {k: v for k, v in events[i].items() if k != "hash"}
        events[i]["hash"] = event_hash(body)


def test_verify_rejects_one_altered_face_or_event(live: LiveServer, tmp_path: Path) -> None:
    bout, _ = msv_spar(live)
    bid = bout["id"]
    live.post(f"/api/bouts/{bid}/close", bout["referee_token"])
    export = live.get(f"/api/bouts/{bid}/export").json()
    roll_at = next(i for i, e in enumerate(export["events"]) if e["type"] == "roll" and i > 8)

    face = copy.deepcopy(export)
    old = face["events"][roll_at]["payload"]["faces"][0]
    face["events"][roll_at]["payload"]["faces"][0] = old % 100 + 1
    _rehash_from(face["events"], roll_at)

    outcome_at = next(i for i, e in enumerate(export["events"]) if e["type"] == "outcome")
    forged = copy.deepcopy(export)
    forged["events"][outcome_at]["payload"]["damage"] = (
        4 if forged["events"][outcome_at]["payload"]["damage"] != 4 else 3
    )
    _rehash_from(forged["events"], outcome_at)

    unchained = copy.deepcopy(export)
    unchained["events"][outcome_at]["payload"]["summary"] = "a lie"

    for doc, seq, word in (
        (face, roll_at, "face"),
        (forged, outcome_at, "rules"),
        (unchained, outcome_at, "hash"),
    ):
        path = tmp_path / "tampered.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        result = CliRunner().invoke(cli, ["verify", str(path)])
        assert result.exit_code == 1, result.output
        assert f"event {seq}" in result.output + result.stderr, (word, result.output, result.stderr)


def test_a_fighter_may_join_and_add_to_the_client_seed(live: LiveServer) -> None:
    bout = live.post(
        "/api/bouts", json={"system": "msv", "name": "Open spar", "client_seed": "judge"}
    ).json()
    bid = bout["id"]
    r = live.post(
        f"/api/bouts/{bid}/join", json={"name": "Tarl", "cs": 65, "client_seed": "tarl-luck"}
    )
    assert r.status_code == 201, r.text
    assert r.json()["client_seed"] == "judge:tarl-luck"
    r = live.post(f"/api/bouts/{bid}/join", json={"name": "Pa-Kur", "cs": 70})
    assert r.status_code == 201
    assert live.get(f"/api/bouts/{bid}").json()["client_seed"] == "judge:tarl-luck"
    assert live.post(f"/api/bouts/{bid}/initiative", bout["referee_token"]).status_code == 200
    late = live.post(f"/api/bouts/{bid}/join", json={"name": "Late", "cs": 50, "client_seed": "x"})
    assert late.status_code == 409


def test_the_curl_walkthrough_runs(tmp_path: Path) -> None:
    """examples/walkthrough.sh against a live server (SQLite: one database is enough here),
    as after `make run`: no `referee` on PATH, the one in the repository's .venv used."""
    need(shutil.which("curl") is not None and shutil.which("jq") is not None, "curl and jq")
    # A copy of the repository's layout: examples/walkthrough.sh beside .venv/bin/referee.
    (tmp_path / "examples").mkdir()
    script = tmp_path / "examples" / "walkthrough.sh"
    shutil.copy(EXAMPLES / "walkthrough.sh", script)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "referee").symlink_to(Path(sys.executable).parent / "referee")
    path = os.pathsep.join(
        str(Path(tool).parent) for tool in (shutil.which("curl"), shutil.which("jq"), "/bin/x")
    )
    assert shutil.which("referee", path=path) is None
    server, thread, store, url = start_server(str(tmp_path / "walkthrough.db"))
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_CMD"}
    env.update(BASE=url, PATH=path)
    try:
        result = subprocess.run(
            ["bash", str(script)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        server.stop()
        thread.join(10)
        store.close()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "winner: " in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].startswith("ok")


ANN = {
    "hits": 8,
    "skills": {"sword": 14},
    "defense": 12,
    "shield": "(6)",
    "defend": "shield",
    "armor": 2,
    "weapons": [{"name": "sword", "damage": 3}],
}
BRAN = {
    "hits": 8,
    "skills": {"mace": 13},
    "defense": 11,
    "armor": 1,
    "weapons": [{"name": "mace", "damage": 2, "codes": ["D"]}],
}


def test_a_whole_srp_fight_with_shield_override_and_hidden_stats_verifies(live: LiveServer) -> None:
    bout = live.post(
        "/api/bouts", json={"system": "srp", "name": "Ford", "client_seed": "gm"}
    ).json()
    bid, ref = bout["id"], bout["referee_token"]
    tokens = {}
    for name, sheet, hidden in (("Ann", ANN, []), ("Bran", BRAN, ["defense"])):
        r = live.post(
            f"/api/bouts/{bid}/fighters", ref, json={"name": name, "sheet": sheet, "hidden": hidden}
        )
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["token"]
    public = live.get(f"/api/bouts/{bid}").json()
    bran = next(f for f in public["fighters"] if f["name"] == "Bran")
    assert "defense" not in bran["stats"]
    referee_view = live.get(f"/api/bouts/{bid}", ref).json()
    assert (
        next(f for f in referee_view["fighters"] if f["name"] == "Bran")["stats"]["defense"] == 11
    )
    log = live.get(f"/api/bouts/{bid}/log").json()
    added = next(e for e in log if e["type"] == "fighter_added" and e["payload"]["name"] == "Bran")
    assert added["payload"]["stats"]["defense"] == "hidden" and "sealed" in added
    assert live.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200

    overridden = False
    for me, foe in turns(live, bid, ("Ann", "Bran"), 200):
        r = live.post(f"/api/bouts/{bid}/attacks", tokens[me], json={"attacker": me, "target": foe})
        assert r.status_code == 200, r.text
        answer = r.json()
        assert {"attack_level", "defense_level", "hit_level", "damage", "hits"} <= set(answer)
        # Bran's defense is hidden: a fighter's answer leaves out what would give it away.
        assert not {"effective_skill", "explanation", "armor"} & set(answer)
        assert answer["rolls"][0]["dice"] == ["d20", "d20", "d6"]
        if me == "Bran" and not overridden:
            # Ann always defends with her shield; the referee rules the blow did two hits
            # whatever the dice said (SRP-20). Bran always gets a turn: one blow of Ann's
            # cannot take his 8 hits.
            r = live.post(
                f"/api/bouts/{bid}/override",
                ref,
                json={"of": answer["seq"], "wounds": {"Ann": 2}, "note": "the shield strap broke"},
            )
            assert r.status_code == 200, r.text
            ann = next(
                f for f in live.get(f"/api/bouts/{bid}").json()["fighters"] if f["name"] == "Ann"
            )
            assert ann["wounds"] == 2  # Bran's first blow, whatever it did, now counts as 2 hits
            overridden = True
    assert overridden
    assert live.get(f"/api/bouts/{bid}").json()["winner"] in ("Ann", "Bran")
    live.post(f"/api/bouts/{bid}/close", ref)
    export = live.get(f"/api/bouts/{bid}/export").json()
    over = next(e for e in export["events"] if e["type"] == "overridden")
    original = export["events"][over["payload"]["of"]]
    assert original["type"] == "outcome" and over["payload"]["note"] == "the shield strap broke"
    report = verify_export(export, replay=check_export)
    assert report.ok, report


def test_srp_special_actions_over_http(live: LiveServer) -> None:
    bout = live.post(
        "/api/bouts", json={"system": "srp", "name": "Disarm", "client_seed": "gm"}
    ).json()
    bid, ref = bout["id"], bout["referee_token"]
    for name, sheet in (("Ann", {**ANN, "defend": "weapon"}), ("Bran", BRAN)):
        live.post(f"/api/bouts/{bid}/fighters", ref, json={"name": name, "sheet": sheet})
    live.post(f"/api/bouts/{bid}/initiative", ref)
    while live.get(f"/api/bouts/{bid}").json()["turn"] != "Bran":
        live.post(f"/api/bouts/{bid}/skip", ref)
    r = live.post(
        f"/api/bouts/{bid}/actions",
        ref,
        json={"actor": "Bran", "kind": "disarm", "options": {"target": "Ann"}},
    )
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["kind"] == "disarm" and answer["rolls"][0]["dice"] == ["d20", "d20", "d6"]
    r = live.post(
        f"/api/bouts/{bid}/actions", ref, json={"actor": "Ann", "kind": "juggle", "options": {}}
    )
    assert r.status_code in (400, 409)


def test_a_whole_msv_spar_over_the_chat_endpoint(live: LiveServer) -> None:
    """What a Second Life HUD does: one chat line in, one line to say out, every answer short."""
    bout = live.post("/api/bouts", json={"system": "msv", "name": "Chat spar"}).json()
    bid, ref = bout["id"], bout["referee_token"]
    tokens = {}
    for name, cs in (("Tarl", 65), ("Pa-Kur", 70)):
        r = live.chat(bid, ref, f"add {name} {cs}")
        assert r.status_code == 200, r.text
        assert r.text == (
            f"{name} joins the bout. Its invite link is on the referee's console "
            "(tokens are never said in chat)."
        )
        r = live.post(f"/api/bouts/{bid}/fighters/{name}/token", ref)  # what the console does
        assert r.status_code == 200, r.text
        tokens[name] = r.json()["token"]
    r = live.chat(bid, ref, "init")
    assert r.status_code == 200 and r.text.startswith("Initiative: ")
    r = live.chat(bid, tokens["Tarl"], "//roll -sides100 -dice1")
    assert r.text.startswith("OnlineHost: Tarl rolled 1 100-sided die: ")
    for me, foe in turns(live, bid, ("Pa-Kur", "Tarl"), 300):
        r = live.chat(bid, tokens[me], f"attack {foe}")
        assert r.status_code == 200, r.text
        assert len(r.content) <= 1024
        said = re.fullmatch(
            rf"{me} attacks {foe}: (\d+) vs CS \d+: .* \(nonce (\d+)\)\."
            rf"( {foe} is defeated\. Bout ended: side {me} wins \([^)]*\)\."
            rf"| {me} acts again at once\.| Round \d+: {foe}'s turn\.)",
            r.text,
        )
        assert said, r.text
    assert live.get(f"/api/bouts/{bid}").json()["winner"] in ("Tarl", "Pa-Kur")
    r = live.chat(bid, tokens["Tarl"], "close bout")
    assert r.status_code == 403 and r.text.startswith("error: ")
    r = live.chat(bid, ref, "close bout")
    assert r.status_code == 200 and "Server seed: " in r.text
