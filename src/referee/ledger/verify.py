"""Verify an export: the chain, the commitment(s), every roll's faces and nonces, the times,
the bout's header and its close, the rules; and list the referee's rulings.

`verify_export(doc, checkers)` never raises for a bad ledger: it returns a `Report` whose
problems are sorted so that the first one names the first bad event. Only a document
that is not an export at all (no `events` list, ...) raises NotationError.

Rule checkers plug in: each is a callable `checker(doc) -> list[Problem]`, run once the
chain holds. The rules replay is one, passed in by whoever has the bout engine:
`verify_export(doc, replay=referee.bout.replay.check_export)` (the ledger never imports the
engine; without `replay` the report says the rules went unchecked).

>>> from referee.rng import commitment, VerifiableRng
>>> from referee.ledger import build_export, chain, roll_payload, SeedRecord
>>> seed, at = "00" * 32, "2026-11-29T22:40:12.000000Z"
>>> header = {"id": "b1", "system": "msv", "name": "Spar", "rules": {}, "created_at": at}
>>> e0 = chain(None, "bout_opened", "referee", header, at)
>>> throw = VerifiableRng(seed, "table").throw((20, 20, 6))
>>> e1 = chain(e0, "roll", "Tarl", roll_payload(0, throw.dice, throw.faces), at)
>>> e2 = chain(e1, "closed", "referee", {"server_seed": seed}, at)
>>> bout = {**header, "status": "closed"}
>>> doc = build_export(bout, [SeedRecord(0, commitment(seed), seed, None)], "table", [e0, e1, e2])
>>> verify_export(doc).verdict
'verified'
>>> running = build_export({**header, "status": "open"}, [SeedRecord(0, commitment(seed), None,
...                        None)], "table", [e0, e1])
>>> verify_export(running, partial=True).verdict, verify_export(running).verdict
('partial', 'rejected')
>>> doc["events"][1]["payload"]["faces"][1] = 3
>>> str(verify_export(doc).first)
'event 1 (roll): hash does not match the event (someone changed it)'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.errors import NotationError, RefereeError
from referee.ledger.canonical import is_hex64, same_json
from referee.ledger.chain import verify_chain
from referee.ledger.export import CLOSED, ROLL, SEED_ROTATED, dice_scheme
from referee.ledger.header import check_end, check_header, check_times
from referee.ledger.printable import shown
from referee.ledger.record import check_client_seed, open_seals
from referee.ledger.rulings import Ruling, rulings
from referee.ledger.seal import SEALED
from referee.numerals import is_whole
from referee.payloads.events import (
    MAX_DICE_PER_ROLL,
    MAX_SIDES,
    SHAPES,
    Action,
    Closed,
    Roll,
    SeedRotated,
)
from referee.payloads.fields import Given
from referee.rng import action_stream, commitment, free_stream, verifiable_faces
from referee.rng.streams import (
    DICE_SCHEMES,
    MAX_STREAM,
    ONE_SEQUENCE,
    SCHEME_KEY,
    STREAMS,
    check_stream,
    owner_of,
)
from referee.vocabulary import EventType, Problem

#: A rule checker: reads the whole export, returns what does not follow the rules.
Checker = Callable[[Mapping[str, Any]], Sequence[Problem]]


@dataclass(frozen=True, slots=True)
class Report:
    """What verification found. `ok` only when there is no problem at all."""

    problems: tuple[Problem, ...]
    events: int
    rolls: int
    seeds: int
    checks: tuple[str, ...]
    skipped: tuple[str, ...] = field(default=())
    #: Whether the chain ends with the close (else it was checked as a partial export).
    complete: bool = True
    #: The seq and type of the last event (where a partial export stops).
    last: tuple[Any, Any] = (None, None)
    #: What the referee decided by hand (declared winners, overrides, voids, modifiers...).
    rulings: tuple[Ruling, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """Whether everything holds."""
        return not self.problems

    @property
    def verdict(self) -> str:
        """ "verified", "partial" (holds, but does not end with the close) or "rejected"."""
        if self.problems:
            return "rejected"
        return "verified" if self.complete else "partial"

    @property
    def first(self) -> Problem | None:
        """The first problem (the earliest bad event), or None."""
        return self.problems[0] if self.problems else None

    def as_json(self) -> dict[str, Any]:
        """The report as a JSON object (the `--json` output of `referee verify`)."""
        return {
            "ok": self.ok,
            "verdict": self.verdict,
            "complete": self.complete,
            "last_event": {"seq": self.last[0], "type": self.last[1]},
            "events": self.events,
            "rolls": self.rolls,
            "seeds": self.seeds,
            "checks": list(self.checks),
            "skipped": list(self.skipped),
            "first_problem": None if self.first is None else str(self.first),
            "problems": [p.as_json() for p in self.problems],
            "rulings": [r.as_json() for r in self.rulings],
        }


@dataclass(frozen=True, slots=True)
class _Seed:
    """One seed as verification sees it: committed to, maybe revealed, where it shows."""

    commitment: Any
    server_seed: Any
    seq: int | None


def verify_export(
    doc: Any,
    checkers: Sequence[Checker] = (),
    *,
    replay: Checker | None = None,
    partial: bool = False,
) -> Report:
    """Check a bout's export completely; see the module text.

    Beyond `verify_ledger`: the export's `bout` fields against the header the chain opens
    with, and the end: complete only when it ends with the close event. `partial` accepts an
    export that stops short (a bout still running): it is checked up to its last event, and
    the rolls under a seed not revealed yet are said to be unchecked instead of failing.
    `replay` is the rules replay (`referee.bout.replay.check_export`), run first of the
    checkers.
    """
    events, fairness = _shape(doc)
    checkers = (replay, *checkers) if replay is not None else tuple(checkers)
    bout = doc["bout"]
    header, unchained = check_header(bout, events, fairness)
    extra = header + check_end(bout, events, partial)
    return _verify(doc, events, fairness, checkers, partial, extra, unchained, bout_checks=True)


def verify_ledger(
    doc: Any, checkers: Sequence[Checker] = (), *, replay: Checker | None = None
) -> Report:
    """Check a bare ledger in export form: chain, commitments, faces, nonces, times, rules.

    For chains that are not a bout's (no header event, no close), as the store's own tests
    write them; a bout's export is checked with `verify_export`.
    """
    events, fairness = _shape(doc)
    checkers = (replay, *checkers) if replay is not None else tuple(checkers)
    return _verify(doc, events, fairness, checkers, False, [], [], bout_checks=False)


def _verify(
    doc: Any,
    events: list[Any],
    fairness: dict[str, Any],
    checkers: Sequence[Checker],
    partial: bool,
    extra: list[Problem],
    unchained: list[str],
    *,
    bout_checks: bool,
) -> Report:
    problems = verify_chain(events)
    seeds, known, seed_problems = _seeds(fairness, events, partial)
    scheme, scheme_problems = _scheme(events)
    events, seal_problems, unopened = open_seals(doc, events)
    client_seed, seed_problems_2, unchained_seed = (
        check_client_seed(events, fairness)
        if bout_checks
        else (fairness.get("client_seed"), [], [])
    )
    roll_problems, rolls, unchecked = _check_rolls(
        events, client_seed, known, scheme, owners=bout_checks
    )
    problems += seed_problems + scheme_problems + seal_problems + seed_problems_2
    problems += roll_problems + check_times(events) + extra
    checks = ["chain", "commitment", "faces", "nonce", "time"]
    if scheme == STREAMS:
        checks.append("stream")
    if bout_checks:
        checks += ["header", "complete"]
        if not unchained_seed:
            checks.append("client seed")
    if any(isinstance(e, dict) and SEALED in e for e in events):
        checks.append("seal")
    skipped: list[str] = list(unchained)
    if partial and unchecked:
        skipped.append(
            f"faces: {unchecked} roll(s) under a server seed not revealed yet are not checked"
        )
    skipped += unchained_seed
    if checkers and not problems and unopened:
        skipped.append(
            f"rules: not checked while {unopened} sealed event(s) are not opened (hidden until "
            "the reveal or the close)"
        )
    elif checkers and not problems:
        checks.append("rules")
        problems += _run_checkers({**doc, "events": events}, checkers)
    elif checkers:
        skipped.append("rules: not checked while the chain or the dice are bad")
    else:
        skipped.append("rules: no rule checker available")
    ordered = sorted(problems, key=_in_file_order(events))
    last = events[-1] if events and isinstance(events[-1], dict) else {}
    return Report(
        tuple(ordered),
        len(events),
        rolls,
        len(seeds),
        tuple(checks),
        tuple(skipped),
        complete=bool(events) and last.get("type") == CLOSED,
        last=(last.get("seq"), last.get("type")),
        rulings=rulings(events),
    )


def _in_file_order(events: list[Any]) -> Callable[[Problem], tuple[int, int]]:
    """Sort key: problems of the export as a whole first, then by where the event stands."""
    positions: dict[Any, int] = {}
    for position, event in enumerate(events):
        if isinstance(event, dict) and _whole(event.get("seq")):
            positions.setdefault(event["seq"], position)

    def key(problem: Problem) -> tuple[int, int]:
        seq: Any = problem.seq
        if seq is None:
            return (0, 0)
        if isinstance(seq, bool) or not isinstance(seq, int):
            return (2, 0)
        return (1, positions.get(seq, seq))

    return key


def _shape(doc: Any) -> tuple[list[Any], dict[str, Any]]:
    if not isinstance(doc, dict):
        raise NotationError(f"an export is a JSON object, got {type(doc).__name__}")
    for key, kind in (("bout", dict), ("fairness", dict), ("events", list)):
        if not isinstance(doc.get(key), kind):
            raise NotationError(
                f"not a referee export: {shown(key)} is missing or not a {kind.__name__} "
                "(expected bout, fairness and events)"
            )
    return doc["events"], doc["fairness"]


def _fairness_problem(message: str, check: str) -> Problem:
    return Problem(None, None, message, check)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seeds(
    fairness: dict[str, Any], events: list[Any], partial: bool = False
) -> tuple[list[_Seed], dict[int, str], list[Problem]]:
    """Every seed the export names, checked against the events that reveal seeds.

    Returns the seeds, the revealed seed of each index that has one, and the problems.
    """
    listed = [_Seed(fairness.get("commitment"), fairness.get("server_seed"), None)]
    rotations = fairness.get("rotations", [])
    if not isinstance(rotations, list) or not all(isinstance(r, dict) for r in rotations):
        return listed, {}, [_fairness_problem("rotations is not a list of objects", "format")]
    listed += [_Seed(r.get("commitment"), r.get("server_seed"), r.get("seq")) for r in rotations]
    problems: list[Problem] = [
        _fairness_problem(
            f"fairness.rotations[{k}] has index {shown(r.get('index'))} (expected {k + 1})",
            "commitment",
        )
        for k, r in enumerate(rotations)
        if not same_json(r.get("index"), k + 1)
    ]
    reveals = _reveals(events, listed, problems)
    for index, seed in enumerate(listed):
        if index in reveals:
            continue
        if partial and seed.server_seed is None:  # not revealed yet: its rolls go unchecked
            problems += _commitment_shape(seed)
        else:
            problems += _check_listed_seed(index, seed)
    known = {i: s.server_seed for i, s in enumerate(listed) if is_hex64(s.server_seed)}
    return listed, known | reveals, problems


def _reveals(events: list[Any], listed: list[_Seed], problems: list[Problem]) -> dict[int, str]:
    """Walk the `seed_rotated` events: each reveals seed k-1 and publishes seed k."""
    reveals: dict[int, str] = {}
    index = 0
    for event in events:
        if not isinstance(event, dict) or event.get("type") not in (SEED_ROTATED, CLOSED):
            continue
        seq = event.get("seq")
        if event["type"] == CLOSED:
            _closing_reveal(
                Closed.given(event.get("payload")), index, listed, reveals, problems, seq
            )
            continue
        rotation = SeedRotated.given(event.get("payload"))
        message = _rotation_message(rotation, index, listed, seq)
        if message is not None:
            problems.append(Problem(seq, SEED_ROTATED, message, "commitment"))
        if is_hex64(rotation.server_seed):
            reveals[index] = rotation.server_seed
        index += 1
    if index + 1 != len(listed):
        problems.append(
            _fairness_problem(
                f"the events rotate the seed {index} times but fairness lists {len(listed)} seeds",
                "commitment",
            )
        )
    return reveals


def _closing_reveal(
    close: Given[Closed],
    index: int,
    listed: list[_Seed],
    reveals: dict[int, str],
    problems: list[Problem],
    seq: Any,
) -> None:
    """A `closed` event may reveal the current seed in its payload's `server_seed`, and
    restate the commitment in force (`commitment`), which must then be that seed's."""
    stated = close.commitment
    in_force = listed[index].commitment if index < len(listed) else None
    if close.has("commitment") and index < len(listed) and not same_json(stated, in_force):
        message = (
            f"the close's commitment {shown(stated)} is not the commitment of seed {index}, "
            f"{shown(in_force)}"
        )
        problems.append(Problem(seq, CLOSED, message, "commitment"))
    revealed = close.server_seed
    if revealed is None:
        return
    if not is_hex64(revealed):
        message = f"revealed server seed {shown(revealed)} is not 64 lowercase hex characters"
    elif index < len(listed) and commitment(revealed) != listed[index].commitment:
        message = (
            f"revealed seed {index} does not match its commitment {shown(listed[index].commitment)}"
        )
    elif index < len(listed) and listed[index].server_seed != revealed:
        message = _listed_message(index, listed[index])
    else:
        reveals[index] = revealed
        return
    problems.append(Problem(seq, CLOSED, message, "commitment"))


