"""The OS's secure generator, a seeded one and a scripted one."""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat

from referee.errors import RuleError, ScriptError
from referee.rng.base import Throw, check_sides
from referee.rng.streams import check_stream

_SHARED_UP_TO = 100
"""One-die throws of at most this many sides are shared values (`_one_die_throws`)."""
_ONE_DIE: dict[int, tuple[Throw, ...]] = {}


def _one_die_draws(size: int) -> tuple[Throw | None, ...]:
    """`_one_die_throws(size)` and a None for each draw of `size.bit_length()` bits that is
    not under `size` (`throw` rejects it): the throw of every draw, by the draw."""
    found = _ONE_DIE_DRAWS.get(size)
    if found is None:
        rejected = (1 << size.bit_length()) - size
        found = _ONE_DIE_DRAWS[size] = _one_die_throws(size) + (None,) * rejected
    return found


_ONE_DIE_DRAWS: dict[int, tuple[Throw | None, ...]] = {}


def _one_die_throws(size: int) -> tuple[Throw, ...]:
    """Every one-die throw of a die of `size` sides, by its draw (face - 1): frozen values, so
    one serves every roll (`size` at most `_SHARED_UP_TO`)."""
    found = _ONE_DIE.get(size)
    if found is None:
        sides = (size,)
        found = _ONE_DIE[size] = tuple(Throw(sides, (face,)) for face in range(1, size + 1))
    return found


class SystemRng:
    """The operating system's secure generator (`secrets`). Not reproducible."""

    __slots__ = ()

    def throw(self, sides: Sequence[int]) -> Throw:
        sizes = check_sides(sides)
        return Throw(sizes, tuple(secrets.randbelow(s) + 1 for s in sizes))

    def __repr__(self) -> str:
        return "SystemRng()"


class SeededRng:
    """A reproducible source: the same seed gives the same faces. Reports its seed.

    A die of n sides takes the first draw of `getrandbits(n.bit_length())` below n from the
    standard library's `Random(seed)`, plus 1: the rejection `Random(seed).randrange(n)` makes,
    through the generator's public API. Dice are drawn in order.

    >>> rng = SeededRng(42)
    >>> rng.seed
    42
    >>> first = [rng.throw((6,)).faces[0] for _ in range(5)]
    >>> again = SeededRng(42)
    >>> first == [again.throw((6,)).faces[0] for _ in range(5)]
    True
    """

    __slots__ = ("_bits", "_one_die", "_random", "seed")

    def __init__(self, seed: int | None = None) -> None:
        self.seed: int = secrets.randbits(63) if seed is None else int(seed)
        self._random = random.Random(self.seed)
        self._bits: Callable[[int], int] = self._random.getrandbits
        self._one_die: dict[int, Callable[[], Throw]] = {}  # `one_die_at_a_time`, d100 at most

    def throw(self, sides: Sequence[int]) -> Throw:
        bits = self._bits
        # One die (every die of a chain of rerolls and explosions) takes the short way: the
        # same check and the same draw as below, without building a loop.
        if type(sides) is tuple and len(sides) == 1:
            size = sides[0]
            if type(size) is int and size >= 1:
                k = size.bit_length()
                face = bits(k)
                while face >= size:
                    face = bits(k)
                if size <= _SHARED_UP_TO:
                    return (_ONE_DIE.get(size) or _one_die_throws(size))[face]
                return Throw(sides, (face + 1,))
        sizes = sides if type(sides) is tuple else tuple(sides)
        for size in sizes:  # every size checked before any die is drawn
            if type(size) is not int or size < 1:
                check_sides(sizes)
        faces = []
        k = last = 0
        for size in sizes:
            if size != last:
                k, last = size.bit_length(), size
            face = bits(k)
            while face >= size:
                face = bits(k)
            faces.append(face + 1)
        return Throw(sizes, tuple(faces))

    def one_die_at_a_time(self, size: int) -> Callable[[], Throw]:
        """A call that throws one die of `size` sides each time: the same throws as
        `throw((size,))`, each drawn when it is called (so the generator stands where as many
        `throw` calls would leave it), without a Python call per die.

        >>> rng, again = SeededRng(5), SeededRng(5)
        >>> throw = rng.one_die_at_a_time(20)
        >>> [throw() for _ in range(3)] == [again.throw((20,)) for _ in range(3)]
        True
        """
        if type(size) is not int or size < 1:
            check_sides((size,))
        found = self._one_die.get(size)
        if found is not None:
            return found
        # `throw`'s rejection of getrandbits draws, in C: each call draws until one is under
        # `size`, and nothing before it is called (so one serves every roll of this source)
        draws = map(self._bits, repeat(size.bit_length()))
        if size > _SHARED_UP_TO:
            sides = (size,)
            drawn = filter(size.__gt__, draws)
            return map(lambda face: Throw(sides, (face + 1,)), drawn).__next__
        # each draw read in a table: its throw, or None where it is rejected (and skipped)
        found = filter(None, map(_one_die_draws(size).__getitem__, draws)).__next__
        self._one_die[size] = found
        return found

    def __repr__(self) -> str:
        return f"SeededRng({self.seed})"


