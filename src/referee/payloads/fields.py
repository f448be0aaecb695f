"""How a payload shape is declared: frozen dataclasses whose fields say who may see them.

A shape is a frozen dataclass (`Shape` is its base). Each field is declared with `public()`,
`hidden()` or `private(...)` (`referee.payloads.fields.Visibility` says what each means), and
may be left out of the JSON when it has no value (`omit=True`: written only when not None).
A field's type is a JSON type (`int`, `str`, `bool`, `None`, a tuple of them, `JSON`, a
mapping of text to JSON) or another shape, or a tuple of shapes; a union of shapes (`A | B`)
is told apart by the keys an object has.

`to_json` writes a shape's value as an event holds it (declared order, no floats);
`read(payload)` reads an event's payload back into its shape without checking it (the fold
trusts the chain; the verifiers check untrusted text with the JSON Schema, `schema`).

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True, slots=True)
... class Hit(Shape):
...     target: str = public()
...     roll: int = public()
...     cs: int = hidden()
...     note: str | None = public(omit=True)
>>> Hit("Tarl", 47, 65).to_json()
{'target': 'Tarl', 'roll': 47, 'cs': 65}
>>> Hit.read({"target": "Tarl", "roll": 47, "cs": 65, "note": "ow"}).note
'ow'
>>> [(f.name, f.visibility.value) for f in Hit.declared()][:3]
[('target', 'public'), ('roll', 'public'), ('cs', 'hidden')]
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from referee.vocabulary import JSON


class Visibility(enum.Enum):
    """Who may see a payload field while some fighter keeps stats hidden (SRP-10)."""

    PUBLIC = "public"
    """Everyone sees it, always: who did what to whom, the dice, what they read as."""
    HIDDEN = "hidden"
    """Hidden until the reveal: worked out from a hidden stat (an effective skill, the armor
    that stopped a blow). Left out for everyone but the referee while the event names a
    fighter with hidden stats; shown whole once they are revealed or the bout is closed."""
    PRIVATE = "private"
    """Private to one fighter: the value of that fighter's own stat (its `owner` field names
    the fighter). Said "hidden" to everyone but the referee while that stat is hidden."""


@dataclass(frozen=True, slots=True)
class Declared:
    """One field of a shape as declared: its JSON name, who sees it, whether it may be left
    out, and for a private field whose stat it is.

    `owner` names the field that holds the fighter's name; `stat` is the stat's name, or
    `stat_field` the field that holds it, or neither (the value is a map of the fighter's
    stats, each said "hidden" that is hidden).
    """

    name: str
    attribute: str
    visibility: Visibility
    omit: bool = False
    owner: str | None = None
    stat: str | None = None
    stat_field: str | None = None
    kind: Any = None
    required: bool = True


_META = "payload"


def _field(declared: dict[str, Any], default: Any) -> Any:
    if default is dataclasses.MISSING:
        return dataclasses.field(metadata={_META: declared})
    return dataclasses.field(default=default, metadata={_META: declared})


def public(
    *, omit: bool = False, name: str | None = None, default: Any = dataclasses.MISSING
) -> Any:
    """A field everyone sees (`omit`: left out of the JSON when None; `name`: its JSON key
    when that is no Python name, as `voided`'s `from`)."""
    return _field(
        {"visibility": Visibility.PUBLIC, "omit": omit, "name": name},
        None if omit and default is dataclasses.MISSING else default,
    )


def hidden(*, omit: bool = False, default: Any = dataclasses.MISSING) -> Any:
    """A field worked out from hidden stats: left out while the event names a fighter with
    hidden stats (`Visibility.HIDDEN`)."""
    return _field(
        {"visibility": Visibility.HIDDEN, "omit": omit},
        None if omit and default is dataclasses.MISSING else default,
    )


def private(
    owner: str,
    *,
    stat: str | None = None,
    stat_field: str | None = None,
    omit: bool = False,
    default: Any = dataclasses.MISSING,
) -> Any:
    """A value of one fighter's stats (`Visibility.PRIVATE`): `owner` is the field naming the
    fighter; the stat is `stat`, or the one `stat_field` names, or (neither) each key of a map
    of stats."""
    return _field(
        {
            "visibility": Visibility.PRIVATE,
            "omit": omit,
            "owner": owner,
            "stat": stat,
            "stat_field": stat_field,
        },
        None if omit and default is dataclasses.MISSING else default,
    )


S = TypeVar("S", bound="Shape")


class Shape:
    """The base of every payload shape (a frozen dataclass with declared fields)."""

    __slots__ = ()
    #: An outcome is the rules' reading of the fighters' stats: while it names a fighter with
    #: hidden stats it keeps only its public fields, whatever they are (`referee.payloads`).
    redact_when_named: ClassVar[bool] = False
    _declared: ClassVar[tuple[Declared, ...]]

    @classmethod
    def declared(cls) -> tuple[Declared, ...]:
        """Every field of the shape as declared, in order."""
        found = cls.__dict__.get("_declared_cache")
        if found is None:
            found = _declare(cls)
            type.__setattr__(cls, "_declared_cache", found)
        return typing.cast(tuple[Declared, ...], found)

    @classmethod
    def field(cls, name: str) -> Declared | None:
        """The declared field whose JSON key is `name`, or None."""
        for declared in cls.declared():
            if declared.name == name:
                return declared
        return None

    def to_json(self) -> dict[str, JSON]:
        """The shape as an event's payload: declared order, optional fields only when set."""
        out: dict[str, JSON] = {}
        for declared in type(self).declared():
            value = getattr(self, declared.attribute)
            if value is None and declared.omit:
                continue
            out[declared.name] = _json(value)
        return out

    @classmethod
    def read(cls: type[S], payload: Mapping[str, Any]) -> S:
        """The payload as this shape, unchecked: a required key missing is a KeyError; keys
        the shape does not declare are not read (an export may carry more)."""
        plan = cls.__dict__.get("_read_plan")
        if plan is None:
            plan = tuple(
                (d.name, d.attribute, d.required, d.kind if shapes_in(d.kind) else None)
                for d in cls.declared()
            )
            type.__setattr__(cls, "_read_plan", plan)
        values: dict[str, Any] = {}
        for name, attribute, required, nested in plan:
            if name in payload:
                value = payload[name]
                values[attribute] = value if nested is None else _read(nested, value)
            elif required:
                raise KeyError(name)
        return cls(**values)


def _declare(cls: type) -> tuple[Declared, ...]:
    hints = typing.get_type_hints(cls, include_extras=False)
    out = []
    for f in dataclasses.fields(cls):
        meta = f.metadata.get(_META)
        if meta is None:
            raise TypeError(f"{cls.__name__}.{f.name} is not declared public, hidden or private")
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        out.append(
            Declared(
                name=meta.get("name") or f.name,
                attribute=f.name,
                visibility=meta["visibility"],
                omit=meta["omit"],
                owner=meta.get("owner"),
                stat=meta.get("stat"),
                stat_field=meta.get("stat_field"),
                kind=hints[f.name],
                required=required,
            )
        )
    return tuple(out)


def _json(value: Any) -> JSON:
    if isinstance(value, Shape):
        return value.to_json()
    if isinstance(value, tuple | list):
        return [_json(v) for v in value]
    if isinstance(value, enum.Enum):
        return typing.cast(JSON, value.value)
    return typing.cast(JSON, value)


def shapes_in(kind: Any) -> tuple[type[Shape], ...]:
    """The shapes a field's type names: itself, the members of a union, a tuple's items.

    >>> shapes_in(int)
    ()
    """
    if isinstance(kind, type) and issubclass(kind, Shape):
        return (kind,)
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType, tuple, list):
        found: list[type[Shape]] = []
        for arg in typing.get_args(kind):
            found += [s for s in shapes_in(arg) if s not in found]
        return tuple(found)
    return ()


def pick(variants: tuple[type[Shape], ...], value: Mapping[str, Any]) -> type[Shape] | None:
    """The shape of a union that an object is: the first whose required keys it all has and
    whose keys are all declared; else the first whose required keys it has."""
    fitting = [s for s in variants if all(d.name in value for d in s.declared() if d.required)]
    for shape in fitting:
        names = {d.name for d in shape.declared()}
        if set(value) <= names:
            return shape
    return fitting[0] if fitting else None


def _read(kind: Any, value: Any) -> Any:
    shapes = shapes_in(kind)
    if not shapes:
        return value
    if isinstance(value, list):
        return tuple(_read(kind, v) for v in value)
    if isinstance(value, Mapping):
        shape = pick(shapes, value)
        return value if shape is None else shape.read(value)
    return value
