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
import re
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

from referee import chat as k
from referee.bout import commands as c
from referee.bout.engine import MAX_LABEL, why_not
from referee.bout.names import MAX_NAME
from referee.bout.state import BoutState, Status
from referee.chat import Remove as ChatRemove
from referee.chat import Roster, parse_line
from referee.dice import DEFAULT_DIALECT, DIALECTS, parse, parse_chat, render, roll, write
from referee.dice import dialect as dice_dialect
from referee.dice import odds as exact_odds
from referee.dice.chat import format_host_line
from referee.dice.expr import Dice
from referee.discord import rolltables as rolls
from referee.discord.links import Links, Member
from referee.discord.odds import odds_message
from referee.discord.render import lines_for
from referee.discord.replies import Button, Person, Place, Reply
from referee.errors import (
    ConflictError,
    ForbiddenError,
    NotationError,
    NotFoundError,
    RefereeError,
)
from referee.keyvalue import read_pairs
from referee.numerals import is_whole
from referee.payloads import events as p
from referee.rng import SECURE_ENTROPY, Entropy, ScriptedRng
from referee.service.bouts import ANONYMOUS, Caller, RefereeService, failure_of, rule_system
from referee.service.chat import roster as chat_roster
from referee.service.chat import run_command
from referee.service.redaction import hidden_stats, redact_hidden
from referee.store import Role, Store
from referee.systems import find_system, system_names
from referee.systems.msv.old import die_score
from referee.vocabulary import EventType

#: The rule system of a spar opened without naming one, and of every table ledger (free rolls
#: only: its rules are never asked).
DEFAULT_SYSTEM = "msv"
#: The dice OnlineHost scores the Rhy'Din way (d20 to d100), least and most sides.
RHYDIN_SIDES = (20, 100)
#: Most items `~choose` picks from (one die of that many sides).
MAX_CHOICE_ITEMS = 100
#: Buttons under one answer (four rows of five; the fifth row holds the select menu).
MAX_BUTTONS = 20
#: Events after which an answer shows the score again.
SCORE_CHANGES = frozenset(
    {EventType.WOUND, EventType.OVERRIDDEN, EventType.VOIDED, EventType.FIGHTER_UPDATED}
)
#: Choices in one select menu (Discord's limit).
MAX_CHOICES = 25
SPECIAL_MENU = "Special action..."
#: SRP-16 special actions offered against each foe (unhorse only against a mounted one).
SRP_SPECIALS = (("disarm", "Disarm"), ("grapple", "Grapple"), ("entangle", "Entangle"),
                ("unhorse", "Unhorse"))  # fmt: skip
#: SRP-16 actions that undo a condition of the actor's: (condition, label, action); offered
#: when the rules allow them.
SRP_UNDO = (("grappled", "Break free", "break_free"), ("disarmed", "Pick up", "pick_up"),
            ("grappling", "Release", "release"), ("entangling", "Release", "release"))  # fmt: skip
REF = Caller(Role.REFEREE)
#: A table ledger's one fighter: the member whose ledger it is, who fights nobody there (MSV's
#: rules need a CS; 0 says it is none).
LEDGER_STATS = {"cs": 0}
#: Bytes of a client seed part the bot draws (written as 16 hex characters).
SEED_PART_BYTES = 8
#: Commands anyone in the channel may give (they read, and store nothing).
READ_ONLY = (k.Help, k.Status, k.Score, k.Odds)
#: The proctor's typed words, and what the refusal says only the proctor can do.
PROCTOR_VERBS = {"init": "begin the spar", "add": "add fighters", "update": "update fighters",
                 "pause": "pause", "resume": "resume", "skip": "skip", "void": "void",
                 "cancel": "cancel", "end": "end", "close": "close the spar"}  # fmt: skip
#: States in which a spar can still be ended.
LIVE = (Status.OPEN, Status.RUNNING, Status.PAUSED)
R = TypeVar("R")
D = TypeVar("D")
#: The channels whose row the command running in this context holds (`Links.hold_channel`).
_HELD: ContextVar[frozenset[int]] = ContextVar("held_channels", default=frozenset())


def match_name(text: str, names: Sequence[str]) -> str:
    """The fighter a typed name means, by the shared chat grammar (`referee.chat`):
    case-insensitive, no quotes, longest name first; none or two is an error listing them.

    >>> match_name("tarl cabot", ["Tarl", "Tarl Cabot"])
    'Tarl Cabot'
    """
    command = parse_line(f"remove {text}", Roster(tuple(names)))
    assert isinstance(command, ChatRemove)
    return command.name


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
    """Every public method of the desk, one unit of work each (`_one_unit`)."""
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(value):
            setattr(cls, name, _one_unit(value))
    return cls


