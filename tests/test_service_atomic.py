"""All or nothing: an operation that fails half-way through stores none of it, and a request
that gets a 4xx leaves the bout's chain exactly as it was (a property test over every route).

The failures are real: a store whose nth write raises, over SQLite and PostgreSQL, and real
requests to a real server.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from referee.service.bouts import RefereeService
from referee.store import Store
from referee.store.schema import TOKENS
from tests import coin_system  # noqa: F401  (registers the "coin-test" rule system)
from tests.depth import examples
from tests.seeds import for_test
from tests.service_fixtures import LiveServer


class Crash(Exception):
    """The injected failure (not a RefereeError: the kind a bug or a lost connection raises)."""


class CrashingStore(Store):
    """A real store that raises `Crash` at the chosen call of one of its methods."""

    crash_at: tuple[str, int] | None = None

    def __getattribute__(self, name: str) -> Any:
        value = super().__getattribute__(name)
        target = object.__getattribute__(self, "crash_at")
        if target is None or target[0] != name or not callable(value):
            return value

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            left = object.__getattribute__(self, "crash_at")
            assert left is not None
            if left[1] <= 1:
                object.__setattr__(self, "crash_at", None)
                raise Crash(f"crash in {name}")
            object.__setattr__(self, "crash_at", (name, left[1] - 1))
            return value(*args, **kwargs)

        return wrapped


@pytest.fixture
def crashing(db_url: str) -> Iterator[tuple[CrashingStore, RefereeService]]:
    store = CrashingStore.open(db_url)
    yield store, RefereeService(store, entropy=for_test())
    store.close()


def snapshot(store: Store, bout_id: str) -> tuple[Any, ...]:
    bout = store.get_bout(bout_id)
    seeds = [(s.index, s.revealed) for s in store.seeds(bout_id)]
    return tuple((e["seq"], e["hash"]) for e in store.events(bout_id)), bout.status, seeds


def started(service: RefereeService) -> tuple[str, str, dict[str, str]]:
    bout = service.create_bout("coin-test", "Atomic", "t")
    ref = service.caller(bout["id"], bout["referee_token"])
    tokens = {n: service.add_fighter(bout["id"], ref, n, {"power": 1})["token"] for n in ("A", "B")}
    return bout["id"], bout["referee_token"], tokens


def test_a_crash_while_opening_a_bout_leaves_no_bout(
    crashing: tuple[CrashingStore, RefereeService],
) -> None:
    store, service = crashing
    store.crash_at = ("extend", 1)  # after the bout row, its seed and the referee token
    with pytest.raises(Crash):
        service.create_bout("coin-test", "Half", "t")
    assert store.list_bouts() == []


@pytest.mark.parametrize(
    "step", [("extend", 1), ("reveal_seed", 1), ("extend", 2), ("set_status", 1)]
)
def test_a_crash_while_closing_leaves_the_bout_open_and_its_seed_secret(
    crashing: tuple[CrashingStore, RefereeService], step: tuple[str, int]
) -> None:
    store, service = crashing
    bid, ref, _ = started(service)
    referee = service.caller(bid, ref)
    service.command(bid, referee, coin_system_initiative())
    before = snapshot(store, bid)
    store.crash_at = step
    with pytest.raises(Crash):
        service.close(bid, referee)
    assert snapshot(store, bid) == before
    assert store.get_bout(bid).status == "running"
    assert service.close(bid, referee)["server_seed"]  # and it can still be closed


def test_a_crash_during_a_hand_over_keeps_the_old_referee(
    crashing: tuple[CrashingStore, RefereeService],
) -> None:
    store, service = crashing
    bid, ref, _ = started(service)
    before = snapshot(store, bid)
    store.crash_at = ("extend", 1)  # after the new token replaced the old one
    with pytest.raises(Crash):
        service.hand_over(bid, service.caller(bid, ref))
    assert snapshot(store, bid) == before
    assert service.caller(bid, ref).role is not None  # the old token still works


def test_a_crash_after_a_join_stores_no_fighter_and_no_token(
    crashing: tuple[CrashingStore, RefereeService],
) -> None:
    store, service = crashing
    bid, _, _ = started(service)
    before = snapshot(store, bid)
    store.crash_at = ("get_bout", 1)  # after the fighter, its seed part and its token
    with pytest.raises(Crash):
        service.add_fighter(bid, service.caller(bid, None), "C", {"power": 1}, joining=True)
    assert snapshot(store, bid) == before
    assert not service.state(bid).has_fighter("C")


def test_a_crash_after_a_quit_keeps_the_fighter_and_its_token(
    crashing: tuple[CrashingStore, RefereeService],
) -> None:
    store, service = crashing
    bid, _, tokens = started(service)
    before = snapshot(store, bid)
    store.crash_at = ("revoke_fighter_tokens", 1)
    with pytest.raises(Crash):
        service.remove(bid, service.caller(bid, tokens["A"]), "A")
    assert snapshot(store, bid) == before
    assert service.caller(bid, tokens["A"]).fighter == "A"


@pytest.fixture
def rotating(db_url: str) -> Iterator[tuple[CrashingStore, RefereeService]]:
    """A crashing store under a service that rotates the seed after every roll."""
    store = CrashingStore.open(db_url)
    yield store, RefereeService(store, rotate_every=1, entropy=for_test())
    store.close()


@pytest.mark.parametrize("step", [("_remember", 1), ("_remember", 2), ("_remember", 3)])
def test_a_crash_during_a_rotation_keeps_the_seed_secret_and_in_use(
    crashing: tuple[CrashingStore, RefereeService], step: tuple[str, int]
) -> None:
    """`_remember` runs after the rotation's reads, then after its last statement (the event,
    the old seed revealed, the new seed, the bout's seed index): a crash there undoes it all."""
    store, service = crashing
    bid, ref, _ = started(service)
    referee = service.caller(bid, ref)
    before = snapshot(store, bid)
    store.crash_at = step
    with pytest.raises(Crash):
        service.rotate_seed(bid, referee)
    assert snapshot(store, bid) == before
    assert [(s.index, s.revealed) for s in store.seeds(bid)] == [(0, False)]
    assert service.rotate_seed(bid, referee)["event"]["type"] == "seed_rotated"
    assert [(s.index, s.revealed) for s in store.seeds(bid)] == [(0, True), (1, False)]


