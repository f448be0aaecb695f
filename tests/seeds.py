"""Deterministic server seeds for tests: every test sees the same dice on every run.

The service draws its server seeds (and a bout's default client seed) from an `Entropy`
passed in; in production that is always the OS's secure source. Tests pass `for_test()`,
whose bytes are SHAKE-256 of the test's node id, an optional salt and the draw's number, so
a test that passes once passes on every run, and a failure is reproduced by running it again.

`pytest --seed-salt=S` gives every test other dice (the same ones again for the same S): the
way to look for a test that holds only for its own dice (see docs/testing in the README).

>>> a, b = SeededEntropy("t"), SeededEntropy("t")
>>> a(32) == b(32), a(32) == SeededEntropy("t")(32), len(a(8))
(True, False, 8)
"""

from __future__ import annotations

import hashlib
import os
import threading

from referee.rng import Entropy, check_server_seed

#: Set from `--seed-salt` by tests/conftest.py; the empty salt is the one CI runs.
SALT = {"value": ""}


class SeededEntropy:
    """`entropy(n)`: the next n bytes of a stream fixed by `label` (thread-safe)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._draws = 0
        self._lock = threading.Lock()

    def __call__(self, n: int) -> bytes:
        with self._lock:
            draw = self._draws
            self._draws += 1
        return hashlib.shake_256(f"{self.label}\0{draw}".encode()).digest(n)

    def __repr__(self) -> str:
        return f"SeededEntropy({self.label!r})"


def current_test() -> str:
    """The running test's node id (pytest sets PYTEST_CURRENT_TEST during set-up and call)."""
    running = os.environ.get("PYTEST_CURRENT_TEST", "")
    return running.rsplit(" (", 1)[0] if running else "outside a test"


def for_test(part: str = "") -> SeededEntropy:
    """The deterministic source of the running test (`part` tells two of one test apart)."""
    return SeededEntropy(f"{current_test()}\0{part}\0{SALT['value']}")


class EachTestsEntropy:
    """A source that draws, at each draw, from the running test's own `for_test()` stream: a
    server shared by many tests (`shared_live`) gives each test the very seeds a server of its
    own would, whatever ran before it on the same server."""

    def __init__(self) -> None:
        self._streams: dict[str, SeededEntropy] = {}
        self._lock = threading.Lock()

    def __call__(self, n: int) -> bytes:
        test = current_test()
        with self._lock:
            stream = self._streams.get(test)
            if stream is None:
                stream = self._streams[test] = for_test()
        return stream(n)


def fixed(server_seed: str) -> Entropy:
    """A source whose every server seed is `server_seed`, for a test that plays a bout known in
    advance (a shorter draw, a default client seed, is the seed's first bytes).

    >>> fixed("5e" * 32)(32).hex() == "5e" * 32, fixed("5e" * 32)(8).hex()
    (True, '5e5e5e5e5e5e5e5e')
    """
    seed = bytes.fromhex(check_server_seed(server_seed))

    def draw(n: int) -> bytes:
        assert 0 < n <= len(seed), n
        return seed[:n]

    return draw