@_units
class Desk:
    """Rolls and spars per channel, over one `Store`: each public method is one command, in
    one transaction (`_units`)."""

    def __init__(
        self, store: Store, public_url: str | None = None, entropy: Entropy = SECURE_ENTROPY
    ) -> None:
        """`entropy`: the server seeds' source, and of the client seed parts the bot draws for
        the fighters it adds (the OS's; tests pass a deterministic one)."""
        self.service = RefereeService(store, entropy=entropy)
        self.entropy = entropy
        self.links = Links(store)
        self.public_url = public_url.rstrip("/") if public_url else None

    # -- rolls ---------------------------------------------------------------------------

    def roll(self, place: Place, who: Person, text: str) -> Reply:
        """`~roll EXPR` / `~roll //roll -sides100 -dice1`: in MSV, on your turn, your attack."""
        text = text.strip() or "//roll"  # a bare ~roll is OnlineHost's bare //roll: 2d6
        chat = text.lower().startswith("//roll")
        expr, label = self._roll_and_label(text, chat, self.dialect_of(place))
        if chat:  # the host line must be able to name the roller before anything is rolled
            assert isinstance(expr, Dice)
            format_host_line(who.name, expr.sides, [1] * expr.count)
        attack = self._roll_as_attack(place, who, expr)
        if attack is not None:
            return attack
        table, roller = self._table(place, who)
        written = None if chat else write(expr, self.service.state(table).dialect)
        # One free roll of the member's in their table ledger, however many dice: one action
        # event with its label, a roll event per throw (the engine refuses what is too big,
        # before throwing), from the member's own stream (`free:NAME`).
        sides = tuple([expr.sides] * expr.count) if chat else ()
        command = c.FreeRoll(roller, sides, written or "", label)
        records = self.service.command(table, Caller(Role.FIGHTER, roller), command)
        rolls = [p.Roll.read(r["payload"]) for r in records if r["type"] == EventType.ROLL]
        faces = [int(f) for r in rolls for f in r.faces]
        nonces = ", ".join(str(r.nonce) for r in rolls)
        note = f" - {label}" if label else ""
        scored = rhydin_line([expr.sides] * expr.count, faces) if isinstance(expr, Dice) else None
        if written is None:
            line = format_host_line(who.name, expr.sides, faces)
            return Reply([f"{line} (nonce {nonces}){note}", *([scored] if scored else [])])
        failure = failure_of(records)
        if failure is not None:  # thrown and recorded, then it could not be settled
            return Reply([k.roll_line(who.name, written, faces, [r.nonce or 0 for r in rolls],
                                      failure) + note])  # fmt: skip
        dialect = self.service.state(table).dialect
        shown = render(roll(parse(written, dialect=dialect), rng=ScriptedRng(faces)))
        return Reply(
            [f"{who.name} rolls {shown} (nonce {nonces}){note}", *([scored] if scored else [])]
        )

    def choose(self, place: Place, who: Person, text: str) -> Reply:
        """`~choose item 1, item 2, ...`: one of the items, by a verifiable 1dN in the member's
        table ledger (N the number of items), as OnlineHost chooses; the items are the roll's label
        when they fit in one (else `choose 1 of N`). `~choose TABLE [+/-N]`: a roll on one of
        the server's tables (`~table`), the modifier added to the face."""
        if "," not in text and text.strip():
            return self._choose_from_table(place, who, text)
        items = [" ".join(item.split()) for item in text.split(",")]
        if len(items) < 2 or not all(items):
            raise NotationError("say ~choose item 1, item 2, ... (two or more, split by commas)")
        if len(items) > MAX_CHOICE_ITEMS:
            raise NotationError(f"~choose takes at most {MAX_CHOICE_ITEMS} items, got {len(items)}")
        listed = "choose: " + ", ".join(items)
        label = listed if len(listed) <= MAX_LABEL else f"choose 1 of {len(items)}"
        table, roller = self._table(place, who)
        command = c.FreeRoll(roller, (len(items),), "", label)
        records = self.service.command(table, Caller(Role.FIGHTER, roller), command)
        rolled = p.Roll.read(next(r for r in records if r["type"] == EventType.ROLL)["payload"])
        face = int(rolled.faces[0])
        line = format_host_line(who.name, len(items), [face])
        return Reply([f"{line} (nonce {rolled.nonce}) - {items[face - 1]}"])

    def _choose_from_table(self, place: Place, who: Person, text: str) -> Reply:
        words = text.split()
        modifier = 0
        if len(words) > 1 and re.fullmatch(r"[+-][0-9]{1,4}", words[-1]):
            modifier = int(words.pop())
        name = " ".join(words)
        table = self.links.roll_table(place.guild, name) if place.guild is not None else None
        if table is None:
            raise NotFoundError(
                f"no roll table called {name[:40]!r} on this server (~table list), and one "
                "item is no choice: ~choose item 1, item 2"
            )
        if not table.entries:
            raise ConflictError(f"table {table.name} has no entries yet (~table add)")
        label = f"choose from table {table.name}" + (f" {modifier:+d}" if modifier else "")
        ledger, roller = self._table(place, who)
        command = c.FreeRoll(roller, (table.sides,), "", label)
        records = self.service.command(ledger, Caller(Role.FIGHTER, roller), command)
        rolled = p.Roll.read(next(r for r in records if r["type"] == EventType.ROLL)["payload"])
        face = int(rolled.faces[0])
        side = min(max(face + modifier, 1), table.sides)
        entry = table.entry(side)
        said = entry.text if entry is not None else f"side {side} is a gap in table {table.name}"
        shift = f" {modifier:+d} = {side}" if modifier else ""
        line = format_host_line(who.name, table.sides, [face])
        return Reply([f"{line} (nonce {rolled.nonce}){shift} - {said}"])

    def table(self, place: Place, who: Person, text: str) -> Reply:
        """`~table new|list|info|add|rewrite|remove|delete ...`: the server's roll tables, as
        OnlineHost has them; changing one is for members with Manage Server."""
        if place.guild is None:
            raise NotationError("roll tables belong to a server: use ~table in its channels")
        guild = place.guild
        words = text.split()
        verb = words.pop(0).lower() if words else "list"
        if verb == "list":
            tables = self.links.roll_tables(guild)
            if not tables:
                return Reply(["No roll tables on this server yet (~table new NAME)."])
            return Reply([f"{t.name} (1d{t.sides})" + (f" - {t.description}" if t.description
                          else "") for t in tables])  # fmt: skip
        if not words:
            raise NotationError(f"say ~table {verb} NAME ... (~help table)")
        name, rest = words[0], " ".join(words[1:])
        if verb == "info":
            return Reply(rolls.info_lines(self._roll_table(guild, name)))
        if verb not in ("new", "add", "rewrite", "remove", "delete"):
            raise NotationError(
                f"unknown ~table command {verb!r} (new, list, info, add, rewrite, remove, delete)"
            )
        if not who.admin:
            raise ForbiddenError("only members with Manage Server can change roll tables")
        if verb == "new":
            if self.links.roll_table(guild, name) is not None:
                raise ConflictError(f"this server has a table called {name} already")
            if len(self.links.roll_tables(guild)) >= rolls.MAX_TABLES:
                raise NotationError(f"at most {rolls.MAX_TABLES} tables per server")
            described = rest.strip()
            if len(described) > rolls.MAX_TEXT or not described.isprintable():
                raise NotationError(f"a description is at most {rolls.MAX_TEXT} characters")
            self.links.save_roll_table(guild, rolls.RollTable(rolls.table_name(name), described))
            return Reply([f"Table {name} is made: ~table add {name} item 1, item 2"])
        table = self._roll_table(guild, name)
        if verb == "delete":
            self.links.delete_roll_table(guild, table.name)
            return Reply([f"Table {table.name} is deleted."])
        if verb == "add":
            changed = rolls.add_entries(table, rest)
        else:
            side_word, _, new_text = rest.partition(" ")
            if not is_whole(side_word):
                raise NotationError(f"say ~table {verb} {table.name} SIDE" +
                                    (" NEW TEXT" if verb == "rewrite" else ""))  # fmt: skip
            side = int(side_word)
            if verb == "rewrite":
                changed = rolls.rewrite(table, side, new_text)
            else:
                changed = rolls.remove(table, side)
        self.links.save_roll_table(guild, changed)
        return Reply(rolls.info_lines(changed))

    def _roll_table(self, guild: int, name: str) -> rolls.RollTable:
        found = self.links.roll_table(guild, name)
        if found is None:
            raise NotFoundError(f"no roll table called {name[:40]!r} on this server (~table list)")
        return found

    @staticmethod
    def _roll_and_label(text: str, chat: bool, dialect: str) -> tuple[Any, str]:
        """The roll and the words after it (`1d20+5 to hit`: its label, shown with the
        answer): the longest run of leading words that reads as a roll, followed by words
        (a note starts with a letter: `//roll -sides1000` is a bad roll, not a note)."""
        words = text.split()
        first: RefereeError | None = None
        for cut in range(len(words), 0, -1):
            if cut < len(words) and not words[cut][0].isalpha():
                continue
            head = " ".join(words[:cut])
            try:
                expr = parse_chat(head) if chat else parse(head, dialect=dialect)
            except RefereeError as err:
                first = first or err
                continue
            return expr, " ".join(words[cut:])
        assert first is not None
        raise first

    def dialect_of(self, place: Place) -> str:
        """The dice dialect of the channel (`~dialect`), roll20 unless set."""
        return self.links.dialect(place.channel) or DEFAULT_DIALECT.name

    def dialect(self, place: Place, who: Person, text: str) -> Reply:
        """`~dialect`: how dice are read here; `~dialect roll20|onlinehost|d20` sets it (the
        proctor of the channel's spar, or a member with Manage Server)."""
        choices = "|".join(sorted(DIALECTS))
        word = text.strip()
        if not word:
            return Reply([f"Dice here are read as {self.dialect_of(place)} "
                          f"(~dialect {choices} changes it)."])  # fmt: skip
        chosen = dice_dialect(word).name
        spar = self._spar(place, required=False)
        if not who.admin and (spar is None or self.links.proctor(spar) != str(who.id)):
            raise ForbiddenError(
                "only the proctor of this channel's spar or a member with Manage Server can "
                "set the dialect"
            )
        self.links.set_dialect(place.channel, place.guild, chosen)
        lines = [f"Dice here are now read as {chosen}: ~roll, ~odds and spars opened here."]
        if spar is not None:
            kept = self.service.state(spar).dialect
            lines.append(f"The spar open now keeps its own dialect ({kept}).")
        return Reply(lines)

    def odds(self, place: Place, text: str) -> Reply:
        """`~odds EXPR`: the exact distribution of a roll in the channel's dialect (the same
        limits as `referee roll --odds`); nothing is rolled or recorded."""
        text = text.strip()
        if not text:
            raise NotationError("say what to work out: ~odds 2d6 or ~odds 4d6kh3")
        name = self.dialect_of(place)
        return Reply(odds_message(exact_odds(parse(text, dialect=name)), name))

    def attack_dice(self, place: Place, words: str) -> str:
        """`~spar:roll 1d100 @user`: the dice an attack is typed with are the spar's, or the
        attack is refused (nothing is rolled); the words without them.

        An MSV attack is 1d100 (`//roll -sides100 -dice1`); an SRP attack throws its own dice.
        """
        first, _, rest = words.strip().partition(" ")
        if not re.fullmatch(r"(?i)[0-9]*d[0-9]+\S*|//roll\S*", first):
            return words
        rules = find_system(self.service.state(self.bout_of(place)).system)
        if rules.typed_attack is not None:
            expr, _ = self._roll_and_label(first, first.startswith("//"), self.dialect_of(place))
            if expr == typed_attack(rules.name):
                return rest
        own = rules.typed_attack or f"{rules.name.upper()} throws its own dice"
        raise NotationError(
            f"{first} is not this spar's attack ({own}); nothing was rolled: say ~spar:attack @user"
        )

    def _roll_as_attack(self, place: Place, who: Person, expr: object) -> Reply | None:
        bout = self._spar(place, required=False)
        if bout is None or not isinstance(expr, Dice):
            return None
        state = self.service.state(bout)
        if expr != typed_attack(state.system):
            return None
        me = self.links.member(bout, who.id)
        if me is None or me.fighter is None:
            return None
        if state.status is Status.PAUSED:
            raise ConflictError("the spar is paused: no attacks now (nothing was rolled)")
        if state.status is not Status.RUNNING:
            return None
        if state.current != me.fighter:
            raise ConflictError(f"not your turn: {state.current} acts now (nothing was rolled)")
        return self.attack(place, who, None)

    # -- the table ledgers: one per member and channel -----------------------------------

    def _table(self, place: Place, who: Person) -> tuple[str, str]:
        """The member's own table ledger in the channel and the fighter they roll as in it:
        opened if they have none, and joined now if they are not in it yet, with a part of the
        client seed the bot draws from its entropy source (unless they gave one first with
        `~fair part`)."""
        table = self._ledger(place, who)
        me = self.links.member(table, who.id)
        if me is not None and me.fighter is not None:
            return table, me.fighter
        return table, self._join_ledger(table, who, self.entropy(SEED_PART_BYTES).hex())

    def _ledger(self, place: Place, who: Person) -> str:
        """The member's own open table ledger in the channel, opened if they have none."""
        table = self._open_ledger_of(place, who.id)
        return table if table is not None else self._new_ledger(place, who)

    def _open_ledger_of(self, place: Place, user: int | None) -> str | None:
        """A member's open table ledger in the channel (None: the ledger of nobody), or None."""
        table = self.links.ledger(place.channel, user)
        if table is None or self.service.store.get_bout(table).status == "closed":
            return None
        return table

    def _new_ledger(self, place: Place, who: Person) -> str:
        """A new table ledger for the member: its commitment published now, before any part
        of theirs; they join it at their first roll (or `~fair part`)."""
        name = ledger_name(place.channel_name, who.name)
        opened = self.service.create_bout(DEFAULT_SYSTEM, name, dialect=self.dialect_of(place))
        table = str(opened["id"])
        self.links.set_ledger(place.channel, who.id, table)
        return table

    def _join_ledger(self, table: str, who: Person, part: str) -> str:
        """The member joins their ledger through the service's join path with their part of
        the client seed (so the join records it), as its one fighter: the ledger is closed to
        joiners at once. The fighter's name."""
        joined = self.service.add_fighter(
            table, ANONYMOUS, who.name, LEDGER_STATS, client_seed=part, joining=True
        )
        self.service.command(table, REF, c.CloseJoining())
        self.links.set_member(table, who.id, fighter=joined["name"], name=who.name)
        return str(joined["name"])

    def fair(self, place: Place, who: Person) -> Reply:
        """`~fair`: the member's own table ledger here: its commitment, its client seed and
        the rolls so far (and the channel's ledger of nobody, while it is open)."""
        table = self._ledger(place, who)
        record = self.service.store.get_bout(table)
        rolls = sum(1 for r in self.service.records(table) if r["type"] == EventType.ROLL)
        me = self.links.member(table, who.id)
        seed = f"client seed {record.client_seed}"
        if me is None or me.fighter is None:
            seed += (
                " (the bot's part; yours follows it: give your own with ~fair part TEXT before "
                "your first roll, or the bot draws one at it)"
            )
        lines = [
            f"Your table ledger in #{place.channel_name}: commitment {record.commitment}",
            f"{seed}, {rolls} roll(s) so far.",
            "~fair reveal reveals its server seed (and starts a new ledger), so anyone can "
            "check every roll: referee verify on the attached export.",
        ]
        old = self._open_ledger_of(place, None)
        if old is not None:
            kept = self.service.store.get_bout(old)
            count = sum(1 for r in self.service.records(old) if r["type"] == EventType.ROLL)
            lines.append(
                f"The channel's shared table ledger from before (commitment {kept.commitment}, "
                f"{count} roll(s)) is still open: a member with Manage Server reveals it with "
                "~fair reveal all."
            )
        return Reply(lines)

    def fair_part(self, place: Place, who: Person, part: str) -> Reply:
        """`~fair part TEXT`: the member's own part of their ledger's client seed, given before
        its first roll. A part binds only a commitment published before it: with no ledger
        yet, one is opened and its commitment shown, and the part is asked for again."""
        table = self._open_ledger_of(place, who.id)
        if table is None:
            table = self._new_ledger(place, who)
            commitment = self.service.store.get_bout(table).commitment
            return Reply(
                [
                    f"Your table ledger in #{place.channel_name} is open: commitment {commitment}",
                    "A part binds only a commitment published before it: now that this one "
                    "is, say ~fair part TEXT again to add yours.",
                ]
            )
        me = self.links.member(table, who.id)
        if me is not None and me.fighter is not None:
            seed = self.service.store.get_bout(table).client_seed
            raise ConflictError(
                f"your ledger's client seed is {seed} already, with your part in it, and stays "
                "so: ~fair reveal closes it and starts a new one, which takes a new part"
            )
        self._join_ledger(table, who, part)
        seed = self.service.store.get_bout(table).client_seed
        return Reply([f"Your part is in: your table ledger's client seed is {seed}, "
                      "fixed from your first roll on."])  # fmt: skip

    def fair_reveal(self, place: Place, who: Person, every: bool = False) -> Reply:
        """`~fair reveal`: reveal the member's own table ledger (its seed, the head hash, its
        export attached) and start a new one for them. `~fair reveal all` (Manage Server):
        every open ledger of the channel, the ledger of nobody too; each member gets a new
        one at their next roll or `~fair`."""
        if every:
            return self._reveal_all(place, who)
        table = self._open_ledger_of(place, who.id)
        if table is None:
            raise NotFoundError(
                f"you have no table ledger in #{place.channel_name} yet (your first ~roll "
                "here opens one; ~fair shows it)"
            )
        lines, export = self._reveal(table)
        fresh = self._new_ledger(place, who)
        commitment = self.service.store.get_bout(fresh).commitment
        lines += [
            "The export is attached: check it with referee verify.",
            f"New table ledger: commitment {commitment}",
        ]
        return Reply(lines, file=export)

    def _reveal_all(self, place: Place, who: Person) -> Reply:
        if not who.admin:
            raise ForbiddenError(
                "only members with Manage Server can reveal every table ledger of the channel"
            )
        lines: list[str] = []
        files: list[tuple[str, bytes]] = []
        for user, table in self.links.ledgers(place.channel):
            self.links.set_ledger(place.channel, user, None)
            if self.service.store.get_bout(table).status == "closed":
                continue
            revealed, export = self._reveal(table)
            lines += [f"{self._whose(table, user)}:", *revealed]
            files.append(export)
        if not files:
            return Reply([f"No table ledger of #{place.channel_name} is open: nothing to reveal."])
        lines += [
            f"{len(files)} export(s) attached: check each with referee verify. Everyone's next "
            "roll here opens a new ledger."
        ]
        return Reply(lines, files=files)

    def _whose(self, table: str, user: int | None) -> str:
        """Whose table ledger it is, as `~fair reveal all` says it."""
        if user is None:
            return "The channel's shared table ledger from before"
        me = self.links.member(table, user)
        if me is None or me.fighter is None:
            return "A table ledger with no roll yet"
        return f"{me.fighter}'s table ledger"

    def _reveal(self, table: str) -> tuple[list[str], tuple[str, bytes]]:
        """Close a table ledger (its server seed revealed): what the channel is told, with the
        head hash, and its export."""
        commitment = self.service.store.get_bout(table).commitment
        seed = self.service.close(table, REF)["server_seed"]
        export = self.service.export(table, REF)
        lines = [f"Server seed revealed: {seed} (commitment {commitment}).", head_line(export)]
        return lines, (f"table-{table}.json", _json_bytes(export))

    # -- spars: opening and joining ------------------------------------------------------

    def _spar(self, place: Place, *, required: bool = True) -> str | None:
        spar = self.links.spar(place.channel)
        if spar is not None and self.service.store.get_bout(spar).status == "closed":
            spar = None
        if spar is None and required:
            raise NotFoundError("no spar is open in this channel (open one: ~spar:open msv NAME)")
        return spar

    def bout_of(self, place: Place) -> str:
        bout = self._spar(place)
        assert bout is not None
        return bout

    def open(self, place: Place, who: Person, args: str) -> Reply:
        """`~spar:open [msv|srp] [NAME]`: the caller becomes the proctor."""
        if self._spar(place, required=False) is not None:
            raise ConflictError("a spar is already open in this channel (~spar:end ends it)")
        words = args.split()
        named = bool(words) and words[0].lower() in system_names()
        system = words.pop(0).lower() if named else DEFAULT_SYSTEM
        joined = find_system(system).join_stat
        name = " ".join(words) or f"Spar in #{place.channel_name}"
        notation = self.dialect_of(place)
        opened = self.service.create_bout(system, name, dialect=notation)
        self.links.set_channel(place.channel, place.guild, spar=opened["id"])
        self.links.set_member(opened["id"], who.id, proctor=True, name=who.name)
        lines = [
            f"Spar {name!r} ({system.upper()}) is open; the proctor is {who.name}.",
            f"Commitment: {opened['commitment']} (published before any roll).",
            f"Join with ~spar:join {joined.upper() if joined else 'CHARACTER'}",
        ]
        if notation != DEFAULT_DIALECT.name:
            lines.append(f"Its dice are read as {notation}.")
        lines += self._links(opened["id"])
        return Reply(lines)

    def _links(self, bout: str) -> list[str]:
        if not self.public_url:
            return []
        return [
            f"Scoreboard: {self.public_url}/static/board.html#bout={bout}",
            f"Verify (after the close): {self.public_url}/static/verify.html#bout={bout}",
        ]

    def join(self, place: Place, who: Person, args: str) -> Reply:
        """`~spar:join [CS | CHARACTER]`: join the open spar as yourself or a saved character."""
        bout = self.bout_of(place)
        me = self.links.member(bout, who.id)
        if me is not None and me.fighter:
            raise ConflictError(f"you already fight in this spar as {me.fighter}")
        system = self.service.state(bout).system
        entry, side = _on_side(args)
        name, stats = self._entrant(who, system, entry)
        part = self._seed_part(bout)
        self.service.add_fighter(bout, ANONYMOUS, name, stats, side, joining=True, client_seed=part)
        self.links.set_member(bout, who.id, fighter=name, name=who.name)
        shown = f"CS {stats['cs']}" if "cs" in stats else "sheet saved with ~char"
        on = f" on the side {side}" if side else ""
        return Reply([f"{name} joins the spar{on} ({shown})."])

    def _seed_part(self, bout: str) -> str | None:
        """A part of the client seed drawn by the bot for a fighter it adds (after the spar's
        commitment was published), or None once the spar has rolled (its client seed is then
        fixed): so that whoever runs the server could not have chosen its seed to suit it."""
        rolled = any(r["type"] == EventType.ROLL for r in self.service.records(bout))
        return None if rolled else self.entropy(SEED_PART_BYTES).hex()

    def _entrant(self, who: Person, system: str, args: str) -> tuple[str, dict[str, Any]]:
        stat = find_system(system).join_stat
        if stat is not None and is_whole(args):
            return who.name, {stat: int(args)}
        saved = [ch for ch in self.links.characters(who.id) if ch.system == system]
        if args:
            chosen = [ch for ch in saved if ch.name.casefold() == args.casefold()]
            if not chosen:
                raise NotFoundError(
                    f"you have no {system.upper()} character called {args!r} (~char list)"
                )
            return chosen[0].name, dict(chosen[0].stats)
        if len(saved) == 1:
            return saved[0].name, dict(saved[0].stats)
        hint = f"~spar:join 65 (your {stat.upper()})" if stat else "~spar:join CHARACTER"
        raise NotationError(f"say how you join: {hint}")

    # -- spars: fighting -----------------------------------------------------------------

    def begin(self, place: Place, who: Person) -> Reply:
        """`~spar:begin` (the chat grammar's `init`): roll initiative (every reroll shown)."""
        return self.run(place, who, k.Init())

    def attack(
        self, place: Place, who: Person, target: str | None, attacker: str | None = None
    ) -> Reply:
        """`~spar:attack @user` (alias `~spar:roll`), an Attack button: the chat grammar's
        `attack TARGET`; without a target, the one set with `~spar:target` or the only foe."""
        if target is None:
            bout = self.bout_of(place)
            state = self.service.state(bout)
            me = self.links.member(bout, who.id)
            actor = attacker or self._actor(bout, who, state)
            target = (me.target if me and attacker is None else None) or _only_foe(state, actor)
        return self.run(place, who, k.Attack(target, attacker))

    def act(
        self, place: Place, who: Person, kind: str, target: str | None, options: dict[str, Any]
    ) -> Reply:
        """`~spar:act KIND @user key=value...`, an SRP button: the chat grammar's `act`."""
        if target is not None:
            options = {**options, "target": target}
        return self.run(place, who, k.Act(kind, tuple(options.items())))

    def typed(
        self, place: Place, who: Person, verb: str, text: str, user: int | None = None
    ) -> Reply:
        """A typed command in the chat grammar (`~spar:attack Tarl`, `~attack Tarl`,
        `~spar:add Bob the Bold 50`): the line is read by `referee.chat.parse_line` against
        the spar's roster, as the chat endpoint and the HUD read it, then run (`run`)."""
        bout = self.bout_of(place)
        what = PROCTOR_VERBS.get(verb)
        if what is not None:  # the proctor's words say so before anything is read
            self.require_proctor(bout, who, what)
        state = self.service.state(bout)
        if verb == "attack" and not text.strip():
            return self.attack(place, who, None)
        command = parse_line(f"{verb} {text}".strip(), chat_roster(state))
        if isinstance(command, k.Close):  # here it also attaches the export
            return self.end(place, who)
        return self.run(place, who, command, user=user)

    def run(
        self, place: Place, who: Person, command: k.ChatCommand, user: int | None = None
    ) -> Reply:
        """Run one chat command for a member, as the chat endpoint runs it
        (`referee.service.chat.run_command`, one unit of work): the proctor speaks as the
        referee (and for a non-player fighter on its turn), a fighter as itself. `user`: the
        member an `add` stands for. The answer shows the stored events (hidden stats to the
        proctor only), or the chat grammar's answer line when nothing was stored."""
        bout = self.bout_of(place)
        state = self.service.state(bout)
        command = self._for_npc(bout, who, state, command)
        caller = self._caller(bout, who, command)
        part = self._seed_part(bout) if isinstance(command, k.Add) else None
        ran = run_command(self.service, bout, caller, command, seed_part=part)
        if isinstance(command, k.Add):
            if user is not None:
                self.links.set_member(bout, user, fighter=command.name, name=command.name)
            return Reply(
                [f"{command.name} joins the spar (CS {command.cs}), added by the proctor."]
            )
        if isinstance(command, k.Quit | k.Remove):  # the member no longer plays it
            gone = command.name if isinstance(command, k.Remove) else caller.fighter
            for member in self.links.members(bout):
                if member.fighter is not None and member.fighter == gone:
                    self.links.set_member(bout, int(member.user_id), fighter=None)
        if not ran.records:
            return Reply([ran.line])
        # The events as stored (the service answers a fighter without hidden stats; the
        # proctor reads those here, by direct message, and the channel what the public may).
        first, last = ran.records[0]["seq"], ran.records[-1]["seq"]
        stored = [r for r in self.service.records(bout, first - 1) if r["seq"] <= last]
        return self.answer(bout, stored)

    def _caller(self, bout: str, who: Person, command: k.ChatCommand) -> Caller:
        """Who a member is to the service for `command`: the referee (the proctor, for the
        referee's commands and for another fighter), the fighter it plays, or nobody."""
        me = self.links.member(bout, who.id)
        mine = me.fighter if me is not None else None
        if isinstance(command, READ_ONLY):
            return ANONYMOUS
        if _own(command, mine):
            if mine is None:
                raise ForbiddenError("you are not fighting in this spar (~spar:join first)")
            return Caller(Role.FIGHTER, mine)
        self.require_proctor(bout, who, _proctor_what(command))
        return REF

    def _for_npc(
        self, bout: str, who: Person, state: BoutState, command: k.ChatCommand
    ) -> k.ChatCommand:
        """The proctor's own `attack TARGET` / `act KIND` on a non-player fighter's turn: the
        same command with that fighter named as the one who acts."""
        npc = self._npc_to_act(bout, who, state)
        if npc is None:
            return command
        if isinstance(command, k.Attack) and command.attacker is None:
            return k.Attack(command.target, npc)
        if isinstance(command, k.Spirit) and command.actor is None:
            return k.Spirit(command.target, npc)
        if isinstance(command, k.Act) and "actor" not in dict(command.options):
            return k.Act(command.kind, (*command.options, ("actor", npc)))
        return command

    def _actor(self, bout: str, who: Person, state: BoutState) -> str:
        """The fighter a member's own action is for: its own, or the non-player fighter the
        proctor acts for on its turn."""
        npc = self._npc_to_act(bout, who, state)
        if npc is not None:
            return npc
        me = self.links.member(bout, who.id)
        if me is None or not me.fighter:
            raise ForbiddenError("you are not fighting in this spar (~spar:join first)")
        return me.fighter

    def _npc_to_act(self, bout: str, who: Person, state: BoutState) -> str | None:
        """The fighter to act when it is a non-player fighter (no member plays it) and `who`
        holds the proctor's powers without fighting: the proctor acts for it (as the referee
        does in the web console), by command or button."""
        me = self.links.member(bout, who.id)
        if me is not None and me.fighter:
            return None
        if state.status is not Status.RUNNING or state.current is None:
            return None
        if any(m.fighter == state.current for m in self.links.members(bout)):
            return None
        proctor = self.links.proctor(bout)
        return state.current if who.admin or proctor == str(who.id) else None

    def set_target(self, place: Place, who: Person, target: str) -> Reply:
        """`~spar:target @user`: whom your roll attacks when you have several foes."""
        bout = self.bout_of(place)
        me = self.links.member(bout, who.id)
        if me is None or not me.fighter:
            raise ForbiddenError("you are not fighting in this spar (~spar:join first)")
        self.service.state(bout).fighter(target)
        self.links.set_member(bout, who.id, target=target)
        return Reply([f"{me.fighter}'s rolls now attack {target}."])

    def scoreboard(self, place: Place) -> Reply:
        """`~spar:scoreboard`: wounds against thresholds, whose turn it is."""
        bout = self.bout_of(place)
        return Reply(self._score_lines(bout))

    def _score_lines(self, bout: str) -> list[str]:
        state = self.service.state(bout)
        lines = [f"Scoreboard of {state.name} ({state.status.value}, round {state.round}):"]
        for row in self.service.scoreboard(bout):
            down = " - defeated" if row["defeated"] else ""
            lines.append(f"  {row['name']}: {row['wounds']} of {row['threshold']}{down}")
        if state.current:
            lines.append(f"Next: {state.current}'s turn")
        return lines

    def quit(self, place: Place, who: Person) -> Reply:
        """`~spar:quit` (the chat grammar's `quit`): leave the spar."""
        return self.run(place, who, k.Quit())

    def answer(self, bout: str, records: Sequence[dict[str, Any]]) -> Reply:
        state = self.service.state(bout)
        lines = [ln for ln in lines_for(records, state.system) if not ln.startswith("Next:")]
        direct: list[tuple[int, str]] = []
        hidden = {} if state.closed else hidden_stats(self.service.records(bout))
        if hidden:
            # SRP-10 (and an MSV NPC's hidden CS): the channel reads what the service shows
            # the public (`redact_hidden`); what that leaves out goes to the proctor only.
            public = lines_for(redact_hidden(list(records), hidden, state.system), state.system)
            secret = [ln for ln in lines if ln not in public]
            lines = [ln for ln in public if not ln.startswith("Next:")]
            proctor = self.links.proctor(bout)
            if secret and proctor is not None:
                direct.append((int(proctor), "\n".join([f"{state.name}, for the proctor:",
                                                        *secret])))  # fmt: skip
        if any(r["type"] in SCORE_CHANGES for r in records):
            lines += [ln for ln in self._score_lines(bout) if not ln.startswith("Next:")]
        if state.status is Status.RUNNING and state.current:
            free = " - a free attack" if state.free_attack else ""
            lines.append(f"Next: {state.current}'s turn (round {state.round}){free}")
        return Reply(lines, buttons=self._buttons(state), direct=direct)

    def _buttons(self, state: BoutState) -> list[Button]:
        """The buttons for the fighter to act: an Attack per foe, in SRP also Shoot per foe,
        what undoes its own conditions, Pass, and the special actions as one menu; each only
        if the rules allow it now (`referee.bout.engine.why_not`: the engine's checks and
        the rule system's own, run up to the first die, nothing thrown)."""
        actor = state.current
        if state.status is not Status.RUNNING or actor is None:
            return []
        rules = rule_system(state)
        foes = state.enemies_of(actor)

        def allowed(kind: str, foe: str = "") -> bool:
            options = {"target": foe} if foe else {}
            return why_not(state, actor, kind, options, rules) is None

        attacks = [Button(f"Attack {f.name}", "attack", f.name) for f in foes
                   if allowed("attack", f.name)]  # fmt: skip
        if set(rules.actions) == {"attack"}:  # a system of attacks only: nothing more to offer
            return attacks
        shots = [Button(f"Shoot {f.name}", "shoot", f.name) for f in foes
                 if allowed("shoot", f.name)]  # fmt: skip
        undo = {kind: label for _, label, kind in SRP_UNDO if allowed(kind)}
        own = [Button(label, kind, "") for kind, label in undo.items()]
        buttons = [*attacks, *shots][: MAX_BUTTONS - len(own) - 1] + own
        if allowed("pass"):
            buttons.append(Button("Pass", "pass", ""))
        # SRP-16 special actions against each foe, as one select menu (no free-form argument).
        specials = [
            Button(f"{label} {foe.name}", kind, foe.name, SPECIAL_MENU)
            for foe in foes
            for kind, label in SRP_SPECIALS
            if allowed(kind, foe.name)
        ]
        return buttons + specials[:MAX_CHOICES]

    # -- proctor powers ------------------------------------------------------------------

    def require_proctor(self, bout: str, who: Person, what: str) -> None:
        proctor = self.links.proctor(bout)
        if who.admin or proctor == str(who.id):
            return
        name = next((m.name for m in self.links.members(bout) if m.proctor), None)
        raise ForbiddenError(f"only the proctor ({name or 'nobody'}) can {what}")

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
            words, side = words[:cut], " ".join(words[cut + 1 :]) or None
        state = self.service.state(bout)
        inline = pairs([w for w in words if "=" in w])
        name = " ".join(w for w in words if "=" not in w)
        if inline:
            if not name:
                raise NotationError("say ~spar:npc NAME cs=70 [on SIDE] [hidden]")
            chosen_name, stats = name, inline
        else:
            saved = [ch for ch in self.links.characters(who.id) if ch.system == state.system]
            chosen = [ch for ch in saved if ch.name.casefold() == name.casefold()]
            if not chosen:
                raise NotFoundError(
                    f"you have no {state.system.upper()} character called {name!r} (~char list)"
                )
            chosen_name, stats = chosen[0].name, dict(chosen[0].stats)
        rules = rule_system(state)
        hidden = rules.hidden_stats() if hide else ()
        part = self._seed_part(bout)
        self.service.add_fighter(bout, REF, chosen_name, stats, side, hidden, client_seed=part)
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

    def end(self, place: Place, who: Person, side: str | None = None) -> Reply:
        """The `~spar:end` button: end the spar (naming the winning side, if any, unless it
        has ended already), reveal its seed and attach the export."""
        bout = self.bout_of(place)
        self.require_proctor(bout, who, "end")
        before = self.service.state(bout).next_seq
        if self.service.state(bout).status in LIVE:
            run_command(self.service, bout, REF, k.End(side))
        seed = self.service.close(bout, REF)["server_seed"]
        records = self.service.records(bout, before - 1)
        export = self.service.export(bout, REF)
        self.links.set_channel(place.channel, place.guild, spar=None)
        lines = lines_for(records, export["bout"]["system"])
        lines += [
            f"The spar is closed. Server seed: {seed}",
            head_line(export),
            "The export is attached: anyone can check it with referee verify.",
        ]
        return Reply(lines, file=(f"spar-{bout}.json", _json_bytes(export)))

    def link_page(self, place: Place, who: Person) -> tuple[str, str]:
        """Which web page `~spar:link` would give `who` (fighter or referee) and the spar's
        name; changes nothing (the bot first makes sure it can reach them by direct message)."""
        bout = self.bout_of(place)
        me = self.links.member(bout, who.id)
        if me is not None and me.proctor:
            return "referee", self.service.state(bout).name
        if me is not None and me.fighter:
            return "fighter", self.service.state(bout).name
        raise ForbiddenError("only the proctor and the fighters of this spar have links")

    def link(self, place: Place, who: Person) -> Reply:
        """`~spar:link`: a fresh web link by direct message; the old one stops working.

        A fighter gets the fighter page; the proctor the referee page (a new referee token).
        The token never appears in the channel.
        """
        bout = self.bout_of(place)
        page, name = self.link_page(place, who)
        me = self.links.member(bout, who.id)
        assert me is not None
        if page == "referee":
            token = self.service.hand_over(bout, REF)["referee_token"]
        else:
            assert me.fighter is not None
            token = self.service.reissue_token(bout, REF, me.fighter)["token"]
        base = self.public_url or "(your referee serve address)"
        url = f"{base}/static/{page}.html#bout={bout}&token={token}"
        return Reply(
            ["Sent you a fresh link by direct message; the old one stops working."],
            direct=[(who.id, f"Your {page} page for {name}: {url}")],
        )

    # -- people --------------------------------------------------------------------------

    def fighter_of(self, place: Place, user: int) -> str:
        """The fighter a mentioned user plays in the channel's spar."""
        bout = self.bout_of(place)
        member: Member | None = self.links.member(bout, user)
        if member is None or not member.fighter:
            raise NotFoundError("that member is not fighting in this spar")
        return member.fighter

    def fighter_named(self, place: Place, text: str) -> str:
        """A fighter by its typed name (case-insensitive, longest match first)."""
        bout = self.bout_of(place)
        return match_name(text, [f.name for f in self.service.state(bout).fighters])


