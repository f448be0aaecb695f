"""Stringing the dice: a scripted cheater against the real service, and it must fail.

An outside probe, with nothing but a fighter's own token and the documented API, once strung
the dice three ways: it previewed its next d100 with a free roll that failed without a record
(`1/(1d100>31)` answered 400 when the face was at most 30), it burned its foe's good faces out
of turn with free rolls (they shared the bout's one nonce sequence), and it did the same to
SRP's attack d20. Those three attacks are kept here as named tests, and a cheater that uses
every route a fighter has plays thousands of attacks against an honest foe over HTTP (and the
same through the chat endpoint and the Discord bot): each fighter's hit rate must stay within
4 standard errors of its true chance, and the cheater's predictions must be no better than
chance. What makes it so, by construction (docs/ledger.md): no answer depends on dice that
are not stored, and every owner draws from a stream of its own (dice scheme 2).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import http.client
import json
import json as _json
import math
import socket
import tempfile
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
import pytest

from referee.bout.replay import check_export
from referee.bout.state import BoutState
from referee.errors import RuleError
from referee.ledger import verify_export
from referee.rng import Rng, ScriptedStreams, die
from referee.service.limits import Limits, Rate
from referee.store import Store
from referee.systems.base import Outcome, register
from tests.coin_system import CoinSystem
from tests.discord_harness import Harness
from tests.seeds import SeededEntropy
from tests.service_fixtures import LiveServer, start_server
from tests.vectors.generate import rehash_from

#: Both fighters' Combat Skill: MSV-2, a d100 at or under 30 hits.
CS = 30
CHANCE = CS / 100
#: MSV-7's threshold at its highest, so a bout lasts a few hundred attacks.
RULES = {"defeat_threshold": 100}
#: Expressions whose answer once depended on faces nobody recorded: each can fail only by
#: its dice (a divisor that can roll 0), so each must be refused before any die is thrown.
PROBES = ("1/(1d100>31)", "1d100 % (1d100>30)", "100/(1d100-1d100)", "6/floor(1d100/31)")


class Answer:
    """An HTTP answer: its status and its text (what the tests read of httpx's)."""

    def __init__(self, status_code: int, text: str) -> None:
        self.status_code, self.text = status_code, text

    def json(self) -> Any:
        return json.loads(self.text)


class Wire:
    """A keep-alive HTTP/1.1 client on the standard library, for the long run: the cheater
    sends some ten thousand requests, and httpx costs the test process more per request than
    the service itself does. Same `post`, `get` and `url` as `LiveServer`."""

    def __init__(self, url: str) -> None:
        self.url = url
        parts = urlparse(url)
        assert parts.hostname is not None and parts.port is not None
        self._conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)

    def post(self, path: str, token: str | None = None, **kwargs: Any) -> Answer:
        return self.request("POST", path, token, **kwargs)

    def get(self, path: str, token: str | None = None, **kwargs: Any) -> Answer:
        return self.request("GET", path, token, **kwargs)

    def request(
        self,
        method: str,
        path: str,
        token: str | None = None,
        json: Any = None,
        headers: dict[str, str] | None = None,
        content: str | None = None,
    ) -> Answer:
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        body = None if content is None else content.encode()
        if json is not None:
            body = _json.dumps(json).encode()
            sent["Content-Type"] = "application/json"
        self._conn.request(method, path, body=body, headers=sent)
        answer = self._conn.getresponse()
        return Answer(answer.status, answer.read().decode("utf-8"))

    def chat(self, bout_id: str, token: str | None, line: str) -> Answer:
        headers = {"Content-Type": "text/plain"}
        return self.post(f"/api/bouts/{bout_id}/chat", token, content=line, headers=headers)

    def close(self) -> None:
        self._conn.close()


#: What the cheater talks to: the test's `LiveServer` (httpx), or a `Wire`.
Service = LiveServer | Wire


def within(hits: int, n: int, p: float, sigmas: float = 4.0) -> bool:
    """Whether `hits` of `n` is within `sigmas` standard errors of chance `p`."""
    return abs(hits / n - p) <= sigmas * math.sqrt(p * (1 - p) / n)


