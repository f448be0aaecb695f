"""Copies of frozen dataclasses with some fields changed, made by the class's own constructor.

`Record.of(cls)` reads a frozen dataclass's fields once, when the class is made (as
`dataclasses` writes the class's `__init__` then); `copy(value, changes)` is then
`dataclasses.replace(value, **changes)` without its checks and keyword call per copy: one call
of the class with every field, changed or as it was, in order. The fold copies a fighter for
many events, so that difference is most of a copy's cost. `drafts(base)` makes the class of
a record's drafts: mutable, with the same fields, made from a whole record and frozen into a
new one (`make`) when it is done, for whoever changes a record many times in a row.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True, slots=True)
... class Point:
...     x: int
...     y: int = 0
>>> POINT = Record.of(Point)
>>> POINT.copy(Point(1, 2), {"y": 5})
Point(x=1, y=5)
>>> POINT.names
('x', 'y')
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

R = TypeVar("R")
D = TypeVar("D")


@dataclass(frozen=True, slots=True)
class Record(Generic[R]):
    """How to make a frozen dataclass `kind` again: its fields' names in order, and one read of
    all their values off anything that has them (a `kind`, or a draft of one)."""

    kind: type[R]
    names: tuple[str, ...]
    values: Callable[[Any], tuple[Any, ...]]
    #: Each field's place in `names`.
    index: Mapping[str, int]

    @classmethod
    def of(cls, kind: type[R]) -> Record[R]:
        """The record of a dataclass whose fields are all given to `__init__` in order (TypeError
        for a field that is not, or is keyword-only)."""
        found = dataclasses.fields(kind)  # type: ignore[arg-type]
        for f in found:
            if not f.init or f.kw_only:
                raise TypeError(f"{kind.__name__}.{f.name} is not a positional field")
        names = tuple(f.name for f in found)
        if len(names) < 2:  # an attrgetter of one name gives the value, not a tuple
            raise TypeError(f"{kind.__name__} has fewer than two fields")
        return cls(kind, names, operator.attrgetter(*names), {n: i for i, n in enumerate(names)})

    def make(self, value: object) -> R:
        """A new `kind` holding the fields of `value` as they are."""
        return self.kind(*self.values(value))

    def copy(self, value: object, changes: Mapping[str, Any]) -> R:
        """A new `kind` holding the fields of `value`, but those named in `changes` (field
        names of `kind`; KeyError for another), which hold the values given there."""
        values = list(self.values(value))
        for name, changed in changes.items():
            values[self.index[name]] = changed
        return self.kind(*values)

    def drafts(self, base: type[D]) -> Callable[..., D]:
        """The class of `kind`'s drafts: `base` (whose own `__slots__` are empty) with a slot
        for each field of `kind` and the plain `__init__` that `dataclasses` writes for them,
        which takes every field in order (`Draft(*record.values(value))`)."""
        made: Callable[..., D] = dataclasses.make_dataclass(
            f"{self.kind.__name__}Draft",
            [(f.name, f.type) for f in dataclasses.fields(self.kind)],  # type: ignore[arg-type]
            bases=(base,),
            slots=True,
            eq=False,  # a draft changes: it is itself, not its fields' values
            namespace={"__module__": base.__module__},
        )
        return made
