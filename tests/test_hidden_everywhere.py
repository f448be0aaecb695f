"""Hidden stats (SRP-10; an MSV NPC's CS) reach nobody but the referee before the reveal or the
close, by any path: every action kind of both rule systems is played over a real server on
127.0.0.1 (SQLite, PostgreSQL), twice, with the same dice and the same public stats but other
hidden values (every hidden value one more). Whatever a non-referee sees (the answers to its own
actions over HTTP and chat, `/log`, `/events` as a live stream, `/export`, the bout's view, the
scoreboard, the Discord channel's lines) must be the same both times: a view that showed a hidden
value, or anything computed from one, would differ. The referee's own views do differ (the test
can tell). The hidden values sit where the rules read them alike (a d20 skill of 97 or 98 makes
the same levels and the same high-skill bonus; 60 or 61 points of armor stop every blow), so
both bouts take the same course."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from referee.aol import SIGNATURE
from referee.cli.ledger import expect_hashes
from referee.discord.desk import Desk
from referee.ledger import event_hash, verify_chain, verify_export
from referee.ledger.seal import seal_of
from referee.rng import Entropy
from referee.systems.msv.system import MsvSystem
from referee.systems.srp.system import SrpSystem
from tests.seeds import fixed
from tests.service_fixtures import LiveServer

WAIT = 60.0
SEED = "5eed" * 16


@pytest.fixture
def entropy() -> Entropy:
    """Every bout of the test's server gets the same server seed: both runs, the same dice."""
    return fixed(SEED)


def weapon(name: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "damage": 2, **more}


SWORD = weapon("sword", codes=["D", "E", "G", "U"])
BOW = weapon("bow", effective_range_cm=3000, long_range_cm=9000)
PIKE = weapon("pike", reach_cm=300, hands=2)
AXE = weapon("axe", codes=["D", "G"])


def sheets(more: int) -> dict[str, tuple[str, dict[str, Any], list[str]]]:
    """The fighters (side, sheet, hidden stats); `more` is added to every hidden value."""
    ann = {
        "hits": 100, "skills": {"sword": 15, "bow": 14}, "defense": 12, "avoid": 11,
        "armor": 2, "pm": 20, "spirit": 5, "weapons": [SWORD, BOW],
        "x_cm": 600, "y_cm": 0, "facing": 180,
    }  # fmt: skip
    orc = {
        "hits": 100, "skills": {"pike": 97 + more, "axe": 97 + more, "bow": 97 + more},
        "defense": 97 + more, "avoid": 97 + more, "armor": 60 + more, "pm": 90 + more,
        "spirit": 50 + more, "weapons": [PIKE, AXE, BOW], "mounted": True,
        "x_cm": 0, "y_cm": 0, "facing": 0,
    }  # fmt: skip
    bob = {"hits": 50, "pm": 9, "spirit": 5}
    imp = {"hits": 50, "pm": 30 + more, "spirit": 40 + more}
    return {
        "Ann": ("a", ann, []),
        "Orc": ("b", orc, ["skills", "defense", "avoid", "armor", "pm", "spirit"]),
        "Bob": ("b", bob, []),
        "Imp": ("b", imp, ["pm", "spirit"]),
    }


class Reader:
    """A live stream read in a thread until the event with seq `until` (then it hangs up)."""

    def __init__(self, url: str) -> None:
        self.events: list[dict[str, Any]] = []
        self.until: int | None = None
        self.got = threading.Condition()
        self.done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(url,), daemon=True)
        self._thread.start()

    def _run(self, url: str) -> None:
        try:
            with httpx.Client(timeout=WAIT) as client, client.stream("GET", url) as response:
                assert response.status_code == 200
                for line in response.iter_lines():
                    if line.startswith("data: "):
                        event = json.loads(line.removeprefix("data: "))
                        with self.got:
                            self.events.append(event)
                            self.got.notify_all()
                    with self.got:
                        if (
                            self.until is not None
                            and self.events
                            and (self.events[-1]["seq"] >= self.until)
                        ):
                            return
        finally:
            self.done.set()

    def read_until(self, seq: int) -> list[dict[str, Any]]:
        with self.got:
            self.until = seq
            assert self.got.wait_for(
                lambda: bool(self.events) and self.events[-1]["seq"] >= seq, WAIT
            ), "the live stream did not bring every event in time"
        return list(self.events)