def _listed_message(index: int, seed: _Seed) -> str:
    """What is wrong with the export's listing of a seed its chain reveals (it must give it)."""
    if seed.server_seed is None:
        where = "fairness.server_seed" if index == 0 else f"fairness.rotations[{index - 1}]"
        return f"{where} gives no server seed {index}, but this event reveals it"
    return f"the export's server seed {index} differs from the one revealed here"


def _rotation_message(
    rotation: Given[SeedRotated], index: int, listed: list[_Seed], seq: Any
) -> str | None:
    revealed, following = rotation.server_seed, rotation.next_commitment
    if not same_json(rotation.index, index + 1):
        return f"index {shown(rotation.index)} (expected {index + 1})"
    if not is_hex64(revealed):
        return f"revealed server seed {shown(revealed)} is not 64 lowercase hex characters"
    if index < len(listed) and commitment(revealed) != listed[index].commitment:
        return (
            f"revealed seed {index} does not match its commitment {shown(listed[index].commitment)}"
        )
    if index < len(listed) and listed[index].server_seed != revealed:
        return _listed_message(index, listed[index])
    if index + 1 >= len(listed):
        return f"fairness.rotations lists no seed {index + 1}"
    if following != listed[index + 1].commitment:
        return f"next commitment {shown(following)} differs from fairness.rotations"
    if not same_json(listed[index + 1].seq, seq):
        return f"fairness.rotations gives seq {shown(listed[index + 1].seq)} for this rotation"
    return None