@pytest.mark.parametrize(
    "step", [("rotate_seed", 1), ("_remember", 3), ("_remember", 4), ("set_status", 1)]
)
def test_a_crash_in_the_rotation_after_a_roll_stores_neither(
    rotating: tuple[CrashingStore, RefereeService], step: tuple[str, int]
) -> None:
    """A roll that reaches `rotate_every` rotates the seed in its own transaction: a crash in
    the rotation (or as the status is set) leaves neither the roll nor the rotation, and the
    next roll goes on from the bout as it was."""
    from referee.bout import commands as c

    store, service = rotating
    bid, ref, _ = started(service)
    referee = service.caller(bid, ref)
    if step[0] == "set_status":
        roll: Any = coin_system_initiative()  # open -> running: the status changes
    else:
        roll = c.FreeRoll("A", (6,))
    before = snapshot(store, bid)
    store.crash_at = step
    with pytest.raises(Crash):
        service.command(bid, referee, roll)
    assert snapshot(store, bid) == before
    assert [(s.index, s.revealed) for s in store.seeds(bid)] == [(0, False)]
    service.command(bid, referee, roll)
    assert [(s.index, s.revealed) for s in store.seeds(bid)] == [(0, True), (1, False)]
    types = [e["type"] for e in store.events(bid)]
    assert types[len(before[0]) :].count("roll") >= 1 and types[-1] == "seed_rotated"


def coin_system_initiative() -> Any:
    from referee.bout import commands as c

    return c.RollInitiative()


