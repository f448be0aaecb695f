"""Fairness and trust over a real server on 127.0.0.1 and a real database (SQLite, PostgreSQL):
a fighter may not choose its own terms, nothing changes a closed bout, a request that fails
writes nothing, retries do not act twice, tokens die with their fighter, hidden stats stay
hidden, bounded input, cursors and caching."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from referee.ledger import verify_export
from referee.store.schema import TOKENS
from tests import coin_system  # noqa: F401  (registers the "coin-test" rule system)
from tests.service_fixtures import LiveServer

SRP_SHEET = {
    "hits": 12,
    "skills": {"sword": 14},
    "defense": 12,
    "armor": 2,
    "weapons": [{"name": "sword", "damage": 3}],
}


def chain(live: LiveServer, bout_id: str) -> list[tuple[int, str]]:
    """The bout's stored chain, as (seq, hash) pairs, straight from the store."""
    return [(e["seq"], e["hash"]) for e in live.store.events(bout_id)]


def srp_bout(live: LiveServer, hidden: tuple[str, ...] = ()) -> tuple[str, str, dict[str, str]]:
    bout = live.post("/api/bouts", json={"system": "srp", "name": "Ford", "client_seed": "gm"})
    assert bout.status_code == 201, bout.text
    bid, ref = bout.json()["id"], bout.json()["referee_token"]
    tokens = {}
    for name in ("Ann", "Bran"):
        body = {"name": name, "sheet": SRP_SHEET, "hidden": list(hidden) if name == "Bran" else []}
        r = live.post(f"/api/bouts/{bid}/fighters", ref, json=body)
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["token"]
    assert live.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    return bid, ref, tokens


def coin_bout(live: LiveServer, *names: str) -> tuple[str, str, dict[str, str]]:
    bout = live.post("/api/bouts", json={"system": "coin-test", "name": "Coin", "client_seed": "t"})
    bid, ref = bout.json()["id"], bout.json()["referee_token"]
    tokens = {}
    for name in names:
        r = live.post(f"/api/bouts/{bid}/join", json={"name": name, "sheet": {"power": 1}})
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["token"]
    return bid, ref, tokens


def whose_turn(live: LiveServer, bid: str) -> str:
    return str(live.get(f"/api/bouts/{bid}").json()["turn"])


# -- a fighter may not choose the terms of its own attack ---------------------------------------


@pytest.mark.parametrize(
    "terms", [{"modifier": 50}, {"rear": True}, {"defend": "none"}, {"modifier": 0}]
)
def test_a_fighter_may_not_choose_its_own_terms(
    shared_live: LiveServer, terms: dict[str, Any]
) -> None:
    bid, _, tokens = srp_bout(shared_live)
    me = whose_turn(shared_live, bid)
    foe = "Bran" if me == "Ann" else "Ann"
    before = chain(shared_live, bid)
    r = shared_live.post(
        f"/api/bouts/{bid}/attacks", tokens[me], json={"attacker": me, "target": foe, **terms}
    )
    assert r.status_code == 403, r.text
    assert "not " + me + "'s to choose" in r.json()["message"]
    body = {"actor": me, "kind": "attack", "options": {"target": foe, **terms}}
    assert shared_live.post(f"/api/bouts/{bid}/actions", tokens[me], json=body).status_code == 403
    line = f"act attack target={foe} " + " ".join(f"{k}={v}" for k, v in terms.items())
    said = shared_live.chat(bid, tokens[me], line)
    assert said.status_code == 403 and said.text.startswith("error: "), said.text
    assert chain(shared_live, bid) == before


