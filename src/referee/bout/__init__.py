"""The bout engine: commands in, events out, state as a fold of events.

See `README.md` beside this file for how a rule system plugs in.
"""

from referee.bout import commands
from referee.bout.engine import REFEREE, SYSTEM, Decision, decide, system_of
from referee.bout.events import Event, EventType, to_json
from referee.bout.fold import apply, project
from referee.bout.replay import check_export, check_outcomes
from referee.bout.runner import BoutRunner, Strategy, focus_weakest
from referee.bout.state import BoutState, Fighter, Status
from referee.bout.view import fighter_view, state_view
from referee.vocabulary import Problem

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
