"""A bout's budgets (docs/api.md, "Bounds"; `referee.service.budgets`): no fighter can freeze a
bout or spend another's share, every refusal comes before the dice, and the events that end a
bout can always be written. Over a real server on 127.0.0.1 and in process, on SQLite and
PostgreSQL, with budgets small enough to fill in a few hundred requests; the default budgets
against the flood that froze a bout before (1,065 free rolls of `47d2!`, 100,000 events)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest

from referee.bout import commands as c
from referee.bout.replay import check_export
from referee.errors import LimitError
from referee.ledger import verify_export
from referee.rng import Entropy, verifiable_faces
from referee.service.bouts import Caller, RefereeService
from referee.service.budgets import Budgets
from referee.store import Role, Store
from tests.seeds import SeededEntropy
from tests.service_fixtures import LiveServer, serving

REF = Caller(Role.REFEREE)

#: Small enough to fill over HTTP in a few hundred requests: a free roll here writes 2 events
#: (3 with the client seed's fixing), an attack about 5; no command of these tests writes more
#: than `worst`.
SMALL = Budgets(
    events=400,
    reserved=10,
    worst=30,
    free_per_roller=60,
    free_per_bout=100,
    per_fighter=150,
    rotations=2,
    hand_overs=2,
    fighters=4,
)


@pytest.fixture
def small(db_url: str, entropy: Entropy) -> Iterator[LiveServer]:
    with serving(db_url, entropy, SMALL) as server:
        yield server


def count(live: LiveServer, bout: str) -> int:
    return len(live.store.events(bout))


def refused(live: LiveServer, bout: str, send: Any, says: str) -> None:
    """`send()` is answered 413 saying `says`, and nothing is stored."""
    before = count(live, bout)
    answer = send()
    assert answer.status_code == 413, answer.text
    assert says in answer.text, answer.text
    assert count(live, bout) == before


def test_one_fighter_cannot_freeze_a_bout_through_any_of_its_routes(small: LiveServer) -> None:
    live = small
    made = live.post(
        "/api/bouts", json={"system": "msv", "name": "Flood", "rules": {"defeat_threshold": 100}}
    ).json()
    bout, ref = made["id"], made["referee_token"]
    tarl = live.post(f"/api/bouts/{bout}/join", json={"name": "Tarl", "cs": 60}).json()["token"]
    orc = live.post(f"/api/bouts/{bout}/join", json={"name": "Orc", "cs": 60}).json()["token"]
    # Tarl's free rolls, by every route a fighter rolls through, until its own budget is spent.
    routes = [
        lambda: live.post(f"/api/bouts/{bout}/rolls", tarl, json={"dice": "2d6"}),
        lambda: live.chat(bout, tarl, "roll 1d20"),
        lambda: live.chat(bout, tarl, "//roll -sides100 -dice1"),
    ]
    taken = 0
    for turn in range(100):
        answer = routes[turn % 3]()
        if answer.status_code == 413:
            break
        assert answer.status_code == 200, answer.text
        taken += 1
    assert taken == 16  # 2 events each: 32 written, and 32 + 30 > 60
    for send in routes:
        refused(live, bout, send, "Tarl's free rolls have written 32 events")
    # Orc's own rolls are untouched by Tarl's
    assert live.post(f"/api/bouts/{bout}/rolls", orc, json={"dice": "2d6"}).status_code == 200
    # In the fight each fighter's actions spend its own budget: once spent, its turns can only
    # be skipped (the referee's), and the skips fill the bout up to the events kept for ending.
    assert live.post(f"/api/bouts/{bout}/initiative", ref).status_code == 200
    tokens = {"Tarl": tarl, "Orc": orc}
    spent: set[str] = set()
    for _ in range(400):
        turn = live.get(f"/api/bouts/{bout}").json()["turn"]
        foe = "Orc" if turn == "Tarl" else "Tarl"
        if turn in spent:
            send = partial(live.post, f"/api/bouts/{bout}/skip", ref)
        elif turn == "Orc":  # Orc through the chat endpoint, Tarl through the HTTP route
            send = partial(live.chat, bout, orc, "attack Tarl")
        else:
            body = {"attacker": turn, "target": foe}
            send = partial(live.post, f"/api/bouts/{bout}/attacks", tokens[turn], json=body)
        answer = send()
        if answer.status_code == 413 and f"{turn}'s own commands" in answer.text:
            refused(live, bout, send, f"{turn}'s own commands have written")
            spent.add(turn)
            continue
        if answer.status_code == 413:  # the bout's own room is spent: only ending is left
            refused(live, bout, send, "kept for ending it")
            break
        assert answer.status_code == 200, answer.text
    else:
        raise AssertionError("the bout never filled")
    assert spent == {"Tarl", "Orc"}
    assert count(live, bout) <= SMALL.events - SMALL.reserved
    # The referee can always end and close it; the closed export verifies.
    assert live.post(f"/api/bouts/{bout}/close", ref).status_code == 200
    doc = live.get(f"/api/bouts/{bout}/export").json()
    assert verify_export(doc, replay=check_export).verdict == "verified"


def service(db_url: str, entropy: Entropy, budgets: Budgets) -> RefereeService:
    return RefereeService(Store.open(db_url), entropy=entropy, budgets=budgets)


#: A bout that fills fast: every free roll here is 2 events, and the rollers' budgets are wide.
TIGHT = Budgets(
    events=80, reserved=5, worst=20, free_per_roller=1_000, free_per_bout=1_000, per_fighter=1_000
)


def filled(svc: RefereeService) -> tuple[str, Caller]:
    """A bout whose ordinary room is spent (Tarl's next roll is refused), and Tarl's caller."""
    bout = svc.create_bout("msv", "Full")["id"]
    svc.add_fighter(bout, REF, "Tarl", {"cs": 60})
    tarl = Caller(Role.FIGHTER, "Tarl")
    for _ in range(100):
        try:
            svc.free_roll(bout, tarl, "1d6")
        except LimitError:
            return bout, tarl
    raise AssertionError("never full")


def test_the_size_check_comes_before_any_die(db_url: str) -> None:
    """Near the end of a bout, `1d20ro>10` was refused exactly when its first d20 was over 10
    (the reroll's event did not fit): one bit of preview. Now whether a command fits is known
    before any die: the same answer whatever the next face, and nothing thrown or stored."""
    faces = {}
    answers = {}
    for label in ("low", "high", "more", "other", "seeds", "yet"):
        svc = service(db_url, SeededEntropy(label), TIGHT)
        bout, tarl = filled(svc)
        seed = svc.store.current_seed(bout).server_seed
        client_seed = svc.store.get_bout(bout).client_seed
        nonce = sum(
            1 for e in svc.records(bout) if e["payload"].get("stream") == "free:Tarl"
        )  # the stream's next nonce: its rolls so far
        face = verifiable_faces(seed, client_seed, nonce, [20], "free:Tarl")[0]
        faces[face > 10] = label
        before = len(svc.records(bout))
        with pytest.raises(LimitError) as refusal:
            svc.free_roll(bout, tarl, "1d20ro>10")
        answers[face > 10] = str(refusal.value).replace(bout, "BOUT")
        assert len(svc.records(bout)) == before
        svc.store.close()
        if len(faces) == 2:
            break
    assert set(faces) == {True, False}, "no seeds with a low and a high next face"
    assert answers[True] == answers[False]
    assert "kept for ending it" in answers[True]


def test_the_events_that_end_a_bout_can_always_be_written(db_url: str) -> None:
    svc = service(db_url, SeededEntropy("ending"), TIGHT)
    bout, _ = filled(svc)
    # Nothing ordinary fits, a rotation neither (it appended past the bound before).
    for attempt in (
        lambda: svc.command(bout, REF, c.Pause()),
        lambda: svc.rotate_seed(bout, REF),
        lambda: svc.free_roll(bout, REF, "1d6"),
    ):
        with pytest.raises(LimitError, match="kept for ending it"):
            attempt()
    # Hand-overs (at most `hand_overs`), the end and the close use the events kept for them.
    caller = REF
    for _ in range(SMALL.hand_overs):
        caller = svc.caller(bout, svc.hand_over(bout, caller)["referee_token"])
    svc.command(bout, caller, c.End(None, "the bout is full"))
    svc.close(bout, caller)
    doc = svc.export(bout)
    assert verify_export(doc, replay=check_export).verdict == "verified"
    assert len(doc["events"]) <= TIGHT.events
    # and a bout may be cancelled at its fullest too
    other, _ = filled(svc)
    svc.command(other, REF, c.Cancel("full"))
    svc.close(other, REF)
    assert verify_export(svc.export(other), replay=check_export).verdict == "verified"


def test_hand_overs_and_rotations_are_bounded(db_url: str) -> None:
    svc = service(db_url, SeededEntropy("bounded"), SMALL)
    bout = svc.create_bout("msv", "Bounded")["id"]
    for _ in range(SMALL.rotations):
        svc.rotate_seed(bout, REF)
    with pytest.raises(LimitError, match="rotated the seed 2 times, the most a bout allows"):
        svc.rotate_seed(bout, REF)
    caller = REF
    for _ in range(SMALL.hand_overs):
        caller = svc.caller(bout, svc.hand_over(bout, caller)["referee_token"])
    with pytest.raises(LimitError, match="handed over 2 times, the most a bout allows"):
        svc.hand_over(bout, caller)
    for name in ("Ann", "Bob", "Cid", "Dag"):
        svc.add_fighter(bout, caller, name, {"cs": 50})
    with pytest.raises(LimitError, match="the bout holds 4 fighters, the most a bout holds"):
        svc.add_fighter(bout, caller, "Eve", {"cs": 50})
    svc.close(bout, caller)
    assert verify_export(svc.export(bout), replay=check_export).verdict == "verified"


def test_the_flood_that_froze_a_bout_stops_at_the_rollers_budget(db_url: str) -> None:
    """The default budgets against one fighter rolling `47d2!` as fast as it may: its free rolls
    stop at 10,000 events, a tenth of the bout, and the bout goes on and closes."""
    defaults = Budgets()
    assert defaults.per_fighter + defaults.worst <= defaults.events - defaults.reserved
    svc = service(db_url, SeededEntropy("flood"), defaults)
    bout = svc.create_bout("msv", "Flood")["id"]
    svc.add_fighter(bout, REF, "Tarl", {"cs": 60})
    svc.add_fighter(bout, REF, "Orc", {"cs": 60})
    tarl = Caller(Role.FIGHTER, "Tarl")
    rolls = 0
    with pytest.raises(LimitError, match="Tarl's free rolls have written") as stop:
        for _ in range(1_065):
            svc.free_roll(bout, tarl, "47d2!")
            rolls += 1
    written = int(str(stop.value).split("have written ")[1].split(" ")[0].replace(",", ""))
    assert defaults.free_per_roller - defaults.worst < written <= defaults.free_per_roller
    records = svc.records(bout)
    rotations = sum(1 for e in records if e["type"] == "seed_rotated")  # one a 1,000 rolls
    # the header, two joins, the client seed's fixing, the rotations (the service's own)
    assert len(records) == written + 4 + rotations and rotations >= 8
    assert 90 < rolls < 120
    assert svc.free_roll(bout, Caller(Role.FIGHTER, "Orc"), "47d2!")["faces"]
    svc.close(bout, REF)
    assert verify_export(svc.export(bout), replay=check_export).verdict == "verified"


def test_the_most_one_command_writes_fits_one_append() -> None:
    """A free roll throws at most the notation's dice limit (rerolls and explosions included,
    checked when it is read), each throw an event, with its action, a failure and the client
    seed's fixing: the room a command needs covers it, and so does the store's bound on one
    append, so nothing thrown is ever refused for want of room."""
    from referee.dice.limits import DEFAULT_LIMITS
    from referee.store import MAX_NEW_EVENTS

    assert Budgets().worst == MAX_NEW_EVENTS >= DEFAULT_LIMITS.max_dice + 3