def test_the_referee_sets_the_terms_and_the_event_says_so(live: LiveServer) -> None:
    bid, ref, _ = srp_bout(live)
    me = whose_turn(live, bid)
    foe = "Bran" if me == "Ann" else "Ann"
    body = {"attacker": me, "target": foe, "modifier": 2, "rear": True, "defend": "none"}
    r = live.post(f"/api/bouts/{bid}/attacks", ref, json=body)
    assert r.status_code == 200, r.text
    assert r.json()["effective_skill"] == 14 + 4 + 2 and r.json()["defense"] == "none"
    action = next(e for e in reversed(live.store.events(bid)) if e["type"] == "action")
    assert action["payload"]["by"] == "referee" and action["actor"] == me
    assert action["payload"]["options"] == {
        "target": foe,
        "modifier": 2,
        "rear": True,
        "defend": "none",
    }


# -- nothing changes a closed bout --------------------------------------------------------------


def test_nothing_changes_a_closed_bout(live: LiveServer) -> None:
    bid, ref, tokens = coin_bout(live, "A", "B")
    assert live.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    assert live.post(f"/api/bouts/{bid}/close", ref).status_code == 200
    before = chain(live, bid)
    writes: list[tuple[str, str, dict[str, Any] | None]] = [
        ("rotate-seed", ref, None),
        ("handover", ref, None),
        ("close", ref, None),
        ("rolls", ref, {"dice": "1d6"}),
        ("rolls", tokens["A"], {"dice": "1d6"}),
        ("attacks", ref, {"attacker": "A", "target": "B"}),
        ("actions", tokens["A"], {"actor": "A", "kind": "attack", "options": {"target": "B"}}),
        ("fighters", ref, {"name": "C", "sheet": {"power": 1}}),
        ("join", "", {"name": "D", "sheet": {"power": 1}}),
        ("fighters/A/reveal", ref, None),
        ("override", ref, {"of": 1, "wounds": {"A": 1}}),
        *((power, ref, None) for power in ("pause", "resume", "skip", "void", "cancel", "end")),
    ]
    for path, token, body in writes:
        r = live.post(f"/api/bouts/{bid}/{path}", token or None, json=body)
        assert r.status_code == 409, (path, r.status_code, r.text)
    assert (
        live.request("PATCH", f"/api/bouts/{bid}/fighters/A", ref, json={"wounds": 1}).status_code
        == 409
    )
    assert live.request("DELETE", f"/api/bouts/{bid}/fighters/A", tokens["A"]).status_code == 409
    for line in ("//roll -sides6 -dice1", "roll 2d6", "init", "pause", "close bout", "quit"):
        said = live.chat(
            bid, tokens["A"] if line in ("//roll -sides6 -dice1", "roll 2d6", "quit") else ref, line
        )
        assert said.status_code in (403, 409), (line, said.text)
    assert chain(live, bid) == before
    assert live.store.get_bout(bid).status == "closed"
    assert verify_export(live.get(f"/api/bouts/{bid}/export").json()).ok


# -- a request that fails writes nothing --------------------------------------------------------


def test_a_name_no_roll_line_could_say_is_refused_at_the_door(live: LiveServer) -> None:
    """A fighter called `Six-sided` could never be named in a host line (`OnlineHost: NAME
    rolled ...`), so every roll of theirs would fail after its dice: the name is refused when
    they join, and nothing is stored."""
    bid, _, _ = coin_bout(live, "A", "B")
    before = chain(live, bid)
    r = live.post(f"/api/bouts/{bid}/join", json={"name": "Six-sided", "sheet": {"power": 1}})
    assert r.status_code == 400, r.text
    assert "'-sided' in it" in r.text
    assert chain(live, bid) == before


# -- tokens die with their fighter --------------------------------------------------------------


def test_a_quit_fighters_token_is_refused_even_for_a_new_fighter_of_that_name(
    live: LiveServer,
) -> None:
    bid, ref, tokens = coin_bout(live, "Tarl", "B")
    old = tokens["Tarl"]
    assert live.request("DELETE", f"/api/bouts/{bid}/fighters/Tarl", old).status_code == 200
    r = live.post(f"/api/bouts/{bid}/join", json={"name": "Tarl", "sheet": {"power": 1}})
    assert r.status_code == 201, r.text
    new = r.json()["token"]
    assert live.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    assert live.post(f"/api/bouts/{bid}/rolls", old, json={"dice": "1d6"}).status_code == 401
    assert live.post(f"/api/bouts/{bid}/rolls", new, json={"dice": "1d6"}).status_code == 200
    # Removed by the referee: the same.
    assert live.request("DELETE", f"/api/bouts/{bid}/fighters/Tarl", ref).status_code == 200
    assert live.get(f"/api/bouts/{bid}", new).status_code == 401


