"""Reading TOML tables with errors that name the key (RulePackError)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from referee.errors import RulePackError

T = TypeVar("T")

_TYPE_NAMES = {bool: "true or false", str: "a string", dict: "a table", list: "a list"}


class Table:
    """One TOML table being read: typed getters, and `finish()` rejects unknown keys.

    >>> table = Table({"damage": 3}, "weapons.club")
    >>> table.integer("damage", 0)
    3
    >>> table.finish()
    """

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, Mapping):
            raise RulePackError(f"{where} = {data!r} is not a table")
        self.data: Mapping[str, Any] = data
        self.where = where
        self.used: set[str] = set()

    def names(self) -> list[str]:
        """Every key of the table (all counted as used)."""
        self.used.update(self.data)
        return list(self.data)

    def has(self, key: str) -> bool:
        """Whether the table gives `key`."""
        return key in self.data

    def get(self, key: str, kind: type[T], default: T) -> T:
        """The value of `key`, which must be of `kind` (bool, str, dict, list)."""
        self.used.add(key)
        if key not in self.data:
            return default
        value = self.data[key]
        if kind is not bool and isinstance(value, bool):
            value = None
        if not isinstance(value, kind):
            expected = _TYPE_NAMES.get(kind, kind.__name__)
            raise RulePackError(f"{self.where}.{key} = {self.data[key]!r} is not {expected}")
        return value

    def sub(self, mapping: Mapping[str, Any], key: str) -> Any:
        """An entry of a nested mapping (for tables of tables)."""
        return mapping[key]

    def integer(self, key: str, default: int, *, low: int = 0, high: int = 1000) -> int:
        """A whole number low..high."""
        self.used.add(key)
        if key not in self.data:
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise RulePackError(
                f"{self.where}.{key} = {value!r} is not a whole number {low}..{high}"
            )
        return value

    def number(self, key: str, default: float, *, low: float = -1e6, high: float = 1e6) -> float:
        """A number (int or float) low..high, as a float."""
        value = self.optional_number(key, low=low, high=high)
        return default if value is None else value

    def optional_number(self, key: str, *, low: float = 0.0, high: float = 1e6) -> float | None:
        """A number low..high, or None when the key is absent."""
        self.used.add(key)
        if key not in self.data:
            return None
        value = self.data[key]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not low <= value <= high
        ):
            raise RulePackError(f"{self.where}.{key} = {value!r} is not a number {low:g}..{high:g}")
        return float(value)

    def finish(self) -> None:
        """RulePackError for the first key nobody read (a typo, or a key this table lacks)."""
        for key in self.data:
            if key not in self.used:
                raise RulePackError(f"unknown key {self.where}.{key}")
