"""The curated public surface: each package's `__all__` is exactly its public `referee` names."""

from __future__ import annotations

import importlib
import types

import pytest

PACKAGES = [
    "referee",
    "referee.rng",
    "referee.dice",
    "referee.bout",
    "referee.chat",
    "referee.systems",
    "referee.ledger",
    "referee.store",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_the_public_surface(name: str) -> None:
    module = importlib.import_module(name)
    public = {
        n
        for n, value in vars(module).items()
        if not n.startswith("_")
        and not isinstance(value, types.ModuleType)
        and str(getattr(value, "__module__", "")).startswith("referee")
    }
    assert public <= set(module.__all__), sorted(public - set(module.__all__))
    assert all(hasattr(module, n) for n in module.__all__)


def test_the_one_liner_rolls_with_a_given_source() -> None:
    import referee
    from referee.rng import ScriptedRng

    assert referee.roll("1d100", rng=ScriptedRng([47])).total == 47