@dataclass
class Run:
    """One bout played by the script; what non-referees saw of it, and what the referee saw."""

    live: LiveServer
    system: str
    more: int
    bout: str = ""
    referee: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    seen: list[Any] = field(default_factory=list)
    referee_saw: list[Any] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    desk: Desk | None = None
    #: The live streams, opened on the bout before anything happens in it.
    readers: dict[str, Reader] = field(default_factory=dict)

    # -- setting up --------------------------------------------------------------------

    def open(self, fighters: dict[str, tuple[str, dict[str, Any], list[str]]]) -> None:
        made = self.live.post(
            "/api/bouts", json={"system": self.system, "name": "Shadows", "client_seed": "gm"}
        )
        assert made.status_code == 201, made.text
        self.bout, self.referee = made.json()["id"], made.json()["referee_token"]
        self.desk = Desk(self.live.store)
        for name, (side, stats, hidden) in fighters.items():
            body = {"name": name, "side": side, "hidden": hidden}
            body.update({"cs": stats["cs"]} if self.system == "msv" else {"sheet": stats})
            r = self.live.post(f"/api/bouts/{self.bout}/fighters", self.referee, json=body)
            assert r.status_code == 201, r.text
            self.tokens[name] = r.json()["token"]
            if not self.readers:
                stream = f"{self.live.url}{self.url('/events')}"
                self.readers["stream, anyone"] = Reader(stream)
                self.readers["stream, a fighter"] = Reader(f"{stream}?token={self.tokens[name]}")

    def url(self, tail: str = "") -> str:
        return f"/api/bouts/{self.bout}{tail}"

    def state(self) -> dict[str, Any]:
        r = self.live.get(self.url(), self.referee)
        assert r.status_code == 200, r.text
        view: dict[str, Any] = r.json()
        return view

    def fighter(self, name: str) -> dict[str, Any]:
        return next(f for f in self.state()["fighters"] if f["name"] == name)

    def turn_to(self, name: str) -> None:
        """Skip turns (the referee's power) until `name` acts, and it is free to."""
        for _ in range(40):
            view = self.state()
            if view["turn"] == name:
                blocked = {"stunned", "lost_action"} & set(self.fighter(name)["conditions"])
                if not blocked:
                    return
                self.act(name, "pass", {}, "fighter")
                continue
            r = self.live.post(self.url("/skip"), self.referee)
            assert r.status_code == 200, r.text
        raise AssertionError(f"{name} never got the turn")

    # -- acting ------------------------------------------------------------------------

    def act(self, actor: str, kind: str, options: dict[str, Any], via: str) -> dict[str, Any]:
        """One action: by the actor's own token over HTTP (`fighter`) or a chat line (`chat`),
        or by the referee (`referee`: the referee's terms). Non-referee answers are kept, and
        the Discord channel's lines for the events the action stored."""
        before = len(self.live.store.events(self.bout))
        if via == "chat":
            words = " ".join(f"{k}={v}" for k, v in options.items())
            r = self.live.chat(self.bout, self.tokens[actor], f"act {kind} {words}".strip())
            assert r.status_code == 200, r.text
            self.seen.append(("chat", r.text))
            answer: dict[str, Any] = {}
        else:
            token = self.referee if via == "referee" else self.tokens[actor]
            body = {"actor": actor, "kind": kind, "options": options}
            r = self.live.post(self.url("/actions"), token, json=body)
            assert r.status_code == 200, (actor, kind, r.text)
            answer = r.json()
            (self.referee_saw if via == "referee" else self.seen).append(("answer", answer))
        records = self.live.store.events(self.bout)[before:]
        assert self.desk is not None
        self.seen.append(("discord", self.desk.answer(self.bout, records).lines))
        self.kinds.add(kind)
        return answer

    def attack_chat(self, actor: str, target: str) -> None:
        r = self.live.chat(self.bout, self.tokens[actor], f"attack {target}")
        assert r.status_code == 200, r.text
        self.seen.append(("chat", r.text))
        self.kinds.add("attack")

    def until_worked(self, actor: str, kind: str, options: dict[str, Any]) -> None:
        for _ in range(12):
            self.turn_to(actor)
            if self.act(actor, kind, options, "referee").get("worked"):
                return
        raise AssertionError(f"{kind} never worked")

    # -- what was seen -----------------------------------------------------------------

    def views(self) -> Iterator[tuple[str, Any]]:
        """Every view a non-referee has of the bout now."""
        ann = self.tokens["Ann"] if "Ann" in self.tokens else self.tokens["Tarl"]
        for who, token in (("anyone", None), ("a fighter", ann)):
            for tail in ("", "/log", "/export", "/scoreboard"):
                r = self.live.get(self.url(tail), token)
                assert r.status_code == 200, r.text
                yield f"{who} {tail or 'view'}", r.json()


