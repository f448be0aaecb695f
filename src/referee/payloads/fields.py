"""How a payload shape is declared: frozen dataclasses whose fields say who may see them.

A shape is a frozen dataclass (`Shape` is its base). Each field is declared with `public()`,
`hidden()` or `private(...)` (`referee.payloads.fields.Visibility` says what each means), and
may be left out of the JSON when it has no value (`omit=True`: written only when not None).
A field's type is a JSON type (`int`, `str`, `bool`, `None`, a tuple of them, `JSON`, a
mapping of text to JSON) or another shape, or a tuple of shapes; a union of shapes (`A | B`)
is told apart by the keys an object has.

`to_json` writes a shape's value as an event holds it (declared order, no floats);
`read(payload)` reads an event's payload back into its shape without checking it (the fold
trusts the chain). A payload from outside (an export, a stored row) is read with
`given(payload)` (`Given`): each declared field as given, whatever it holds, and `wrong()`,
the first key that does not fit its declared JSON type (the JSON Schema's, `schema`).

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

import dataclasses
import enum
import json
import operator
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

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
        found: tuple[Declared, ...] | None = cls.__dict__.get("_declared_cache")
        if found is None:
            found = _declare(cls)
            type.__setattr__(cls, "_declared_cache", found)
        return found

    @classmethod
    def json_key(cls, attribute: str) -> str:
        """The JSON key of the declared field `attribute` (KeyError: none such).

        >>> from referee.payloads.events import Voided
        >>> Voided.json_key("first")
        'from'
        """
        return {d.attribute: d.name for d in cls.declared()}[attribute]

    @classmethod
    def field(cls, name: str) -> Declared | None:
        """The declared field whose JSON key is `name`, or None."""
        for declared in cls.declared():
            if declared.name == name:
                return declared
        return None

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
        """The payload as this shape, unchecked: a required key missing is a KeyError; keys
        the shape does not declare are not read (an export may carry more)."""
        plan: _ReadPlan | None = cls.__dict__.get("_read_plan")
        if plan is None:
            plan = _read_plan(cls)
        fields, direct = plan
        if not direct:  # a shape with more to its making (none is): by its `__init__`
            values: dict[str, Any] = {}
            for name, attribute, _, default, shapes in fields:
                if name in payload:
                    value = payload[name]
                    values[attribute] = value if not shapes else _read_shapes(shapes, value)
                elif default is _REQUIRED:
                    raise KeyError(name)
            return cls(**values)
        shaped = object.__new__(cls)  # a plain shape: its slots set as `__init__` would
        for name, _, put, default, shapes in fields:
            if name in payload:
                value = payload[name]
                put(shaped, value if not shapes else _read_shapes(shapes, value))
            elif default is _REQUIRED:
                raise KeyError(name)
            else:
                put(shaped, default)
        return shaped

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


def wrong_key(shape: type[Shape], payload: Mapping[str, Any], at: str = "") -> Wrong | None:
    """The first declared key of `payload` (in declared order, nested shapes in turn) that is
    missing or does not hold its declared JSON type; keys the shape does not declare are not
    looked at (an export may carry more). Each shape's checks are made once and kept.

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
_PLANS: dict[type[Shape], _Plan] = {}
_CHECKS: dict[Any, _Check] = {}


def _at(prefix: str, wrong: Wrong) -> Wrong:
    return Wrong(prefix + wrong.key, wrong.value, wrong.expected, wrong.missing)


def _shape_wrong(shape: type[Shape], payload: Mapping[str, Any]) -> Wrong | None:
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
    if isinstance(kind, type) and issubclass(kind, Shape):
        return _object_check((kind,))
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        shapes = tuple(a for a in args if isinstance(a, type) and issubclass(a, Shape))
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


def _object_check(shapes: tuple[type[Shape], ...]) -> _Check:
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
    if isinstance(kind, type) and issubclass(kind, Shape):
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


def pick(variants: tuple[type[Shape], ...], value: Mapping[str, Any]) -> type[Shape] | None:
    """The shape of a union that an object is: the first whose required keys it all has and
    whose keys are all declared; else the first whose required keys it has."""
    fitting = [s for s in variants if all(d.name in value for d in s.declared() if d.required)]
    for shape in fitting:
        names = {d.name for d in shape.declared()}
        if set(value) <= names:
            return shape
    return fitting[0] if fitting else None


#: The default of a field the payload must have.
_REQUIRED: Any = object()

#: How `read` makes one shape: each field's JSON key, attribute, what sets its slot, its
#: default (or `_REQUIRED`) and the shapes it may hold, in declared order; and whether the
#: slots may be set directly (`_read_plan`).
_ReadPlan = tuple[
    tuple[tuple[str, str, Callable[[Any, Any], None], Any, tuple[type[Shape], ...]], ...], bool
]


def _read_plan(shape: type[Shape]) -> _ReadPlan:
    """`read`'s plan of a shape, made once.

    A shape is a frozen dataclass with slots whose `__init__` only sets each field, given or
    its default; `read` then sets the slots itself (`object.__new__` and each slot's setter),
    the very thing that `__init__` does, without building its keyword arguments and calling
    it, which costs about twice as much. A shape with more to its making (`__post_init__`, a
    default factory, a field outside `__init__`) is made by its `__init__`."""
    declared = shape.declared()
    fields = {f.name: f for f in dataclasses.fields(typing.cast(Any, shape))}
    slots: list[Any] = [getattr(shape, d.attribute, None) for d in declared]
    direct = (
        not hasattr(shape, "__post_init__")
        and all(f.init and f.default_factory is dataclasses.MISSING for f in fields.values())
        and all(type(slot) is types.MemberDescriptorType for slot in slots)
    )
    plan: _ReadPlan = (
        tuple(
            (
                d.name,
                d.attribute,
                slot.__set__ if direct else _not_set,
                _REQUIRED if d.required else fields[d.attribute].default,
                shapes_in(d.kind),
            )
            for d, slot in zip(declared, slots, strict=True)
        ),
        direct,
    )
    type.__setattr__(shape, "_read_plan", plan)
    return plan


def _not_set(shaped: Any, value: Any) -> None:
    """The slot setter of a shape made by its `__init__` (never called)."""
    raise AssertionError("a shape made by its __init__ has no slot setters")


def _read_shapes(shapes: tuple[type[Shape], ...], value: Any) -> Any:
    """A field's value read as the shapes it may hold (a list of them as a tuple)."""
    if isinstance(value, list):
        return tuple(_read_shapes(shapes, v) for v in value)
    if isinstance(value, Mapping):
        shape = pick(shapes, value)
        return value if shape is None else shape.read(value)
    return value