def _commitment_shape(seed: _Seed) -> list[Problem]:
    if is_hex64(seed.commitment):
        return []
    return [
        _fairness_problem(
            f"commitment {shown(seed.commitment)} is not 64 hex characters", "commitment"
        )
    ]


def _check_listed_seed(index: int, seed: _Seed) -> list[Problem]:
    """A seed not revealed by a rotation event: revealed in the export, or not yet."""
    name = "server seed" if index == 0 else f"server seed {index}"
    if not is_hex64(seed.commitment):
        return _commitment_shape(seed)
    if seed.server_seed is None:
        return [
            _fairness_problem(
                f"{name} is not revealed yet, so the faces cannot be checked yet", "faces"
            )
        ]
    if not is_hex64(seed.server_seed):
        return [
            _fairness_problem(
                f"{name} {shown(seed.server_seed)} is not 64 lowercase hex characters", "commitment"
            )
        ]
    if commitment(seed.server_seed) != seed.commitment:
        return [
            _fairness_problem(
                f"commitment {seed.commitment} does not match the revealed {name} "
                f"(its commitment is {commitment(seed.server_seed)})",
                "commitment",
            )
        ]
    return []


def _scheme(events: list[Any]) -> tuple[int, list[Problem]]:
    """The dice scheme the rolls are checked by, and the problem of a header naming another."""
    scheme = dice_scheme(events)
    if _whole(scheme) and scheme in DICE_SCHEMES:
        return scheme, []
    message = (
        f"{SCHEME_KEY} {shown(scheme)} is not a dice scheme this verifier knows "
        f"({' or '.join(map(str, DICE_SCHEMES))}); its rolls are checked as scheme 1"
    )
    return ONE_SEQUENCE, [Problem(events[0].get("seq"), events[0].get("type"), message, "stream")]


