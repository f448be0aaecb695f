"""One call from a log to its judgement: read the log, find the fighters, decide the spar.

>>> text = '''Judge: Spar between Tarl (CS 65) and PaKur (CS 70)
... OnlineHost: Tarl rolled 1 100-sided die: 47
... OnlineHost: PaKur rolled 1 100-sided die: 12'''
>>> case = judge_log(text)
>>> case.source, case.verdict.order, case.verdict.winner
('announced on line 1', ('Tarl', 'PaKur'), None)
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from referee.errors import NotationError
from referee.systems.msv.rules import MsvRules
from referee.transcripts.announce import (
    SKILL_RE,
    Announcement,
    find_announcement,
    nearest_line,
    sides_said,
)
from referee.transcripts.authors import name_key
from referee.transcripts.decoding import check_text, decode_log
from referee.transcripts.fighters import Fighter, check_fighters, parse_fighter, with_sides
from referee.transcripts.formats import Catalogue
from referee.transcripts.judge import Marker, decide
from referee.transcripts.reader import LogLine, Transcript, read_log
from referee.transcripts.reuse import COMMITMENT_RE, ROTATION_RE
from referee.transcripts.targets import TargetBook, mentions
from referee.transcripts.verdict import Verdict

if TYPE_CHECKING:  # the receipts against a ledger are loaded only with an export
    from referee.transcripts.receipts import Ledger

EXAMPLE_ANNOUNCEMENT = "'Spar between Tarl Cabot (CS 65) and PaKur (CS 70)'"
#: How much of a log's start is searched first for its announcement (in characters).
_HEAD = 100_000
_SERVICE_WORDS = re.compile(r"nonces from 0|server seed \d+ revealed|commitment|table ledger", re.I)


@dataclass(frozen=True, slots=True)
class Judgement:
    """A judged log: the log as read, where the fighters came from, the verdict."""

    transcript: Transcript
    source: str
    verdict: Verdict

    @property
    def lines(self) -> tuple[LogLine, ...]:
        """Every line of the log, read."""
        return self.transcript.lines


def judge_log(
    log: str | bytes,
    fighters: Sequence[str | Fighter] = (),
    rules: MsvRules | None = None,
    export: Any = None,
    hosts: Sequence[str] = (),
    sides: Sequence[str] = (),
    format: str | None = None,
    formats: Catalogue | None = None,
    key: str | None = None,
    signed_by: str | None = None,
) -> Judgement:
    """Judge a log (text, or the bytes of a file) for the given fighters (`NAME=CS`, on the
    `sides` given as `NAME=SIDE`), or the ones it announces, or the export's; `export` (a
    bout export document) makes the verdict the ledger's; `hosts` adds trusted dice bots;
    `formats` are the formats and roll shapes to read it with (default: the built-in ones;
    `referee.transcripts.format_files.with_format_files` adds a community's); `key` is the
    host's public key (any form `referee.ledger.signatures.read_key` reads; by default the
    export's), which its signed lines are checked by; `signed_by` is the key they are checked
    by when neither is given and the log holds signed roll lines (a service's own: a log
    without one is not held to it)."""
    text = decode_log(log) if isinstance(log, bytes) else check_text(log)
    return _judge(text, fighters, rules, export, hosts, sides, format, formats, key, signed_by)


def _judge(
    text: str,
    fighters: Sequence[str | Fighter],
    rules: MsvRules | None,
    export: Any,
    hosts: Sequence[str],
    sides: Sequence[str],
    format: str | None,
    formats: Catalogue | None,
    key: str | None = None,
    signed_by: str | None = None,
) -> Judgement:
    transcript = read_log(text, hosts, format, formats=formats)
    ledger = _ledger(export) if export is not None else None
    # the host signs when its key is given, or the log holds signed roll lines (an export's
    # key checks them: `referee export --chat`, written from the export, holds none); the
    # claims, a few hundred, are looked at, not the text, some 5 MB
    claims = transcript.rolls.claims
    signed = any(roll is not None and roll.signature is not None for _, roll, _, _ in claims)
    if key is None and signed and not _export_key(export):
        key = signed_by
    if key is not None or signed:
        transcript = _signed(transcript, key, export)
    chosen, source = _fighters(transcript, fighters, sides, ledger)
    if rules is None and ledger is not None:
        rules = ledger.rules
    # a receipt is written `(nonce N)`: a log without the word has none (unless lines were
    # joined, when the word may have been cut in two); the claims, a few hundred, are looked
    # at before the text, some 5 MB
    receipts = any(
        roll is not None and roll.nonce is not None for _, roll, _, _ in transcript.rolls.claims
    ) and (bool(transcript.joined) or "nonce" in transcript.body)
    markers = service_markers(transcript) if ledger is None and receipts else []
    targets = target_book(transcript, chosen) if len(chosen) > 2 else None
    verdict = decide(transcript.rolls, chosen, rules, ledger, markers, targets)
    if transcript.notes:
        verdict = replace(verdict, notes=transcript.notes + verdict.notes)
    return Judgement(transcript, source, verdict)


def _signed(transcript: Transcript, key: str | None, export: Any) -> Transcript:
    """The log with its roll lines held to its host's signatures (`signatures.review`): by
    `key`, else the export's; of the export's bout when it is given."""
    import json

    from referee.ledger.signatures import EXPORT_FIELD, read_key
    from referee.transcripts.signatures import review

    bout = export.get("bout", {}).get("id") if isinstance(export, dict) else None
    given = export.get(EXPORT_FIELD) if isinstance(export, dict) and key is None else None
    public = read_key(key) if key is not None else None
    if public is None and isinstance(given, dict):
        public = read_key(json.dumps(given))
    notes = review(
        transcript.rolls, transcript.raw, public, bout if isinstance(bout, str) else None
    )
    return replace(transcript, notes=transcript.notes + notes) if notes else transcript


def _export_key(export: Any) -> bool:
    """Whether an export carries its service's key."""
    from referee.ledger.signatures import EXPORT_FIELD

    return isinstance(export, dict) and isinstance(export.get(EXPORT_FIELD), dict)


def _ledger(export: Any) -> Ledger:
    """The export's ledger (its module loads the event payloads: only a judge with an export
    needs them)."""
    from referee.transcripts.receipts import Ledger

    return Ledger.from_export(export)


def _fighters(
    transcript: Transcript,
    given: Sequence[str | Fighter],
    sides: Sequence[str],
    ledger: Ledger | None,
) -> tuple[tuple[Fighter, ...], str]:
    if given:
        parsed = [f if isinstance(f, Fighter) else parse_fighter(f) for f in given]
        chosen = check_fighters(with_sides(parsed, sides))
        _check_rolls(transcript, _rollers(transcript, genuine=False), chosen, "given")
        return chosen, "given"
    found = _announcement(transcript)
    if found is not None:
        rollers = _rollers(transcript)
        announced = _with_sides_said(transcript, found)
        chosen = check_fighters(with_sides(_as_rolled(rollers, announced), sides))
        # a fighter whose every roll is forged rolls all the same: judged, not misspelt
        every = _rollers(transcript, genuine=False)
        _check_rolls(transcript, every, chosen, f"announced on line {found.line}")
        return chosen, f"announced on line {found.line}"
    if ledger is not None and ledger.fighters:
        return check_fighters(with_sides(ledger.fighters, sides)), "the export"
    raise NotationError(_no_announcement(transcript))


def _announcement(transcript: Transcript) -> Announcement | None:
    """The first announcement: looked for in the log's head first, then in the whole log."""
    head = transcript.body[:_HEAD]
    numbers = transcript.grep(SKILL_RE, head)
    found = find_announcement((s.number, s.text) for s in transcript.said(numbers))
    if found is None and len(transcript.body) > _HEAD:
        marked = transcript.said(transcript.grep(SKILL_RE) - numbers)
        found = find_announcement((s.number, s.text) for s in marked)
    return found


#: How many lines after an announcement may give the sides in a sentence.
_SIDES_WITHIN = 20


def _with_sides_said(transcript: Transcript, found: Announcement) -> tuple[Fighter, ...]:
    """The announced fighters, on the sides a sentence gives them when the announcement gives
    none (`Tarl and Kamchak against Pa-Kur`): the rest of the announcement's line, or a line
    after it, before the first roll."""
    fighters = found.fighters
    if len(fighters) < 3 or any(f.side for f in fighters):
        return fighters
    numbers = transcript.rolls.numbers
    after = bisect.bisect_right(numbers, found.line)
    first_roll = numbers[after] if after < len(numbers) else found.line
    last = min(first_roll, found.line + _SIDES_WITHIN)
    for said in transcript.said(set(range(found.line, last + 1))):
        text = said.text
        if said.number == found.line:
            marks = list(SKILL_RE.finditer(text))
            text = text[marks[-1].end() :] if marks else text
        sided = sides_said(text, fighters)
        if sided is not None:
            return sided
    return fighters


def _no_announcement(transcript: Transcript) -> str:
    hint = "name the fighters as NAME=CS (--fighter 'Tarl Cabot=65' --fighter PaKur=70)"
    near = nearest_line((s.number, s.text) for s in transcript.said())
    if near is None:
        return f"the log announces no spar (a line like {EXAMPLE_ANNOUNCEMENT}): {hint}"
    return (
        f"the log announces no spar: line {near[0]} comes nearest ({near[1]!r}) but does not "
        f"give each fighter a skill, like {EXAMPLE_ANNOUNCEMENT}: {hint}"
    )


def _rollers(transcript: Transcript, genuine: bool = True) -> dict[str, str]:
    """The names the genuine roll lines give, by key (`genuine=False`: every roll line that
    names a roller, forged or quoted: a fighter who only cheats or quotes still rolls)."""
    names = {
        roll.name
        for _, roll, forged, quoted in transcript.rolls.claims
        if roll is not None and (not genuine or (forged is None and not quoted))
    }
    return {name_key(name): name for name in names}


def _as_rolled(rollers: dict[str, str], fighters: Sequence[Fighter]) -> tuple[Fighter, ...]:
    """Announced names as the rolls give them: `Lord Tarl of Ko-ro-ba (CS 65)` is the `Tarl`
    who rolls, when exactly one rolling name is a run of the announced name's words."""
    out = []
    for fighter in fighters:
        if fighter.key in rollers:
            out.append(fighter)
            continue
        words = [name_key(w) for w in fighter.name.split()]
        inside = [
            name
            for key, name in rollers.items()
            if _run_of(words, [name_key(w) for w in name.split()])
        ]
        out.append(replace(fighter, name=inside[0]) if len(inside) == 1 else fighter)
    return tuple(out)


def _run_of(words: Sequence[str], part: Sequence[str]) -> bool:
    size = len(part)
    return 0 < size < len(words) and any(
        list(words[i : i + size]) == list(part) for i in range(len(words) - size + 1)
    )


def _check_rolls(
    transcript: Transcript, rollers: dict[str, str], fighters: Sequence[Fighter], source: str
) -> None:
    """Each fighter rolls at least once (a name that never rolls is misspelt or absent), and
    some roll line counts (none does when the judge reads the log wrong: its dice bot
    unknown, its format another, a key it does not sign by)."""
    if not _rollers(transcript):
        first = next((line for line in transcript.rolls if line.forged), None)
        if first is not None:
            raise NotationError(
                f"no roll line of the log counts: the first, line {first.number}, is forged "
                f"({first.forged}), and so is every other; a dice bot the judge does not "
                "know is named with --host NAME, a log format with --format NAME"
            )
    for fighter in fighters:
        if fighter.key in rollers:
            continue
        rolled = ", ".join(sorted(rollers.values())[:8]) or "nobody"
        pattern = re.compile(re.escape(fighter.name), re.I)
        named = sorted(transcript.grep(pattern))
        where = (
            f"; {len(named)} lines name {fighter.name!r} (lines {named[0]} to {named[-1]}) but "
            "no roll line does"
            if named
            else ""
        )
        raise NotationError(
            f"fighter {fighter.name!r} ({source}) never rolls in the log: the roll lines name "
            f"{rolled}{where}; check the spelling of the name"
        )


def service_markers(transcript: Transcript) -> list[Marker]:
    """The service's seed rotations and commitments in the log, for the receipts."""
    markers = []
    for said in transcript.said(transcript.grep(_SERVICE_WORDS)):
        if said.untagged or not transcript.trust.is_service(said.author):
            continue  # a member named as the service is not the service
        if ROTATION_RE.search(said.text):
            markers.append(Marker(said.number, "rotation"))
        for found in COMMITMENT_RE.finditer(said.text):
            markers.append(Marker(said.number, "commitment", found["hex"]))
    return markers


def target_book(transcript: Transcript, fighters: Sequence[Fighter]) -> TargetBook:
    """Every line that names the target of an attack, from the speech and emotes that name a
    fighter (MSV-6: how `decide` tells whom an attack of a group spar is aimed at)."""
    names = [f.name for f in fighters]
    said = transcript.said(transcript.grep(mentions(names)))
    # A member named as a host (no bot tag) declares nothing for it.
    lines = (
        (s.number, s.author, s.text)
        for s in said
        if s.kind in ("speech", "emote")
        and not (s.untagged and transcript.trust.is_service(s.author))
    )
    return TargetBook.read(lines, names, transcript.trust.is_service)