def test_a_fighter_who_leaves_by_chat_takes_its_tokens_along(live: LiveServer) -> None:
    """`quit` and `remove NAME` at the chat endpoint revoke as DELETE does, also for a newcomer
    whose name differs only in letter case; the store keeps no token of an absent fighter."""
    bid, ref, tokens = coin_bout(live, "Tarl", "B")
    old = tokens["Tarl"]
    assert live.chat(bid, old, "quit").status_code == 200
    r = live.post(f"/api/bouts/{bid}/join", json={"name": "TARL", "sheet": {"power": 1}})
    assert r.status_code == 201, r.text
    newcomer = r.json()["token"]
    assert live.get(f"/api/bouts/{bid}", old).status_code == 401
    assert live.get(f"/api/bouts/{bid}", newcomer).json()["you"] == "TARL"
    assert live.chat(bid, ref, "remove TARL").status_code == 200
    assert live.get(f"/api/bouts/{bid}", newcomer).status_code == 401
    with live.store._engine.connect() as conn:
        held = conn.execute(
            select(TOKENS.c.fighter).where(TOKENS.c.bout_id == bid, TOKENS.c.role == "fighter")
        ).scalars()
        assert sorted(held) == ["B"]


def test_a_hand_over_revokes_the_old_referee_token_in_one_step(live: LiveServer) -> None:
    bid, ref, _ = coin_bout(live, "A", "B")
    r = live.post(f"/api/bouts/{bid}/handover", ref)
    assert r.status_code == 200
    assert live.post(f"/api/bouts/{bid}/pause", ref).status_code == 401
    assert live.post(f"/api/bouts/{bid}/initiative", r.json()["referee_token"]).status_code == 200


# -- hidden stats stay hidden -------------------------------------------------------------------


def test_hidden_stats_leave_no_trace_in_answers_log_export_or_stream(live: LiveServer) -> None:
    bid, ref, tokens = srp_bout(live, hidden=("skills", "defense", "armor"))
    me = whose_turn(live, bid)
    foe = "Bran" if me == "Ann" else "Ann"
    r = live.post(f"/api/bouts/{bid}/attacks", tokens[me], json={"attacker": me, "target": foe})
    assert r.status_code == 200, r.text
    seq = r.json()["seq"]
    assert not {"effective_skill", "explanation", "armor"} & set(r.json())
    public = [
        live.get(f"/api/bouts/{bid}/log").json(),
        live.get(f"/api/bouts/{bid}/log?after={seq - 1}", tokens["Ann"]).json(),
        live.get(f"/api/bouts/{bid}/export").json()["events"],
    ]
    with live.client.stream("GET", f"/api/bouts/{bid}/events?after={seq - 1}") as stream:
        for text in stream.iter_lines():
            if text.startswith("data: ") and f'"seq":{seq},' in text:
                public.append([httpx.Response(200, content=text[6:]).json()])
                break
    for events in public:
        outcome = next(e for e in events if e["seq"] == seq)
        assert outcome["type"] == "outcome" and "sealed" in outcome
        assert not {"effective_skill", "explanation", "armor"} & set(outcome["payload"])
        assert "12" not in str(outcome["payload"].get("summary"))
    referee_log = live.get(f"/api/bouts/{bid}/log", ref).json()
    full = next(e for e in referee_log if e["seq"] == seq)["payload"]
    assert {"effective_skill", "explanation", "armor"} <= set(full)
    assert live.post(f"/api/bouts/{bid}/close", ref).status_code == 200
    after = next(e for e in live.get(f"/api/bouts/{bid}/log").json() if e["seq"] == seq)
    assert after["payload"] == full and "redacted" not in after


