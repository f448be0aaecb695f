"""The attacks of whoever runs the server on a closed bout, as named tests (docs/ledger.md, "Who
can learn what"), on SQLite and PostgreSQL: a genuine bout is fought over a real server on
127.0.0.1, then the operator, who knows the server seed, fights it again (tests/attacks.py) and
rewrites its export whole. The rewrite holds together by itself and its commitment is the one
shown at the start, so it passes `referee verify --expect-commitment`; what catches it is what
a player kept while the bout went on, and now every player can keep it from the first event:
every event's hash is public as it is written, the client seed is in the chain."""

from __future__ import annotations

import copy
from typing import Any

from referee.bout.replay import check_export
from referee.cli.ledger import expect_commitment, expect_hashes
from referee.ledger import verify_export
from referee.ledger.record import check_client_seed
from tests.attacks import loser_wins, refight, winner
from tests.service_fixtures import LiveServer


def genuine(live: LiveServer) -> tuple[dict[str, Any], dict[str, Any]]:
    """A spar fought and closed through the service; and what a watcher with no token kept of
    it before the first roll: the commitment, the client seed and the newest hash it saw."""
    made = live.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    bout, ref = made["id"], made["referee_token"]
    tokens = {}
    for name, cs, part in (("Tarl", 60, "tarl-7"), ("Orc", 70, "orc-3")):
        joined = live.post(f"/api/bouts/{bout}/join", json={"name": name, "cs": cs,
                                                            "client_seed": part})  # fmt: skip
        assert joined.status_code == 201, joined.text
        tokens[name] = joined.json()["token"]
    log = live.get(f"/api/bouts/{bout}/log").json()
    view = live.get(f"/api/bouts/{bout}").json()
    held = {"commitment": view["commitment"], "client_seed": view["client_seed"],
            "seq": log[-1]["seq"], "hash": log[-1]["hash"]}  # fmt: skip
    assert not any(e["type"] == "roll" for e in log)  # the watcher left before the first roll
    assert live.post(f"/api/bouts/{bout}/initiative", ref).status_code == 200
    for _ in range(200):
        turn = live.get(f"/api/bouts/{bout}").json()["turn"]
        if turn is None:
            break
        foe = "Orc" if turn == "Tarl" else "Tarl"
        body = {"attacker": turn, "target": foe}
        assert live.post(f"/api/bouts/{bout}/attacks", tokens[turn], json=body).status_code == 200
    assert live.post(f"/api/bouts/{bout}/close", ref).status_code == 200
    doc = live.get(f"/api/bouts/{bout}/export").json()
    assert verify_export(doc, replay=check_export).verdict == "verified"
    return doc, held


def test_the_client_seed_rewrite_holds_together_and_fails_against_what_a_player_kept(
    live: LiveServer,
) -> None:
    doc, held = genuine(live)
    forged = loser_wins(doc)
    assert winner(forged) != winner(doc) and forged["bout"]["id"] == doc["bout"]["id"]
    assert forged["fairness"]["commitment"] == doc["fairness"]["commitment"] == held["commitment"]
    # By itself the rewrite verifies, rules and commitment included: no chain can tell.
    by_itself = verify_export(forged, [expect_commitment(held["commitment"])], replay=check_export)
    assert by_itself.verdict == "verified", by_itself.problems
    # The hash of an event before the first roll now chains the client seed's parts: the
    # rewrite does not hold it, nor the client seed the watcher was shown.
    anchored = verify_export(forged, [expect_hashes((held["hash"],))], replay=check_export)
    assert anchored.verdict == "rejected"
    assert f"no event has hash {held['hash']!r}" in str(anchored.first)
    assert not forged["fairness"]["client_seed"].startswith(held["client_seed"])
    # The genuine export holds both.
    kept = verify_export(doc, [expect_hashes((held["hash"],))], replay=check_export)
    assert kept.verdict == "verified" and doc["fairness"]["client_seed"].startswith(
        held["client_seed"]
    )


def test_a_client_seed_changed_outside_the_chain_is_a_problem_at_the_event_that_fixes_it(
    live: LiveServer,
) -> None:
    """The rewrite of old, where only `fairness.client_seed` (outside the chain) was changed and
    the faces made from it: now the chain says which client seed the faces come from."""
    doc, _ = genuine(live)
    changed = copy.deepcopy(doc)
    referee_part = changed["fairness"]["client_seed"].split(":")[0]
    changed["fairness"]["client_seed"] = changed["fairness"]["client_seed"].replace(
        referee_part, "forged", 1
    )
    report = verify_export(changed, replay=check_export)
    fixed = next(e for e in doc["events"] if e["type"] == "client_seed_fixed")
    assert report.verdict == "rejected"
    assert (report.first.seq, report.first.type, report.first.check) == (
        fixed["seq"],
        "client_seed_fixed",
        "client seed",
    )
    assert "differs from the client seed" in report.first.message
    # every face is still checked, from the client seed the chain fixes
    assert [p for p in report.problems if p.check == "faces"] == []
    seed, problems, _ = check_client_seed(doc["events"], doc["fairness"])
    assert seed == doc["fairness"]["client_seed"] and problems == []


def test_the_scheme_1_rederivation_holds_together_and_fails_against_what_a_player_kept(
    live: LiveServer,
) -> None:
    doc, held = genuine(live)
    forged = refight(doc, scheme=1)
    assert "dice_scheme" not in forged["events"][0]["payload"]
    assert all("stream" not in e["payload"] for e in forged["events"] if e["type"] == "roll")
    assert verify_export(forged, replay=check_export).verdict == "verified"
    anchored = verify_export(forged, [expect_hashes((held["hash"],))], replay=check_export)
    assert anchored.verdict == "rejected"
    # an export whose fairness names another scheme than its chain is refused by itself
    stated = copy.deepcopy(doc)
    stated["fairness"]["dice_scheme"] = 1
    report = verify_export(stated, replay=check_export)
    assert (report.first.seq, report.first.check) == (0, "client seed")
    assert "dice_scheme 1 differs from the dice scheme 2" in report.first.message


def test_every_hash_a_watcher_holds_before_the_first_roll_is_in_the_genuine_export(
    live: LiveServer,
) -> None:
    doc, held = genuine(live)
    kept = {e["seq"]: e["hash"] for e in doc["events"]}
    assert kept[held["seq"]] == held["hash"]
    fixed = [e for e in doc["events"] if e["type"] == "client_seed_fixed"]
    first_roll = next(e["seq"] for e in doc["events"] if e["type"] == "roll")
    assert len(fixed) == 1 and fixed[0]["seq"] < first_roll
    assert fixed[0]["payload"]["client_seed"] == doc["fairness"]["client_seed"]
    header = doc["events"][0]["payload"]
    assert header["ledger"] == 2 and doc["fairness"]["client_seed"] == ":".join(
        [header["client_seed"], "tarl-7", "orc-3"]
    )