@dataclass
class Tally:
    """What the cheater saw and what came of it."""

    attacks: dict[str, int] = field(default_factory=lambda: {"Tarl": 0, "Orc": 0})
    hits: dict[str, int] = field(default_factory=lambda: {"Tarl": 0, "Orc": 0})
    predicted: list[tuple[bool, bool]] = field(default_factory=list)  # (predicted, hit)
    probes: int = 0
    refused: set[str] = field(default_factory=set)
    exports: list[dict[str, Any]] = field(default_factory=list)

    def attack(self, who: str, hit: bool) -> None:
        self.attacks[who] += 1
        self.hits[who] += hit

    def predictions_at_chance(self) -> bool:
        """The cheater's guesses agree with the hits no more often than two independent
        coins with the same odds would (within 4 standard errors)."""
        n = len(self.predicted)
        said = sum(p for p, _ in self.predicted) / n
        hit = sum(h for _, h in self.predicted) / n
        agree = sum(p == h for p, h in self.predicted)
        chance = said * hit + (1 - said) * (1 - hit)
        return within(agree, n, chance)


class Cheater:
    """Tarl (CS 30) with its own token, against Orc (CS 30, honest), over HTTP.

    It follows the bout from its answers (whose turn, how many events are stored), so that a
    request that stores nothing shows as a count that did not move at the next `check`.
    """

    def __init__(self, live: Service, tally: Tally) -> None:
        self.live, self.tally = live, tally
        self.bouts = 0

    def open(self) -> None:
        self.bouts += 1
        live = self.live
        r = live.post("/api/bouts", json={"system": "msv", "name": "Spar", "rules": RULES})
        assert r.status_code == 201, r.text
        self.bout, self.ref = r.json()["id"], r.json()["referee_token"]
        self.tokens = {}
        for name in ("Tarl", "Orc"):
            # each fighter's own part of the client seed, given after the commitment is shown
            body = {"name": name, "cs": CS, "client_seed": f"{name.lower()}-{self.bouts}"}
            joined = live.post(f"/api/bouts/{self.bout}/join", json=body)
            assert joined.status_code == 201, joined.text
            self.tokens[name] = joined.json()["token"]
        r = live.post(f"/api/bouts/{self.bout}/initiative", self.ref)
        assert r.status_code == 200, r.text
        view = self.view()
        self.turn: str | None = view["turn"]
        self.known = int(view["events"])

    def view(self) -> dict[str, Any]:
        return dict(self.live.get(f"/api/bouts/{self.bout}").json())

    def check(self) -> None:
        """Everything stored was answered: the count of events is the one the answers gave
        (and a seed rotation the service made after a roll, which no answer lists)."""
        stored = self.view()["events"]
        if stored != self.known:
            since = self.live.get(f"/api/bouts/{self.bout}/log").json()[self.known :]
            assert since and all(e["type"] == "seed_rotated" for e in since), since
            self.known = stored

    def probe(self, round_: int) -> None:
        """A free roll that could fail only by its faces: refused before any die is thrown,
        the same answer every time, and nothing stored (`check` sees the count unmoved)."""
        expression = PROBES[round_ % len(PROBES)]
        r = self.live.post(
            f"/api/bouts/{self.bout}/rolls", self.tokens["Tarl"], json={"dice": expression}
        )
        assert r.status_code == 400, r.text
        assert "divisor" in r.json()["message"], r.text
        self.tally.probes += 1
        self.tally.refused.add(r.text)

    def free_roll(self, key: str | None = None) -> dict[str, Any]:
        headers = {"Idempotency-Key": key} if key else {}
        r = self.live.post(
            f"/api/bouts/{self.bout}/rolls",
            self.tokens["Tarl"],
            json={"dice": "1d100"},
            headers=headers,
        )
        assert r.status_code == 200, r.text
        answer = dict(r.json())
        assert answer["stream"] == "free:Tarl"
        self.known = max(self.known, answer["rolls"][-1]["seq"] + 1)
        return answer

    def attack(self, who: str, key: str | None = None) -> dict[str, Any]:
        foe = "Orc" if who == "Tarl" else "Tarl"
        headers = {"Idempotency-Key": key} if key else {}
        r = self.live.post(
            f"/api/bouts/{self.bout}/attacks",
            self.tokens[who],
            json={"attacker": who, "target": foe},
            headers=headers,
        )
        assert r.status_code == 200, r.text
        answer = dict(r.json())
        assert [roll["stream"] for roll in answer["rolls"]] == [f"act:{who}"]
        self.known = answer["events"][-1]["seq"] + 1
        self.turn = None if answer.get("winner") else answer.get("next", who)
        return answer

    def out_of_turn(self) -> None:
        """Orc's turn: Tarl tries to act (refused, nothing stored) and burns faces instead."""
        r = self.live.post(
            f"/api/bouts/{self.bout}/attacks",
            self.tokens["Tarl"],
            json={"attacker": "Tarl", "target": "Orc"},
        )
        assert r.status_code == 409, r.text
        self.free_roll()

    def retried(self, round_: int) -> None:
        """The same free roll sent twice with one Idempotency-Key: one record, one answer."""
        key = f"retry-{self.bout}-{round_}"
        first, again = self.free_roll(key), self.free_roll(key)
        assert first == again  # the same answer: one action and one roll, stored once
        self.check()

    def duplicates(self, round_: int) -> None:
        """Two copies of one free roll at once with one key: stored once, one answer."""
        key = f"twin-{self.bout}-{round_}"
        before = self.known
        answers: list[Any] = []

        def send() -> None:
            # A connection each (the standard library's: an httpx client costs ~30 ms to make)
            wire = Wire(self.live.url)
            try:
                answers.append(
                    wire.post(
                        f"/api/bouts/{self.bout}/rolls",
                        self.tokens["Tarl"],
                        json={"dice": "1d100"},
                        headers={"Idempotency-Key": key},
                    )
                )
            finally:
                wire.close()

        threads = [threading.Thread(target=send) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        done = [a.json() for a in answers if a.status_code == 200]
        assert done and all(a == done[0] for a in done), [a.text for a in answers]
        assert all(a.status_code in (200, 409) for a in answers), [a.text for a in answers]
        assert done[0]["seq"] >= before  # stored once: nothing else came after it
        self.known = done[0]["rolls"][-1]["seq"] + 1
        self.check()

    def hung_up(self, round_: int) -> None:
        """A free roll sent on a connection closed before its answer, then sent again with its
        Idempotency-Key (a HUD that timed out): it is stored exactly once, and the cheater
        learns its face only from the answer of the stored roll."""
        key = f"hang-{self.bout}-{round_}"
        url = urlparse(self.live.url)
        body = json.dumps({"dice": "1d100"}).encode()
        request = (
            f"POST /api/bouts/{self.bout}/rolls HTTP/1.1\r\nHost: {url.hostname}\r\n"
            f"Authorization: Bearer {self.tokens['Tarl']}\r\nIdempotency-Key: {key}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode() + body
        before = self.known
        assert url.hostname is not None and url.port is not None
        with socket.create_connection((url.hostname, url.port), timeout=60) as conn:
            conn.sendall(request)
        for _ in range(100):  # a retry that meets the first copy still at work is refused (409)
            r = self.live.post(
                f"/api/bouts/{self.bout}/rolls",
                self.tokens["Tarl"],
                json={"dice": "1d100"},
                headers={"Idempotency-Key": key},
            )
            if r.status_code == 200:
                break
            assert r.status_code == 409, r.text
        assert r.status_code == 200, r.text
        assert r.json()["seq"] >= before  # stored once: nothing else came after it
        self.known = r.json()["rolls"][-1]["seq"] + 1
        self.check()

    def predict(self) -> bool:
        """The cheater's guess of its next attack: its last free d100 under its CS (what a
        shared sequence would have leaked)."""
        face = self.free_roll()["faces"][0]
        return bool(face <= CS)

    def close(self) -> None:
        self.check()
        r = self.live.post(f"/api/bouts/{self.bout}/close", self.ref)
        assert r.status_code == 200, r.text
        self.tally.exports.append(self.live.get(f"/api/bouts/{self.bout}/export").json())


def play(live: Service, attacks: int) -> Tally:
    """Bouts between the cheater and Orc until each has made `attacks` attacks."""
    tally = Tally()
    cheater = Cheater(live, tally)
    round_ = 0
    while min(tally.attacks.values()) < attacks:
        cheater.open()
        while cheater.turn is not None:
            round_ += 1
            who = cheater.turn
            if who == "Tarl":
                cheater.probe(round_)
                guess = cheater.predict()
                if round_ % 7 == 0:
                    cheater.retried(round_)
                if round_ % 11 == 0:
                    cheater.duplicates(round_)
                if round_ % 13 == 0:
                    cheater.hung_up(round_)
                if round_ % 50 == 0:
                    cheater.check()
                answer = cheater.attack("Tarl", key=f"a-{cheater.bout}-{round_}")
                tally.predicted.append((guess, bool(answer["success"])))
            else:
                if round_ % 3 == 0:  # out of turn: refused, then faces burned (it thinks)
                    cheater.out_of_turn()
                answer = cheater.attack("Orc")
            tally.attack(who, bool(answer["success"]))
        cheater.close()
    return tally


def judged(tally: Tally) -> None:
    for who in ("Tarl", "Orc"):
        n, hits = tally.attacks[who], tally.hits[who]
        assert within(hits, n, CHANCE), f"{who} hit {hits} of {n} (chance {CHANCE})"
    assert tally.predictions_at_chance(), tally.predicted
    assert len(tally.refused) == len(PROBES)  # one answer per probe, whatever the faces
    for doc in tally.exports:
        report = verify_export(doc, replay=check_export)
        assert report.ok, [str(p) for p in report.problems]
        assert "stream" in report.checks
    assert any(doc["fairness"].get("rotations") for doc in tally.exports)  # long bouts rotate


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def arena(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Wire, int]]:
    """The service for the long run, and the attacks per side it plays there: 2,000 on SQLite
    (its file in memory, /dev/shm, where there is one: this test is about the dice, and a
    durable commit costs more than the whole attack; the other tests keep their files on
    disk), 300 on PostgreSQL."""
    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            shm = Path("/dev/shm")
            place = Path(stack.enter_context(tempfile.TemporaryDirectory(dir=shm)))
            url, attacks = f"sqlite:///{place if shm.is_dir() else tmp_path}/arena.db", 2_000
        else:
            url, attacks = request.getfixturevalue("pg_url"), 300
        server, thread, store, base = start_server(url, rotate_every=250)
        stack.callback(store.close)
        stack.callback(thread.join, 10)
        stack.callback(server.stop)
        wire = Wire(base)
        stack.callback(wire.close)
        yield wire, attacks


def test_a_cheater_with_every_route_hits_at_its_chance(
    arena: tuple[Wire, int], capsys: pytest.CaptureFixture[str]
) -> None:
    live, many = arena
    tally = play(live, many)
    judged(tally)
    with capsys.disabled():
        print(
            f"\nstringing: Tarl {tally.hits['Tarl']}/{tally.attacks['Tarl']}, "
            f"Orc {tally.hits['Orc']}/{tally.attacks['Orc']} (chance {CHANCE}), "
            f"{tally.probes} probes refused, predictions "
            f"{sum(p == h for p, h in tally.predicted)}/{len(tally.predicted)} right"
        )


# -- the outside probe's three attacks, kept ------------------------------------------------


@pytest.fixture
def wire(live: LiveServer) -> Iterator[Wire]:
    """The test's service through a `Wire`: the long loops below send over a thousand requests
    each, and httpx costs the test process more per request than the service does."""
    connection = Wire(live.url)
    yield connection
    connection.close()


def test_a_failing_free_roll_previews_nothing(wire: Wire) -> None:
    """Attack 1: `1/(1d100>31)` answered 400 when the d100 was at most 30 and stored nothing;
    the cheater attacked only then (9 of 9 hits at CS 30). Now it is refused before any die
    is thrown: one answer whatever the faces, and the nonce never moves for it."""
    tally = Tally()
    cheater = Cheater(wire, tally)
    cheater.open()
    answers = set()
    hits = attacks = 0
    for _ in range(400):
        view = cheater.view()
        if view["status"] != "running":
            break
        if view["turn"] == "Tarl":
            r = wire.post(
                f"/api/bouts/{cheater.bout}/rolls",
                cheater.tokens["Tarl"],
                json={"dice": "1/(1d100>31)"},
            )
            answers.add((r.status_code, r.text))
            answer = cheater.attack("Tarl")
            attacks += 1
            hits += bool(answer["success"])
        else:
            cheater.attack("Orc")
    assert answers == {
        (
            400,
            '{"error":"bad_notation","message":"the divisor \'(1d100>31)\' at column 3 in '
            "'1/(1d100>31)' can be 0 (a divisor that can be 0 is refused before any die is "
            'thrown; write one that cannot)"}',
        )
    }
    assert attacks >= 100 and within(hits, attacks, CHANCE), (hits, attacks)
    cheater.close()
    streams = {e["payload"]["stream"] for e in tally.exports[0]["events"] if e["type"] == "roll"}
    assert streams == {"act:Tarl", "act:Orc"}  # the probes threw nothing


def _faces_of(live: LiveServer, bout: str, stream: str) -> list[int]:
    log = live.get(f"/api/bouts/{bout}/export").json()["events"]
    return [
        e["payload"]["faces"][0]
        for e in log
        if e["type"] == "roll" and e["payload"]["stream"] == stream
    ]


def test_free_rolls_out_of_turn_cannot_burn_the_foes_faces(db_url: str, tmp_path: Path) -> None:
    """Attack 2: free rolls need no turn and shared the bout's one sequence, so the cheater
    burned the faces that would have let its foe hit (Orc 0 of 30). Now the same bout, from the
    same seeds, played once quietly and once with the cheater burning between Orc's attacks,
    gives Orc the very same faces."""
    faces = []
    for burn in (False, True):
        url = db_url if burn else f"sqlite:///{tmp_path / 'quiet.db'}"
        server, thread, store, base = start_server(url, entropy=SeededEntropy("burn"))
        try:
            with httpx.Client(base_url=base, timeout=60) as client:
                live = LiveServer(base, store, client)
                cheater = Cheater(live, Tally())
                cheater.open()
                for _ in range(60):
                    view = cheater.view()
                    if view["status"] != "running":
                        break
                    who = view["turn"]
                    if who == "Orc" and burn:
                        for _ in range(5):
                            cheater.free_roll()
                    cheater.attack(who)
                faces.append(_faces_of(live, cheater.bout, "act:Orc"))
        finally:
            server.stop()
            thread.join(10)
            store.close()
    assert faces[0] == faces[1] and len(faces[0]) >= 20


def test_the_srp_attack_die_cannot_be_previewed(wire: Wire) -> None:
    """Attack 3: SRP's attack d20 was previewed the same way (2 of 2 attack dice at 1..2). The
    probe is refused before any die, and the attack dice fall as a d20 falls."""
    r = wire.post("/api/bouts", json={"system": "srp", "name": "Skirmish"})
    assert r.status_code == 201, r.text
    bout, ref = r.json()["id"], r.json()["referee_token"]
    tokens = {}
    for name in ("Tarl", "Orc"):
        sheet = {
            "hits": 99,
            "skills": {"sword": 12},
            "defense": 10,
            "armor": 20,
            "weapons": [{"name": "sword", "damage": 0}],
        }
        joined = wire.post(f"/api/bouts/{bout}/join", json={"name": name, "sheet": sheet})
        assert joined.status_code == 201, joined.text
        tokens[name] = joined.json()["token"]
    assert wire.post(f"/api/bouts/{bout}/initiative", ref).status_code == 200
    low = attacks = 0
    for _ in range(600):
        view = wire.get(f"/api/bouts/{bout}").json()
        who = view["turn"]
        foe = "Orc" if who == "Tarl" else "Tarl"
        if who == "Tarl":
            before = view["events"]
            r = wire.post(f"/api/bouts/{bout}/rolls", tokens["Tarl"], json={"dice": "1/(1d20>2)"})
            assert r.status_code == 400 and "divisor" in r.json()["message"], r.text
            assert wire.get(f"/api/bouts/{bout}").json()["events"] == before
        r = wire.post(
            f"/api/bouts/{bout}/attacks", tokens[who], json={"attacker": who, "target": foe}
        )
        assert r.status_code == 200, r.text
        roll = r.json()["rolls"][0]
        assert roll["stream"] == f"act:{who}" and roll["dice"] == ["d20", "d20", "d6"]
        if who == "Tarl":
            attacks += 1
            low += roll["faces"][0] <= 2
    assert attacks >= 250 and within(low, attacks, 2 / 20), (low, attacks)


# -- the same through the chat endpoint and the Discord bot ---------------------------------


def test_the_chat_endpoint_strings_nothing_either(wire: Wire) -> None:
    tally = Tally()
    cheater = Cheater(wire, tally)
    cheater.open()
    bout, tokens = cheater.bout, cheater.tokens
    hits = {"Tarl": 0, "Orc": 0}
    counts = {"Tarl": 0, "Orc": 0}
    while min(counts.values()) < 150:
        view = cheater.view()
        cheater.known = view["events"]  # this test follows the bout by its view
        if view["status"] != "running":
            cheater.close()
            cheater.open()
            bout, tokens = cheater.bout, cheater.tokens
            continue
        who = view["turn"]
        foe = "Orc" if who == "Tarl" else "Tarl"
        before = view["events"]
        said = wire.chat(bout, tokens["Tarl"], "roll 1/(1d100>31)")
        assert said.status_code == 400 and "the divisor" in said.text, said.text
        assert cheater.view()["events"] == before
        if who == "Orc":
            burned = wire.chat(bout, tokens["Tarl"], "roll 1d100")
            assert burned.status_code == 200 and "Tarl rolled 1d100" in burned.text, burned.text
        answer = wire.chat(bout, tokens[who], f"attack {foe}")
        assert answer.status_code == 200, answer.text
        counts[who] += 1
        hits[who] += ": hit" in answer.text or "critical" in answer.text.lower()
    cheater.known = cheater.view()["events"]
    cheater.close()
    for who in ("Tarl", "Orc"):
        assert within(hits[who], counts[who], CHANCE), (who, hits[who], counts[who])
    for doc in tally.exports:
        assert verify_export(doc, replay=check_export).ok


def test_the_discord_bot_strings_nothing_either(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    store = Store.open(f"sqlite:///{tmp_path / 'bot.db'}")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Probe")
        assert "joins" in await h.text("Tarl", f"~spar:join {CS}")
        assert "joins" in await h.text("Orc", f"~spar:join {CS}")
        answer = await h.text("Judge", "~spar:begin")
        spar = next(b for b in store.list_bouts() if b.name == "Probe")
        attacks = 0
        while True:
            before = len(store.events(spar.id))
            probe = await h.text("Tarl", "~roll 1/(1d100>31)")
            assert probe.startswith("error: the divisor"), probe
            assert len(store.events(spar.id)) == before  # refused before any die: nothing
            found = [line for line in answer.splitlines() if line.startswith("Next: ")]
            if not found:
                break
            actor = "Tarl" if found[-1].startswith("Next: Tarl") else "Orc"
            if actor == "Orc":  # out of turn, Tarl's roll is no attack and moves no dice of Orc's
                await h.text("Tarl", "~roll 1d100")
            answer = await h.text(actor, "~roll 1d100")  # in MSV, on your turn: your attack
            attacks += 1
        rolls = [e["payload"] for e in store.events(spar.id) if e["type"] == "roll"]
        assert attacks >= 20 and "wins" in answer.lower(), answer
        names = [
            e["payload"]["name"] for e in store.events(spar.id) if e["type"] == "fighter_added"
        ]
        assert len(names) == 2
        for name in names:  # each fighter's stream moved by its own rolls alone
            mine = [p["nonce"] for p in rolls if p["stream"] == f"act:{name}"]
            assert len(mine) >= 10 and mine == list(range(len(mine)))
        assert {p["stream"] for p in rolls} == {f"act:{name}" for name in names}
        # the bot added a random part of the client seed for each fighter who joined
        parts = next(b for b in store.list_bouts() if b.id == spar.id).client_seed.split(":")
        assert len(parts) == 3 and len(set(parts)) == 3

    async def run() -> None:
        harness = Harness(store)
        await harness.start(["Judge", "Tarl", "Orc"])
        try:
            await script(harness)
        finally:
            await harness.stop()

    asyncio.run(run())


def test_rate_limited_retries_change_nothing(tmp_path: Path) -> None:
    """Free rolls past the rate limit answer 429 and store nothing: the rolls that were stored
    are exactly the ones answered 200."""
    limits = Limits(token=Rate(5, 60.0), address=None, create=None)
    server, thread, store, base = start_server(f"sqlite:///{tmp_path / 'rate.db'}", limits=limits)
    try:
        with httpx.Client(base_url=base, timeout=60) as client:
            live = LiveServer(base, store, client)
            cheater = Cheater(live, Tally())
            cheater.open()
            statuses = []
            for _ in range(30):
                r = live.post(
                    f"/api/bouts/{cheater.bout}/rolls",
                    cheater.tokens["Tarl"],
                    json={"dice": "1d100"},
                )
                statuses.append(r.status_code)
                if r.status_code == 429:
                    assert "faces" not in r.text
            assert 429 in statuses
            free = [
                e
                for e in store.events(cheater.bout)
                if e["type"] == "roll" and e["payload"]["stream"] == "free:Tarl"
            ]
            assert len(free) == statuses.count(200)
    finally:
        server.stop()
        thread.join(10)
        store.close()


# -- no outcome before its record: a failure after the throw is stored and answered as such --


@register
class FumbleSystem(CoinSystem):
    """The coin system, whose attack can fail after its die is thrown: an even face is a
    fumble the rules refuse to settle. Such a refusal depends on the face, so it must be
    stored with the face before it is answered."""

    name = "fumble-test"
    title = "Fumble (test only)"

    def act(
        self, bout: BoutState, actor: str, kind: str, options: Mapping[str, Any], rng: Rng
    ) -> Outcome:
        face = die(rng, 6)
        if face % 2 == 0:
            raise RuleError(f"the blade slips on a {face}")
        return super().act(bout, actor, kind, options, ScriptedStreams([face]).stream("x"))


def test_a_failure_after_the_throw_is_stored_with_its_faces_and_answered(
    live: LiveServer,
) -> None:
    r = live.post("/api/bouts", json={"system": "fumble-test", "name": "Slips"})
    bout, ref = r.json()["id"], r.json()["referee_token"]
    tokens = {}
    for name in ("A", "B"):
        joined = live.post(f"/api/bouts/{bout}/join", json={"name": name, "sheet": {"power": 1}})
        tokens[name] = joined.json()["token"]
    assert live.post(f"/api/bouts/{bout}/initiative", ref).status_code == 200
    fumbles = 0
    for turn in range(60):
        view = live.get(f"/api/bouts/{bout}").json()
        if view["status"] != "running":
            break
        who = view["turn"]
        foe = "B" if who == "A" else "A"
        before = view["events"]
        if turn % 2:  # the chat endpoint (and the HUD on it) answers it as such too
            chat = live.chat(bout, tokens[who], f"attack {foe}")
            assert chat.status_code == 200, chat.text
            fumbles += "Could not be settled after its dice were recorded: the blade" in chat.text
            continue
        r = live.post(
            f"/api/bouts/{bout}/actions",
            tokens[who],
            json={"actor": who, "kind": "attack", "options": {"target": foe}},
        )
        assert r.status_code == 200, r.text  # stored: an answer that depends on the face
        answer = r.json()
        face = answer["rolls"][0]["faces"][0]
        assert answer["rolls"][0]["stream"] == f"act:{who}"
        events = live.get(f"/api/bouts/{bout}/log").json()[before:]
        if face % 2 == 0:
            fumbles += 1
            assert answer["failed"] == f"the blade slips on a {face}"
            assert [e["type"] for e in events] == ["action", "roll", "failed"]
            assert events[0]["payload"]["failed"] is True
            assert live.get(f"/api/bouts/{bout}").json()["turn"] == who  # no turn used
        else:
            assert "failed" not in answer
    assert fumbles >= 5
    assert live.post(f"/api/bouts/{bout}/close", ref).status_code == 200
    doc = live.get(f"/api/bouts/{bout}/export").json()
    report = verify_export(doc, replay=check_export)  # the replay fails them again, alike
    assert report.ok, [str(p) for p in report.problems]
    # A forger who drops the failure (and repairs the chain) is caught by the replay.
    at = next(i for i, e in enumerate(doc["events"]) if e["type"] == "failed")
    forged = copy.deepcopy(doc)
    forged["events"][at]["payload"]["error"] = "the blade holds"
    rehash_from(forged, at)
    problems = verify_export(forged, replay=check_export).problems
    assert problems and problems[0].seq == at


def test_the_automatic_rotation_of_a_long_bout_keeps_the_rules_replay(tmp_path: Path) -> None:
    """A seed rotated by the service after a roll ("system") is no consequence of that roll's
    action: the replay must not read it as one (it once did)."""
    url = f"sqlite:///{tmp_path / 'rotate.db'}"
    server, thread, store, base = start_server(url, rotate_every=5)
    try:
        with httpx.Client(base_url=base, timeout=60) as client:
            cheater = Cheater(LiveServer(base, store, client), Tally())
            cheater.open()
            for _ in range(30):
                if cheater.turn is None:
                    break
                cheater.attack(cheater.turn)
            cheater.close()
    finally:
        server.stop()
        thread.join(10)
        store.close()
    doc = cheater.tally.exports[0]
    assert len(doc["fairness"]["rotations"]) >= 4
    report = verify_export(doc, replay=check_export)
    assert report.ok, [str(p) for p in report.problems]
