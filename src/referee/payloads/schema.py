"""Every event's payload as JSON Schema (2020-12), made from the declared shapes.

`event_schema(systems)` describes a ledger event (`seq`, `type`, `actor`, `at`, `payload`,
`prev`, `hash`) with the payload of each type; an outcome's and an initiative's rule-system
part are listed per system under `x-outcomes` and `x-initiatives` (an event alone does not
say its bout's system: a reader takes it from the bout's opening event). Each property says
who may see it (`x-visibility`: public, hidden or private; a private one its `x-owner`).

The web console serves the schema (static/schema/events.json, checked against this by the
tests) and the browser verifier's tests load it to check every event they verify.

>>> from referee.payloads.events import Roll
>>> shape_schema(Roll)["properties"]["faces"]
{'type': 'array', 'items': {'type': 'integer'}, 'x-visibility': 'public'}
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Mapping
from typing import Any

from referee.payloads.events import DIE_PATTERN, MAX_DICE_PER_ROLL, SHAPES, Roll
from referee.payloads.fields import Declared, Shape, shapes_in
from referee.vocabulary import EVENT_TYPES

#: Where the schema is published, and what it calls itself.
SCHEMA_ID = "https://referee.invalid/schema/events.json"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


#: What a field must hold beyond its JSON type: a roll's dice, as the verifiers bound them.
_MORE: Mapping[tuple[type[Shape], str], Mapping[str, Any]] = {
    (Roll, "dice"): {
        "minItems": 1,
        "maxItems": MAX_DICE_PER_ROLL,
        "items": {"type": "string", "pattern": DIE_PATTERN},
    },
}


def type_schema(kind: Any) -> dict[str, Any]:
    """The JSON Schema of one field's Python type.

    >>> type_schema(int | None)
    {'type': ['integer', 'null']}
    >>> type_schema(tuple[str, ...])
    {'type': 'array', 'items': {'type': 'string'}}
    """
    if kind is type(None) or kind is None:
        return {"type": "null"}
    simple = {bool: "boolean", int: "integer", str: "string"}
    if kind in simple:
        return {"type": simple[kind]}
    if isinstance(kind, type) and issubclass(kind, Shape):
        return {"$ref": f"#/$defs/{_name(kind)}"}
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return {"enum": [m.value for m in kind]}
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        if _is_json(args):
            return {}
        parts = [type_schema(a) for a in args]
        if all(set(p) == {"type"} and isinstance(p["type"], str) for p in parts):
            return {"type": [p["type"] for p in parts]}
        return {"anyOf": parts}
    if origin in (tuple, list):
        item = args[0] if (args and args[-1] is Ellipsis) or len(args) == 1 else Any
        return {"type": "array", "items": type_schema(item)}
    if origin in (dict, Mapping) or kind is dict:
        value = args[1] if len(args) == 2 else Any
        inner = type_schema(value)
        return {"type": "object", **({"additionalProperties": inner} if inner else {})}
    return {}


def _is_json(args: tuple[Any, ...]) -> bool:
    """Whether a union is `referee.vocabulary.JSON` (any JSON value)."""
    return {bool, int, str, type(None)} <= set(args) and any(
        typing.get_origin(a) is list for a in args
    )


def _name(shape: type[Shape]) -> str:
    return f"{shape.__module__.rsplit('.', 1)[0].rsplit('.', 1)[-1]}.{shape.__qualname__}"


def _property(declared: Declared, shape: type[Shape]) -> dict[str, Any]:
    out = type_schema(declared.kind)
    more = _MORE.get((shape, declared.name))
    if more:
        out = {**out, **more}
    out["x-visibility"] = declared.visibility.value
    if declared.owner is not None:
        out["x-owner"] = declared.owner
        if declared.stat is not None:
            out["x-stat"] = declared.stat
        if declared.stat_field is not None:
            out["x-stat-field"] = declared.stat_field
    return out


def shape_schema(shape: type[Shape]) -> dict[str, Any]:
    """One shape as a JSON Schema object."""
    declared = shape.declared()
    out: dict[str, Any] = {
        "type": "object",
        "properties": {d.name: _property(d, shape) for d in declared},
    }
    required = [d.name for d in declared if d.required]
    if required:
        out["required"] = required
    if shape.__doc__:
        out["description"] = " ".join(shape.__doc__.split())
    return out


def _defs(shapes: list[type[Shape]]) -> dict[str, Any]:
    """Every shape reachable from `shapes`, by name."""
    found: dict[str, Any] = {}
    todo = list(shapes)
    while todo:
        shape = todo.pop()
        name = _name(shape)
        if name in found:
            continue
        found[name] = shape_schema(shape)
        for d in shape.declared():
            todo += shapes_in(d.kind)
    return dict(sorted(found.items()))


def event_schema(
    outcomes: Mapping[str, Mapping[str, type[Shape]]],
    initiatives: Mapping[str, type[Shape]],
) -> dict[str, Any]:
    """The JSON Schema of a ledger event, each type's payload, and each system's parts."""
    every = [*SHAPES.values(), *initiatives.values()]
    every += [s for kinds in outcomes.values() for s in kinds.values()]
    by_type = [
        {
            "if": {"properties": {"type": {"const": kind}}},
            "then": {"properties": {"payload": {"$ref": f"#/$defs/{_name(SHAPES[kind])}"}}},
        }
        for kind in SHAPES
    ]
    return {
        "$schema": DRAFT,
        "$id": SCHEMA_ID,
        "title": "A referee ledger event",
        "type": "object",
        "required": ["seq", "type", "actor", "at", "payload", "prev", "hash"],
        "properties": {
            "seq": {"type": "integer", "minimum": 0},
            "type": {"enum": list(EVENT_TYPES)},
            "actor": {"type": "string"},
            "at": {"type": "string"},
            "payload": {"type": "object"},
            "prev": {"type": ["string", "null"]},
            "hash": {"type": ["string", "null"]},
        },
        "allOf": by_type,
        "x-outcomes": {
            system: {kind: {"$ref": f"#/$defs/{_name(s)}"} for kind, s in kinds.items()}
            for system, kinds in sorted(outcomes.items())
        },
        "x-initiatives": {
            system: {"$ref": f"#/$defs/{_name(s)}"} for system, s in sorted(initiatives.items())
        },
        "$defs": _defs(every),
    }
