"""The unit of work: one transaction around everything the store does in a block.

Every read and write of the store inside a unit uses its connection (`ambient`), and it
commits only when the block ends without an exception: an operation of several steps is
stored whole or not at all. The driver's "cannot connect / cannot open" errors leave it as
StorageError. A bout the unit has locked for its next append (`Store.lock_bout`) is kept on
the unit (`Unit.held`) and forgotten with it.

>>> from referee.store import Store
>>> store = Store.open("sqlite://")
>>> current(store.engine) is None
True
>>> with store.unit():
...     current(store.engine).connection is ambient(store.engine)
True
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine

from referee.ledger import Event
from referee.store.engine import StorageErrors
from referee.store.records import ServerSeed
from referee.store.rows import Row
from referee.store.writers import transaction


@dataclass(frozen=True, slots=True)
class Held:
    """A bout locked by the open unit (`Store.lock_bout`) for its next append: the locked row,
    with its current seed; and the bout's events, read once the lock was held (None: to be
    read)."""

    bout_id: str
    row: Row
    seed: ServerSeed
    events: list[Event] | None


class Unit:
    """A unit of work on `engine`: `transaction`'s connection is the unit's (`ambient`) while
    it is open, and `errors` sees whatever leaves `transaction`, its entering and its end (the
    commit) included. (A class rather than a generator: every write of the service is one.)"""

    __slots__ = ("connection", "engine", "errors", "held", "token", "transaction")

    def __init__(
        self,
        engine: Engine,
        errors: StorageErrors,
        transaction: AbstractContextManager[Connection],
    ) -> None:
        self.engine = engine
        self.errors = errors
        self.transaction = transaction
        #: The bout this unit has locked and not yet appended to.
        self.held: Held | None = None

    def __enter__(self) -> None:
        try:
            self.connection = self.transaction.__enter__()
        except BaseException as err:
            self.errors.__exit__(type(err), err, err.__traceback__)
            raise
        self.token = _UNIT.set(self)

    def __exit__(self, kind: Any, err: BaseException | None, trace: Any) -> bool:
        _UNIT.reset(self.token)
        self.held = None
        try:
            suppressed = self.transaction.__exit__(kind, err, trace)
        except BaseException as raised:
            self.errors.__exit__(type(raised), raised, raised.__traceback__)
            raise
        if suppressed:
            kind = err = trace = None
        self.errors.__exit__(kind, err, trace)
        return bool(suppressed)


#: The unit of work open in this context, if any (one per context: a unit is entered and left
#: in one thread or task).
_UNIT: ContextVar[Unit | None] = ContextVar("referee_unit_of_work", default=None)


def current(engine: Engine) -> Unit | None:
    """The unit of work open on `engine` in this context, or None."""
    unit = _UNIT.get()
    return unit if unit is not None and unit.engine is engine else None


def ambient(engine: Engine) -> Connection | None:
    """The connection of the unit of work open on `engine` in this context, or None."""
    unit = _UNIT.get()
    return unit.connection if unit is not None and unit.engine is engine else None


def forget_held(engine: Engine) -> None:
    """Drop the bout the open unit locked for its next append (its row is about to change)."""
    unit = current(engine)
    if unit is not None:
        unit.held = None


def write_transaction(engine: Engine) -> AbstractContextManager[Connection]:
    """One write transaction: the open unit's, else a new one (`referee.store.writers`, which
    owns SQLite's: BEGIN IMMEDIATE, the writers' queue and their group commit); commit on
    success, else roll back."""
    held = ambient(engine)
    if held is not None:
        return nullcontext(held)
    return transaction(engine)