@dataclass(slots=True)
class _Owners:
    """Whose stream each roll of a bout must come from: the open action group, the fighters."""

    actor: Any = None
    kind: Any = None
    fighters: set[str] = field(default_factory=set)

    def see(self, event: dict[str, Any]) -> None:
        """Follow one event that is not a roll."""
        kind = event.get("type")
        if kind == EventType.ACTION:
            self.actor, self.kind = event.get("actor"), Action.given(event.get("payload")).kind
            return
        if event.get("actor") != "system":  # a group runs while its consequences follow
            self.actor = self.kind = None
        if kind not in (EventType.FIGHTER_ADDED, EventType.FIGHTER_REMOVED):
            return
        name = SHAPES[kind].given(event.get("payload")).name
        if kind == EventType.FIGHTER_ADDED and isinstance(name, str):
            self.fighters.add(name)
        elif kind == EventType.FIGHTER_REMOVED and isinstance(name, str):
            self.fighters.discard(name)

    def problem(self, stream: str) -> str | None:
        """What is wrong with a roll of the open group drawing from `stream`, if anything."""
        actor, kind = self.actor, self.kind
        if not isinstance(actor, str) or not isinstance(kind, str):
            return (
                f"stream {shown(stream)}: a roll outside any action (it follows the action it "
                "is for)"
            )
        if kind == "initiative":
            try:
                drawn, owner = owner_of(stream)
            except RefereeError:
                drawn, owner = "", ""
            if drawn == "act" and owner in self.fighters:
                return None
            return (
                f"stream {shown(stream)} is not a fighter's own: initiative takes each "
                "fighter's die "
                "from its act:NAME stream"
            )
        expected = free_stream(actor) if kind == "roll" else action_stream(actor)
        if stream == expected:
            return None
        what = "free roll" if kind == "roll" else shown(kind)
        return (
            f"stream {shown(stream)} is not this roll's: {actor}'s {what} draws from "
            f"{shown(expected)}"
        )


