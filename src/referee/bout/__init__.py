"""The bout engine: commands in, events out, state as a fold of events.

See `README.md` beside this file for how a rule system plugs in.
"""

import importlib
from typing import TYPE_CHECKING, Any

from referee.vocabulary import Problem

if TYPE_CHECKING:
    from referee.bout import commands
    from referee.bout.engine import REFEREE, SYSTEM, Decision, decide, system_of
    from referee.bout.events import Event, EventType, to_json
    from referee.bout.fold import apply, project
    from referee.bout.replay import check_export, check_outcomes
    from referee.bout.runner import BoutRunner, Strategy, focus_weakest
    from referee.bout.state import BoutState, Fighter, Status
    from referee.bout.view import fighter_view, state_view

#: Each name's module, loaded when first asked for (PEP 562): a caller of one module of the
#: package (the judge's `referee.bout.names`) does not load the engine, the rule systems and
#: the dice grammar with it.
_LAZY = {
    "REFEREE": "engine",
    "SYSTEM": "engine",
    "Decision": "engine",
    "decide": "engine",
    "system_of": "engine",
    "Event": "events",
    "EventType": "events",
    "to_json": "events",
    "apply": "fold",
    "project": "fold",
    "check_export": "replay",
    "check_outcomes": "replay",
    "BoutRunner": "runner",
    "Strategy": "runner",
    "focus_weakest": "runner",
    "BoutState": "state",
    "Fighter": "state",
    "Status": "state",
    "fighter_view": "view",
    "state_view": "view",
}


def __getattr__(name: str) -> Any:
    if name == "commands":
        value: Any = importlib.import_module("referee.bout.commands")
    elif name in _LAZY:
        value = getattr(importlib.import_module(f"referee.bout.{_LAZY[name]}"), name)
    else:
        raise AttributeError(f"module 'referee.bout' has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = [
    "REFEREE",
    "SYSTEM",
    "BoutRunner",
    "BoutState",
    "Decision",
    "Event",
    "EventType",
    "Fighter",
    "Problem",
    "Status",
    "Strategy",
    "apply",
    "check_export",
    "check_outcomes",
    "commands",
    "decide",
    "fighter_view",
    "focus_weakest",
    "project",
    "state_view",
    "system_of",
    "to_json",
]
