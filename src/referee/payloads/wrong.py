"""Whether a payload from outside (an export, a stored row) fits its declared shape, and if
not, which key does not (`wrong_key` -> `Wrong`): each field against its declared JSON type,
the JSON Schema's (`referee.payloads.schema`), nested shapes in turn. Each shape's checks are
made once and kept. `Shape.given(payload).wrong()` asks it (`referee.payloads.fields`).
"""

from __future__ import annotations

import enum
import json
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from referee.payloads.declared import ShapeBase, pick


@dataclass(frozen=True, slots=True)
class Wrong:
    """A key of a payload from outside that does not fit its declared shape: its path in the
    payload (`rounds[0].cs`; empty: the payload itself), the value (`missing`: none) and what
    the shape declares."""

    key: str
    value: Any
    expected: str
    missing: bool = False

    def __str__(self) -> str:
        where = f"payload key {self.key!r}" if self.key else "the payload"
        if self.missing:
            return f"{where} is missing ({self.expected})"
        return f"{where} is {_shown(self.value)}, not {self.expected}"


def _shown(value: Any) -> str:
    """A value as a problem shows it: short and printable (text quoted, anything else as
    JSON with escapes)."""
    if isinstance(value, str) and value.isascii() and value.isprintable():
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=True)
        except (TypeError, ValueError):
            text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def wrong_key(shape: type[ShapeBase], payload: Mapping[str, Any], at: str = "") -> Wrong | None:
    """The first declared key of `payload` (in declared order, nested shapes in turn) that is
    missing or does not hold its declared JSON type; keys the shape does not declare are not
    looked at (an export may carry more). Each shape's checks are made once and kept.

    >>> from referee.payloads.fields import Shape, public
    >>> @dataclass(frozen=True, slots=True)
    ... class Order(Shape):
    ...     names: tuple[str, ...] = public()
    >>> str(wrong_key(Order, {"names": ["Tarl", 7]}))
    "payload key 'names[1]' is 7, not text"
    """
    found = _shape_wrong(shape, payload)
    return found if found is None or not at else _at(at, found)


#: A check of one value: what is wrong with it (its `key` the path below the value), or None.
_Check = Callable[[Any], "Wrong | None"]
#: Each shape's fields as checked: JSON key, required, omitted when null, check, expectation.
_Plan = tuple[tuple[str, bool, bool, _Check, str], ...]
_PLANS: dict[type[ShapeBase], _Plan] = {}
_CHECKS: dict[Any, _Check] = {}


def _at(prefix: str, wrong: Wrong) -> Wrong:
    return Wrong(prefix + wrong.key, wrong.value, wrong.expected, wrong.missing)


def _shape_wrong(shape: type[ShapeBase], payload: Mapping[str, Any]) -> Wrong | None:
    plan = _PLANS.get(shape)
    if plan is None:
        plan = _PLANS[shape] = tuple(
            (d.name, d.required, d.omit, _check(d.kind), expected(d.kind)) for d in shape.declared()
        )
    for name, required, omit, check, expecting in plan:
        if name not in payload:
            if required:
                return Wrong(name, None, expecting, missing=True)
            continue
        value = payload[name]
        if value is None and omit:
            continue
        found = check(value)
        if found is not None:
            return _at(name, found)
    return None


def _check(kind: Any) -> _Check:
    """The check of a field of type `kind` (made once per type)."""
    try:
        found = _CHECKS.get(kind)
    except TypeError:  # a type that cannot be a key: made each time
        return _make_check(kind)
    if found is None:
        found = _CHECKS[kind] = _make_check(kind)
    return found


def _none(value: Any) -> Wrong | None:
    return None


def _make_check(kind: Any) -> _Check:
    if _is_any(kind):
        return _none
    if kind is type(None) or kind is None:
        return lambda v: None if v is None else Wrong("", v, "null")
    if kind is bool:
        return lambda v: None if isinstance(v, bool) else Wrong("", v, "true or false")
    if kind is int:
        return lambda v: (
            None
            if isinstance(v, int) and not isinstance(v, bool)
            else Wrong("", v, "a whole number")
        )
    if kind is str:
        return lambda v: None if isinstance(v, str) else Wrong("", v, "text")
    words = expected(kind)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        known = [m.value for m in kind]
        return lambda v: None if v in known else Wrong("", v, words)
    if isinstance(kind, type) and issubclass(kind, ShapeBase):
        return _object_check((kind,))
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        shapes = tuple(a for a in args if isinstance(a, type) and issubclass(a, ShapeBase))
        of_shape = _object_check(shapes) if shapes else None
        others = tuple(_check(a) for a in args)

        def union(value: Any) -> Wrong | None:
            if of_shape is not None and isinstance(value, Mapping):
                return of_shape(value)
            if any(check(value) is None for check in others):
                return None
            return Wrong("", value, words)

        return union
    if origin in (tuple, list):
        item = _check(args[0] if args else Any)

        def each_item(value: Any) -> Wrong | None:
            if not isinstance(value, list):
                return Wrong("", value, words)
            for i, one in enumerate(value):
                found = item(one)
                if found is not None:
                    return _at(f"[{i}]", found)
            return None

        return each_item
    if origin in (dict, Mapping) or kind is dict:
        inner = _check(args[1] if len(args) == 2 else Any)

        def each_value(value: Any) -> Wrong | None:
            if not isinstance(value, Mapping):
                return Wrong("", value, "an object")
            for name, one in value.items():
                found = inner(one)
                if found is not None:
                    return _at(f".{name}", found)
            return None

        return each_value
    return _none


def _object_check(shapes: tuple[type[ShapeBase], ...]) -> _Check:
    """An object of one of `shapes` (told apart by its keys, `pick`), checked field by field."""

    def check(value: Any) -> Wrong | None:
        if not isinstance(value, Mapping):
            return Wrong("", value, "an object")
        chosen = pick(shapes, value) if len(shapes) > 1 else shapes[0]
        found = _shape_wrong(chosen or shapes[0], value)
        return None if found is None else _at(".", found)

    return check


def _is_any(kind: Any) -> bool:
    """Whether a field's type takes any JSON value (`Any`, `referee.vocabulary.JSON`)."""
    if kind is Any:
        return True
    args = typing.get_args(kind)
    return {bool, int, str, type(None)} <= set(args) and any(
        typing.get_origin(a) is list for a in args
    )


def expected(kind: Any) -> str:
    """What a field of type `kind` holds, in words.

    >>> expected(int | None), expected(tuple[str, ...])
    ('a whole number or null', 'a list of text')
    """
    if _is_any(kind):
        return "any JSON value"
    words = {bool: "true or false", int: "a whole number", str: "text", type(None): "null"}
    if kind in words:
        return words[kind]
    if kind is None:
        return "null"
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return "one of " + ", ".join(repr(m.value) for m in kind)
    if isinstance(kind, type) and issubclass(kind, ShapeBase):
        return "an object"
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(dict.fromkeys(expected(a) for a in args))
    if origin in (tuple, list):
        return f"a list of {_plural(expected(args[0]))}" if args else "a list"
    return "an object"


def _plural(words: str) -> str:
    return {
        "a whole number": "whole numbers",
        "an object": "objects",
        "true or false": "true or false",
    }.get(words, words)
