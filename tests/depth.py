"""How hard the property tests look.

`make test` draws a fixed set of examples (the hypothesis profile "fixed": derandomized, so
the same examples on every run, and a submission never fails by a draw). `make test-deep`
sets REFEREE_TEST_DEPTH=N: fresh examples on every run (profile "deep"), N times as many.
Whatever a deep run finds is a real bug: fix it, and keep the example as a stored case (for
the ledger verifiers, a vector in tests/vectors/; elsewhere an `@example` or a parametrized
case), so that `make test` checks it from then on.
"""

from __future__ import annotations

import os

#: How many times the default number of examples each property test draws.
DEPTH = max(1, int(os.environ.get("REFEREE_TEST_DEPTH", "1") or "1"))

#: The hypothesis profile of this run (registered in tests/conftest.py).
PROFILE = "deep" if DEPTH > 1 else "fixed"


def examples(count: int) -> int:
    """A property test's number of examples: `count`, times REFEREE_TEST_DEPTH.

    >>> examples(100) == 100 * DEPTH
    True
    """
    return count * DEPTH