def _own(command: k.ChatCommand, mine: str | None) -> bool:
    """Whether a member gives `command` as the fighter it plays (not as the referee): its
    own attack, spirit or action (naming no other actor), `quit`, or removing itself."""
    if isinstance(command, k.Attack):
        return command.attacker is None
    if isinstance(command, k.Spirit):
        return command.actor is None
    if isinstance(command, k.Act):
        return "actor" not in dict(command.options)
    if isinstance(command, k.Remove):
        return mine is not None and command.name == mine
    return isinstance(command, k.Quit)


def _proctor_what(command: k.ChatCommand) -> str:
    """What a refusal says only the proctor can do, for a referee's command."""
    if isinstance(command, k.Referee):
        return command.power.value
    words = {k.Init: "begin the spar", k.Add: "add fighters", k.Update: "update fighters",
             k.Remove: "remove fighters", k.End: "end", k.Cancel: "cancel",
             k.Close: "close the spar", k.CloseJoining: "close the spar"}  # fmt: skip
    return words.get(type(command), "act for another fighter")


def rhydin_line(sides: Sequence[int], faces: Sequence[int]) -> str | None:
    """The Rhy'Din scoring of a plain roll whose dice all have 20 to 100 sides, as OnlineHost
    scores them (MSV-9: each die max(0, (face - 10) // 5), summed); None for other dice.

    >>> rhydin_line([22, 22], [14, 17]), rhydin_line([100], [47]), rhydin_line([6, 6], [3, 4])
    ("Rhy'Din score: 0 + 1 = 1", "Rhy'Din score: 7", None)
    """
    if not faces or not all(RHYDIN_SIDES[0] <= n <= RHYDIN_SIDES[1] for n in sides):
        return None
    scores = [die_score(face) for face in faces]
    if len(scores) == 1:
        return f"Rhy'Din score: {scores[0]}"
    return f"Rhy'Din score: {' + '.join(str(x) for x in scores)} = {sum(scores)}"


