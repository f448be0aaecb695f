"""Test vectors: exports of real bouts, valid or tampered, each with the verdict it must get.

A vector is the export's JSON text (what a verifier reads), whether it is checked as partial,
the verdict ("verified", "partial", "rejected"; or "error" for text that is not an export) and
the seq the first problem must name (None: the export as a whole; ANY: not predicted, only the
two verifiers' agreement counts). Valid exports come from the bout engine with the verifiable
dice, seed rotations, times that move on, Unicode names and the close; tampered ones change
every kind of field, event, time, order, seed, rotation and header, cut exports short, and
put in lone surrogates, floats and integers beyond 2^53.

`tests/test_ledger_vectors.py` runs every vector through both verifiers: stored ones
(`tests/vectors/*.json`, written by `python -m tests.vectors.generate`) and fresh ones drawn by
hypothesis each run.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from referee.bout import commands as c
from referee.bout.events import Event
from referee.bout.fold import apply
from referee.bout.runner import BoutRunner
from referee.ledger import SeedRecord, build_export, chain, event_hash, rotation_payload
from referee.ledger.seal import SealedDraft, link_sealed, opening
from referee.ledger.seal import chained as sealed_form
from referee.rng import VerifiableRng, VerifiableStreams, commitment
from referee.service.redaction import hidden_stats, public_payload
from referee.systems.msv.system import MsvSystem
from tests.vectors.bouts import Step, plans, play

#: A first problem that is not predicted (the verifiers must still agree on it).
ANY = "any"

HERE = Path(__file__).parent
START = datetime(2026, 11, 29, 22, 40, 12, tzinfo=UTC)

#: Names that test the canonical bytes: accents, a non-BMP sword, right-to-left text, quotes,
#: full-width letters (all names the engine's name rule accepts).
NAMES = (
    "Tarl",
    "Pa-Kur",
    "Ærnir 🗡 of Tor",
    "Ḩaẓẓār",
    'O\'Brien "the Bold"',
    "שלום",
    "Nb sp \uff37ide",
    "日本語の名前",
    "Zoë Zero",
    "a\\b",
)

Doc = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Vector:
    """One export and what a verifier must say about it."""

    name: str
    text: str
    verdict: str
    first: Any = None
    partial: bool = False

    def as_json(self) -> dict[str, Any]:
        """The vector as stored in tests/vectors/*.json."""
        return {
            "name": self.name,
            "partial": self.partial,
            "verdict": self.verdict,
            "first": self.first,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class Shape:
    """How to build one valid export: the plan, seeds, names, when to rotate, times."""

    plan: tuple[Step, ...]
    seeds: tuple[str, ...]
    client_seed: str
    names: tuple[str, str]
    rotate_before: frozenset[int]
    gaps: tuple[int, ...]
    digits: int
    #: Who makes each rotation (the k-th entry the k-th): "system" (the service's own, every so
    #: many rolls) or "referee" (`rotate-seed`); "system" when not given.
    rotated_by: tuple[str, ...] = ()
    #: The dice scheme: 1 (one nonce sequence per bout) or 2 (a stream per owner).
    scheme: int = 1
    #: The ledger format: 1 (as before) or 2 (the client seed's parts in the chain, fixed
    #: before the first roll; hidden values sealed). The client seed's first part is then the
    #: header's, the next ones the fighters' (in join order).
    ledger: int = 1
    #: In a bout of ledger 2: the second fighter's CS is hidden (its events are sealed).
    hidden: bool = False


def dice(shape: Shape, seed: str) -> VerifiableRng | VerifiableStreams:
    """The bout's verifiable dice under `seed`, by its dice scheme (every stream from 0)."""
    if shape.scheme == 2:
        return VerifiableStreams(seed, shape.client_seed, lambda name: 0)
    return VerifiableRng(seed, shape.client_seed)


def at_text(moment: datetime, digits: int) -> str:
    """An event time with 0 (no fraction) to 6 fraction digits."""
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if digits:
        text += "." + moment.strftime("%f")[:digits]
    return text + "Z"


def bout_export(
    shape: Shape, *, close: bool = True, cut: int | None = None, openings: bool = True
) -> Doc:
    """The export of a bout played from `shape` (closed, or still open, or cut after `cut`);
    `openings`: whether it opens its sealed events (the referee's, or after the close)."""
    state = _Builder(shape)
    more: dict[str, Any] = {}
    if shape.ledger == 2:
        parts = shape.client_seed.split(":")
        more = {"header": {"ledger": 2, "client_seed": parts[0]}, "parts": parts[1:3]}
        more["hidden"] = [(), ("cs",)] if shape.hidden else []
    bout = play(
        list(shape.plan),
        dice(shape, shape.seeds[0]),
        ((shape.names[0], 60), (shape.names[1], 70)),
        on_step=state.maybe_rotate,
        **more,
    )
    if close:
        if bout.state.status.value in ("open", "running", "paused"):
            bout.run(c.End(None, "closed by the referee"))
        bout.events.append(Event("closed", "referee", state.closing()))
    return state.export(bout.events, closed=close, cut=cut, openings=openings)


class _Builder:
    """Rotates seeds while a bout is played, then chains and exports its events."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self.index = 0
        self.steps = 0
        self.rotations: list[int] = []

    def maybe_rotate(self, bout: BoutRunner) -> None:
        self.steps += 1
        if self.steps not in self.shape.rotate_before or self.index + 1 >= len(self.shape.seeds):
            return
        seeds = self.shape.seeds
        self.index += 1
        payload = rotation_payload(self.index, seeds[self.index - 1], commitment(seeds[self.index]))
        by = self.shape.rotated_by
        event = Event(
            "seed_rotated", by[self.index - 1] if len(by) >= self.index else "system", dict(payload)
        )
        bout.state = apply(bout.state, event, len(bout.events))
        bout.events.append(event)
        self.rotations.append(len(bout.events) - 1)
        bout.rng = dice(self.shape, seeds[self.index])

    def closing(self) -> dict[str, Any]:
        seed = self.shape.seeds[self.index]
        return {"server_seed": seed, "commitment": commitment(seed)}

    def export(
        self, events: list[Event], *, closed: bool, cut: int | None, openings: bool = True
    ) -> Doc:
        shape = self.shape
        created = at_text(START, shape.digits)
        header: dict[str, Any] = {
            "id": "vec-1",
            "created_at": created,
            "commitment": commitment(shape.seeds[0]),
        }
        if shape.scheme == 2:
            header["dice_scheme"] = 2
        moment = START
        chained: list[dict[str, Any]] = []
        opened: dict[str, Any] = {}
        written: list[dict[str, Any]] = []
        for i, event in enumerate(events):
            moment += timedelta(microseconds=shape.gaps[i % len(shape.gaps)])
            payload = {**event.payload, **header} if i == 0 else event.payload
            prev = chained[-1] if chained else None
            at = created if i == 0 else at_text(moment, shape.digits)
            written.append({"type": str(event.type), "actor": event.actor, "payload": payload})
            public = _public(written, shape)
            if public is None:
                chained.append(chain(prev, event.type, event.actor, payload, at))
                continue
            salt = hashlib.sha256(f"salt {i}".encode()).hexdigest()[:32]
            draft = SealedDraft(str(event.type), event.actor, payload, public, salt)
            record, _ = link_sealed(prev, draft, at)
            chained.append(sealed_form(record))
            opened[str(i)] = opening(record)
        if cut is not None:
            chained = chained[:cut]
            opened = {seq: found for seq, found in opened.items() if int(seq) < cut}
        shown = sum(1 for r in self.rotations if r < len(chained)) if cut is not None else None
        used = self.index if shown is None else shown
        revealed = closed and cut is None
        seeds = [
            SeedRecord(
                k,
                commitment(shape.seeds[k]),
                shape.seeds[k] if (revealed or k < used) else None,
                None if k == 0 else self.rotations[k - 1],
            )
            for k in range(used + 1)
        ]
        first = events[0].payload
        bout = {
            "id": "vec-1",
            "system": first["system"],
            "name": first["name"],
            "rules": first["rules"],
            "created_at": created,
            "status": "closed" if revealed else "open",
        }
        return build_export(bout, seeds, shape.client_seed, chained, opened if openings else None)


def _public(written: list[dict[str, Any]], shape: Shape) -> dict[str, Any] | None:
    """The public part of the last event `written` when a ledger-2 bout seals it (it holds a
    stat hidden once it is in), else None: as the service seals what it writes."""
    if shape.ledger != 2 or not shape.hidden:
        return None
    return public_payload(written[-1], hidden_stats(written), MsvSystem)


def hex64() -> st.SearchStrategy[str]:
    return st.binary(min_size=32, max_size=32).map(bytes.hex)


@st.composite
def shapes(
    draw: st.DrawFn, max_steps: int = 14, scheme: int | None = None, ledger: int | None = None
) -> Shape:
    """A bout to play: a plan with voids and overrides, 1 to 3 seeds, two names, times, its
    dice scheme (`scheme`, or either) and its ledger format (`ledger`, or either with dice
    streams; a ledger-2 bout may keep a fighter's CS hidden)."""
    plan = draw(plans(max_steps))
    seeds = tuple(draw(st.lists(hex64(), min_size=1, max_size=3, unique=True)))
    rotate = draw(st.frozensets(st.integers(1, len(plan)), max_size=len(seeds) - 1))
    first = draw(st.sampled_from(NAMES))
    second = draw(st.sampled_from([n for n in NAMES if n != first]))
    client = draw(st.sampled_from(["table", "t:Ærnir 🗡", "a:b:c", "x" * 64]))
    gaps = tuple(draw(st.lists(st.integers(0, 5_000_000), min_size=1, max_size=5)))
    digits = draw(st.integers(0, 6))
    scheme = scheme if scheme is not None else draw(st.sampled_from([1, 2]))
    by = tuple(draw(st.lists(st.sampled_from(["system", "referee"]), min_size=len(seeds) - 1,
                             max_size=len(seeds) - 1)))  # fmt: skip
    ledger = draw(st.sampled_from([1, 2])) if ledger is None and scheme == 2 else ledger or 1
    hidden = ledger == 2 and draw(st.booleans())
    return Shape(plan, seeds, client, (first, second), rotate, gaps, digits, by, scheme, ledger,
                 hidden)  # fmt: skip


def text_of(doc: Any, ascii_only: bool = False) -> str:
    """The export's JSON text (escaped to ASCII when it holds text UTF-8 cannot carry)."""
    text = json.dumps(doc, ensure_ascii=ascii_only)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(doc)
    return text


def rehash_from(doc: Doc, start: int) -> None:
    """Re-link and re-hash the events from position `start`: a forger's repair of the chain."""
    events = doc["events"]
    for i in range(max(start, 0), len(events)):
        if i > 0 and isinstance(events[i - 1], dict) and isinstance(events[i], dict):
            events[i]["prev"] = events[i - 1].get("hash")
        if isinstance(events[i], dict):
            events[i]["hash"] = event_hash(events[i])


def valid_vectors(shape: Shape) -> list[Vector]:
    """The closed export (verified) and the same bout still open (partial; rejected unless so)."""
    closed = bout_export(shape)
    running = bout_export(shape, close=False)
    last = running["events"][-1]["seq"]
    previews = []
    if shape.hidden:  # what everyone is shown before the close: every hash, no opening
        preview = bout_export(shape, close=False, openings=False)
        previews.append(Vector("running bout, public preview, --partial", text_of(preview),
                               "partial", partial=True))  # fmt: skip
    return [
        Vector("valid closed export", text_of(closed), "verified"),
        Vector("valid closed export, ASCII escapes", text_of(closed, True), "verified"),
        Vector("running bout, --partial", text_of(running), "partial", partial=True),
        # The seed in force is not revealed yet: the export as a whole is named first.
        Vector("running bout without --partial", text_of(running), "rejected", None),
        Vector(
            "running bout without --partial, seed shown",
            text_of(_with_seed(running, shape)),
            "rejected",
            last,
        ),
        *previews,
    ]


def _with_seed(doc: Doc, shape: Shape) -> Doc:
    """A running bout's export with every seed shown (as a referee may, to check it so far)."""
    doc = copy.deepcopy(doc)
    fairness = doc["fairness"]
    fairness["server_seed"] = shape.seeds[0]
    for rotation in fairness.get("rotations", []):
        rotation["server_seed"] = shape.seeds[rotation["index"]]
    return doc


# -- tamperings: each returns the tampered export and the first seq it must name ------------


def _events(doc: Doc) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = doc["events"]
    return events


def positions_of(doc: Doc, kind: str) -> list[int]:
    return [i for i, e in enumerate(_events(doc)) if e["type"] == kind]


JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)


@st.composite
def tampered(draw: st.DrawFn, shape: Shape) -> Vector:
    """One tampering of the closed export of `shape`, with its expected verdict and first."""
    doc = bout_export(shape)
    events = _events(doc)
    n = len(events)
    kind = draw(st.sampled_from(sorted(TAMPERS)))
    name, verdict, first = TAMPERS[kind](draw, doc, events, n)
    return Vector(f"{kind}: {name}", text_of(doc, draw(st.booleans())), verdict, first)


def _edit_field(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    i = draw(st.integers(0, n - 1))
    key = draw(st.sampled_from(["seq", "type", "actor", "at", "payload", "prev", "hash", "new"]))
    old = events[i].get(key)
    value = draw(JUNK.filter(lambda v: v != old or type(v) is not type(old)))
    events[i][key] = value
    first: Any = i
    if (key == "type" and value in ("seed_rotated", "closed")) or old in ("seed_rotated",):
        first = ANY
    if key == "seq" and "sealed" in events[i]:
        first = ANY  # its opening no longer names it
    elif key == "seq" and (type(value) is not int or value < 0):
        first = i  # format problem named by the seq it should have
    elif key == "seq":
        first = ANY
    return f"event {i} {key} = {value!r}", "rejected", first


def _edit_payload(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    i = draw(st.integers(0, n - 1))
    payload = events[i]["payload"]
    key = draw(st.sampled_from([*payload, "extra"]))
    old = payload.get(key)
    value = draw(JUNK.filter(lambda v: v != old or type(v) is not type(old)))
    payload[key] = value
    first: Any = ANY if events[i]["type"] in ("seed_rotated",) else i
    return f"event {i} ({events[i]['type']}) payload.{key} = {value!r}", "rejected", first


def _forge_face(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    rolls = positions_of(doc, "roll")
    if not rolls:
        return _edit_payload(draw, doc, events, n)
    i = draw(st.sampled_from(rolls))
    faces = events[i]["payload"]["faces"]
    die = draw(st.integers(0, len(faces) - 1))
    sides = int(events[i]["payload"]["dice"][die][1:])
    faces[die] = faces[die] % sides + 1 if sides > 1 else faces[die] + 1
    rehash_from(doc, i)
    return f"roll {i} die {die} forged, chain repaired", "rejected", events[i]["seq"]


def _forge_nonce(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    rolls = positions_of(doc, "roll")
    if not rolls:
        return _edit_payload(draw, doc, events, n)
    i = draw(st.sampled_from(rolls))
    events[i]["payload"]["nonce"] += draw(st.sampled_from([1, -1, 2**53 + 1, 2**70]))
    rehash_from(doc, i)
    return f"roll {i} nonce changed, chain repaired", "rejected", events[i]["seq"]


def _forge_text(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    """A forged word with the chain repaired: only the rules or a saved hash could tell."""
    i = draw(st.integers(1, n - 2))
    events[i]["payload"]["note"] = draw(st.text(max_size=12))
    rehash_from(doc, i)
    if "sealed" in events[i]:  # its opening says no such thing
        return f"sealed event {i} given a note, chain repaired", "rejected", i
    return f"event {i} given a note, chain repaired", "verified", None


def _roll_seq_and_face(
    draw: st.DrawFn, doc: Doc, events: list[Any], n: int
) -> tuple[str, str, Any]:
    """A roll whose seq is not a number and whose face is wrong: its face problem has no place."""
    rolls = positions_of(doc, "roll")
    if not rolls:
        return _edit_payload(draw, doc, events, n)
    i = draw(st.sampled_from(rolls))
    faces = events[i]["payload"]["faces"]
    faces[0] = faces[0] + 1
    seq = draw(st.sampled_from(["x", None, True, [i], {"n": i}, -1, 1.5]))
    events[i]["seq"] = seq
    # A roll problem is named by the roll's own seq: None reads as the export's as a whole.
    return f"roll {i} seq {seq!r} and a face changed", "rejected", None if seq is None else i


def _swap(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    i = draw(st.integers(0, n - 2))
    events[i], events[i + 1] = events[i + 1], events[i]
    first = ANY if "seed_rotated" in (events[i]["type"], events[i + 1]["type"]) else i + 1
    return f"events {i} and {i + 1} swapped", "rejected", first


def _drop(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    i = draw(st.integers(0, n - 1))
    gone = events.pop(i)
    doc.get("openings", {}).pop(str(gone["seq"]), None)  # a forger drops what opened it too
    if i == n - 1:
        return "the close dropped", "rejected", events[-1]["seq"]
    first = ANY if gone["type"] == "seed_rotated" else i + 1
    return f"event {i} dropped", "rejected", first


def _cut(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    k = draw(st.integers(1, n - 1))
    rotations_cut = any(e["type"] == "seed_rotated" for e in events[k:])
    for gone in events[k:]:  # and the openings of what it cut
        doc.get("openings", {}).pop(str(gone["seq"]), None)
    # a part of the client seed cut off: fairness's is no longer the chain's, at its header
    parted = any(e["type"] == "fighter_added" and "seed_part" in e["payload"] for e in events[k:])
    del events[k:]
    if parted:
        first = ANY if rotations_cut else 0
        return f"cut after {k} events, before a part of the client seed", "rejected", first
    if draw(st.booleans()):
        return f"cut after {k} events", "rejected", ANY if rotations_cut else k - 1
    doc["bout"]["status"] = "open"
    return f"cut after {k} events, status open", "rejected", ANY if rotations_cut else k - 1


def _header(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    key = draw(st.sampled_from(["id", "system", "name", "rules", "created_at", "status", "winner"]))
    value = draw(JUNK | st.sampled_from(["vec-2", "srp", "Spar", "open", "2026-11-29T22:40:11Z"]))
    if value == doc["bout"].get(key) and type(value) is type(doc["bout"].get(key)):
        value = [value]
    doc["bout"][key] = value
    first = None if key in ("status", "winner") else 0
    return f"bout.{key} = {value!r}", "rejected", first


def _time_back(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    i = draw(st.integers(1, n - 1))
    before = datetime.fromisoformat(events[i - 1]["at"].replace("Z", "+00:00"))
    back = draw(st.integers(1, 10**7))
    events[i]["at"] = at_text(before - timedelta(microseconds=back), 6)
    rehash_from(doc, i)
    return f"event {i} time set before event {i - 1}'s, chain repaired", "rejected", i


def _bad_time(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    i = draw(st.integers(0, n - 1))
    events[i]["at"] = draw(
        st.sampled_from(
            [
                "2026-11-29T22:40:60Z",
                "2026-11-29T22:40:61.5Z",
                "2026-02-29T10:00:00Z",
                "2026-11-29T24:00:00Z",
                "2026-11-29T22:40:12.1234567Z",
                "2026-11-29T22:40:12.\u0661Z",
                "2026-11-29T22:40:12+00:00",
                "0000-01-01T00:00:00Z",
                "2026-11-29 22:40:12Z",
            ]
        )
    )
    return f"event {i} at = {events[i]['at']!r}", "rejected", i


def _seed(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    fairness = doc["fairness"]
    key = draw(st.sampled_from(["server_seed", "commitment", "client_seed", "rotations"]))
    value = draw(hex64() | JUNK)
    if key == "rotations" and fairness.get("rotations") and draw(st.booleans()):
        rotation = fairness["rotations"][0]
        field = draw(st.sampled_from(sorted(rotation)))
        rotation[field] = value
        return f"fairness.rotations[0].{field} = {value!r}", "rejected", ANY
    if value == fairness.get(key):
        value = "1" * 64 if value == "0" * 64 else "0" * 64
    fairness[key] = value
    rolls = positions_of(doc, "roll")
    if key == "client_seed" and events[0]["payload"].get("ledger") == 2:
        return f"fairness.client_seed = {value!r}, beside the chain's", "rejected", ANY
    if key == "client_seed" and not rolls:
        return (
            f"fairness.client_seed = {value!r}, no rolls",
            "rejected" if not isinstance(value, str) else "verified",
            None,
        )
    return f"fairness.{key} = {value!r}", "rejected", ANY


def _lone_surrogate(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    i = draw(st.integers(0, n - 1))
    events[i]["payload"]["note"] = "x\ud800y"
    return f"event {i} with a lone surrogate", "rejected", i


def _float(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    i = draw(st.integers(0, n - 1))
    value = draw(st.sampled_from([1.0, -0.0, 1.5, 1e16, 1e-05, 123456789.125, 1e300, 2.5e-7]))
    events[i]["payload"]["float"] = value
    return f"event {i} with float {value!r}", "rejected", i


def _huge(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    i = draw(st.integers(0, n - 1))
    value = draw(st.sampled_from([2**53, -(2**53) - 1, 2**64, 10**40]))
    events[i]["payload"]["big"] = value
    forged = draw(st.booleans())
    if forged:
        rehash_from(doc, i)
        verdict = "rejected" if "sealed" in events[i] else "verified"
        return (
            f"event {i} with integer {value}, chain repaired",
            verdict,
            i if "sealed" in events[i] else None,
        )
    return f"event {i} with integer {value}", "rejected", i


def _stream_swapped(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    """A roll moved to another stream (or given one in a bout of scheme 1), chain repaired: the
    stringing a verifier must see even when every hash holds."""
    rolls = positions_of(doc, "roll")
    if not rolls:
        return _edit_payload(draw, doc, events, n)
    i = draw(st.sampled_from(rolls))
    payload = events[i]["payload"]
    fighters = [e["payload"]["name"] for e in events if e["type"] == "fighter_added"]
    others = [f"{kind}:{name}" for kind in ("act", "free") for name in fighters] + ["referee"]
    choices = [stream for stream in others if stream != payload.get("stream")]
    payload["stream"] = draw(st.sampled_from([*choices, "", "act:", "x" * 65, "act:\n", 7, None]))
    rehash_from(doc, i)
    action = next(e for e in reversed(events[:i]) if e["type"] == "action")
    # An initiative roll may come from any fighter's own stream: moved to another's, its nonce
    # and even its face may fit there by chance, and the first problem is a later roll's.
    first = ANY if action["payload"].get("kind") == "initiative" else i
    return f"roll {i} stream = {payload['stream']!r}, chain repaired", "rejected", first


def _stream_dropped(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    rolls = [i for i in positions_of(doc, "roll") if "stream" in events[i]["payload"]]
    if not rolls:
        return _stream_swapped(draw, doc, events, n)
    i = draw(st.sampled_from(rolls))
    del events[i]["payload"]["stream"]
    rehash_from(doc, i)
    return f"roll {i} without its stream, chain repaired", "rejected", i


def _scheme_changed(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    """The header's dice scheme dropped or changed, every hash repaired."""
    header = events[0]["payload"]
    value = draw(st.sampled_from(["drop", 1, 2, 3, -1, "2", True, None, [2]]))
    if value == "drop":
        header.pop("dice_scheme", None)
    else:
        header["dice_scheme"] = value
    rehash_from(doc, 0)
    rolls = positions_of(doc, "roll")
    now = header.get("dice_scheme", 1)
    if header.get("ledger") == 2 and not (type(now) is int and now == 2):
        # fairness says the scheme too: the chain now opens with another
        return f"header dice_scheme = {value!r}, beside fairness's, chain repaired", "rejected", 0
    known = type(now) is int and now in (1, 2)
    if not known:
        return f"header dice_scheme = {value!r}, chain repaired", "rejected", 0
    streams = any("stream" in events[i]["payload"] for i in rolls)
    if (now == 2) == streams or not rolls:
        return f"header dice_scheme = {value!r} (as before), chain repaired", "verified", None
    return f"header dice_scheme = {value!r}, chain repaired", "rejected", rolls[0]


def _seed_left_out(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    """A seed the chain reveals, left out of (null in) the export's fairness record."""
    fairness = doc["fairness"]
    listed = [fairness, *fairness.get("rotations", [])]
    k = draw(st.integers(0, len(listed) - 1))
    listed[k]["server_seed"] = None
    return f"server seed {k} left out of fairness", "rejected", ANY


def _close_commitment(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    """The close restating another commitment than the one in force, chain repaired."""
    close = events[-1]
    close["payload"]["commitment"] = draw(hex64() | st.sampled_from([None, "", 7]))
    rehash_from(doc, n - 1)
    return "the close's commitment changed, chain repaired", "rejected", close["seq"]


def _junk_event(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    i = draw(st.integers(0, n - 1))
    events[i] = draw(JUNK.filter(lambda v: not isinstance(v, dict)))
    return f"event {i} replaced by junk", "rejected", ANY


def _sealed(events: list[Any]) -> list[int]:
    return [i for i, e in enumerate(events) if isinstance(e, dict) and "sealed" in e]


def _opening_changed(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    """An opening's salt or hidden value changed: it no longer opens its seal."""
    sealed = _sealed(events)
    if not sealed:
        return _edit_payload(draw, doc, events, n)
    i = draw(st.sampled_from(sealed))
    found = doc["openings"][str(events[i]["seq"])]
    if draw(st.booleans()):
        found["salt"] = draw(st.sampled_from(["0" * 32, "ab" * 16, "A" * 32, "", 7]))
        what = "salt"
    else:
        found["payload"] = {**found["payload"], "stats": {"cs": draw(st.integers(71, 100))}}
        what = "payload"
    return f"the opening of event {i}: {what} changed", "rejected", events[i]["seq"]


def _opening_left_out(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    """A closed bout's export that does not open one of its seals."""
    sealed = _sealed(events)
    if not sealed:
        return _edit_payload(draw, doc, events, n)
    i = draw(st.sampled_from(sealed))
    del doc["openings"][str(events[i]["seq"])]
    if not doc["openings"]:
        del doc["openings"]
    return f"the opening of event {i} left out", "rejected", events[i]["seq"]


def _opening_misplaced(
    draw: st.DrawFn, doc: Doc, events: list[Any], n: int
) -> tuple[str, str, Any]:
    """An opening given for an event that is not sealed, or for one the export does not hold."""
    plain = [i for i in range(n) if "sealed" not in events[i]]
    found = {"salt": "00" * 16, "payload": {}}
    if draw(st.booleans()) or not plain:
        doc.setdefault("openings", {})[str(n + draw(st.integers(0, 5)))] = found
        return "an opening for an event the export does not hold", "rejected", None
    i = draw(st.sampled_from(plain))
    doc.setdefault("openings", {})[str(events[i]["seq"])] = found
    return f"an opening for event {i}, not sealed", "rejected", events[i]["seq"]


def _public_part(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    """A sealed event's public part made to say what its opening does not, chain repaired: a
    lie told to the watchers while the bout ran."""
    sealed = _sealed(events)
    if not sealed:
        return _edit_payload(draw, doc, events, n)
    i = draw(st.sampled_from(sealed))
    payload = events[i]["payload"]
    key = draw(st.sampled_from(sorted(k for k in payload if k != "summary") or ["extra"]))
    payload[key] = draw(JUNK.filter(lambda v: v != payload.get(key) and v != "hidden"))
    rehash_from(doc, i)
    return f"sealed event {i}'s public {key} changed, chain repaired", "rejected", events[i]["seq"]


def _fixed_changed(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    """The client seed the chain fixes changed (chain repaired), or the export's beside it."""
    fixed = positions_of(doc, "client_seed_fixed")
    if not fixed:
        return _edit_payload(draw, doc, events, n)
    i = fixed[0]
    value = draw(st.sampled_from(["forged", "", "gm:x", 7, None]))
    if draw(st.booleans()):
        events[i]["payload"]["client_seed"] = value
        rehash_from(doc, i)
        return f"the fixed client seed = {value!r}, chain repaired", "rejected", events[i]["seq"]
    doc["fairness"]["client_seed"] = value
    return f"fairness.client_seed = {value!r} beside the chain's", "rejected", events[i]["seq"]


def _scheme_stated(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    """The export's `fairness.dice_scheme` made to differ from its chain's."""
    if "dice_scheme" not in doc["fairness"]:
        return _edit_payload(draw, doc, events, n)
    doc["fairness"]["dice_scheme"] = draw(st.sampled_from([1, 3, "2", True, None, [2]]))
    return f"fairness.dice_scheme = {doc['fairness']['dice_scheme']!r}", "rejected", 0


def _ledger_changed(draw: st.DrawFn, doc: Doc, events: list[Any], n: int) -> tuple[str, str, Any]:
    """The header's ledger format or its client-seed part changed, chain repaired."""
    header = events[0]["payload"]
    if header.get("ledger") != 2:
        return _edit_payload(draw, doc, events, n)
    if draw(st.booleans()):
        header["ledger"] = draw(st.sampled_from([3, 0, "2", True, None]))
        rehash_from(doc, 0)
        return f"header ledger = {header['ledger']!r}, chain repaired", "rejected", 0
    del header["client_seed"]
    rehash_from(doc, 0)
    return "the header's client-seed part dropped, chain repaired", "rejected", 0


TAMPERS = {
    "field": _edit_field,
    "payload": _edit_payload,
    "forged face": _forge_face,
    "forged nonce": _forge_nonce,
    "forged note": _forge_text,
    "roll seq and face": _roll_seq_and_face,
    "swap": _swap,
    "drop": _drop,
    "cut": _cut,
    "header": _header,
    "time back": _time_back,
    "bad time": _bad_time,
    "seed": _seed,
    "surrogate": _lone_surrogate,
    "float": _float,
    "huge integer": _huge,
    "junk event": _junk_event,
    "stream swapped": _stream_swapped,
    "stream dropped": _stream_dropped,
    "scheme changed": _scheme_changed,
    "seed left out": _seed_left_out,
    "close commitment": _close_commitment,
    "opening changed": _opening_changed,
    "opening left out": _opening_left_out,
    "opening misplaced": _opening_misplaced,
    "public part": _public_part,
    "fixed client seed": _fixed_changed,
    "scheme stated": _scheme_stated,
    "ledger changed": _ledger_changed,
}

#: Tamperings of what ledger 2 adds (stored in whole.json).
WHOLE_TAMPERS = (
    "opening changed",
    "opening left out",
    "opening misplaced",
    "public part",
    "fixed client seed",
    "scheme stated",
    "ledger changed",
)


def texts_beyond_python() -> list[Vector]:
    """Texts that are not exports at all, or that Python reads only in its own way."""
    ok = bout_export(
        Shape((Step("attack", 0),), ("00" * 32,), "table", ("Tarl", "Pa-Kur"), frozenset(), (1,), 6)
    )
    text = text_of(ok)

    def at_event_1(extra: str) -> str:
        return text.replace('"seq": 1,', extra, 1)

    return [
        Vector("not JSON", "{", "error"),
        Vector("a list", "[]", "error"),
        Vector("no events", '{"bout": {}, "fairness": {}}', "error"),
        Vector("an integer of 5000 digits", at_event_1('"seq": ' + "9" * 5000 + ","), "error"),
        Vector("NaN in an event", at_event_1('"nan": NaN, "seq": 1,'), "rejected", 1),
        Vector("Infinity as a seq", at_event_1('"seq": -Infinity,'), "rejected", 1),
        Vector("1.0 as a seq", at_event_1('"seq": 1.0,'), "rejected", 1),
        Vector("true as a seq", at_event_1('"seq": true,'), "rejected", 1),
        Vector("__proto__ key", at_event_1('"__proto__": {"x": 1}, "seq": 1,'), "rejected", 1),
        Vector(
            "number-like keys", at_event_1('"k": 0, "9": 1.5, "1": 2.5, "seq": 1,'), "rejected", 1
        ),
        Vector("a lone surrogate key", at_event_1('"\\udc00": 1, "seq": 1,'), "rejected", 1),
    ]


@functools.cache
def spirit_vectors(scheme: int = 1) -> list[Vector]:
    """An SRP bout of spirit combat (SRP-17) to its close, and the same with a forged face.

    The spirit rounds are ordinary action, roll, outcome and stat events: both verifiers must
    verify the export, and both must reject a forged die at the roll that holds it. In dice
    scheme 2 both sides' dice of a round come from the stream of the fighter who acts.
    """
    seed, client = "5b17" * 16, "spirit"
    shape = Shape(
        (), (seed,), client, ("Andrea", "Ghost"), frozenset(), (1_000, 250_000), 6, scheme=scheme
    )
    bout = BoutRunner.open("srp", "Haunting", rng=dice(shape, seed))
    bout.run(c.AddFighter("Andrea", {"hits": 10, "spirit": 5, "pm": 5}))
    bout.run(c.AddFighter("Ghost", {"hits": 10, "spirit": 4, "pm": 2}))
    bout.run(c.RollInitiative())
    for _ in range(4):
        actor = bout.state.current
        if actor is None or any(f.stats["pm"] <= 0 for f in bout.state.fighters):
            break
        bout.run(c.Act(actor, "spirit"), by=actor)
    bout.run(c.End(None, "closed by the referee"))
    bout.events.append(
        Event("closed", "referee", {"server_seed": seed, "commitment": commitment(seed)})
    )
    doc = _Builder(shape).export(bout.events, closed=True, cut=None)
    forged = copy.deepcopy(doc)
    roll = positions_of(forged, "roll")[-1]
    faces = forged["events"][roll]["payload"]["faces"]
    faces[0] = faces[0] % 6 + 1
    rehash_from(forged, roll)
    named = "SRP spirit combat" + (", dice streams" if scheme == 2 else "")
    return [
        Vector(f"{named}, closed", text_of(doc), "verified"),
        Vector(f"{named}, a forged die", text_of(forged), "rejected", roll),
    ]


@functools.cache
def ruling_vectors() -> list[Vector]:
    """Rulings both verifiers must word alike: seed rotations by the referee and by the service
    (each with the roll it came after), and override notes with text a terminal must not get
    as it is (control characters; a lone surrogate, in an export whose chain a forger repaired
    by hashing it anyway)."""
    seeds = ("00" * 32, "11" * 32, "22" * 32)
    plan = tuple(Step(k, n) for n, k in enumerate(["attack"] * 3 + ["override"] + ["attack"] * 3))
    shape = Shape(plan, seeds, "table", ("Tarl", "Pa-Kur"), frozenset({2, 5}), (1_000,), 6,
                  ("referee", "system"))  # fmt: skip
    rotated = bout_export(shape)
    first = bout_export(replace(shape, rotate_before=frozenset({1})))
    noted = copy.deepcopy(rotated)
    at = positions_of(noted, "overridden")[0]
    noted["events"][at]["payload"]["note"] = "strap\nbroke\x1b[2J\x07"
    rehash_from(noted, at)
    forged = copy.deepcopy(rotated)
    forged["events"][at]["payload"]["note"] = "x\ud800y"
    for i in range(at, len(forged["events"])):
        event = forged["events"][i]
        event["prev"] = forged["events"][i - 1]["hash"]
        body = json.dumps({k: v for k, v in event.items() if k != "hash"}, sort_keys=True,
                          separators=(",", ":"), ensure_ascii=False)  # fmt: skip
        event["hash"] = hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()
    return [
        Vector("rotations by the referee and by the service", text_of(rotated), "verified"),
        Vector("the referee's rotation after initiative", text_of(first), "verified"),
        Vector("an override note with control characters", text_of(noted), "verified"),
        Vector(
            "an override note with a lone surrogate, chain forged", text_of(forged), "rejected", at
        ),
    ]


def stored() -> tuple[dict[str, Any], ...]:
    """The stored vectors (tests/vectors/*.json), every file's list."""
    out: list[dict[str, Any]] = []
    for path in sorted(HERE.glob("*.json")):
        out += json.loads(path.read_text(encoding="utf-8"))
    return tuple(out)


def write_stored(valid: int = 12, tampers: int = 120) -> None:  # pragma: no cover - by hand
    """Draw shapes and store their vectors: valid ones, tampered ones, special texts."""
    import warnings

    from hypothesis.errors import NonInteractiveExampleWarning

    warnings.simplefilter("ignore", NonInteractiveExampleWarning)
    found: list[Vector] = []
    for _ in range(valid):
        found += valid_vectors(shapes(scheme=1).example())
    _write("valid.json", found)
    pairs = shapes(8, scheme=1).flatmap(tampered)
    _write("tampered.json", [pairs.example() for _ in range(tampers)])
    write_streams(valid // 2, tampers // 2)


#: Tamperings added with the streams, stored in streams.json (the older files stay as they were).
NEWER_TAMPERS = ("seed left out", "close commitment")


def write_streams(valid: int = 6, tampers: int = 60) -> None:  # pragma: no cover - by hand
    """Store vectors of bouts with dice streams (scheme 2): valid ones and tampered ones, the
    stream tamperings among them (`python -m tests.vectors.generate streams`)."""
    import warnings

    from hypothesis.errors import NonInteractiveExampleWarning

    warnings.simplefilter("ignore", NonInteractiveExampleWarning)
    found: list[Vector] = []
    for _ in range(valid):
        found += valid_vectors(shapes(scheme=2).example())
    found += spirit_vectors(2)
    pairs = shapes(8, scheme=2).flatmap(tampered)
    found += [pairs.example() for _ in range(tampers)]
    streamed = st.sampled_from(
        sorted(k for k in TAMPERS if "stream" in k or "scheme" in k or k in NEWER_TAMPERS)
    )
    for kind in sorted({streamed.example() for _ in range(50)}):
        for _ in range(6):
            found.append(
                shapes(8, scheme=2).flatmap(lambda sh, k=kind: _tampered_by(sh, k)).example()
            )
    _write("streams.json", found)


def write_whole(valid: int = 6, tampers: int = 40) -> None:  # pragma: no cover - by hand
    """Store vectors of bouts of ledger 2 (the client seed's parts in the chain, hidden values
    sealed): valid ones, with and without a hidden stat, and tampered ones, every tampering of
    what ledger 2 adds among them (`python -m tests.vectors.generate whole`)."""
    import warnings

    from hypothesis.errors import NonInteractiveExampleWarning

    warnings.simplefilter("ignore", NonInteractiveExampleWarning)
    found: list[Vector] = []
    for hidden in (True, False) * (valid // 2):
        shape = replace(shapes(scheme=2, ledger=2).example(), hidden=hidden)
        found += valid_vectors(shape)
    pairs = shapes(8, scheme=2, ledger=2).flatmap(tampered)
    found += [pairs.example() for _ in range(tampers)]
    for kind in WHOLE_TAMPERS:
        for hidden in (True, True, True, False):
            found.append(
                shapes(8, scheme=2, ledger=2)
                .map(lambda sh, h=hidden: replace(sh, hidden=h))
                .flatmap(lambda sh, k=kind: _tampered_by(sh, k))
                .example()
            )
    _write("whole.json", found)


@st.composite
def _tampered_by(draw: st.DrawFn, shape: Shape, kind: str) -> Vector:
    doc = bout_export(shape)
    events = _events(doc)
    name, verdict, first = TAMPERS[kind](draw, doc, events, len(events))
    return Vector(f"{kind}: {name}", text_of(doc, draw(st.booleans())), verdict, first)


def _write(name: str, vectors: list[Vector]) -> None:  # pragma: no cover - by hand
    text = ",\n".join(json.dumps(v.as_json(), ensure_ascii=True) for v in vectors)
    (HERE / name).write_text(f"[\n{text}\n]\n", encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    import sys

    chosen = {"streams": write_streams, "whole": write_whole}
    chosen.get(sys.argv[1] if sys.argv[1:] else "", write_stored)()
