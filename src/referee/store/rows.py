"""Reading and writing rows: bouts, seeds and events as records and ledger events."""

from __future__ import annotations

import functools
import json
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select

from referee.errors import NotFoundError
from referee.ledger import EVENT_KEYS, Event
from referee.ledger.canonical import checked_canonical_json
from referee.ledger.seal import SEAL
from referee.payloads.events import FighterAdded
from referee.rng import commitment
from referee.store.notify import appended
from referee.store.raw import Statement, run_many, run_sql, together
from referee.store.records import BoutRecord, ServerSeed
from referee.store.schema import BOUTS, CHARACTER_BOUTS, EVENTS, SEEDS, TOKENS
from referee.vocabulary import EventType

# The hot statements are built once and run on the driver's cursor (`referee.store.raw`):
# building a SQLAlchemy statement, or running it through `Connection.execute`, costs more
# than the database's own work on it.
_BOUT_BY_ID = select(BOUTS).where(BOUTS.c.id == bindparam("bout_id"))
_BOUT = Statement(_BOUT_BY_ID)
_BOUT_LOCKED = Statement(_BOUT_BY_ID.with_for_update())
_SEEDS = Statement(
    select(SEEDS).where(SEEDS.c.bout_id == bindparam("bout_id")).order_by(SEEDS.c.idx)
)
_EVENTS_AFTER = Statement(
    select(EVENTS)
    .where(EVENTS.c.bout_id == bindparam("bout_id"), EVENTS.c.seq > bindparam("after"))
    .order_by(EVENTS.c.seq)
)
#: The bout's row with its current seed's columns.
_BOUT_AND_SEED = (
    BOUTS,
    SEEDS.c.commitment.label("seed_commitment"),
    SEEDS.c.server_seed,
    SEEDS.c.revealed,
    SEEDS.c.published_seq,
)
_ITS_SEED = (SEEDS.c.bout_id == BOUTS.c.id) & (SEEDS.c.idx == BOUTS.c.seed_index)
#: The bout with its current seed, in one statement (the append that rolls).
_BOUT_SEED = Statement(
    select(*_BOUT_AND_SEED)
    .join(SEEDS, _ITS_SEED)
    .where(BOUTS.c.id == bindparam("bout_id"))
    .with_for_update(of=BOUTS)
)

#: `_BOUT_SEED` with what a bearer token grants (its bout, role and fighter; NULL for a token
#: not stored): the caller of a write and the lock it takes, in one statement.
_BOUT_SEED_TOKEN_QUERY = (
    select(
        *_BOUT_AND_SEED,
        TOKENS.c.bout_id.label("token_bout"),
        TOKENS.c.role.label("token_role"),
        TOKENS.c.fighter.label("token_fighter"),
    )
    .join(SEEDS, _ITS_SEED)
    .outerjoin(TOKENS, TOKENS.c.token_hash == bindparam("digest"))
    .where(BOUTS.c.id == bindparam("bout_id"))
)
_BOUT_SEED_TOKEN = Statement(_BOUT_SEED_TOKEN_QUERY.with_for_update(of=BOUTS))
#: SQLite: the same with the bout's events after `after`, a row each (the bout's columns
#: repeated; one row with no event when there is none). A SQLite write holds the database's
#: write lock from its BEGIN IMMEDIATE on, so every read of it sees the latest commit.
_BOUT_SEED_TOKEN_EVENTS = Statement(
    _BOUT_SEED_TOKEN_QUERY.add_columns(*(c for c in EVENTS.c if c.key != "bout_id"))
    .outerjoin(EVENTS, (EVENTS.c.bout_id == BOUTS.c.id) & (EVENTS.c.seq > bindparam("after")))
    .order_by(EVENTS.c.seq)
)

#: A row as the driver gave it, with its columns by name (`row.seq`).
Row = Any


def bout_row(conn: Connection, bout_id: str, *, lock: bool = False) -> Row:
    """The bout's row (locked FOR UPDATE when `lock`), or NotFoundError."""
    row = (_BOUT_LOCKED if lock else _BOUT).first(conn, {"bout_id": bout_id})
    if row is None:
        raise NotFoundError(f"no bout {bout_id!r}")
    return row


