"""Request bodies of the HTTP API (they also make its OpenAPI schema)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from referee.errors import RuleError

Name = Field(min_length=1, max_length=40)

#: Bounds of every value a request may carry (documented in docs/api.md). The rule systems
#: check their own ranges on top (MSV: CS 0..100; SRP: the pack's ranges for a sheet).
MAX_CS = 100
MAX_WOUNDS = 10_000
MAX_NUMBER = 1_000_000
MAX_TEXT = 200
MAX_ITEMS = 100
MAX_DEPTH = 4
MAX_SEQ = 100_000


def bounded(value: Any, where: str = "value", depth: int = 0) -> Any:
    """`value` when every part of it is within the stated bounds, else RuleError (400).

    Whole numbers within +-MAX_NUMBER, texts of at most MAX_TEXT characters, lists and
    objects of at most MAX_ITEMS entries nested at most MAX_DEPTH deep.

    >>> bounded({"target": "Orc", "path": [[150, 0]]})
    {'target': 'Orc', 'path': [[150, 0]]}
    >>> bounded({"modifier": 10**30})
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: value.modifier is out of range (a whole number within +-1000000)
    """
    if depth > MAX_DEPTH:
        raise RuleError(f"{where} is nested more than {MAX_DEPTH} deep")
    if isinstance(value, bool) or value is None:
        return value
    value = whole(value)
    if isinstance(value, int):
        if not -MAX_NUMBER <= value <= MAX_NUMBER:
            raise RuleError(f"{where} is out of range (a whole number within +-{MAX_NUMBER})")
        return value
    if isinstance(value, float):
        raise RuleError(f"{where} must be a whole number, not a fraction")
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise RuleError(f"{where} is longer than {MAX_TEXT} characters")
        return value
    if isinstance(value, list | dict):
        if len(value) > MAX_ITEMS:
            raise RuleError(f"{where} has more than {MAX_ITEMS} entries")
        if isinstance(value, list):
            return [bounded(item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value)]
        out = {}
        for k, item in value.items():
            bounded(k, f"{where} key", depth + 1)
            out[k] = bounded(item, f"{where}.{k}", depth + 1)
        return out
    raise RuleError(f"{where} is not JSON")


def whole(value: Any) -> Any:
    """A float that is a whole number (JSON `62.0`, an integer to JSON Schema) as an int.

    >>> whole(62.0), whole(62.5), whole(7)
    (62, 62.5, 7)
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def whole_numbers(value: Any) -> Any:
    """`value` with every float in it that is a whole number as an int, at any depth (a rule
    pack's values, which the rule system checks itself: `15.0` is 15, `15.5` stays for it to
    refuse).

    >>> whole_numbers({"band_width": 15.0, "tables": [[1.0, 2.5]], "name": "x"})
    {'band_width': 15, 'tables': [[1, 2.5]], 'name': 'x'}
    """
    if isinstance(value, dict):
        return {k: whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [whole_numbers(v) for v in value]
    return whole(value)


#: A rule pack as a request gives it: the rule system bounds its keys and values; its whole
#: numbers may be written `15.0`, as every whole number of a request may.
RulePack = Annotated[dict[str, Any], BeforeValidator(whole_numbers)]

#: Whole numbers given as `62` or `62.0` (not `"62"`, not `true`, not `62.5`), within bounds.
#: (The bounds come before the validator, or the schema would not show them.)
CS = Annotated[int, Field(ge=0, le=MAX_CS, strict=True), BeforeValidator(whole)]
Wounds = Annotated[int, Field(ge=0, le=MAX_WOUNDS, strict=True), BeforeValidator(whole)]
Seq = Annotated[int, Field(ge=0, le=MAX_SEQ, strict=True), BeforeValidator(whole)]


def value_schema(depth: int = 1) -> dict[str, Any]:
    """The JSON schema of exactly what `bounded` accepts at `depth` (an object's values are at
    its depth + 1): null, booleans, whole numbers within +-MAX_NUMBER, texts of at most
    MAX_TEXT characters, and lists and objects of at most MAX_ITEMS entries whose entries are
    such values, nested at most MAX_DEPTH deep (at MAX_DEPTH a list or object is empty)."""
    inner = value_schema(depth + 1) if depth < MAX_DEPTH else None
    items = MAX_ITEMS if inner is not None else 0
    array: dict[str, Any] = {"type": "array", "maxItems": items}
    mapping: dict[str, Any] = {
        "type": "object",
        "maxProperties": items,
        "propertyNames": {"maxLength": MAX_TEXT},
    }
    if inner is not None:
        array["items"] = inner
        mapping["additionalProperties"] = inner
    return {
        "anyOf": [
            {"type": "null"},
            {"type": "boolean"},
            {"type": "integer", "minimum": -MAX_NUMBER, "maximum": MAX_NUMBER},
            {"type": "string", "maxLength": MAX_TEXT},
            array,
            mapping,
        ]
    }


def object_schema(max_items: int = MAX_ITEMS) -> dict[str, Any]:
    """The JSON schema of an object `bounded` accepts at depth 0 (options, a sheet)."""
    return {
        "type": "object",
        "maxProperties": max_items,
        "propertyNames": {"maxLength": MAX_TEXT},
        "additionalProperties": value_schema(1),
    }


#: An object of bounded values (see `bounded`), with a schema that says exactly that.
BoundedObject = Annotated[dict[str, Any], WithJsonSchema(object_schema())]
#: At most this many options in an attack (besides attacker and target).
MAX_OPTIONS = 20


def _attack_schema(schema: dict[str, Any]) -> None:
    """An attack's options are its extra fields: bounded values, at most MAX_OPTIONS."""
    schema["additionalProperties"] = value_schema(1)
    schema["maxProperties"] = MAX_OPTIONS + 2
    schema["propertyNames"] = {"maxLength": MAX_TEXT}


class Strict(BaseModel):
    """Unknown fields are an error, not silently dropped."""

    model_config = ConfigDict(extra="forbid")


class CreateBout(Strict):
    """`{"system": "msv"|"srp", "name", "client_seed"?, "rules"?: {...}, "dialect"?}`."""

    system: str = Field(min_length=1, max_length=32, examples=["msv"])
    name: str = Field(min_length=1, max_length=40, examples=["Spar at the Tarn Cot"])
    client_seed: str | None = Field(default=None, min_length=1, max_length=64)
    rules: RulePack | None = None
    dialect: str | None = Field(
        default=None, max_length=16, examples=["roll20", "onlinehost", "d20"]
    )
    """The dice notation of the bout's rolls (default roll20; docs/dice.md)."""


class AddFighter(Strict):
    """A fighter: MSV gives `cs`; SRP gives a `sheet`; either may give `stats` directly."""

    name: str = Name
    cs: CS | None = Field(default=None, examples=[65])
    sheet: BoundedObject | None = None
    side: str | None = Field(default=None, min_length=1, max_length=40)
    hidden: list[str] = Field(default_factory=list, max_length=20)
    client_seed: str | None = Field(default=None, min_length=1, max_length=64)

    @field_validator("sheet")
    @classmethod
    def _bounded_sheet(cls, value: Any) -> Any:
        return bounded(value, "sheet")

    def stats(self) -> dict[str, Any]:
        """The stats the rule system checks."""
        if self.cs is not None and self.sheet is not None:
            raise RuleError("give either cs (MSV) or sheet (SRP), not both")
        if self.cs is not None:
            return {"cs": self.cs}
        if self.sheet is not None:
            return dict(self.sheet)
        raise RuleError("a fighter needs cs (MSV) or sheet (SRP)")


class UpdateFighter(Strict):
    """The referee's update: new stat values and/or wounds, conditions to clear, and why."""

    cs: CS | None = None
    sheet: BoundedObject | None = None
    wounds: Wounds | None = None
    reason: str = Field(default="", max_length=MAX_TEXT)
    clear: list[str] = Field(default_factory=list, max_length=20)

    @field_validator("sheet")
    @classmethod
    def _bounded_sheet(cls, value: Any) -> Any:
        return bounded(value, "sheet")

    def stats(self) -> dict[str, Any]:
        """The stats to change (may be empty when only wounds change)."""
        out: dict[str, Any] = dict(self.sheet or {})
        if self.cs is not None:
            out["cs"] = self.cs
        return out


class Reveal(Strict):
    """Which hidden stats to reveal (all when empty)."""

    keys: list[str] = Field(default_factory=list, max_length=20)


class Attack(BaseModel):
    """`{"attacker", "target"}` plus any options the rule system reads (SRP: defend, rear, ...)."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_attack_schema)

    attacker: str = Name
    target: str = Name

    @model_validator(mode="after")
    def _bounded(self) -> Attack:
        if not self.__pydantic_extra__:  # no options (most attacks): nothing to bound
            return self
        if len(self.model_extra or {}) > MAX_OPTIONS:
            raise ValueError(f"an attack takes at most {MAX_OPTIONS} options")
        extra = bounded(dict(self.model_extra or {}), "options")
        if self.__pydantic_extra__ is not None:
            self.__pydantic_extra__.update(extra)
        return self

    def options(self) -> dict[str, Any]:
        """The target and every extra field, as the rule system's options."""
        extra = dict(self.model_extra or {})
        return {"target": self.target, **extra}


class Action(Strict):
    """`{"actor", "kind", "options"}`: any action of the bout's rule system."""

    actor: str = Name
    kind: str = Field(min_length=1, max_length=32, examples=["shoot"])
    options: BoundedObject = Field(default_factory=dict)

    @field_validator("options")
    @classmethod
    def _bounded_options(cls, value: Any) -> Any:
        return bounded(value, "options")


class FreeRoll(Strict):
    """`{"dice": "2d20+1d6"}`: any dice notation the CLI rolls, under the same limits."""

    dice: str = Field(min_length=1, max_length=256, examples=["1d100", "2d20+1d6"])
    actor: str | None = Field(default=None, min_length=1, max_length=40)


class End(Strict):
    """The winning side (or none) and why."""

    winner: str | None = Field(default=None, max_length=40)
    reason: str | None = Field(default=None, max_length=200)


class Override(Strict):
    """Replace the wounds of outcome event `of`: `{"wounds": {"Tarl": 3}, "note": "..."}`."""

    of: Seq
    wounds: dict[str, Wounds] = Field(max_length=20)
    note: str = Field(default="", max_length=200)


#: Most minutes of play one request lets pass (a week).
MAX_MINUTES = 7 * 24 * 60
Minutes = Annotated[int, Field(ge=0, le=MAX_MINUTES, strict=True), BeforeValidator(whole)]


class PassTime(Strict):
    """`{"minutes": 60, "reason": "a rest at the inn"}`: play time passes (the evening's)."""

    minutes: Minutes
    reason: str = Field(min_length=1, max_length=MAX_TEXT)


class Change(Strict):
    """One change of a fighter between fights, with its reason (`heal` takes hits back,
    `wounds` sets them, `sheet` changes stats, `clear` ends conditions)."""

    fighter: str = Name
    reason: str = Field(min_length=1, max_length=MAX_TEXT)
    heal: Wounds | None = None
    wounds: Wounds | None = None
    sheet: BoundedObject | None = None
    clear: list[str] = Field(default_factory=list, max_length=20)

    @field_validator("sheet")
    @classmethod
    def _bounded_sheet(cls, value: Any) -> Any:
        return bounded(value, "sheet")


class NextFight(Strict):
    """The next fight of an evening: its name (default: the last one's), the play time that
    passes first and why, the referee's changes, and who is left behind."""

    name: str | None = Field(default=None, min_length=1, max_length=40)
    minutes: Minutes = 0
    reason: str = Field(default="", max_length=MAX_TEXT)
    changes: list[Change] = Field(default_factory=list, max_length=MAX_ITEMS)
    leave: list[str] = Field(default_factory=list, max_length=20)
    client_seed: str | None = Field(default=None, min_length=1, max_length=64)