# -- names and numbers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("Referee", 400),
        ("onlinehost", 400),
        ("SYSTEM", 400),
        ("tarl", 409),
        ("TARL", 409),
        ("Tarl\u202e", 400),
        ("\u202eTarl", 400),
        ("Ta\u200brl", 400),
        ("Ta\u2066rl", 400),
        ("\u3164", 400),
        ("\u0301", 400),
        (" Bob", 400),
        ("Bob\u00a0", 400),
    ],
)
def test_names_that_pass_for_someone_else_or_show_nothing_are_refused(
    shared_live: LiveServer, name: str, status: int
) -> None:
    bid, _, _ = coin_bout(shared_live, "Tarl")
    before = chain(shared_live, bid)
    r = shared_live.post(f"/api/bouts/{bid}/join", json={"name": name, "sheet": {"power": 1}})
    assert r.status_code == status, r.text
    assert chain(shared_live, bid) == before


def test_names_are_nfc_normalised(live: LiveServer) -> None:
    bid, _, _ = coin_bout(live)
    r = live.post(f"/api/bouts/{bid}/join", json={"name": "Cafe\u0301", "sheet": {"power": 1}})
    assert r.status_code == 201 and r.json()["name"] == "Caf\u00e9"
    assert live.get(f"/api/bouts/{bid}", r.json()["token"]).json()["you"] == "Caf\u00e9"
    again = live.post(f"/api/bouts/{bid}/join", json={"name": "CAF\u00c9", "sheet": {"power": 1}})
    assert again.status_code == 409


@pytest.mark.parametrize(
    "body",
    [
        {"wounds": True},
        {"wounds": 10**40},
        {"wounds": -1},
        {"wounds": "3"},
        {"cs": 101},
        {"cs": 10**4000},
    ],
)
def test_numbers_out_of_their_bounds_are_refused(
    shared_live: LiveServer, body: dict[str, Any]
) -> None:
    bout = shared_live.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    bid, ref = bout["id"], bout["referee_token"]
    assert (
        shared_live.post(
            f"/api/bouts/{bid}/fighters", ref, json={"name": "A", "cs": 60}
        ).status_code
        == 201
    )
    before = chain(shared_live, bid)
    r = shared_live.request("PATCH", f"/api/bouts/{bid}/fighters/A", ref, json=body)
    assert r.status_code == 422, r.text
    assert (
        shared_live.post(
            f"/api/bouts/{bid}/fighters", ref, json={"name": "B", "cs": 101}
        ).status_code
        == 422
    )
    said = shared_live.chat(bid, ref, "update A cs=" + "9" * 50)
    assert said.status_code in (400, 413), said.text
    assert chain(shared_live, bid) == before


@pytest.mark.parametrize("dice", ["1d\u00b2", "\u0661d\u0666", "1d6\u0663"])
def test_dice_with_digits_other_than_ascii_are_refused(shared_live: LiveServer, dice: str) -> None:
    bid, ref, _ = coin_bout(shared_live, "A", "B")
    r = shared_live.post(f"/api/bouts/{bid}/rolls", ref, json={"dice": dice})
    assert r.status_code == 400, r.text


# -- cursors, schema, caching -------------------------------------------------------------------


def test_cursors_out_of_range_are_4xx(live: LiveServer) -> None:
    bid, _, _ = coin_bout(live, "A")
    for after in ("55113358638600814592", "2147483648", "100001", "-2"):
        assert live.get(f"/api/bouts/{bid}/log?after={after}").status_code == 422
        assert live.get(f"/api/bouts/{bid}/events?after={after}").status_code == 422
    for last in ("55113358638600814592", "100001", "x", "\u0661".encode()):
        r = live.get(f"/api/bouts/{bid}/events", headers={"Last-Event-ID": last})
        assert r.status_code == 400, r.text
    assert live.get(f"/api/bouts/{bid}/log?after=100000").json() == []


