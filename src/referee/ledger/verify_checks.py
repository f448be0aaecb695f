"""What the verifier's checks share: a problem of the fairness record, and a JSON whole
number."""

from __future__ import annotations

from typing import Any

from referee.vocabulary import Problem


def fairness_problem(message: str, check: str) -> Problem:
    """A problem of the export's fairness record (no event's)."""
    return Problem(None, None, message, check)


def is_int(value: Any) -> bool:
    """Whether a JSON value is a whole number (an int, not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)
