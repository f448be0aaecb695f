"""The rule-system protocol: one class with a few hooks, plus a registry.

The bout engine (`referee.bout`) calls these hooks and never asks which system it
runs. A system is pure: it reads the bout's state, draws dice only from the `rng`
it is given, and returns an `Outcome` record; it never prints or stores anything.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from referee.errors import NotFoundError
from referee.payloads import Shape
from referee.rng import Rng
from referee.vocabulary import JSON as JSON  # the rule-system API names it too

if TYPE_CHECKING:
    from referee.bout.state import BoutState, Fighter


@dataclass(frozen=True, slots=True)
class Wound:
    """Damage a fighter takes: MSV damage points, SRP hits."""

    target: str
    amount: int


@dataclass(frozen=True, slots=True)
class ConditionChange:
    """Set a condition on a fighter for some of its turns (None: until cleared), or clear it.

    `rounds=0` clears the condition.
    """

    target: str
    condition: str
    rounds: int | None = 1


@dataclass(frozen=True, slots=True)
class StatChange:
    """A change to one entry of a fighter's stats (position, facing, mounted, PM, ...)."""

    target: str
    key: str
    value: JSON


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one action did, as the rules decided it. The engine turns it into events.

    `payload` is the full interpretation, in the shape the system declares for `kind`
    (`RuleSystem.outcomes`: whole numbers, text, booleans, never floats), `summary` one line a
    HUD can say in chat.
    """

    kind: str
    payload: Shape
    summary: str
    wounds: tuple[Wound, ...] = ()
    conditions: tuple[ConditionChange, ...] = ()
    stats: tuple[StatChange, ...] = ()
    extra_action: bool = False
    uses_turn: bool = True


@dataclass(frozen=True, slots=True)
class Initiative:
    """A settled turn order, with every roll (and reroll) recorded in `payload`, in the shape
    the system declares (`RuleSystem.initiative_detail`)."""

    order: tuple[str, ...]
    payload: Shape


class RuleSystem(ABC):
    """One rule system: metadata plus the hooks the bout engine calls.

    Subclasses set `name` and `title` and implement the abstract hooks;
    `find_system(name)` is the whole registry.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    #: The action kinds `act` accepts, e.g. ("attack",) for MSV.
    actions: ClassVar[tuple[str, ...]]
    #: Each action kind's outcome shape (`referee.payloads`): the fields `act` writes for it,
    #: and which of them stay public while a fighter the outcome names has hidden stats
    #: (SRP-10). The engine refuses an outcome of another shape.
    outcomes: ClassVar[Mapping[str, type[Shape]]]
    #: The shape of an initiative's `detail` (its rolls and what settled the order).
    initiative_detail: ClassVar[type[Shape]]
    #: What a sentence calls one wound and several (MSV: damage; SRP: hit, hits).
    wound_words: ClassVar[tuple[str, str]] = ("wound", "wounds")
    #: Conditions as people read them, where the name does not say it (`referee.sentences`).
    condition_words: ClassVar[Mapping[str, str]] = {}
    #: The dice a player types to attack (MSV: "1d100", read as a roll line), or None when the
    #: system throws an attack's dice itself (SRP).
    typed_attack: ClassVar[str | None] = None
    #: The one stat a fighter may join with, typed as a whole number (MSV: "cs"), or None when a
    #: fighter joins with a whole sheet (SRP).
    join_stat: ClassVar[str | None] = None
    #: What a fighter's hidden stats are called in a sentence ("its CS hidden").
    hidden_words: ClassVar[str] = "its stats"

    def __init__(self, rules: Mapping[str, Any] | None = None) -> None:
        self.rules: dict[str, JSON] = self.load_rules(rules or {})

    @abstractmethod
    def load_rules(self, data: Mapping[str, Any]) -> dict[str, JSON]:
        """Validate a rule pack (as read from TOML); return it complete, defaults filled in."""

    @abstractmethod
    def check_stats(self, stats: Mapping[str, Any]) -> dict[str, JSON]:
        """Validate a fighter's stats (MSV: cs; SRP: a sheet); return them normalized."""

    @abstractmethod
    def initiative(self, fighters: Sequence[Fighter], rng: Rng) -> Initiative:
        """Settle the turn order of the given (living) fighters.

        Each fighter's die comes from its own stream, `fighter_dice(rng, name)`
        (`referee.rng.streams`), so that nobody's roll moves another fighter's dice."""

    @abstractmethod
    def act(
        self,
        bout: BoutState,
        actor: str,
        kind: str,
        options: Mapping[str, Any],
        rng: Rng,
    ) -> Outcome:
        """Resolve one action of `actor` (e.g. kind "attack" with options {"target": name}).

        `rng` is the actor's own dice stream: every die of the action comes from it."""

    @abstractmethod
    def defeat_threshold(self, fighter: Fighter) -> int:
        """Wounds at which this fighter is defeated (MSV-7: 15; SRP-9: the sheet's hit total)."""

    def hidden_stats(self) -> tuple[str, ...]:
        """Stats that may be hidden from the public view until revealed (SRP-10)."""
        return ()

    @classmethod
    def describe_stats(cls, stats: Mapping[str, Any]) -> str:
        """A fighter's or a saved character's stats in a few words, for people."""
        return ", ".join(f"{key} {value}" for key, value in stats.items())

    def blocked(self, fighter: Fighter, kind: str) -> str | None:
        """Why `fighter` may not take an action of `kind` now (a condition), or None."""
        return None

    def recovered(self, fighter: Fighter, clock: int) -> tuple[dict[str, JSON], str] | None:
        """What play time up to minute `clock` of the evening restores by itself (SRP-17: 0 PM
        an hour after passing out), as stats to change and the reason; None: nothing."""
        return None

    def refuse_change(self, fighter: Fighter, stats: Mapping[str, Any], clock: int) -> str | None:
        """Why the referee's change of `fighter`'s stats to `stats` at minute `clock` breaks a
        rule of time (SRP-17: no 0 PM within the hour), or None."""
        return None


_REGISTRY: dict[str, type[RuleSystem]] = {}


def register(system: type[RuleSystem]) -> type[RuleSystem]:
    """Class decorator adding a rule system to the registry under its `name`."""
    _REGISTRY[system.name] = system
    return system


def system_names() -> tuple[str, ...]:
    """The names of every registered rule system.

    >>> isinstance(system_names(), tuple)
    True
    """
    _load_builtin()
    return tuple(sorted(_REGISTRY))


def find_system(name: str) -> type[RuleSystem]:
    """The rule system registered under `name`, or NotFoundError naming the known ones."""
    _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise NotFoundError(f"unknown rule system {name!r} (known: {known})") from None


#: The built-in systems' modules, imported (and so registered) on first use.
_BUILTIN = ("referee.systems.msv.system", "referee.systems.srp.system")
_loaded: list[str] = []


def _load_builtin() -> None:
    """Import the built-in systems once: after that every one is registered, and a lookup
    (once per request, say) is a dictionary's, not two `import_module` calls."""
    if len(_loaded) == len(_BUILTIN):
        return
    import importlib

    for module in _BUILTIN:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:
            if not err.name or not module.startswith(err.name):
                raise  # a missing dependency inside the module, not the module itself
        if module not in _loaded:
            _loaded.append(module)