#: A roll's signature as a line or an answer carries it.
SIGNED = re.compile(SIGNATURE)


def normal(value: Any, run: Run) -> Any:
    """A view without what differs between any two bouts: ids, times, hashes, tokens, and the
    seals of sealed events (a seal differs as the hidden values do, and gives none of them
    away: it is salted with 16 bytes nobody else holds, `test_a_seal_gives_nothing_away`), and
    the signatures of rolls (each binds its bout: it signs the dice everyone is shown)."""
    if isinstance(value, dict):
        return {
            k: normal(v, run)
            for k, v in value.items()
            if k
            not in ("at", "hash", "prev", "created_at", "id", "token", "referee_token", "sealed")
        }
    if isinstance(value, list | tuple):
        return [normal(v, run) for v in value]
    if isinstance(value, str):  # a signature binds its bout's id, and so differs with it
        return SIGNED.sub("sig:S", value.replace(run.bout, "BOUT"))
    return value


def play_srp(run: Run) -> None:
    run.open(sheets(run.more))
    assert run.live.post(run.url("/initiative"), run.referee).status_code == 200
    # Ann charges through the pike's reach: the Orc's extra attack on her (SRP-15).
    run.turn_to("Ann")
    run.act("Ann", "charge", {"path": [[450, 0], [300, 0], [150, 0]]}, "fighter")
    run.turn_to("Orc")
    run.act("Orc", "attack", {"target": "Ann", "weapon": "axe"}, "fighter")
    run.turn_to("Bob")  # a visible fighter helped by a hidden one (SRP-17)
    run.act("Bob", "spirit", {"target": "Ann", "helpers": ["Imp"]}, "fighter")
    run.turn_to("Imp")
    run.act("Imp", "spirit", {"target": "Ann"}, "fighter")
    run.turn_to("Ann")
    run.attack_chat("Ann", "Orc")
    run.turn_to("Orc")
    run.act("Orc", "shoot", {"target": "Ann", "weapon": "bow"}, "fighter")
    run.turn_to("Ann")
    run.act("Ann", "shoot", {"target": "Orc", "weapon": "bow", "fire": "rapid"}, "chat")
    run.turn_to("Orc")
    run.act("Orc", "spirit", {"target": "Ann"}, "chat")
    run.turn_to("Ann")
    run.act("Ann", "spirit", {"target": "Orc"}, "fighter")
    # Grappled, the Orc breaks free: two actions, the second a d20 against its defense.
    run.until_worked("Ann", "grapple", {"target": "Orc", "defend": "none"})
    for _ in range(2):
        run.turn_to("Orc")
        run.act("Orc", "break_free", {}, "fighter")
    run.until_worked("Ann", "disarm", {"target": "Orc", "defend": "none"})
    run.turn_to("Orc")
    run.act("Orc", "pick_up", {}, "fighter")
    run.turn_to("Ann")
    run.act("Ann", "entangle", {"target": "Orc", "defend": "avoid"}, "referee")
    if run.fighter("Ann")["stats"].get("holds") != "Orc":
        run.until_worked("Ann", "grapple", {"target": "Orc", "defend": "none"})
    run.turn_to("Ann")
    run.act("Ann", "release", {}, "fighter")
    run.until_worked("Ann", "unhorse", {"target": "Orc", "defend": "none"})
    run.turn_to("Orc")
    run.act("Orc", "move", {"path": [[0, -150]]}, "fighter")
    run.turn_to("Orc")
    run.act("Orc", "step", {"path": [[0, 0]]}, "fighter")
    run.turn_to("Orc")
    run.act("Orc", "face", {"facing": 0}, "fighter")
    run.turn_to("Ann")
    run.act("Ann", "move", {"path": [[150, 150]]}, "fighter")
    run.turn_to("Ann")
    run.act("Ann", "step", {"path": [[150, 0]]}, "fighter")
    run.turn_to("Orc")
    run.act("Orc", "pass", {}, "fighter")