def bout_and_seed(conn: Connection, bout_id: str) -> tuple[Row, ServerSeed]:
    """The bout's row, locked FOR UPDATE, and its current seed (one statement), or
    NotFoundError."""
    row = _BOUT_SEED.first(conn, {"bout_id": bout_id})
    if row is None:
        # PostgreSQL: a rotation committed while this statement waited for the row's lock
        # changed the bout's seed index; the waiting statement rechecks the join with the new
        # bouts row but the seeds row of its own older snapshot, finds no match and answers
        # nothing, yet holds the lock. Asked again (a new snapshot), it finds the new seed.
        row = _BOUT_SEED.first(conn, {"bout_id": bout_id})
    if row is None:
        raise NotFoundError(f"no bout {bout_id!r}")
    return row, seed_of(row)


def seed_of(row: Row) -> ServerSeed:
    """The current seed in a row of `_BOUT_SEED` or `_BOUT_SEED_TOKEN`."""
    return ServerSeed(
        row.seed_index, row.seed_commitment, row.server_seed, bool(row.revealed), row.published_seq
    )


def bout_seed_token(
    conn: Connection, bout_id: str, digest: str, after: int
) -> tuple[Row | None, list[Row]]:
    """The bout's row, locked FOR UPDATE, with its current seed and what the token of SHA-256
    `digest` grants (one statement), and the bout's events rows with seq > `after` read once
    the lock is held. On PostgreSQL both statements go in one round trip with the
    transaction's BEGIN (`referee.store.raw.together`); on SQLite, whose write transaction
    holds the write lock from its BEGIN IMMEDIATE on, they are one statement. The row is None
    when the bout was not found (see `bout_and_seed` for why that may be worth asking again).
    """
    if conn.dialect.name == "sqlite":  # one statement: the write lock is held already
        rows = _BOUT_SEED_TOKEN_EVENTS.all(
            conn, {"bout_id": bout_id, "digest": digest, "after": after}
        )
        return (rows[0] if rows else None), [row for row in rows if row.seq is not None]
    locked, events = together(
        conn,
        [
            (_BOUT_SEED_TOKEN, {"bout_id": bout_id, "digest": digest}),
            (_EVENTS_AFTER, {"bout_id": bout_id, "after": after}),
        ],
    )
    return (locked[0] if locked else None), events


def events_after(rows: list[Row], seq: int, digest: str) -> list[Event] | None:
    """`read_after` of rows already read (seq > `seq` - 1)."""
    if not rows or rows[0].seq != seq or rows[0].hash != digest:
        return None
    return [event_of(row) for row in rows[1:]]


def bout_record(row: Row) -> BoutRecord:
    """A bouts row as a BoutRecord."""
    return BoutRecord(
        row.id,
        row.system,
        row.name,
        json.loads(row.rules),
        row.status,
        row.created_at,
        row.commitment,
        row.client_seed,
        row.seed_index,
    )


def seed_row(bout_id: str, index: int, seed: str, seq: int | None) -> dict[str, Any]:
    """The row of a new, unrevealed seed."""
    return {
        "bout_id": bout_id,
        "idx": index,
        "commitment": commitment(seed),
        "server_seed": seed,
        "revealed": 0,
        "published_seq": seq,
    }


def seed_records(conn: Connection, bout_id: str) -> list[ServerSeed]:
    """Every seed of the bout, first to current."""
    return [
        ServerSeed(r.idx, r.commitment, r.server_seed, bool(r.revealed), r.published_seq)
        for r in _SEEDS.all(conn, {"bout_id": bout_id})
    ]


def read_events(conn: Connection, bout_id: str, after_seq: int) -> list[Event]:
    """The bout's events with seq > after_seq, in order."""
    rows = _EVENTS_AFTER.all(conn, {"bout_id": bout_id, "after": after_seq})
    return [event_of(row) for row in rows]


