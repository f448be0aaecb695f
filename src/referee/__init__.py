"""referee: role-play combat refereed by the MSV and SRP rules, with verifiable dice.

>>> from referee.rng import ScriptedRng
>>> import referee
>>> referee.__version__
'0.1.0'
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("referee")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.1.0"

__all__ = ["__version__"]
