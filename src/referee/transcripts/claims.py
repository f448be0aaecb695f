"""What a roll line claims, and whether the judge believes it.

A line says a roll when its text is in one of the roll shapes (`referee.transcripts.rolls`).
Its claim counts only when its author is a host the judge trusts (`referee.transcripts.authors`):
anyone else's roll line is forged, whatever it says, and so is one inside an emote, one with no
author, a host line typed after the speaker's own name, and one posted under a host's name
without the bot tag the chat shows after every bot's name; a line inside a quote (`> `,
`(( ))`, `[[ ]]`) is marked quoted. Every format of log is read through this one judgement
(`referee.transcripts.reader` line by line, `referee.transcripts.messages` message by message).

>>> from referee.transcripts.lines import Said
>>> hosts = Trust.of(["OnlineHost"])
>>> line = "OnlineHost: Tarl rolled 1 100-sided die: 47"
>>> analyse(Said(1, "OnlineHost", line, "speech"), hosts)[1:]
(None, False)
>>> analyse(Said(2, "PaKur", line.replace("Tarl", "PaKur"), "speech"), hosts)[1]
"a host line typed after the speaker's name 'PaKur'"
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from referee.transcripts.authors import Trust
from referee.transcripts.lines import LogLine, Said
from referee.transcripts.rolls import HostRoll, Shape, find_roll, read_roll

#: A roll line is never longer than a chat message (at most 2,000 characters on Discord):
#: longer lines are only text, which also keeps the patterns' work per line bounded.
MAX_ROLL_LINE = 2048

#: What starts a quoted line: `> ` (an e-mail's or Discord's quote), `((` or `[[` (out of
#: character).
QUOTE_MARKS = (">", "((", "[[")


#: What a roll line says about its roll, by (author, text, kind): the roll, why it is forged,
#: whether it is a quote; None when the line says no roll. Logs repeat their lines' bodies.
Found = tuple[HostRoll | None, str | None, bool] | None


def roll_line(
    said: Said, raw: str, trust: Trust, shapes: Sequence[Shape] | None = None
) -> LogLine | None:
    """The roll line a line is, or None when it says no roll."""
    found = analyse(said, trust, shapes)
    if found is None:
        return None
    roll, forged, quoted = found
    return LogLine(said.number, raw, said.stamp, said.author, roll, forged, quoted)


def analyse(said: Said, trust: Trust, shapes: Sequence[Shape] | None = None) -> Found:
    """What `said` claims of a roll (`Found`): its roll, why it is forged, whether it is a
    quote; None when it says no roll, or is longer than a chat message."""
    text, author = said.text, said.author
    if len(text) > MAX_ROLL_LINE:
        return None
    shape = find_roll(text, shapes)
    if shape is None:
        return None
    bare = without_quote_marks(text) if said.kind == "quote" else text
    roll = read_roll(bare, shape)
    parsed = roll if isinstance(roll, HostRoll) else None
    if said.kind == "quote":
        return parsed, None, True
    if author is None:
        return parsed, "a roll line with no author", False
    if said.kind == "emote":
        return parsed, f"a host line inside an emote (/me) of {author!r}", False
    # a host line typed after the speaker's name says so, whoever the name looks like
    typed = text.lstrip().lower().startswith(tuple(f"{h.lower()}:" for h in trust.hosts))
    doubt = trust.doubt(author, why=not typed)
    if doubt is not None and typed:
        doubt = f"a host line typed after the speaker's name {author!r}"
    elif doubt is None and said.untagged:
        doubt = (
            f"posted by {author!r} with no bot tag (APP or BOT), which the chat shows after "
            "every bot's name: a member who took a host's name"
        )
    if doubt is not None:
        return parsed, doubt, False
    if isinstance(roll, str):
        return None, f"a broken host line ({roll})", False
    return roll, None, False


#: The marks around a quote: `> ` (any number) before it, `((` or `[[` before and after it.
_QUOTE_AROUND = re.compile(r"^\s*(?:>[ \t]?)+|^\s*(?:\(\(|\[\[)\s*|\s*(?:\)\)|\]\])\s*$")


def without_quote_marks(text: str) -> str:
    """A quoted line without its quote marks: `> X`, `(( X ))` and `[[ X ]]` are `X`.

    >>> without_quote_marks("(( OnlineHost: Rask rolled 1 100-sided die: 81 ))")
    'OnlineHost: Rask rolled 1 100-sided die: 81'
    """
    return _QUOTE_AROUND.sub("", text).strip()
