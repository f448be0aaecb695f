"""Canonical JSON and event hashes: the bytes every verifier must reproduce exactly.

An event's `hash` is SHA-256 (hex) of the canonical JSON of the event without its `hash`
key: keys sorted, no insignificant whitespace, UTF-8 kept as is (not escaped), and no
floats anywhere (a float's text is not portable between languages, so it cannot be hashed).

>>> canonical_json({"b": 1, "a": ["é", None, True]})
b'{"a":["\\xc3\\xa9",null,true],"b":1}'
>>> event_hash({"seq": 0, "hash": "ignored"}) == event_hash({"seq": 0})
True
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TypeGuard

from referee.errors import RuleError
from referee.ledger.printable import shown

#: The `prev` of event 0: 64 zeros.
GENESIS = "0" * 64

#: How deep JSON may nest inside an event (a stated bound for untrusted exports).
MAX_DEPTH = 32

_HEX64 = re.compile(r"[0-9a-f]{64}")
_AT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z", re.ASCII)


def check_json(value: Any, where: str = "event", depth: int = 0) -> None:
    """Raise RuleError unless `value` is plain JSON without floats (no NaN, no tuples, str keys).

    >>> check_json({"faces": [14, 3, 5]})
    >>> check_json({"damage": 1.5})
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: float 1.5 at event.damage: events hold no floats (use integers)
    """
    if _plain(value, depth):
        return
    _explain(value, where, depth)


def is_plain_json(value: Any) -> bool:
    """Whether `check_json(value)` passes, without building its message (`link` builds the
    place it names only for a payload that fails).

    >>> is_plain_json({"faces": [14, 3, 5]}), is_plain_json({"damage": 1.5})
    (True, False)
    """
    return _plain(value, 0)


def _plain(value: Any, depth: int) -> bool:
    """The fast check: no paths built, since almost every value passes.

    A container tests its text, whole numbers, booleans and nulls in place, by exact type: a
    call per item and `isinstance` (slow for the subclasses it must also allow) cost more than
    the test itself, and payloads are mostly such items. Anything else, a str or int subclass
    (an `EventType`) included, takes the general way through `_plain`, so the answer is the
    same as testing every item with `_plain`.
    """
    kind = type(value)
    if kind is dict:
        if depth >= MAX_DEPTH:
            return False
        for key, item in value.items():
            if type(key) is not str or not (key.isascii() or _encodable(key)):
                return False
            kind = type(item)
            if kind is str:
                if not (item.isascii() or _encodable(item)):
                    return False
            elif (kind is not int and kind is not bool and item is not None) and not _plain(
                item, depth + 1
            ):
                return False
        return True
    if kind is list:
        if depth >= MAX_DEPTH:
            return False
        for item in value:  # as for a dict's values
            kind = type(item)
            if kind is str:
                if not (item.isascii() or _encodable(item)):
                    return False
            elif (kind is not int and kind is not bool and item is not None) and not _plain(
                item, depth + 1
            ):
                return False
        return True
    if isinstance(value, str):  # EventType is a str too
        return value.isascii() or _encodable(value)
    return value is None or isinstance(value, int)  # bool is an int


def _explain(value: Any, where: str, depth: int) -> None:
    """The slow check, which says where the offending value is."""
    if depth > MAX_DEPTH:
        raise RuleError(f"JSON nested deeper than {MAX_DEPTH} levels at {where}")
    if isinstance(value, str) and not _encodable(value):
        raise RuleError(f"text at {where} has a lone surrogate (it is not valid Unicode)")
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        raise RuleError(f"float {shown(value)} at {where}: events hold no floats (use integers)")
    if isinstance(value, list):
        for i, item in enumerate(value):
            _explain(item, f"{where}[{i}]", depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise RuleError(f"key {shown(key)} at {where} is not a string")
            if not _encodable(key):
                raise RuleError(
                    f"key {shown(key)} at {where} has a lone surrogate (not valid Unicode)"
                )
            _explain(item, f"{where}.{key}", depth + 1)
        return
    raise RuleError(f"{type(value).__name__} {shown(value)} at {where} is not JSON")


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same value (strictly: `1`, `1.0` and `true` differ).

    >>> same_json({"a": [1, "x"]}, {"a": [1, "x"]}), same_json(1, True), same_json(1, 1.0)
    (True, False, False)
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    return bool(a == b)


def time_key(at: str) -> str:
    """A key that orders event times (`is_utc_time` ones) chronologically.

    The fraction has 1 to 6 digits, so plain text order is wrong ("12Z" sorts after "12.1Z").

    >>> time_key("2026-11-29T22:40:12Z") < time_key("2026-11-29T22:40:12.1Z")
    True
    """
    fraction = at[20:-1] if at[19] == "." else ""
    return at[:19] + fraction.ljust(6, "0")


def canonical_json(obj: Any) -> bytes:
    """The canonical encoding: sorted keys, `,` and `:` only, UTF-8, no floats.

    >>> canonical_json({"seq": 1, "type": "roll"})
    b'{"seq":1,"type":"roll"}'
    """
    check_json(obj, "value")
    return checked_canonical_json(obj)


def checked_canonical_json(obj: Any) -> bytes:
    """`canonical_json` of a value the caller has already passed through `check_json`
    (building or checking an event walks it once, not once more per encoding)."""
    return checked_canonical_text(obj).encode("utf-8")


def checked_canonical_text(obj: Any) -> str:
    """`checked_canonical_json` as text (what a store keeps of a payload).

    >>> checked_canonical_text({"b": ["é", None], "a": True})
    '{"a":true,"b":["é",null]}'
    """
    return _CANONICAL.encode(obj)


#: The one encoder of canonical JSON, made once (`json.dumps` makes a new one per call): the
#: settings of `json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`,
#: so the text is the same, without the check for a value that contains itself, since every
#: value it is given has passed `check_json`, which refuses nesting deeper than `MAX_DEPTH`
#: (so a cycle too).
_CANONICAL = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False
)


def event_hash(event: Mapping[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON of `event` with its `hash` key left out.

    >>> event_hash({"seq": 0, "hash": "x"})  # sha256(b'{"seq":0}')
    '0b4a4b8d8ded37902ac671f24db72af504765ef7016d8030dc18b71edd42d092'
    """
    body = {key: value for key, value in event.items() if key != "hash"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def checked_event_hash(event: Mapping[str, Any]) -> str:
    """`event_hash` of an event already passed through `check_json` as a whole."""
    body = {key: value for key, value in event.items() if key != "hash"}
    return hashlib.sha256(checked_canonical_json(body)).hexdigest()


def is_hex64(value: Any) -> TypeGuard[str]:
    """Whether `value` is 64 lowercase hex characters (a hash, a seed, a commitment).

    >>> is_hex64(GENESIS), is_hex64("ABC")
    (True, False)
    """
    return isinstance(value, str) and _HEX64.fullmatch(value) is not None


def is_utc_time(value: Any) -> bool:
    """Whether `value` is an RFC 3339 UTC time as events write it (`...T22:40:12.123456Z`).

    >>> is_utc_time("2026-11-29T22:40:12.123456Z"), is_utc_time("2026-11-29 22:40")
    (True, False)
    """
    # At most 27 characters (the regex's longest), so what is remembered stays small.
    return isinstance(value, str) and len(value) <= 27 and _is_utc_text(value)


@functools.lru_cache(maxsize=256)
def _is_utc_text(value: str) -> bool:
    """`is_utc_time` of a short string, remembered: every event of one write has the same
    time."""
    if _AT.fullmatch(value) is None:
        return False
    try:
        datetime.fromisoformat(value[:19])  # the regex fixed the shape; this checks the date
    except ValueError:
        return False
    return True


def utc_time(moment: datetime | None = None) -> str:
    """Format a moment (default: now) as events write it: RFC 3339, UTC, microseconds, `Z`.

    >>> utc_time(datetime(2026, 11, 29, 22, 40, 12, 123456, tzinfo=UTC))
    '2026-11-29T22:40:12.123456Z'
    """
    moment = datetime.now(UTC) if moment is None else moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
