"""How a payload shape is declared: frozen dataclasses whose fields say who may see them.

A shape is a frozen dataclass (`Shape` is its base). Each field is declared with `public()`,
`hidden()` or `private(...)` (`Visibility` says what each means; the declarations are
`referee.payloads.declared`'s, the checks of a payload from outside
`referee.payloads.wrong`'s, and this module names them all), and
may be left out of the JSON when it has no value (`omit=True`: written only when not None).
A field's type is a JSON type (`int`, `str`, `bool`, `None`, a tuple of them, `JSON`, a
mapping of text to JSON) or another shape, or a tuple of shapes; a union of shapes (`A | B`)
is told apart by the keys an object has.

`to_json` writes a shape's value as an event holds it (declared order, no floats);
`read(payload)` reads an event's payload back into its shape without checking it (the fold
trusts the chain), by the shape's own `__init__`. A payload from outside (an export, a stored
row) is read with `given(payload)` (`Given`): each declared field as given, whatever it holds,
and `wrong()`, the first key that does not fit its declared JSON type (the JSON Schema's,
`schema`).

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
>>> given = Hit.given({"target": "Tarl", "roll": "47"})
>>> given.target, given.cs, given.has("cs")
('Tarl', None, False)
>>> str(given.wrong())
"payload key 'roll' is '47', not a whole number"
"""

from __future__ import annotations

import enum
import operator
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, TypeVar

from referee.payloads.declared import (
    Declared,
    ShapeBase,
    Visibility,
    hidden,
    pick,
    private,
    public,
)
from referee.payloads.wrong import Wrong, expected, wrong_key
from referee.vocabulary import JSON

__all__ = [
    "Declared",
    "Given",
    "Shape",
    "ShapeBase",
    "Visibility",
    "Wrong",
    "expected",
    "hidden",
    "pick",
    "private",
    "public",
    "shapes_in",
    "wrong_key",
]

S = TypeVar("S", bound="Shape")


class Shape(ShapeBase):
    """The base of every payload shape (a frozen dataclass with declared fields): its fields
    as declared (`ShapeBase`), written as JSON (`to_json`), read back from an event's payload
    (`read`) and from one from outside (`given`)."""

    __slots__ = ()

    def to_json(self) -> dict[str, JSON]:
        """The shape as an event's payload: declared order, optional fields only when set."""
        plan: _JsonPlan | None = type(self).__dict__.get("_json_plan")
        if plan is None:
            plan = _json_plan(type(self))
        keys, values = plan
        out: dict[str, JSON] = {}
        for (name, omit), value in zip(keys, values(self), strict=True):
            if type(value) in _AS_IS:  # text, a whole number, true or false: JSON already
                out[name] = value
            elif value is not None or not omit:
                out[name] = _json(value)
        return out

    @classmethod
    def read(cls: type[S], payload: Mapping[str, Any]) -> S:
        """The payload as this shape, unchecked, made by the shape's own `__init__`: a
        required key missing is a KeyError; keys the shape does not declare are not read (an
        export may carry more)."""
        plan: _ReadPlan | None = cls.__dict__.get("_read_plan")
        if plan is None:
            plan = _read_plan(cls)
        values: dict[str, Any] = {}
        for name, attribute, required, shapes in plan:
            if name in payload:
                value = payload[name]
                values[attribute] = value if not shapes else _read_shapes(shapes, value)
            elif required:
                raise KeyError(name)
        return cls(**values)

    @classmethod
    def given(cls: type[S], payload: object) -> Given[S]:
        """A payload from outside read by this shape's declared fields, unchecked (`Given`)."""
        reader = cls.__dict__.get("_given_class")
        if reader is None:
            reader = _given_class(cls)
            type.__setattr__(cls, "_given_class", reader)
        given: Given[S] = reader(cls, payload)
        return given