def play_msv(run: Run) -> None:
    run.open({"Tarl": ("a", {"cs": 60}, []), "Orc": ("b", {"cs": 90 + run.more}, ["cs"])})
    assert run.live.post(run.url("/initiative"), run.referee).status_code == 200
    for n in range(8):
        current = run.state()["turn"]
        if current is None:
            break
        foe = "Tarl" if current == "Orc" else "Orc"
        if n % 2:
            run.attack_chat(current, foe)
        else:
            run.act(current, "attack", {"target": foe}, "fighter")


def watched(live: LiveServer, system: str, more: int) -> tuple[Run, dict[str, Any]]:
    """Play one bout, its live streams (anyone's, a fighter's) read all along; what every
    non-referee saw."""
    run = Run(live, system, more)
    (play_srp if system == "srp" else play_msv)(run)
    last = run.live.store.events(run.bout)[-1]["seq"]
    views: dict[str, Any] = {name: r.read_until(last) for name, r in run.readers.items()}
    views.update(dict(run.views()))
    views["answers, chat and Discord"] = run.seen
    return run, views


@pytest.mark.parametrize("system", ["srp", "msv"])
def test_no_hidden_value_reaches_anyone_but_the_referee(live: LiveServer, system: str) -> None:
    one, seen_one = watched(live, system, 0)
    other, seen_other = watched(live, system, 1)
    expected = set(SrpSystem.actions if system == "srp" else MsvSystem.actions)
    assert one.kinds == other.kinds == expected, expected ^ one.kinds
    log = [e for e in live.store.events(one.bout) if e["type"] == "outcome"]
    assert {e["payload"]["kind"] for e in log} == expected
    # The same course both times: the same dice, the same outcomes the rules read.
    faces = [
        [e["payload"]["faces"] for e in live.store.events(run.bout) if e["type"] == "roll"]
        for run in (one, other)
    ]
    assert faces[0] == faces[1] and faces[0]
    for name in seen_one:
        assert normal(seen_one[name], one) == normal(seen_other[name], other), name
    # The test can tell: what the referee sees differs, as the hidden values do.
    for run in (one, other):
        run.referee_saw.append(run.live.get(run.url("/log"), run.referee).json())
        run.referee_saw.append(run.live.get(run.url("/export"), run.referee).json())
    assert normal(one.referee_saw, one) != normal(other.referee_saw, other)
    # Once the bout is closed, everyone sees everything.
    for run in (one, other):
        assert run.live.post(run.url("/close"), run.referee).status_code == 200
    public = [normal(r.live.get(r.url("/log")).json(), r) for r in (one, other)]
    assert public[0] != public[1]


