"""referee: role-play combat refereed by the MSV and SRP rules, with verifiable dice.

The one-liner, with randomness passed in (never a hidden global generator):

>>> import referee
>>> from referee.rng import ScriptedRng
>>> str(referee.roll("2d20+1d6", rng=ScriptedRng([14, 3, 5])))
'2d20+1d6 = [14, 3] + [5] = 22'
"""

from typing import TYPE_CHECKING, Any

from referee.errors import RefereeError

if TYPE_CHECKING:
    from referee.dice import parse, render
    from referee.dice import roll_text as roll

__all__ = ["RefereeError", "__version__", "parse", "render", "roll"]

#: The one-liners, loaded when first used (a command that needs no dice starts without them).
_DICE = {"parse": "parse", "render": "render", "roll": "roll_text"}


def __getattr__(name: str) -> Any:
    if name in _DICE:
        from referee import dice

        value = getattr(dice, _DICE[name])
    elif name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("referee")
        except PackageNotFoundError:  # pragma: no cover - running from a source tree
            value = "0.1.0"
    else:
        raise AttributeError(f"module 'referee' has no attribute {name!r}")
    globals()[name] = value
    return value
