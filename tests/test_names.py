"""Fighter names that cannot pass for someone else (`referee.bout.names`), the one rule the
engine, the service, every client and the judge's skeletons share."""

from __future__ import annotations

import unicodedata
from functools import cache

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.bout.names import _confusables, fighter_name, skeleton
from referee.errors import ConflictError, RuleError
from tests.depth import examples

SWORD = "\U0001f5e1\ufe0f"  # dagger, VS16

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
    # look-alikes by UTS #39's whole confusables: letters, and what draws nothing
    ("Torn", ["Tom"], ConflictError,
     "fighter name 'Torn' looks like 'Tom', who is already fighting"),
    ("\U0001f5e1 Rask", [f"{SWORD} Rask"], ConflictError,
     f"fighter name '\U0001f5e1 Rask' looks like '{SWORD} Rask', who is already fighting"),
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


@cache
def drawn_like() -> dict[str, str]:
    """Each ASCII letter to the characters confusables.txt draws like it alone (printable,
    no marks), to make look-alikes from."""
    alike: dict[str, str] = {}
    for point, prototype in _confusables().items():
        char = chr(point)
        letter = prototype.isascii() and prototype.isalpha() and len(prototype) == 1
        if letter and char.isprintable() and not unicodedata.category(char).startswith("M"):
            alike[prototype] = alike.get(prototype, "") + char
    return alike


@given(
    original=st.text(alphabet="abcdefghijklnopqrstuvwxyz", min_size=3, max_size=12),
    data=st.data(),
)
@settings(max_examples=examples(200), deadline=None)
def test_a_name_that_differs_only_by_confusables_is_refused(
    original: str, data: st.DataObject
) -> None:
    """`m` is left out of the letters: it is drawn like `rn`, two letters."""
    assume(not any(skeleton(original) == skeleton(word) for word in ("referee", "system")))
    swaps = [i for i, ch in enumerate(original) if ch in drawn_like()]
    at = data.draw(st.lists(st.sampled_from(swaps), min_size=1, unique=True), label="at")
    alike = list(original)
    for i in at:
        alike[i] = data.draw(st.sampled_from(drawn_like()[original[i]]), label=f"for {i}")
    lookalike = "".join(alike)
    with pytest.raises(ConflictError) as refused:
        fighter_name(lookalike, [original])
    assert str(refused.value) in (
        f"there is already a fighter called {original!r}",
        f"fighter name {lookalike!r} looks like {original!r}, who is already fighting",
    )


def test_the_skeleton_is_one_of_a_look_alike_and_its_model() -> None:
    assert skeleton("\u0422\u0430rl") == skeleton("TarI") == skeleton("Tarl") == "tarl"
    assert skeleton(f"{SWORD} Tom") == skeleton("\U0001f5e1 Torn") == "\U0001f5e1 torn"