class Given(Generic[S]):
    """A payload from outside (an export, a stored row) read by its shape's declared fields.

    Each declared field is an attribute holding the value as given, whatever its type, or None
    when the key is absent (`has` tells the two apart); a field the shape does not declare is an
    AttributeError, so a key is named in its shape and nowhere else. `wrong()` is the first
    declared key that does not fit its JSON type; `read()` the shape itself once it fits.
    A payload that is not an object is read as one with no keys (`is_object` says which).
    """

    __slots__ = ("_payload", "_raw", "_shape", "is_object")
    #: Each declared field's JSON key, by attribute (set on each shape's own `Given` class).
    _names: ClassVar[Mapping[str, str]] = {}

    def __init__(self, shape: type[S], payload: object) -> None:
        self._shape = shape
        self._raw = payload
        self._payload: Mapping[str, Any] = {}
        self.is_object = False
        # A dict is a Mapping; asking `isinstance` about the ABC costs more than the exact type.
        if type(payload) is dict or isinstance(payload, Mapping):
            self._payload, self.is_object = payload, True

    def _key(self, attribute: str) -> str:
        try:
            return self._names[attribute]
        except KeyError:
            raise AttributeError(
                f"{self._shape.__name__} declares no field {attribute!r}"
            ) from None

    def __getattr__(self, attribute: str) -> Any:
        # Reached only for a name that is no declared field: each declared one is a property
        # of the shape's own `Given` class (`_given_class`).
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return self._payload.get(self._key(attribute))

    @property
    def payload(self) -> Mapping[str, Any]:
        """The payload as given (an empty one when it was not an object)."""
        return self._payload

    def has(self, attribute: str) -> bool:
        """Whether the payload has the key of this declared field (even if it holds null)."""
        return self._key(attribute) in self._payload

    def wrong(self) -> Wrong | None:
        """The first declared key, in declared order, missing or not of its declared type."""
        if not self.is_object:
            return Wrong("", self._raw, "an object")
        return wrong_key(self._shape, self._payload)

    def read(self) -> S | None:
        """The payload as its shape once every declared key fits it, else None."""
        return self._shape.read(self._payload) if self.wrong() is None else None


def _given_class(shape: type[Shape]) -> type[Given[Any]]:
    """The `Given` class of one shape: each declared field a property reading its key."""
    names = {d.attribute: d.name for d in shape.declared()}

    def field(key: str) -> property:
        return property(lambda self: self._payload.get(key), doc=f"The payload's {key!r}.")

    members: dict[str, Any] = {"__slots__": (), "_names": names}
    members.update((attribute, field(key)) for attribute, key in names.items())
    return type(f"Given{shape.__name__}", (Given,), members)


#: A shape's fields as `to_json` writes them: each JSON key and whether it is left out when
#: None, in declared order, and what reads their values off a shape, all at once.
_JsonPlan = tuple[tuple[tuple[str, bool], ...], Callable[[Any], tuple[Any, ...]]]

#: The types of values that are JSON as they are (a subclass, such as an enum, is not here:
#: `_json` writes it).
_AS_IS = frozenset({str, int, bool})


def _json_plan(shape: type[Shape]) -> _JsonPlan:
    """`to_json`'s plan of a shape, made once: an `attrgetter` reads every field in one call
    (it gives a tuple only for two or more, so a shape of fewer reads them one by one)."""
    declared = shape.declared()
    attributes = [d.attribute for d in declared]
    values: Callable[[Any], tuple[Any, ...]] = (
        operator.attrgetter(*attributes)
        if len(attributes) > 1
        else lambda shaped: tuple(getattr(shaped, a) for a in attributes)
    )
    plan: _JsonPlan = (tuple((d.name, d.omit) for d in declared), values)
    type.__setattr__(shape, "_json_plan", plan)
    return plan


def _json(value: Any) -> JSON:
    """A field's value as JSON: a shape as its payload, a tuple as a list, an enum as its
    value. `found` is typed JSON so that no `typing.cast` is called (it is a function)."""
    found: JSON
    if type(value) in _AS_IS or value is None:
        found = value
        return found
    if isinstance(value, Shape):
        return value.to_json()
    if isinstance(value, tuple | list):
        return [_json(v) for v in value]
    found = value.value if isinstance(value, enum.Enum) else value
    return found


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


#: How `read` makes one shape: each field's JSON key, attribute, whether the payload must have
#: it, and the shapes it may hold, in declared order.
_ReadPlan = tuple[tuple[str, str, bool, tuple[type[Shape], ...]], ...]


def _read_plan(shape: type[Shape]) -> _ReadPlan:
    """`read`'s plan of a shape, made once."""
    plan: _ReadPlan = tuple(
        (d.name, d.attribute, d.required, shapes_in(d.kind)) for d in shape.declared()
    )
    type.__setattr__(shape, "_read_plan", plan)
    return plan


def _read_shapes(shapes: tuple[type[Shape], ...], value: Any) -> Any:
    """A field's value read as the shapes it may hold (a list of them as a tuple)."""
    if isinstance(value, list):
        return tuple(_read_shapes(shapes, v) for v in value)
    if isinstance(value, Mapping):
        shape = pick(shapes, value)
        return value if shape is None else shape.read(value)
    return value
