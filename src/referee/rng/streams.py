"""Dice streams: whose dice a roll draws from, by name (the dice scheme 2).

In scheme 1 a bout has one nonce sequence, which every roll advances: a player who could
learn a face without it being recorded, or spend other players' faces, could string the
dice. In scheme 2 every owner draws from a stream of its own, named in the HMAC message
(`"<client seed>:<stream>:<nonce>:<cursor>"`), with nonces from 0 per stream and seed:

- `act:<fighter>`: everything the fighter does in the fight. All dice of an action come
  from the acting fighter's stream (SRP-4: the attacker throws attack, defense and damage),
  and initiative, which everyone rolls at once, takes each fighter's die from its own;
- `free:<fighter>`: the fighter's free rolls (any notation, in or out of turn);
- `referee`: the referee's own free rolls.

So nobody's roll can move the faces of another owner's next roll. A bout's first event
says its scheme (`dice_scheme`: 2; no key: 1), so exports made before keep verifying.

>>> action_stream("Tarl"), free_stream("Tarl"), free_stream("referee")
('act:Tarl', 'free:Tarl', 'referee')
>>> owner_of("act:Tarl")
('act', 'Tarl')
"""

from __future__ import annotations

import re

from referee.errors import RuleError

#: One nonce sequence per bout: what every bout used before streams.
ONE_SEQUENCE = 1
#: A stream per owner.
STREAMS = 2
#: The schemes a verifier knows.
DICE_SCHEMES = (ONE_SEQUENCE, STREAMS)
#: The key of the bout's first event that names its scheme (absent: scheme 1).
SCHEME_KEY = "dice_scheme"

#: The referee's own stream, and the name the engine gives the referee.
REFEREE_STREAM = "referee"
ACTION = "act"
FREE = "free"
#: The longest stream name: a prefix and a name of at most 40 characters, with room to spare.
MAX_STREAM = 64


def action_stream(fighter: str) -> str:
    """The stream of `fighter`'s actions (attacks, shots, moves, contests, initiative)."""
    return f"{ACTION}:{fighter}"


def free_stream(owner: str) -> str:
    """The stream of `owner`'s free rolls: the referee's own, or a fighter's `free:` one."""
    return REFEREE_STREAM if owner == REFEREE_STREAM else f"{FREE}:{owner}"


def owner_of(stream: str) -> tuple[str, str]:
    """(kind, owner) of a stream name: ("act", fighter), ("free", fighter) or
    ("referee", "referee"); RuleError for a name that is none of them.

    >>> owner_of("referee")
    ('referee', 'referee')
    """
    if stream == REFEREE_STREAM:
        return REFEREE_STREAM, REFEREE_STREAM
    kind, colon, owner = stream.partition(":")
    if not colon or kind not in (ACTION, FREE) or not owner:
        raise RuleError(f"{stream!r} is not a dice stream (act:NAME, free:NAME or referee)")
    return kind, owner


#: A control character: below 32, or DEL (one search in C, not a loop over the characters).
_CONTROL = re.compile("[\x00-\x1f\x7f]")


def check_stream(name: object) -> str:
    """A stream name as the HMAC message may carry it: text of 1 to `MAX_STREAM` characters
    without control characters.

    >>> check_stream("act:\\n")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: stream name 'act:\\n' must be 1 to 64 characters without
    control characters
    """
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_STREAM or _CONTROL.search(name):
        raise RuleError(
            f"stream name {name!r} must be 1 to {MAX_STREAM} characters without control characters"
        )
    return name
