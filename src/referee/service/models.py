"""Request bodies of the HTTP API (they also make its OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from referee.errors import RuleError

Name = Field(min_length=1, max_length=40)


class Strict(BaseModel):
    """Unknown fields are an error, not silently dropped."""

    model_config = ConfigDict(extra="forbid")


class CreateBout(Strict):
    """`{"system": "msv"|"srp", "name", "client_seed"?, "rules"?: {...}, "dialect"?}`."""

    system: str = Field(min_length=1, max_length=32, examples=["msv"])
    name: str = Field(min_length=1, max_length=40, examples=["Spar at the Tarn Cot"])
    client_seed: str | None = Field(default=None, min_length=1, max_length=64)
    rules: dict[str, Any] | None = None
    dialect: str | None = Field(
        default=None, max_length=16, examples=["roll20", "onlinehost", "d20"]
    )
    """The dice notation of the bout's rolls (default roll20; docs/dice.md)."""


class AddFighter(Strict):
    """A fighter: MSV gives `cs`; SRP gives a `sheet`; either may give `stats` directly."""

    name: str = Name
    cs: int | None = Field(default=None, examples=[65])
    sheet: dict[str, Any] | None = None
    side: str | None = Field(default=None, min_length=1, max_length=40)
    hidden: list[str] = Field(default_factory=list, max_length=20)
    client_seed: str | None = Field(default=None, min_length=1, max_length=64)

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
    """The referee's update: new stat values and/or wounds."""

    cs: int | None = None
    sheet: dict[str, Any] | None = None
    wounds: int | None = Field(default=None, ge=0)

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

    model_config = ConfigDict(extra="allow")

    attacker: str = Name
    target: str = Name

    def options(self) -> dict[str, Any]:
        """The target and every extra field, as the rule system's options."""
        extra = dict(self.model_extra or {})
        return {"target": self.target, **extra}


class Action(Strict):
    """`{"actor", "kind", "options"}`: any action of the bout's rule system."""

    actor: str = Name
    kind: str = Field(min_length=1, max_length=32, examples=["shoot"])
    options: dict[str, Any] = Field(default_factory=dict)


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

    of: int = Field(ge=0)
    wounds: dict[str, int] = Field(max_length=20)
    note: str = Field(default="", max_length=200)