def _check_rolls(
    events: list[Any], client_seed: Any, known: dict[int, str], scheme: int, *, owners: bool
) -> tuple[list[Problem], int, int]:
    """Every roll: nonces from 0 per seed (per stream and seed in scheme 2), faces recomputed
    from the revealed seed; in scheme 2 with `owners` (a bout's export), each roll from the
    stream it must come from.

    Returns the problems, the number of rolls and how many of them had no seed to check by.
    """
    if not isinstance(client_seed, str):
        problem = _fairness_problem(f"client seed {shown(client_seed)} is not a string", "format")
        return [problem], 0, 0
    problems: list[Problem] = []
    index = rolls = unchecked = 0
    nonces: dict[str | None, int] = {}
    who = _Owners()
    for event in events:
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        if kind == SEED_ROTATED:
            index, nonces = index + 1, {}
        if kind != ROLL:
            who.see(event)
            continue
        rolls += 1
        unchecked += index not in known
        roll = Roll.given(event.get("payload"))
        shape = _roll_shape(roll)
        found: tuple[str, str] | None = None if shape is None else ("format", shape)
        stream: str | None = None
        if found is None:
            found, stream = _stream_problem(roll, scheme, who if owners else None)
        nonce = nonces.get(stream, 0)
        if found is None:
            found = _check_roll(roll, nonce, known.get(index), client_seed, stream)
        if found is not None:
            problems.append(Problem(event.get("seq"), ROLL, found[1], found[0]))
        nonces[stream] = nonce + 1
    return problems, rolls, unchecked


def _stream_problem(
    roll: Given[Roll], scheme: int, owners: _Owners | None
) -> tuple[tuple[str, str] | None, str | None]:
    """(problem, stream) of a roll: its stream (None in scheme 1) and what is wrong with it."""
    stream = roll.stream
    if scheme == ONE_SEQUENCE:
        if roll.has("stream"):
            message = f"stream {shown(stream)} in a bout of dice scheme 1 (one nonce sequence)"
            return ("stream", message), None
        return None, None
    if not isinstance(stream, str):
        message = f"stream {shown(stream)}: every roll of a bout with dice streams names its stream"
        return ("stream", message), None
    if not _stream_name(stream):
        message = (
            f"stream {shown(stream)} is not a stream name (1 to {MAX_STREAM} characters of valid "
            "Unicode, no control characters)"
        )
        return ("stream", message), None
    problem = owners.problem(stream) if owners is not None else None
    return (None if problem is None else ("stream", problem)), stream


def _stream_name(stream: str) -> bool:
    """Whether a roll's stream is a name the HMAC message can carry (`check_stream`), in valid
    Unicode (text with a lone surrogate has no UTF-8 bytes to hash)."""
    try:
        check_stream(stream)
        stream.encode("utf-8")
    except (RefereeError, UnicodeEncodeError):
        return False
    return True


