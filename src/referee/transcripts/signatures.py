"""Signed roll lines in a log: each checked by the host's key, and the host's lines held to it.

The service signs every roll receipt it says (`referee.ledger.signatures`). Once a log's host
signs (its key is given, or some of its roll lines carry a signature), the judge holds its
lines to that, after the authorship rules (`referee.transcripts.reader`) and before the spar:

- a line whose signature is the key's for what it says, of the bout the log is about, is the
  host's **whoever posted it** (a Discord user's paste, a Second Life avatar's, an emote):
  nothing in the log could have made it;
- a line whose signature is not the key's for what it says (a face, the nonce, the roller or
  the stream changed; another key's), or of another bout, is `forged`, and says which;
- a host line (the OnlineHost shape) with no signature is `forged`, even under the host's
  name: the host signs every line it says.

The bout the log is about is the export's (`--export`), else the one most of its signed lines
are of. Without a key, signatures are not checked (a note says so), but a line of another bout
and a host line without one are still caught. A genuine line pasted again repeats its receipt,
which the judge catches as reused (`referee.transcripts.reuse`).

`cryptography` is loaded only here, and this module only when a key is given or a log holds a
signed line (`referee.transcripts.judgement`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from referee.ledger.signatures import (
    PublicKey,
    Said,
    Token,
    bout_tag,
    check_said,
)
from referee.transcripts.lines import Claim, RollLines
from referee.transcripts.rolls import SHAPES, HostRoll

_HOST = next(s for s in SHAPES if s.name == "onlinehost").loose


def review(
    rolls: RollLines, raw: Sequence[str], key: PublicKey | None, bout: str | None
) -> tuple[str, ...]:
    """Hold a log's roll lines to its host's signatures (see the module text), in place: each
    claim (`RollLines.claims`) gets its verdict; the notes on what was checked."""
    first = _first_lines(rolls)
    tokens = {i: _token(claim[1]) for i, claim in enumerate(rolls.claims)}
    signed = [i for i, token in tokens.items() if token is not None]
    if key is None and not signed:
        return ()
    tag = bout_tag(bout) if bout is not None else _log_tag(rolls, tokens, key)
    for index, claim in enumerate(rolls.claims):
        text = raw[first[index] - 1] if index in first else ""
        rolls.claims[index] = _held(claim, tokens[index], text, key, tag)
    if key is None:
        return (
            f"{len(signed)} signed roll lines read but not checked: give the host's key "
            "(--key) to check them",
        )
    where = f" of bout {tag}" if tag else ""
    return (f"signed roll lines checked by key {key.key_id}{where}",)


def _held(
    claim: Claim, token: Token | None, text: str, key: PublicKey | None, tag: str | None
) -> Claim:
    author, roll, forged, quoted = claim
    if roll is None or quoted:
        return claim
    if token is None:
        if forged is None and _HOST.search(text):
            return author, roll, "no signature, though this log's host signs every line", quoted
        return claim
    if key is None:
        if tag is not None and token.tag != tag:
            why = f"a line of another bout (tag {token.tag}; this log's bout is {tag})"
            return author, roll, why, quoted
        return claim
    found = check_said(_said(roll, token), key, tag)
    return author, roll, None if found.genuine else found.reason, quoted


def _said(roll: HostRoll, token: Token) -> Said:
    dice = (f"d{roll.sides}",) * roll.count
    return Said(roll.name, dice, roll.faces, roll.nonce, roll.stream, token)


def _token(roll: HostRoll | None) -> Token | None:
    if roll is None or roll.signature is None:
        return None
    return Token.read(roll.signature)


def _first_lines(rolls: RollLines) -> dict[int, int]:
    """Each claim's first line number."""
    first: dict[int, int] = {}
    for number, which in zip(rolls.numbers, rolls.which, strict=True):
        first.setdefault(which, number)
    return first


def _log_tag(
    rolls: RollLines, tokens: dict[int, Token | None], key: PublicKey | None
) -> str | None:
    """The bout most signed lines are of (genuine ones, when the key is given); the earliest
    of those tied."""
    counted: dict[int, str] = {}
    for which, token in tokens.items():
        roll = rolls.claims[which][1]
        if token is None or roll is None:
            continue
        if key is None or check_said(_said(roll, token), key).genuine:
            counted[which] = token.tag
    counts: Counter[str] = Counter()
    order: dict[str, int] = {}
    for number, which in zip(rolls.numbers, rolls.which, strict=True):
        tag = counted.get(which)
        if tag is None:
            continue
        counts[tag] += 1
        order.setdefault(tag, number)
    if not counts:
        return None
    return max(counts, key=lambda t: (counts[t], -order[t]))