def read_after(conn: Connection, bout_id: str, seq: int, digest: str) -> list[Event] | None:
    """The events after event `seq`, if event `seq` is still stored with hash `digest`
    (None otherwise: the ledger is not the one the caller knows). One statement; the known
    event's payload is not parsed again."""
    rows = _EVENTS_AFTER.all(conn, {"bout_id": bout_id, "after": seq - 1})
    return events_after(rows, seq, digest)


def event_of(row: Row) -> Event:
    """An events row as a ledger event (payload and extra keys parsed); a sealed event's as
    the store's record of it (`referee.ledger.seal`: the whole payload, the seal's makings
    under `seal`)."""
    event: Event = {
        "seq": row.seq,
        "type": row.type,
        "actor": row.actor,
        "at": row.at,
        "payload": json.loads(row.payload),
        "prev": row.prev,
        "hash": row.hash,
    }
    if row.extra is not None:
        event.update(json.loads(row.extra))
    if row.opening is not None:
        found = json.loads(row.opening)
        event[SEAL] = {"salt": found["salt"], "public": event["payload"]}
        event["payload"] = found["payload"]
    return event


def insert_events(
    conn: Connection, bout_id: str, events: list[Event], texts: list[str] | None = None
) -> None:
    """Insert ledger events (payload as canonical JSON, other top-level keys in `extra`; a
    sealed record's public part as its payload, its opening in `opening`).

    Only events `chain` or `link_sealed` made, or `verify_chain` passed, come here: their JSON
    is checked. `texts` are their payloads' canonical JSON when the caller has them already
    (`link`; a sealed record's: its public part's). Each row is a tuple in the table's column
    order, as both drivers take it: no row dictionary built, then read again by name."""
    # Each row is a tuple of the table's columns but `extra` and `opening`, in
    # `_PLAIN_COLUMNS`' order; `extras` keeps the (extra, opening) of the events that have
    # either, by their place.
    rows = []
    extras: dict[int, tuple[str | None, str | None]] = {}
    for i, event in enumerate(events):
        seal = event.get(SEAL) if event.keys() != _EVENT_KEY_SET else None
        if texts is not None:
            text = texts[i]
        else:
            shown = event["payload"] if seal is None else seal["public"]
            text = checked_canonical_json(shown).decode("utf-8")
        rows.append(
            (
                bout_id,
                event["seq"],
                event["type"],
                event["actor"],
                event["at"],
                text,
                event["prev"],
                event["hash"],
            )
        )
        # An event with exactly the ledger's keys (every one `link` makes) has no extra keys:
        # one comparison of its keys (in C) instead of a look at each of them.
        if event.keys() != _EVENT_KEY_SET:
            more = {k: v for k, v in event.items() if k not in EVENT_KEYS and k != SEAL}
            extra = checked_canonical_json(more).decode("utf-8") if more else None
            opened = None
            if seal is not None:
                found = {"salt": seal["salt"], "payload": event["payload"]}
                opened = checked_canonical_json(found).decode("utf-8")
            if extra is not None or opened is not None:
                extras[i] = (extra, opened)
    if not rows:
        return
    if conn.dialect.name == "postgresql":
        # One statement, one round trip: the rows (up to `_PG_ROWS` at once, within the
        # protocol's bound on parameters).
        full = _with_extras(rows, extras)
        for start in range(0, len(full), _PG_ROWS):
            part = full[start : start + _PG_ROWS]
            run_sql(conn, _pg_insert_events(len(part)), [value for row in part for value in row])
    elif not extras:
        # SQLite, no event with extra keys (the usual batch): `extra` and `opening` left out,
        # so stored as NULL all the same, without a None parameter per row for the driver to
        # adapt (sqlite3 looks for an adapter of every parameter not an int, float or str).
        run_many(conn, _SQLITE_INSERT_PLAIN_EVENTS, rows)
    else:
        run_many(conn, _SQLITE_INSERT_EVENTS, _with_extras(rows, extras))
    joined = [e for e in events if e["type"] == _FIGHTER_ADDED]
    if joined:
        _characters_joined(conn, bout_id, joined)
    appended(conn, bout_id)  # live streams hear of it after the commit (`store.notify`)


