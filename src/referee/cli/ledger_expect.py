"""What `referee verify` holds an export to, from its options: the hashes, commitment, event
hash, client seed and bout a player kept (`--expect-*`), read from what they pasted."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

from referee.errors import NotationError
from referee.ledger import Checker, Problem, Report, is_hex64
from referee.ledger.canonical import same_json
from referee.ledger.printable import shown


def expect_hashes(hashes: tuple[str, ...]) -> Checker:
    """A checker: every given event hash (seen earlier, e.g. in chat) is still in the export.

    >>> [str(p) for p in expect_hashes(("ab" * 32,))({"events": []})][0][:33]
    "export: no event has hash 'ababab"
    """

    def contains_hashes(doc: Any) -> list[Problem]:
        present = {e.get("hash") for e in doc["events"] if isinstance(e, dict)}
        return [
            Problem(
                None, None, f"no event has hash {h!r} (the export was cut or rewritten)", "chain"
            )
            for h in hashes
            if h not in present
        ]

    return contains_hashes


def expect_commitment(expected: str) -> Checker:
    """A checker: the export's commitment is the one you were shown when the bout began (on
    the console, in chat, on a HUD), so its server seed was not changed afterwards. An export
    rewritten from a new seed (every face and hash recomputed) holds together by itself;
    only what a player kept from before can show it.

    >>> found = expect_commitment("ab" * 32)({"fairness": {"commitment": "cd" * 32}})
    >>> print(found[0])  # doctest: +NORMALIZE_WHITESPACE
    fairness: the export's commitment 'cdcdcdcdcdcd...' is not 'abababababab...', the one you
    were shown (the export was rewritten from another seed)
    """

    def same_commitment(doc: Any) -> list[Problem]:
        found = doc["fairness"].get("commitment")
        if found == expected:
            return []
        shown = f"{found[:12]}..." if isinstance(found, str) else found
        message = (
            f"the export's commitment {shown!r} is not {expected[:12] + '...'!r}, the one you "
            "were shown (the export was rewritten from another seed)"
        )
        return [Problem(None, None, message, "commitment")]

    return same_commitment


def expect_event_hash(seq: int, expected: str) -> Checker:
    """A checker: the event at `seq` has the hash you kept of it (`--expect-hash SEQ:HASH`),
    sharper than a hash anywhere in the export: it names the event that differs.

    >>> doc = {"events": [{"seq": 0, "type": "bout_opened", "hash": "cd" * 32}]}
    >>> print(expect_event_hash(0, "ab" * 32)(doc)[0])  # doctest: +ELLIPSIS
    event 0 (bout_opened): its hash 'cdcdcdcdcdcd...' is not 'abab...ab', the hash you kept of it...
    >>> print(expect_event_hash(7, "ab" * 32)(doc)[0])  # doctest: +ELLIPSIS
    export: no event 7, whose hash 'abab...ab' you kept (the export was cut or rewritten)
    """

    def same_event_hash(doc: Any) -> list[Problem]:
        for event in doc["events"]:
            if not isinstance(event, dict) or not same_json(event.get("seq"), seq):
                continue
            found = event.get("hash")
            if found == expected:
                return []
            kind = event.get("type")
            message = (
                f"its hash {short_hash(found)} is not {expected!r}, the hash you kept of it "
                "(the export was rewritten)"
            )
            return [Problem(seq, kind if isinstance(kind, str) else None, message, "chain")]
        message = (
            f"no event {seq}, whose hash {expected!r} you kept (the export was cut or rewritten)"
        )
        return [Problem(None, None, message, "chain")]

    return same_event_hash


def expect_client_seed(expected: str) -> Checker:
    """A checker: the export's client seed is the one you were shown (`--expect-client-seed`),
    or it followed by `:` and more parts (fighters who joined after you looked). A rewrite
    from another referee part holds together by itself; the client seed you saw shows it.

    >>> check = expect_client_seed("gm:tarl")
    >>> check({"fairness": {"client_seed": "gm:tarl:orc"}})
    []
    >>> found = check({"fairness": {"client_seed": "forged:tarl:orc"}})
    >>> print(found[0])  # doctest: +NORMALIZE_WHITESPACE
    export: the export's client seed 'forged:tarl:orc' is neither 'gm:tarl', the one you were
    shown, nor it followed by ':' and more parts (the export was rewritten)
    """

    def same_client_seed(doc: Any) -> list[Problem]:
        found = doc["fairness"].get("client_seed")
        if found == expected or (isinstance(found, str) and found.startswith(f"{expected}:")):
            return []
        message = (
            f"the export's client seed {shown(found)} is neither {shown(expected)}, the one you "
            "were shown, nor it followed by ':' and more parts (the export was rewritten)"
        )
        return [Problem(None, None, message, "client seed")]

    return same_client_seed


def expect_bout(asked: str) -> Checker:
    """A checker: the export is of bout `asked` (`--bout`), the one you mean to check.

    >>> print(expect_bout("b1")({"bout": {"id": "b2", "name": "Other"}})[0])
    export: this export is of bout 'b2' ('Other'), not of bout 'b1', the one asked for (--bout)
    """

    def same_bout(doc: Any) -> list[Problem]:
        if same_json(doc["bout"].get("id"), asked):
            return []
        message = (
            f"this export is of {bout_words(doc['bout'])}, not of bout {shown(asked)}, the one "
            "asked for (--bout)"
        )
        return [Problem(None, None, message, "bout")]

    return same_bout


def bout_words(bout: Mapping[str, Any]) -> str:
    """The bout as its export names it: `bout 'b1' ('Spar')` (text from the export quoted as
    both verifiers quote it)."""
    name = f" ({shown(bout['name'])})" if isinstance(bout.get("name"), str) else ""
    return f"bout {shown(bout.get('id'))}{name}"


def checked_line(doc: Any, asked: str | None) -> str:
    """The report's first line: which bout was checked, and whether it is the one asked for.

    >>> checked_line({"bout": {"id": "b1", "name": "Spar", "system": "msv"}}, None)
    "checked bout 'b1' ('Spar', msv)"
    >>> checked_line({"bout": {"id": "b2", "name": "Other"}}, "b1")
    "checked bout 'b2' ('Other'), NOT bout 'b1', the one asked for (--bout)"
    """
    bout = doc["bout"]
    said = [shown(bout["name"])] if isinstance(bout.get("name"), str) else []
    if isinstance(bout.get("system"), str):
        said.append(shown(bout["system"])[1:-1])
    line = f"checked bout {shown(bout.get('id'))}" + (f" ({', '.join(said)})" if said else "")
    if asked is None:
        return line
    if same_json(bout.get("id"), asked):
        return f"{line}, the bout asked for (--bout)"
    return f"{line}, NOT bout {shown(asked)}, the one asked for (--bout)"


def short_hash(value: Any) -> str:
    return repr(f"{value[:12]}...") if isinstance(value, str) else shown(value)


def hex64(option: str, value: str) -> str:
    if not is_hex64(value.strip().lower()):
        raise NotationError(f"{option} {value!r} is not 64 hex characters")
    return value.strip().lower()


#: A run of 64 hex digits standing alone (not part of a longer run).
_HEX64_RUN = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{64}(?![0-9A-Fa-f])")


#: `SEQ:HASH`, the form the web console copies (a sign or any number of digits too: an event
#: number that cannot be is an error or no such event, never a hash taken without its event).
_SEQ_HASH = re.compile(r"([+-]?[0-9]+):([0-9A-Fa-f]{64})")


#: Where a line says which event its hash is of: `(event 57)` (the Discord bot's closing line),
#: or `57:` before the hash. ASCII digits (`\d` is any script's).
_EVENT_OF = (
    re.compile(r"\(event ([0-9]+)\)"),
    re.compile(r"(?<![\w:+-])([0-9]+):[0-9A-Fa-f]{64}"),
)


#: The longest value `--expect-hash` reads (a pasted line).
MAX_KEPT_LINE = 2000


@dataclasses.dataclass(frozen=True, slots=True)
class KeptHash:
    """An event hash a player kept, and the event it is of when that was said (`seq`)."""

    hash: str
    seq: int | None = None

    def checker(self) -> Checker:
        """The check it asks for: that event with that hash, or that hash anywhere."""
        if self.seq is None:
            return expect_hashes((self.hash,))
        return expect_event_hash(self.seq, self.hash)


def kept_hash(value: str) -> KeptHash:
    """Read one `--expect-hash`: a bare hash (64 hex characters), `SEQ:HASH` (the event at SEQ
    must have it), or a whole line a client said (the Discord bot's `Head hash: H (event 57).
    Keep it: ...`, the Second Life HUD's `... its last event hash is H. Verify: ...`), from
    which its one hash, and its `(event N)`, are taken. NotationError otherwise.

    >>> kept_hash("AB" * 32) == KeptHash("ab" * 32)
    True
    >>> kept_hash("57:" + "ab" * 32).seq
    57
    >>> kept_hash(f"Head hash: {'ab' * 32} (event 57). Keep it: referee verify "
    ...           f"--expect-hash {'ab' * 32} checks any export of this bout against it.").seq
    57
    >>> kept_hash("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: --expect-hash 'nope' holds no event hash: give 64 hex ...
    """
    text = value.strip()
    quoted = repr(text if len(text) <= 80 else f"{text[:77]}...")
    if len(text) > MAX_KEPT_LINE:
        raise NotationError(f"--expect-hash {quoted} is longer than {MAX_KEPT_LINE} characters")
    if is_hex64(text.lower()):
        return KeptHash(text.lower())
    pair = _SEQ_HASH.fullmatch(text)
    if pair:
        if not pair[1].isdigit():
            raise NotationError(
                f"--expect-hash {quoted}: {pair[1]} is no event number (they run 0, 1, 2, ...)"
            )
        return KeptHash(pair[2].lower(), int(pair[1]))
    hashes = sorted({found.lower() for found in _HEX64_RUN.findall(text)})
    if not hashes:
        raise NotationError(
            f"--expect-hash {quoted} holds no event hash: give 64 hex characters, SEQ:HASH "
            "(e.g. 57:3f9a...c2), or the whole line that said it"
        )
    if len(hashes) > 1:
        raise NotationError(
            f"--expect-hash {quoted} holds {len(hashes)} different 64-hex values: give the event "
            "hash alone (or SEQ:HASH)"
        )
    seqs = sorted({int(found) for pattern in _EVENT_OF for found in pattern.findall(text)})
    if len(seqs) > 1:
        raise NotationError(
            f"--expect-hash {quoted} names {len(seqs)} events ({', '.join(map(str, seqs))}): "
            "give SEQ:HASH"
        )
    return KeptHash(hashes[0], seqs[0] if seqs else None)


#: The longest client seed the service keeps.
MAX_CLIENT_SEED = 2000


def client_seed_given(value: str) -> str:
    """Read `--expect-client-seed`: the client seed you were shown, its parts (1 or more
    characters, no control character) joined by `:`. NotationError otherwise.

    >>> client_seed_given("gm:tarl-7")
    'gm:tarl-7'
    >>> client_seed_given("gm::x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.NotationError: --expect-client-seed 'gm::x' is not a client seed: ...
    """
    parts = value.split(":")
    if (
        not value
        or len(value) > MAX_CLIENT_SEED
        or not all(parts)
        or any(ord(ch) < 32 or ord(ch) == 127 for ch in value)
    ):
        quoted = repr(value if len(value) <= 80 else f"{value[:77]}...")
        raise NotationError(
            f"--expect-client-seed {quoted} is not a client seed: its parts (1 or more "
            "characters each, no control characters) are joined by ':'"
        )
    return value


def bout_given(value: str) -> str:
    """Read `--bout`: a bout id (1 to 200 characters, no control character).

    >>> bout_given("b1")
    'b1'
    """
    if not value or len(value) > 200 or any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise NotationError(f"--bout {value[:80]!r} is not a bout id")
    return value


def held_to(report: Report, doc: Any, checkers: Sequence[tuple[str, Checker]]) -> Report:
    """The report with what you kept checked too (`--bout`, `--expect-*`): each `(name,
    checker)` runs whatever the chain says (unlike the rules, which wait for a sound chain),
    its problems sorted in with the others (the export's own first, then by event)."""
    if not checkers:
        return report
    found: list[Problem] = []
    for _, checker in checkers:
        found += checker(doc)
    positions: dict[int, int] = {}
    for position, event in enumerate(doc["events"]):
        seq = event.get("seq") if isinstance(event, dict) else None
        if type(seq) is int:
            positions.setdefault(seq, position)

    def key(problem: Problem) -> tuple[int, int]:
        if problem.seq is None:
            return (0, 0)
        if type(problem.seq) is not int:
            return (2, 0)
        return (1, positions.get(problem.seq, problem.seq))

    names = tuple(dict.fromkeys(name for name, _ in checkers))
    return dataclasses.replace(
        report,
        problems=tuple(sorted((*report.problems, *found), key=key)),
        checks=(*report.checks, *names),
    )
