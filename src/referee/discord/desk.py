"""The referee's desk for one chat platform: rolls, the table ledger and spars, by channel.

Nothing here knows Discord: a command comes in as who asked (`Person`), where (`Place`) and
its words; a `Reply` goes out (lines, an optional file, buttons, direct messages). Every
change goes through `RefereeService`, so a spar fought here is an ordinary bout: listed,
watched live in the web console, exported and verified like any other.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

from referee import chat as k
from referee.bout import commands as c
from referee.discord.character_keys import characters
from referee.discord.desk_base import REF as REF  # the names callers import from here
from referee.discord.desk_base import head_line as head_line
from referee.discord.desk_base import pairs as pairs
from referee.discord.desk_rolls import Rolls
from referee.discord.presses import press
from referee.discord.replies import Person, Place, Reply
from referee.errors import (
    ConflictError,
    NotationError,
    NotFoundError,
)
from referee.service.bouts import rule_system

R = TypeVar("R")
D = TypeVar("D")
#: The channels whose row the command running in this context holds (`Links.hold_channel`).
_HELD: ContextVar[frozenset[int]] = ContextVar("held_channels", default=frozenset())


def _one_unit(method: Callable[..., R]) -> Callable[..., R]:
    """The desk method as one unit of work: everything it stores, bout events and the bot's
    rows, is stored together or not at all (units nest: a call inside another joins it)."""

    @functools.wraps(method)
    def run(self: Desk, *args: Any, **kwargs: Any) -> R:
        place = args[0] if args and isinstance(args[0], Place) else None
        with self.service.unit():
            if place is None or place.channel in _HELD.get():
                return method(self, *args, **kwargs)
            self.links.hold_channel(place.channel, place.guild)  # one command per channel
            held = _HELD.set(_HELD.get() | {place.channel})
            try:
                return method(self, *args, **kwargs)
            finally:
                _HELD.reset(held)

    return run


def _units(cls: type[D]) -> type[D]:
    """Every public method of the desk, its parts' included, one unit of work each
    (`_one_unit`), set on the desk itself."""
    methods: dict[str, Any] = {}
    for part in reversed(cls.__mro__):  # a part's method gives way to the desk's own
        methods.update(
            (name, value)
            for name, value in vars(part).items()
            if not name.startswith("_") and inspect.isfunction(value)
        )
    for name, value in methods.items():
        setattr(cls, name, _one_unit(value))
    return cls


@_units
class Desk(Rolls):
    """Rolls and spars per channel, over one `Store`: each public method is one command, in
    one transaction (`_units`). Its parts, one module each: `desk_rolls`, `desk_spars`,
    `desk_ledgers` over `desk_base`; the proctor's powers are here.
    """

    def press(self, place: Place, who: Person, custom_id: str, values: Sequence[str]) -> Reply:
        """A button pressed or a menu's choice made (`referee.discord.presses.press`), one
        command of the channel: its turn is checked with the bout locked, in the unit its
        action is taken in."""
        return press(self, place, who, custom_id, values)

    # -- proctor powers ------------------------------------------------------------------

    def power(self, place: Place, who: Person, verb: str, args: str = "") -> Reply:
        """pause, resume, skip, void, cancel, end [SIDE]: the proctor's (the chat grammar's
        powers; `end` also closes the spar: its seed revealed, its export attached)."""
        if verb == "end":
            return self.end(place, who, args.strip() or None)
        if verb == "cancel":
            return self.run(place, who, k.Cancel())
        return self.run(place, who, k.Referee(k.Power(verb)))

    def add(
        self, place: Place, who: Person, name: str, user: int | None, cs: int, side: str | None
    ) -> Reply:
        """`~spar:add @user CS [SIDE]` or `~spar:add NAME CS`: the chat grammar's `add`."""
        return self.run(place, who, k.Add(name, cs, side), user=user)

    def npc(self, place: Place, who: Person, args: str) -> Reply:
        """`~spar:npc CHARACTER [on SIDE] [hidden]` (a saved character of the proctor's) or
        `~spar:npc NAME cs=70 [on SIDE] [hidden]` (stats given inline): a non-player fighter.
        `hidden` keeps its skills, defense and armor (SRP-10), or its CS (MSV), to the proctor
        until `~spar:reveal` or the close."""
        bout = self.bout_of(place)
        self.require_proctor(bout, who, "add fighters")
        words = args.split()
        hide = bool(words) and words[-1].lower() == "hidden"
        words = words[:-1] if hide else words
        side = None
        if "on" in [w.lower() for w in words]:
            cut = [w.lower() for w in words].index("on")
            words, side = words[:cut], " ".join(words[cut + 1 :])
            if not side:
                raise NotationError("say ~spar:npc NAME cs=70 [on SIDE] [hidden] (a side after on)")
        state = self.service.state(bout)
        inline = pairs([w for w in words if "=" in w])
        name = " ".join(w for w in words if "=" not in w)
        played: tuple[str, int] | None = None
        kept: tuple[str, ...] = ()
        if inline:
            if not name:
                raise NotationError("say ~spar:npc NAME cs=70 [on SIDE] [hidden]")
            chosen_name, stats = name, inline
        else:
            saved = [ch for ch in characters(self.links.store, who.id) if ch.system == state.system]
            chosen = [ch for ch in saved if ch.name.casefold() == name.casefold()]
            if not chosen:
                raise NotFoundError(
                    f"you have no {state.system.upper()} character called {name!r} (~char list)"
                )
            chosen_name, stats = chosen[0].name, dict(chosen[0].stats)
            if chosen[0].id is not None:
                played = (chosen[0].id, chosen[0].version)
            hide = hide or bool(chosen[0].hidden)
            kept = chosen[0].hidden
        rules = rule_system(state)
        hidden = tuple(dict.fromkeys((*kept, *rules.hidden_stats()))) if hide else ()
        part = self._seed_part(bout)
        self.service.add_fighter(
            bout, REF, chosen_name, stats, side, hidden, client_seed=part, character=played
        )
        if not hidden:  # a system joined by one stat says it; a whole sheet is not shown
            shown = f" ({rules.describe_stats(stats)})" if rules.join_stat else ""
        else:
            shown = f" ({rules.hidden_words} hidden)"
        lines = [f"{chosen_name} joins the spar{shown}, added by the proctor."]
        if hidden and inline and place.guild is not None:
            lines.append(
                "(Stats typed in a channel can be read there: for a secret NPC, save it with "
                "~char set in a direct message to the bot, then ~spar:npc NAME hidden.)"
            )
        return Reply(lines)

    def reveal(self, place: Place, who: Person, name: str, keys: Sequence[str] = ()) -> Reply:
        """`~spar:reveal NAME [KEY...]`: the proctor shows an NPC's hidden stats (all of them
        when no key is named) to everyone from now on (SRP-10)."""
        bout = self.bout_of(place)
        self.require_proctor(bout, who, "reveal hidden stats")
        self.service.command(bout, REF, c.Reveal(name, tuple(keys)))
        fighter = self.service.state(bout).fighter(name)
        shown = [k for k in (keys or sorted(fighter.stats)) if k in fighter.stats]
        values = ", ".join(f"{k} {json.dumps(fighter.stats[k])}" for k in shown)
        return Reply([f"The proctor reveals {name}'s stats: {values}."])

    def remove(self, place: Place, who: Person, name: str) -> Reply:
        """`~spar:remove @user`: the chat grammar's `remove NAME`."""
        return self.run(place, who, k.Remove(name))

    def update(self, place: Place, who: Person, name: str, options: dict[str, Any]) -> Reply:
        """`~spar:update @user key=value...` (wounds=3, cs=70): the chat grammar's `update`."""
        return self.run(place, who, k.Update(name, tuple(options.items())))

    def override(self, place: Place, who: Person, of: int | None, wounds: dict[str, Any]) -> Reply:
        """`~spar:override [SEQ] NAME=WOUNDS...`: replace an outcome's wounds (default: last)."""
        bout = self.bout_of(place)
        self.require_proctor(bout, who, "override")
        state = self.service.state(bout)
        seq = of if of is not None else state.last_outcome
        if seq is None:
            raise ConflictError("there is no outcome to override yet")
        if not wounds or not all(isinstance(v, int) for v in wounds.values()):
            raise NotationError("say ~spar:override NAME=WOUNDS (e.g. Tarl=0)")
        records = self.service.command(bout, REF, c.Override(seq, wounds))
        return self.answer(bout, records)

    def assign(self, place: Place, who: Person, user: int, name: str) -> Reply:
        """`~spar:assign @user`: hand the proctor's powers over."""
        bout = self.bout_of(place)
        self.require_proctor(bout, who, "hand the spar over")
        self.service.hand_over(bout, REF)
        self.links.hand_over(bout, user)
        self.links.set_member(bout, user, name=name)
        return Reply([f"{name} is the proctor now."])

    # -- people --------------------------------------------------------------------------