class ScriptedRng:
    """Replays given faces in order; a clear error when they run out or do not fit.

    >>> rng = ScriptedRng([20, 3, 5])
    >>> rng.throw((20, 20, 6)).faces
    (20, 3, 5)
    >>> rng.remaining
    0
    """

    __slots__ = ("_faces", "_used")

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces: list[int] = list(faces)
        self._used = 0

    @property
    def remaining(self) -> int:
        """How many scripted faces are left."""
        return len(self._faces) - self._used

    def throw(self, sides: Sequence[int]) -> Throw:
        sizes = check_sides(sides)
        if self.remaining < len(sizes):
            raise ScriptError(
                f"scripted dice ran out: {len(sizes)} needed for "
                f"{', '.join(f'd{s}' for s in sizes)}, {self.remaining} left "
                f"of {self._faces!r}"
            )
        faces = tuple(self._faces[self._used : self._used + len(sizes)])
        for face, size in zip(faces, sizes, strict=True):
            if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= size:
                raise ScriptError(f"scripted face {face!r} does not fit a d{size} (1..{size})")
        self._used += len(sizes)
        return Throw(sizes, faces)

    def __repr__(self) -> str:
        return f"ScriptedRng({self._faces[self._used :]!r})"


class ScriptedStreams:
    """Replays given faces in order, whichever stream asks, and names the stream in each
    throw: how a log of a bout with dice streams is decided again from its recorded faces
    (so the replay checks whose stream every roll came from, too).

    >>> dice = ScriptedStreams([3, 4])
    >>> dice.stream("act:Tarl").throw((6,))
    Throw(sides=(6,), faces=(3,), nonce=None, stream='act:Tarl')
    >>> dice.stream("referee").throw((6,)).stream
    'referee'
    """

    __slots__ = ("_script",)

    def __init__(self, faces: Iterable[int]) -> None:
        self._script = ScriptedRng(faces)

    def stream(self, name: str) -> _ScriptedStream:
        """The shared script, as stream `name`."""
        return _ScriptedStream(self._script, check_stream(name))

    def throw(self, sides: Sequence[int]) -> Throw:
        raise RuleError("a roll in a bout with dice streams must say whose stream it draws from")

    def __repr__(self) -> str:
        return f"ScriptedStreams({self._script!r})"


class _ScriptedStream:
    """One stream's view of a `ScriptedStreams`."""

    __slots__ = ("_script", "name")

    def __init__(self, script: ScriptedRng, name: str) -> None:
        self._script, self.name = script, name

    def throw(self, sides: Sequence[int]) -> Throw:
        done = self._script.throw(sides)
        return Throw(done.sides, done.faces, None, self.name)