def check_roll(
    payload: Any, nonce: int, seed: str | None, client_seed: str, stream: str | None = None
) -> tuple[str, str] | None:
    """(check, message) for the first thing wrong with one roll, or None.

    `seed` None skips the faces (the seed is not revealed yet); `stream` is the roll's stream
    in a bout of dice scheme 2, whose nonces run per stream.

    >>> check_roll({"nonce": 1, "dice": ["d6"], "faces": [7]}, 0, None, "table")
    ('nonce', 'nonce 1 (expected 0: nonces run from 0 per seed)')
    >>> check_roll({"nonce": 0, "dice": ["d20", "d20", "d6"], "faces": [6, 14, 5]}, 0, "00" * 32,
    ...            "table")
    ('faces', 'face 5 does not match the seed (expected 6) at die 3 of 3 (d6)')
    >>> check_roll({"nonce": 2, "dice": ["d6"], "faces": [1]}, 0, None, "t", "act:Tarl")
    ('nonce', "nonce 2 (expected 0: nonces run from 0 per stream and seed, here 'act:Tarl')")
    """
    return _check_roll(Roll.given(payload), nonce, seed, client_seed, stream)


def _check_roll(
    roll: Given[Roll], nonce: int, seed: str | None, client_seed: str, stream: str | None
) -> tuple[str, str] | None:
    shape = _roll_shape(roll)
    if shape is not None:
        return "format", shape
    if roll.nonce != nonce:
        if stream is not None:
            return "nonce", (
                f"nonce {shown(roll.nonce)} (expected {nonce}: nonces run from 0 per stream "
                f"and seed, here {shown(stream)})"
            )
        return (
            "nonce",
            f"nonce {shown(roll.nonce)} (expected {nonce}: nonces run from 0 per seed)",
        )
    if seed is None:
        return None
    sides = [int(name[1:]) for name in roll.dice]
    expected = verifiable_faces(seed, client_seed, nonce, sides, stream)
    for i, (got, want) in enumerate(zip(roll.faces, expected, strict=True)):
        if got != want:
            where = "" if len(sides) == 1 else f" at die {i + 1} of {len(sides)} (d{sides[i]})"
            return "faces", f"face {shown(got)} does not match the seed (expected {want}){where}"
    return None


def _roll_shape(roll: Given[Roll]) -> str | None:
    """What is wrong with a roll's payload by its declared shape (`referee.payloads.Roll`),
    field by field in declared order; its stream is checked with the bout's dice scheme."""
    if not roll.is_object:
        return "roll payload is not an object"
    for declared in Roll.declared():
        problem = _ROLL_FIELDS[declared.name](roll)
        if problem is not None:
            return problem
    return None


def _nonce_problem(roll: Given[Roll]) -> str | None:
    # a verifiable roll's nonce: the service's rolls all have one (null is not checkable)
    nonce = roll.nonce
    if isinstance(nonce, bool) or not isinstance(nonce, int):
        return f"nonce {shown(nonce)} is not a whole number"
    return None


def _dice_problem(roll: Given[Roll]) -> str | None:
    dice = roll.dice
    if not isinstance(dice, list) or not 1 <= len(dice) <= MAX_DICE_PER_ROLL:
        return f"dice {shown(dice)} is not a list of 1..{MAX_DICE_PER_ROLL} dice"
    for name in dice:
        if not _die_name(name):
            return f"die {shown(name)} is not a die name like 'd20'"
    return None


def _faces_problem(roll: Given[Roll]) -> str | None:
    faces, dice = roll.faces, roll.dice
    if not isinstance(faces, list) or not isinstance(dice, list) or len(faces) != len(dice):
        return f"faces {shown(faces)} are not one face per die of {shown(dice)}"
    for face in faces:
        if not _whole(face):
            return f"face {shown(face)} is not a whole number"
    return None


#: How each declared field of a roll is checked (every field the shape declares has one; the
#: stream's depends on the bout's dice scheme: `_stream_problem`).
_ROLL_FIELDS: Mapping[str, Callable[[Given[Roll]], str | None]] = {
    "nonce": _nonce_problem,
    "dice": _dice_problem,
    "faces": _faces_problem,
    "stream": lambda roll: None,
}
assert set(_ROLL_FIELDS) == {d.name for d in Roll.declared()}


def _die_name(name: Any) -> bool:
    if not isinstance(name, str) or not name.startswith("d") or not is_whole(name[1:]):
        return False
    return name[1:].isascii() and 1 <= int(name[1:]) <= MAX_SIDES


def _run_checkers(doc: Any, checkers: Sequence[Checker]) -> list[Problem]:
    problems: list[Problem] = []
    for checker in checkers:
        try:
            problems += list(checker(doc))
        except RefereeError as err:
            problems.append(Problem(None, None, f"rule check failed: {err}", "rules"))
    return problems
