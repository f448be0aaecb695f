"""The table ledgers: one per member and channel, for their free rolls, opened at the first roll,
joined with a part of the client seed, and revealed (`~fair`)."""

from __future__ import annotations

from referee.bout import commands as c
from referee.discord.desk_base import (
    DEFAULT_SYSTEM,
    LEDGER_STATS,
    REF,
    SEED_PART_BYTES,
    DeskBase,
    _json_bytes,
    head_line,
    ledger_name,
)
from referee.discord.replies import Person, Place, Reply
from referee.errors import (
    ConflictError,
    ForbiddenError,
    NotFoundError,
)
from referee.service.bouts import ANONYMOUS
from referee.vocabulary import EventType


class TableLedgers(DeskBase):
    """The table-ledger part of `Desk`."""

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