def test_errors_are_in_the_schema_and_405_says_allow(live: LiveServer) -> None:
    schema = live.get("/openapi.json").json()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            codes = set(operation["responses"])
            assert {"400", "401", "403", "404", "409"} <= codes, (method, path)
    r = live.request("PUT", "/api/bouts")
    assert r.status_code == 405 and set(r.headers["allow"].replace(" ", "").split(",")) == {
        "GET",
        "POST",
    }
    assert r.json()["error"] == "http_error"


def test_answers_with_tokens_or_seeds_are_never_cached(live: LiveServer) -> None:
    bout = live.post("/api/bouts", json={"system": "coin-test", "name": "Coin"})
    assert bout.headers["cache-control"] == "no-store"
    bid, ref = bout.json()["id"], bout.json()["referee_token"]
    join = live.post(f"/api/bouts/{bid}/join", json={"name": "A", "sheet": {"power": 1}})
    assert join.headers["cache-control"] == "no-store"
    assert live.post(f"/api/bouts/{bid}/handover", ref).headers["cache-control"] == "no-store"
    assert live.get(f"/api/bouts/{bid}/export").headers["cache-control"] == "no-store"
    assert live.chat(bid, None, "help").headers["cache-control"] == "no-store"


# -- Idempotency-Key ----------------------------------------------------------------------------


def test_a_retry_with_the_same_key_gets_the_first_answer_and_writes_nothing(
    live: LiveServer,
) -> None:
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = live.post("/api/bouts", json={"system": "coin-test", "name": "K"}, headers=key)
    again = live.post("/api/bouts", json={"system": "coin-test", "name": "K"}, headers=key)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    bid, ref = first.json()["id"], first.json()["referee_token"]
    join = {"Idempotency-Key": "join-A"}
    a1 = live.post(
        f"/api/bouts/{bid}/join", json={"name": "A", "sheet": {"power": 1}}, headers=join
    )
    a2 = live.post(
        f"/api/bouts/{bid}/join", json={"name": "A", "sheet": {"power": 1}}, headers=join
    )
    assert a1.status_code == a2.status_code == 201 and a1.json()["token"] == a2.json()["token"]
    live.post(f"/api/bouts/{bid}/join", json={"name": "B", "sheet": {"power": 1}})
    live.post(f"/api/bouts/{bid}/initiative", ref)
    roll = {"Idempotency-Key": "roll-1"}
    r1 = live.post(f"/api/bouts/{bid}/rolls", ref, json={"dice": "3d6"}, headers=roll)
    before = chain(live, bid)
    r2 = live.post(f"/api/bouts/{bid}/rolls", ref, json={"dice": "3d6"}, headers=roll)
    assert r1.status_code == r2.status_code == 200 and r1.json() == r2.json()
    assert chain(live, bid) == before
    # The same key with another request is refused; another caller's key is its own.
    other = live.post(f"/api/bouts/{bid}/rolls", ref, json={"dice": "1d6"}, headers=roll)
    assert other.status_code == 409 and chain(live, bid) == before
    mine = live.post(
        f"/api/bouts/{bid}/rolls", a1.json()["token"], json={"dice": "3d6"}, headers=roll
    )
    assert mine.status_code == 200 and mine.json()["seq"] > r1.json()["seq"]
    said = {"Idempotency-Key": "chat-1"}
    c1 = live.post(
        f"/api/bouts/{bid}/chat",
        ref,
        content="//roll -sides20 -dice1",
        headers={**said, "content-type": "text/plain"},
    )
    c2 = live.post(
        f"/api/bouts/{bid}/chat",
        ref,
        content="//roll -sides20 -dice1",
        headers={**said, "content-type": "text/plain"},
    )
    assert c1.status_code == c2.status_code == 200 and c1.text == c2.text
    bad = live.post(
        f"/api/bouts/{bid}/rolls", ref, json={"dice": "1d6"}, headers={"Idempotency-Key": "x" * 256}
    )
    assert bad.status_code == 400
    # The receipt keeps no token in the clear.
    with live.store._engine.connect() as conn:
        kept = " ".join(str(row) for row in conn.exec_driver_sql("SELECT * FROM receipts"))
    assert a1.json()["token"] not in kept and ref not in kept


