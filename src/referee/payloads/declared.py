"""What a payload shape's fields declare: who may see each, its JSON key, whether it may be
left out (`Declared`, made by `public()`, `hidden()` and `private(...)`), and the root of every
shape (`ShapeBase`), which lists them (`declared()`).

`referee.payloads.fields` builds `Shape`, how a shape is written and read, on this;
`referee.payloads.wrong`, the checks of a payload from outside, reads only this.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar


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


class ShapeBase:
    """The root of every payload shape (a frozen dataclass with declared fields): what its
    fields declare. `Shape` (`referee.payloads.fields`) adds how it is written and read."""

    __slots__ = ()
    #: An outcome is the rules' reading of the fighters' stats: while it names a fighter with
    #: hidden stats it keeps only its public fields, whatever they are (`referee.payloads`).
    redact_when_named: ClassVar[bool] = False

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


#: A shape, or one of a union of them.
B = TypeVar("B", bound=ShapeBase)


def pick(variants: tuple[type[B], ...], value: Mapping[str, Any]) -> type[B] | None:
    """The shape of a union that an object is: the first whose required keys it all has and
    whose keys are all declared; else the first whose required keys it has."""
    fitting = [s for s in variants if all(d.name in value for d in s.declared() if d.required)]
    for shape in fitting:
        names = {d.name for d in shape.declared()}
        if set(value) <= names:
            return shape
    return fitting[0] if fitting else None
