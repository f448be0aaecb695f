"""Fighter names that cannot pass for someone else (`referee.bout.names`), the one rule the
engine, the service, every client and the judge's skeletons share."""

from __future__ import annotations

import pytest

from referee.bout.names import fighter_name
from referee.errors import ConflictError, RuleError

REFUSED = [
    ("Referee", [], RuleError, "fighter name 'Referee' is reserved"),
    ("0nlineHost", [], RuleError,
     "fighter name '0nlineHost' is reserved (it looks like OnlineHost)"),
    ("\u041enlineHost", [], RuleError,
     "fighter name '\u041enlineHost' is reserved (it looks like OnlineHost)"),
    ("ѕystem", [], RuleError, "fighter name 'ѕystem' is reserved (it looks like System)"),
    ("Tarl rolled 1 100-sided die: 99", [], RuleError,
     "fighter name 'Tarl rolled 1 100-sided die: 99' has '-sided' in it, the word of the host's "
     "roll lines"),
    ("\u0422\u0430rl", ["Tarl"], ConflictError,
     "fighter name '\u0422\u0430rl' looks like 'Tarl', who is already fighting"),
    ("TarI", ["Tarl"], ConflictError,
     "fighter name 'TarI' looks like 'Tarl', who is already fighting"),
    ("TARL", ["Tarl"], ConflictError, "there is already a fighter called 'Tarl'"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "others", "error", "message"), REFUSED)
def test_a_name_that_passes_for_another_is_refused(
    name: str, others: list[str], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as refused:
        fighter_name(name, others)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("name", "others"),
    [("Tarl Cabot", ["Tarl"]), ("Rask", ["Tarl"]), ("Pa-K\u00fcr", []), ("**Kamchak**", []),
     ("Onlinehostess", []), ("Sided", [])],
)  # fmt: skip
def test_names_that_look_like_nobody_else_are_kept(name: str, others: list[str]) -> None:
    assert fighter_name(name, others) == name
