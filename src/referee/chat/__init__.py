"""The chat-command grammar: a line -> a command value (its `str` is the line back), answers.

Shared by everything that speaks chat: the HTTP chat endpoint, the Second Life HUD, bots.

>>> line = parse_line("attack pa-kur", Roster(("Tarl", "Pa-Kur")))
>>> line, str(line)
(Attack(target='Pa-Kur', attacker=None), 'attack Pa-Kur')
"""

from referee.chat.answers import (
    HELP,
    MAX_CHAT_BYTES,
    clip,
    error_line,
    odds_line,
    roll_line,
    said,
    score_line,
    status_line,
)
from referee.chat.commands import (
    Act,
    Add,
    AolRoll,
    Attack,
    Cancel,
    ChatCommand,
    Close,
    CloseJoining,
    End,
    Help,
    Init,
    Odds,
    Power,
    Quit,
    Referee,
    Remove,
    Roll,
    Score,
    Spirit,
    Status,
    Update,
)
from referee.chat.grammar import VERBS, AmbiguousName, NotACommand, Roster, parse_line, read_value

__all__ = [
    "HELP",
    "MAX_CHAT_BYTES",
    "VERBS",
    "Act",
    "Add",
    "AmbiguousName",
    "AolRoll",
    "Attack",
    "Cancel",
    "ChatCommand",
    "Close",
    "CloseJoining",
    "End",
    "Help",
    "Init",
    "NotACommand",
    "Odds",
    "Power",
    "Quit",
    "Referee",
    "Remove",
    "Roll",
    "Roster",
    "Score",
    "Spirit",
    "Status",
    "Update",
    "clip",
    "error_line",
    "odds_line",
    "parse_line",
    "read_value",
    "roll_line",
    "said",
    "score_line",
    "status_line",
]