def head_line(export: Mapping[str, Any]) -> str:
    """The line that tells a closed bout's head hash: the hash of its last event (the
    `closed` one), in full, with its number.

    >>> line = head_line({"events": [{"seq": 57, "hash": "ab" * 32}]})
    >>> line.replace("ab" * 32, "H")[:64].rstrip()
    'Head hash: H (event 57). Keep it: referee verify --expect-hash H'
    """
    head = export["events"][-1]
    return (
        f"Head hash: {head['hash']} (event {head['seq']}). Keep it: referee verify "
        f"--expect-hash {head['hash']} checks any export of this bout against it."
    )


def ledger_name(channel: str, member: str) -> str:
    """A table ledger's bout name: the channel and the member, or the channel alone when both
    do not fit in a name (at most 40 characters).

    >>> ledger_name("general", "Tarl"), ledger_name("general", "Tarl of Ko-ro-ba, the Elder")
    ('table ledger #general, Tarl', 'table ledger #general')
    """
    both = f"table ledger #{channel}, {member}"
    return both if len(both) <= MAX_NAME else f"table ledger #{channel}"[:MAX_NAME].rstrip()


def _on_side(args: str) -> tuple[str, str | None]:
    """`Tarl on red` -> ("Tarl", "red"): what a join names, and the side it names (fighters
    on one side fight together; without it each fights on a side of its own).

    >>> _on_side("65 on the raiders"), _on_side("Bran"), _on_side("Don Juan")
    (('65', 'the raiders'), ('Bran', None), ('Don Juan', None))
    """
    words = args.split()
    lowered = [w.lower() for w in words]
    if "on" not in lowered:
        return args.strip(), None
    cut = len(lowered) - 1 - lowered[::-1].index("on")
    side = " ".join(words[cut + 1 :])
    if not side:
        raise NotationError("say ~spar:join CS on SIDE (or CHARACTER on SIDE)")
    return " ".join(words[:cut]), side


def pairs(words: Sequence[str]) -> dict[str, Any]:
    """`cs=70 wounds=3` -> {"cs": 70, "wounds": 3}: each value read as a chat line reads it
    (`referee.keyvalue`: a whole number, `true`/`false` as a boolean, or the text).

    >>> pairs(["cs=70", "defend=shield", "aimed=true"])
    {'cs': 70, 'defend': 'shield', 'aimed': True}
    """
    return read_pairs(words)


def _only_foe(state: BoutState, actor: str) -> str:
    foes = [f.name for f in state.enemies_of(actor)]
    if len(foes) == 1:
        return foes[0]
    raise NotationError(f"name your target: {', '.join(foes)} (~spar:attack @user)")


def _json_bytes(doc: Any) -> bytes:
    return json.dumps(doc, ensure_ascii=False, indent=2).encode("utf-8")


@functools.cache
def typed_attack(system: str) -> object:
    """The dice a player of `system` types to attack (`RuleSystem.typed_attack`), read, or None
    when the system throws its own."""
    typed = find_system(system).typed_attack
    return None if typed is None else parse(typed)