# -- the store's status follows the folded state ------------------------------------------------


def test_the_stored_status_follows_the_bout(live: LiveServer) -> None:
    bid, ref, _ = coin_bout(live, "A", "B")
    assert live.store.get_bout(bid).status == "open"
    live.post(f"/api/bouts/{bid}/initiative", ref)
    assert live.store.get_bout(bid).status == "running"
    live.post(f"/api/bouts/{bid}/pause", ref)
    assert live.store.get_bout(bid).status == "paused"
    live.post(f"/api/bouts/{bid}/cancel", ref)
    assert live.store.get_bout(bid).status == "cancelled"
    live.post(f"/api/bouts/{bid}/close", ref)
    assert live.store.get_bout(bid).status == "closed"
    assert live.get(f"/api/bouts/{bid}").json()["closed"] is True


def test_an_exports_status_must_be_the_one_its_events_give(live: LiveServer) -> None:
    """`bout.status` is outside the hash chain; the rules replay folds the events and holds
    the export to the status they give, so an edited status fails `verify` at any status."""
    from referee.bout.replay import check_export

    bid, ref, _ = srp_bout(live)
    for step, status in (("pause", "paused"), ("resume", "running"), ("cancel", "cancelled")):
        assert live.post(f"/api/bouts/{bid}/{step}", ref).status_code == 200
        doc = live.get(f"/api/bouts/{bid}/export", ref).json()
        assert doc["bout"]["status"] == status
        assert verify_export(doc, replay=check_export, partial=True).ok
        for other in {"open", "running", "paused", "cancelled", "ended"} - {status}:
            edited = {**doc, "bout": {**doc["bout"], "status": other}}
            report = verify_export(edited, replay=check_export, partial=True)
            assert report.first is not None and report.first.check == "rules"
            assert report.first.message == (
                f"bout.status {other!r} differs from {status!r}, the status the events give"
            )
    assert live.post(f"/api/bouts/{bid}/close", ref).status_code == 200
    doc = live.get(f"/api/bouts/{bid}/export", ref).json()
    assert verify_export(doc, replay=check_export).ok


def test_an_anonymous_key_is_the_callers_own_not_anyone_elses(live: LiveServer) -> None:
    """A receipt belongs to whoever sent the request: its token, or without a token its client
    address. Another host sending the same key and body (it saw or guessed the key) gets a
    bout of its own, never the first caller's answer with its referee token."""
    key = {"Idempotency-Key": "create-1"}
    body = {"system": "coin-test", "name": "Mine"}
    first = live.post("/api/bouts", json=body, headers=key)
    assert first.status_code == 201, first.text
    other = httpx.HTTPTransport(local_address="127.0.0.2")  # another host, over the loopback
    with httpx.Client(base_url=live.url, transport=other, timeout=60) as elsewhere:
        theirs = elsewhere.post("/api/bouts", json=body, headers=key)
        assert theirs.status_code == 201, theirs.text
        assert theirs.json()["id"] != first.json()["id"]
        assert theirs.json()["referee_token"] != first.json()["referee_token"]
        again = elsewhere.post("/api/bouts", json=body, headers=key)  # its own retry
        assert again.json() == theirs.json()
        # A token nobody issued, with the same key: refused, not answered from a receipt.
        forged = elsewhere.post(
            "/api/bouts", json=body, headers={**key, "Authorization": "Bearer create-1"}
        )
        assert forged.status_code == 201 and forged.json()["id"] not in (
            first.json()["id"],
            theirs.json()["id"],
        )
    retry = live.post("/api/bouts", json=body, headers=key)  # the first caller's retry
    assert retry.status_code == 201 and retry.json() == first.json()
    assert len({b["id"] for b in live.get("/api/bouts").json()}) >= 3
