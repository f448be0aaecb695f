"""Rolls in a channel: `~roll` (an attack on your turn in a spar), `~choose`, roll tables, the
channel's dice dialect and exact odds."""

from __future__ import annotations

import re
from typing import Any

from referee import chat as k
from referee.bout import commands as c
from referee.bout.engine import MAX_LABEL
from referee.bout.state import Status
from referee.dice import DIALECTS, parse, parse_chat, render, roll, write
from referee.dice import dialect as dice_dialect
from referee.dice import odds as exact_odds
from referee.dice.chat import format_host_line
from referee.dice.expr import Dice
from referee.discord import rolltables as rolls
from referee.discord.aliases import MAX_ALIASES, MAX_EXPRESSION, Alias, alias_name
from referee.discord.desk_base import (
    MAX_CHOICE_ITEMS,
    rhydin_line,
    typed_attack,
)
from referee.discord.desk_spars import Spars
from referee.discord.odds import odds_message
from referee.discord.render import signer
from referee.discord.replies import Person, Place, Reply
from referee.errors import (
    ConflictError,
    ForbiddenError,
    NotationError,
    NotFoundError,
    RefereeError,
)
from referee.numerals import is_whole
from referee.payloads import events as p
from referee.rng import ScriptedRng
from referee.sentences import roll_line
from referee.service.bouts import Caller, failure_of
from referee.store import Role
from referee.systems import find_system
from referee.vocabulary import EventType


class Rolls(Spars):
    """The rolling part of `Desk`."""

    def roll(self, place: Place, who: Person, text: str) -> Reply:
        """`~roll EXPR` / `~roll //roll -sides100 -dice1`: in MSV, on your turn, your attack.
        `~roll NAME [label]` rolls the member's alias NAME (`~alias`)."""
        text = self._aliased(who, text.strip()) or "//roll"  # a bare ~roll: 2d6, as //roll
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
        receipt = f"(nonce {nonces})" if rolls else "(no dice thrown)"  # `~roll 5`
        note = f" - {label}" if label else ""
        scored = rhydin_line([expr.sides] * expr.count, faces) if isinstance(expr, Dice) else None
        if written is None:  # one throw: the host line, signed
            line = self._host_line(table, who, records)
            return Reply([f"{line}{note}", *([scored] if scored else [])])
        failure = failure_of(records)
        if failure is not None:  # thrown and recorded, then it could not be settled
            return Reply([k.roll_line(who.name, written, faces, [r.nonce or 0 for r in rolls],
                                      failure) + note])  # fmt: skip
        dialect = self.service.state(table).dialect
        shown = render(roll(parse(written, dialect=dialect), rng=ScriptedRng(faces)), dialect)
        return Reply([f"{who.name} rolls {shown} {receipt}{note}", *([scored] if scored else [])])

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
        line = self._host_line(table, who, records)
        return Reply([f"{line} - {items[face - 1]}"])

    def _choose_from_table(self, place: Place, who: Person, text: str) -> Reply:
        words = text.split()
        modifier = 0
        if len(words) > 1 and re.fullmatch(r"[+-][0-9]{1,4}", words[-1]):
            modifier = int(words.pop())
        name = " ".join(words)
        table = self.links.roll_table(place.guild, name) if place.guild is not None else None
        if table is None and len(words) > 1 and re.fullmatch(r"[+-][0-9]{5,}", words[-1]):
            named = (
                self.links.roll_table(place.guild, " ".join(words[:-1])) if place.guild else None
            )
            if named is not None:  # the table, with a modifier past the one a slash option takes
                raise NotationError(
                    f"a modifier of a roll table is -9999 to +9999, got {words[-1]}"
                )
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
        line = self._host_line(ledger, who, records)
        return Reply([f"{line}{shift} - {said}"])

    def _host_line(self, ledger: str, who: Person, records: list[dict[str, Any]]) -> str:
        """A roll of one throw in a member's table ledger as the host line, with its receipt
        (its stream named: the member's free rolls) and its signature."""
        payload = next(r for r in records if r["type"] == EventType.ROLL)["payload"]
        return roll_line(who.name, payload, signer(self.service.key, ledger)(who.name, payload))

    def alias(self, place: Place, who: Person, text: str) -> Reply:
        """`~alias add NAME EXPR`, `~alias list`, `~alias remove NAME`: the member's names for
        dice expressions, rolled by `~NAME` or `~roll NAME` as any `~roll` is."""
        words = text.split()
        verb = words.pop(0).lower() if words else "list"
        if verb == "list":
            kept = self.aliases.of(who.id)
            if not kept:
                return Reply(["You have no aliases yet (~alias add hit 1d20+5)."])
            return Reply([f"~{a.name}: {a.expression}" for a in kept])
        if verb not in ("add", "remove"):
            raise NotationError(f"unknown ~alias command {verb!r} (add, list, remove)")
        if not words:
            raise NotationError(f"say ~alias {verb} NAME{' EXPR' if verb == 'add' else ''}")
        name = alias_name(words[0])
        if verb == "remove":
            if not self.aliases.remove(who.id, name):
                raise NotFoundError(f"you have no alias {name}")
            return Reply([f"Alias ~{name} is removed."])
        expression = " ".join(words[1:]).strip()
        if not expression:
            raise NotationError(f"say what ~{name} rolls: ~alias add {name} 1d20+5")
        if len(expression) > MAX_EXPRESSION:
            raise NotationError(f"an alias's expression is at most {MAX_EXPRESSION} characters")
        if name in self.command_words:
            raise ConflictError(f"~{name} is a command of the bot: pick another name")
        self._roll_and_label(expression, expression.lower().startswith("//roll"),
                             self.dialect_of(place))  # fmt: skip  # refused now, not when rolled
        kept = self.aliases.of(who.id)
        if len(kept) >= MAX_ALIASES and all(a.name != name for a in kept):
            raise NotationError(f"at most {MAX_ALIASES} aliases a member")
        self.aliases.save(who.id, Alias(name, expression))
        return Reply([f"~{name} now rolls {expression} (~{name} or ~roll {name})."])

    def rolls_alias(self, who: Person, word: str) -> bool:
        """Whether `word` (a `~word` no command has) is one of the member's aliases."""
        return self.aliases.find(who.id, word) is not None

    def _aliased(self, who: Person, text: str) -> str:
        """`text`, its first word replaced by the member's alias of that name (the rest kept
        as the roll's label); `text` itself when it names no alias."""
        first, _, rest = text.partition(" ")
        found = self.aliases.find(who.id, first) if first and first[0].isalpha() else None
        if found is None:
            return text
        return f"{found.expression} {rest.strip()}".strip()

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
        if state.status is Status.OPEN:  # a fighter's attack roll, before the spar has begun
            raise ConflictError(
                "the spar has not begun: the proctor begins it (~spar:begin) before any "
                "attack (nothing was rolled)"
            )
        if state.status is not Status.RUNNING:
            return None
        if state.current != me.fighter:
            raise ConflictError(f"not your turn: {state.current} acts now (nothing was rolled)")
        return self.attack(place, who, None)
