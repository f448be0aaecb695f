"""The `Rng` protocol and the `Throw` record every source returns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple, Protocol, runtime_checkable

from referee.errors import RuleError
from referee.rng.streams import action_stream


class Throw(NamedTuple):
    """One roll: dice thrown at once, their faces in stated order, the nonce if verifiable,
    and the stream it was drawn from where the source keeps streams (`referee.rng.streams`).

    A named tuple rather than a dataclass: it is made for every roll, and it is built in
    about half the time of a frozen dataclass (it is just as frozen).

    >>> Throw((20, 20, 6), (14, 3, 5), nonce=0).dice
    ('d20', 'd20', 'd6')
    """

    sides: tuple[int, ...]
    faces: tuple[int, ...]
    nonce: int | None = None
    stream: str | None = None

    @property
    def dice(self) -> tuple[str, ...]:
        """The dice as names (`d20`), as a ledger's roll event writes them."""
        return tuple(die_name(s) for s in self.sides)


@runtime_checkable
class Rng(Protocol):
    """A source of dice. One call is one roll (one verifiable nonce)."""

    def throw(self, sides: Sequence[int]) -> Throw:
        """Throw one die of each given size at once; faces come back in the same order."""
        ...


def stream_of(rng: Rng, name: str) -> Rng:
    """The dice of stream `name` when `rng` keeps streams (the service's verifiable dice, see
    `referee.rng.streams`); otherwise `rng` itself, whose one sequence serves every owner
    (scripted, seeded and system sources, scheme-1 bouts).

    >>> from referee.rng import ScriptedRng
    >>> rng = ScriptedRng([5])
    >>> stream_of(rng, "act:Tarl") is rng
    True
    """
    pick = getattr(rng, "stream", None)
    return rng if pick is None else pick(name)


def fighter_dice(rng: Rng, fighter: str) -> Rng:
    """`fighter`'s own dice: the stream of its actions (`stream_of`). A rule system's
    `initiative`, which throws for every fighter at once, takes each fighter's die from here.

    >>> from referee.rng import ScriptedStreams
    >>> fighter_dice(ScriptedStreams([4]), "Tarl").throw((6,)).stream
    'act:Tarl'
    """
    return stream_of(rng, action_stream(fighter))


def die_name(sides: int) -> str:
    """`d20` for 20; d100 stays `d100`.

    >>> die_name(6)
    'd6'
    """
    return f"d{sides}"


def check_sides(sides: Sequence[int]) -> tuple[int, ...]:
    """Every die needs a whole number of sides, at least 1."""
    out = tuple(sides)
    for s in out:
        if type(s) is not int or s < 1:  # bool is not a whole number of sides either
            raise RuleError(f"a die needs a whole number of sides >= 1, got {s!r}")
    return out


def die(rng: Rng, sides: int) -> int:
    """Throw a single die and return its face.

    >>> from referee.rng import ScriptedRng
    >>> die(ScriptedRng([47]), 100)
    47
    """
    return rng.throw((sides,)).faces[0]


def one_die_at_a_time(rng: Rng, size: int) -> Callable[[], Throw]:
    """A call that throws one die of `size` sides from `rng` each time, exactly as
    `rng.throw((size,))` would (the same faces, drawn in the same order): a source's own
    `one_die_at_a_time` where it has one (`SeededRng`), else its `throw`.

    >>> from referee.rng import ScriptedRng
    >>> throw = one_die_at_a_time(ScriptedRng([4, 2]), 6)
    >>> throw().faces, throw().faces
    ((4,), (2,))
    """
    own = getattr(rng, "one_die_at_a_time", None)
    if own is not None:
        return own(size)  # type: ignore[no-any-return]
    return partial(rng.throw, (size,))


@dataclass(slots=True)
class RecordingRng:
    """Wraps a source and keeps every throw made through it, in order: its own, and those of
    the streams taken from it (`stream`), in one list.

    >>> from referee.rng import ScriptedRng
    >>> rec = RecordingRng(ScriptedRng([3, 4]))
    >>> _ = rec.throw((6,)); _ = rec.throw((6,))
    >>> [t.faces for t in rec.throws]
    [(3,), (4,)]
    """

    inner: Rng
    throws: list[Throw] = field(default_factory=list)

    def throw(self, sides: Sequence[int]) -> Throw:
        result = self.inner.throw(sides)
        self.throws.append(result)
        return result

    def stream(self, name: str) -> RecordingRng:
        """The inner source's stream `name` (itself when it keeps none), recorded here too."""
        return RecordingRng(stream_of(self.inner, name), self.throws)

    def take(self) -> list[Throw]:
        """Return the throws so far and start a fresh record."""
        taken, self.throws = self.throws, []
        return taken