# -- a 4xx answer leaves the chain as it was, on every route -----------------------------------

ROUTES = [
    ("POST", "fighters", "ref"),
    ("POST", "join", None),
    ("PATCH", "fighters/{name}", "ref"),
    ("DELETE", "fighters/{name}", "fighter"),
    ("POST", "fighters/{name}/reveal", "ref"),
    ("POST", "fighters/{name}/token", "ref"),
    ("POST", "initiative", "ref"),
    ("POST", "attacks", "fighter"),
    ("POST", "actions", "fighter"),
    ("POST", "rolls", "fighter"),
    *(("POST", p, "ref") for p in ("pause", "resume", "skip", "void", "cancel", "end")),
    ("POST", "override", "ref"),
    ("POST", "handover", "ref"),
    ("POST", "rotate-seed", "ref"),
    ("POST", "close", "ref"),
    ("POST", "chat", "fighter"),
]
NAMES = ["A", "B", "Six-sided", "Nobody", "a", "Referee", "", "x" * 41]
VALUES: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.sampled_from(NAMES),
    st.sampled_from(["1d6", "3d6", "1d\u00b2", "0d6", "d", "2d20+1d6"]),
)
BODIES = st.dictionaries(
    st.sampled_from(
        [
            "name",
            "sheet",
            "cs",
            "wounds",
            "attacker",
            "target",
            "actor",
            "kind",
            "options",
            "dice",
            "of",
            "winner",
            "keys",
            "modifier",
            "rear",
            "defend",
            "hidden",
        ]
    ),
    st.one_of(
        VALUES,
        st.just({"power": 1}),
        st.just({"target": "B"}),
        st.just({"A": 1}),
        st.just(["power"]),
        st.just("attack"),
    ),
    max_size=4,
)
LINES = st.sampled_from(
    ["//roll -sides6 -dice1", "roll 2d6", "attack b", "quit", "status", "init", "pause",
     "close bout", "act attack target=b modifier=50", "update a wounds=99999999", "add C 500"]
)  # fmt: skip


@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(ROUTES),
            st.sampled_from(NAMES),
            st.sampled_from(["A", "B", "C"]),
            BODIES,
            LINES,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_a_4xx_answer_leaves_the_chain_exactly_as_it_was(live: LiveServer, steps: Any) -> None:
    bout = live.post("/api/bouts", json={"system": "coin-test", "name": "Prop", "client_seed": "p"})
    bid, ref = bout.json()["id"], bout.json()["referee_token"]
    tokens = {}
    for name in ("A", "B", "C"):
        r = live.post(f"/api/bouts/{bid}/join", json={"name": name, "sheet": {"power": 1}})
        tokens[name] = r.json()["token"]
    live.post(f"/api/bouts/{bid}/initiative", ref)
    for (method, path, who), name, fighter, body, line in steps:
        token = ref if who == "ref" else tokens[fighter] if who == "fighter" else None
        url = f"/api/bouts/{bid}/{path.format(name=name or 'A')}"
        before = [(e["seq"], e["hash"]) for e in live.store.events(bid)]
        if path == "chat":
            r = live.chat(bid, token, line)
        else:
            r = live.request(method, url, token, json=body or None)
        assert r.status_code < 500, (method, url, body, r.text)
        if 400 <= r.status_code < 500:
            after = [(e["seq"], e["hash"]) for e in live.store.events(bid)]
            assert after == before, (method, url, body, line, r.status_code, r.text)
        # Whatever happened, every fighter token left names a fighter in the bout: a token
        # never outlives the fighter it was granted for (so it cannot speak for a newcomer
        # of the same name).
        present = {row["name"] for row in live.get(f"/api/bouts/{bid}/scoreboard").json()}
        with live.store._engine.connect() as conn:
            held = conn.execute(
                select(TOKENS.c.fighter).where(TOKENS.c.bout_id == bid, TOKENS.c.role == "fighter")
            ).scalars()
            assert set(held) <= present, (method, url, body, line)
