"""The store's clock: now as `referee.ledger.utc_time` writes it, for a fraction of the cost.

`utc_time()` formats `datetime.now(UTC)` with `strftime`, which for `%f` rebuilds the format,
makes a time tuple and calls `time.strftime` again: about 24,000 instructions, every time an
event batch is stamped. `utc_now` reads the same system clock (`time.time_ns`, which
`datetime.now` reads too, in nanoseconds, floored to microseconds as `datetime.now` does),
formats the whole seconds by `time.strftime` only when the second changes, and adds the
microseconds itself: the same text (`utc_text` is checked against `utc_time` by the tests).

>>> utc_text(1_795_992_012_123_456_789)
'2026-11-29T22:40:12.123456Z'
"""

from __future__ import annotations

import time

#: The last whole second formatted, and its text (replaced whole: safe across threads).
_last: tuple[int, str] = (-1, "")


def utc_text(nanoseconds: int) -> str:
    """The moment `nanoseconds` after the epoch as `utc_time` writes it (microseconds
    floored): RFC 3339, UTC, six digits of the second's fraction, `Z`."""
    global _last
    seconds, micro = divmod(nanoseconds // 1000, 1_000_000)
    last = _last
    if last[0] != seconds:
        last = _last = (seconds, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)))
    return f"{last[1]}.{micro:06d}Z"


def utc_now() -> str:
    """Now, as `referee.ledger.utc_time()` writes it (see the module's docstring)."""
    return utc_text(time.time_ns())
