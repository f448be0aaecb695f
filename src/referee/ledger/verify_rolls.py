"""The verifier's roll checks: the dice scheme, every roll's nonce (per seed; per stream in
scheme 2, and each roll from its owner's stream), dice and faces recomputed from the revealed
seed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.errors import RefereeError
from referee.ledger.export import ROLL, SEED_ROTATED, dice_scheme
from referee.ledger.printable import shown
from referee.ledger.verify_checks import fairness_problem, is_int
from referee.numerals import is_whole
from referee.payloads.events import (
    MAX_DICE_PER_ROLL,
    MAX_SIDES,
    SHAPES,
    Action,
    Roll,
)
from referee.payloads.fields import Given
from referee.rng import action_stream, free_stream, verifiable_faces
from referee.rng.streams import (
    DICE_SCHEMES,
    MAX_STREAM,
    ONE_SEQUENCE,
    SCHEME_KEY,
    check_stream,
    owner_of,
)
from referee.vocabulary import EventType, Problem


def check_scheme(events: list[Any]) -> tuple[int, list[Problem]]:
    """The dice scheme the rolls are checked by, and the problem of a header naming another."""
    scheme = dice_scheme(events)
    if is_int(scheme) and scheme in DICE_SCHEMES:
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


def check_rolls(
    events: list[Any], client_seed: Any, known: dict[int, str], scheme: int, *, owners: bool
) -> tuple[list[Problem], int, int]:
    """Every roll: nonces from 0 per seed (per stream and seed in scheme 2), faces recomputed
    from the revealed seed; in scheme 2 with `owners` (a bout's export), each roll from the
    stream it must come from.

    Returns the problems, the number of rolls and how many of them had no seed to check by.
    """
    if not isinstance(client_seed, str):
        problem = fairness_problem(f"client seed {shown(client_seed)} is not a string", "format")
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
        if not is_int(face):
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