_FIGHTER_ADDED = EventType.FIGHTER_ADDED


def _characters_joined(conn: Connection, bout_id: str, joined: list[Event]) -> None:
    """Each saved character among the fighters joined, kept with its bout (`CHARACTER_BOUTS`:
    the bouts a character fought, without reading every bout's events)."""
    rows = []
    for event in joined:
        seal = event.get(SEAL)
        added = FighterAdded.given(event["payload"] if seal is None else seal["public"])
        if isinstance(added.character, str):
            version = added.character_version
            rows.append(
                {
                    "character_id": added.character,
                    "bout_id": bout_id,
                    "seq": event["seq"],
                    "version": version if isinstance(version, int) else 1,
                    "at": event["at"],
                }
            )
    if rows:
        conn.execute(insert(CHARACTER_BOUTS), rows)


def backfill_character_joins(conn: Connection) -> None:
    """The joins of saved characters already in the events (`CHARACTER_BOUTS`): for a
    database that reaches schema version 9 from an earlier one, whose referee fielded saved
    characters without keeping their joins."""
    rows = conn.execute(
        select(EVENTS)
        .where(EVENTS.c.type == str(_FIGHTER_ADDED))
        .order_by(EVENTS.c.bout_id, EVENTS.c.seq)
    )
    joined: dict[str, list[Event]] = {}
    for row in rows:
        joined.setdefault(row.bout_id, []).append(event_of(row))
    for bout_id, events in joined.items():
        _characters_joined(conn, bout_id, events)


#: The keys of a ledger event without extra keys.
_EVENT_KEY_SET = frozenset(EVENT_KEYS)

#: The events table's columns, in the order of `insert_events`'s row tuples.
_EVENT_COLUMNS = (
    "bout_id", "seq", "type", "actor", "at", "payload", "extra", "prev", "hash", "opening",
)  # fmt: skip
assert tuple(column.key for column in EVENTS.c) == _EVENT_COLUMNS
#: SQLite: insert one event, its values by position in `_EVENT_COLUMNS`' order.
_SQLITE_INSERT_EVENTS = (
    f"INSERT INTO {EVENTS.name} ({', '.join(_EVENT_COLUMNS)}) "
    f"VALUES ({', '.join(['?'] * len(_EVENT_COLUMNS))})"
)
#: The columns but `extra` and `opening`, in the order of `insert_events`'s row tuples.
_PLAIN_COLUMNS = tuple(c for c in _EVENT_COLUMNS if c not in ("extra", "opening"))
_EXTRA_AT = _EVENT_COLUMNS.index("extra")
assert _EVENT_COLUMNS[-1] == "opening"
#: SQLite: insert one event without extra keys or opening (both NULL), by `_PLAIN_COLUMNS`.
_SQLITE_INSERT_PLAIN_EVENTS = (
    f"INSERT INTO {EVENTS.name} ({', '.join(_PLAIN_COLUMNS)}) "
    f"VALUES ({', '.join(['?'] * len(_PLAIN_COLUMNS))})"
)


def _with_extras(
    rows: list[tuple[Any, ...]], extras: dict[int, tuple[str | None, str | None]]
) -> list[tuple[Any, ...]]:
    """`insert_events`' rows with their `extra` and `opening` (None for none), in
    `_EVENT_COLUMNS`' order."""
    out = []
    for i, row in enumerate(rows):
        extra, opened = extras.get(i, (None, None))
        out.append((*row[:_EXTRA_AT], extra, *row[_EXTRA_AT:], opened))
    return out


#: Most rows one PostgreSQL INSERT carries (10 parameters each; the protocol takes 65,535).
_PG_ROWS = 1000


@functools.lru_cache(maxsize=64)
def _pg_insert_events(count: int) -> str:
    """PostgreSQL: insert `count` events in one statement."""
    row = "(" + ", ".join(["%s"] * len(_EVENT_COLUMNS)) + ")"
    return (
        f"INSERT INTO {EVENTS.name} ({', '.join(_EVENT_COLUMNS)}) VALUES {', '.join([row] * count)}"
    )