def test_every_hash_is_public_and_none_gives_a_hidden_stat_away(live: LiveServer) -> None:
    """Every view a non-referee has (the log, the log after an event, the export, the live
    stream) carries every event's hash as it was written, so a player holds the newest hash at
    every moment, and the chain checks on exactly what they were shown. A stat has few values,
    yet nothing shown gives one away: the event that holds it is sealed (docs/ledger.md,
    "Sealed events"), its hash covers "hidden" and a seal salted with 16 bytes no view shows.
    After the close the openings are everyone's, open their seals, and the export verifies
    with every hash a watcher held."""
    made = live.post("/api/bouts", json={"system": "srp", "name": "Ford", "client_seed": "gm"})
    bout, ref = made.json()["id"], made.json()["referee_token"]
    ann = {"hits": 12, "skills": {"sword": 14}, "weapons": [SWORD]}
    bran = {**ann, "defense": 11}
    for name, sheet, hidden in (("Ann", ann, []), ("Bran", bran, ["defense"])):
        body = {"name": name, "sheet": sheet, "hidden": hidden}
        assert live.post(f"/api/bouts/{bout}/fighters", ref, json=body).status_code == 201
    live.post(f"/api/bouts/{bout}/initiative", ref)
    live.post(f"/api/bouts/{bout}/rolls", ref, json={"dice": "1d6"})
    stream = Reader(f"{live.url}/api/bouts/{bout}/events")
    stored = live.store.events(bout)
    last = stored[-1]["seq"]
    secret = next(
        e for e in stored if e["type"] == "fighter_added" and e["payload"]["name"] == "Bran"
    )
    salt = secret["seal"]["salt"]
    views = {
        "log": live.get(f"/api/bouts/{bout}/log").json(),
        "log after": live.get(f"/api/bouts/{bout}/log", params={"after": secret["seq"]}).json(),
        "export": live.get(f"/api/bouts/{bout}/export").json()["events"],
        "stream": stream.read_until(last),
    }
    hashes = {e["seq"]: e["hash"] for e in stored}
    for name, events in views.items():
        first = secret["seq"] + 1 if name == "log after" else 0
        assert [e["seq"] for e in events] == list(range(first, last + 1)), name
        assert {e["seq"]: e["hash"] for e in events} == {
            seq: h for seq, h in hashes.items() if seq >= first
        }, name
        if first == 0:
            assert verify_chain(events) == [], name
        for event in (e for e in events if e["seq"] == secret["seq"]):
            assert event["payload"]["stats"]["defense"] == "hidden", name
            assert event["sealed"] == seal_of(secret["payload"], salt), name
            guessed = [v for v in range(101) if _hash_with(event, "defense", v) == event["hash"]]
            assert guessed == [], f"{name}: the hash gives Bran's defense away: {guessed}"
        assert salt not in json.dumps(events), f"{name} shows a seal's salt"
    # Closed: everyone sees every event whole, the openings open, every hash held still holds.
    assert live.post(f"/api/bouts/{bout}/close", ref).status_code == 200
    doc = live.get(f"/api/bouts/{bout}/export").json()
    assert doc["openings"][str(secret["seq"])] == {"salt": salt, "payload": secret["payload"]}
    assert verify_export(doc, [expect_hashes(tuple(hashes.values()))]).verdict == "verified"
    log = live.get(f"/api/bouts/{bout}/log").json()
    assert log[secret["seq"]]["payload"]["stats"]["defense"] == 11
    assert all(e["hash"] == hashes[e["seq"]] for e in log if e["seq"] in hashes)


def _hash_with(event: dict[str, Any], key: str, value: int) -> Any:
    """The hash `event` would have with `value` for its hidden stat `key`."""
    guess = {k: v for k, v in event.items() if k not in ("hash", "redacted")}
    guess["payload"] = {**guess["payload"], "stats": {**guess["payload"]["stats"], key: value}}
    return event_hash(guess)
