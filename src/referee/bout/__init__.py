"""The bout engine: commands in, events out, state as a fold of events.

See `README.md` beside this file for how a rule system plugs in.
"""

import ast
import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.vocabulary import Problem

# The package's names, listed once: each is loaded from its module when first asked for (PEP
# 562), so that a caller of one module of the package (the judge's `referee.bout.names`) does
# not load the engine, the rule systems and the dice grammar with it. Type checkers read the
# imports below; at run time `_LAZY` is read from them (`_imported_here`).
if TYPE_CHECKING:
    from referee.bout import commands
    from referee.bout.engine import REFEREE, SYSTEM, Decision, decide, system_of
    from referee.bout.events import Event, EventType, to_json
    from referee.bout.fold import apply, project
    from referee.bout.replay import check_export, check_outcomes
    from referee.bout.runner import BoutRunner, Strategy, focus_weakest
    from referee.bout.state import BoutState, Fighter, Status
    from referee.bout.view import fighter_view, state_view


def _imported_here() -> dict[str, str]:
    """Each name the `if TYPE_CHECKING:` block of this file imports, with the module it comes
    from (a submodule of the package itself: the module that is the name)."""
    tree = ast.parse(Path(__file__).read_text("utf-8"))
    block = next(
        n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"
    )
    found = {}
    for statement in block.body:
        assert isinstance(statement, ast.ImportFrom) and statement.module is not None
        for alias in statement.names:
            found[alias.name] = statement.module
    return found


#: Each lazy name's module.
_LAZY = _imported_here()


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'referee.bout' has no attribute {name!r}")
    if module == __name__:  # a submodule: `commands`
        value: Any = importlib.import_module(f"{module}.{name}")
    else:
        value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = sorted(["Problem", *_LAZY])
