"""referee: role-play combat refereed by the MSV and SRP rules, with verifiable dice.

The one-liner, with randomness passed in (never a hidden global generator):

>>> import referee
>>> from referee.rng import ScriptedRng
>>> str(referee.roll("2d20+1d6", rng=ScriptedRng([14, 3, 5])))
'2d20+1d6 = [14, 3] + [5] = 22'
"""

from importlib.metadata import PackageNotFoundError, version

from referee.dice import parse, render
from referee.dice import roll_text as roll
from referee.errors import RefereeError

try:
    __version__ = version("referee")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.1.0"

__all__ = ["RefereeError", "__version__", "parse", "render", "roll"]
