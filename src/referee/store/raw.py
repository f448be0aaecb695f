"""The hot statements, run on the database driver's own cursor.

Every attack runs the same few statements (the token, the bout with its seed, the events
after the last one known, the new events). Through SQLAlchemy's `Connection.execute` each
costs tens of microseconds of Python before the driver sees it, several times what the
driver itself takes; on a served request, with cold caches, that was most of the store's
time. A `Statement` keeps the SQLAlchemy Core statement (the one definition of the query),
compiles it once per dialect to the driver's own SQL and parameter style, and runs it on
the driver cursor of the same connection, inside the same transaction.

Driver errors come out as SQLAlchemy's (`DBAPIError.instance`, parameters hidden), so a
caller catches the same `IntegrityError` or `OperationalError` either way.

>>> from sqlalchemy import bindparam, create_engine, select
>>> from referee.store.schema import METADATA, TOKENS
>>> engine = create_engine("sqlite://")
>>> METADATA.create_all(engine)
>>> by_hash = Statement(select(TOKENS).where(TOKENS.c.token_hash == bindparam("digest")))
>>> add = Statement(TOKENS.insert(), [c.key for c in TOKENS.c])
>>> with engine.begin() as conn:
...     add.many(conn, [{"token_hash": "h", "bout_id": "b1", "role": "referee", "fighter": None}])
...     row = by_hash.first(conn, {"digest": "h"})
>>> row.bout_id, row.role, row.fighter
('b1', 'referee', None)
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import Executable
from sqlalchemy.sql.compiler import Compiled


def run_sql(conn: Connection, sql: str, parameters: Sequence[Any] | None = None) -> None:
    """Run one statement of the driver's SQL (with positional `parameters` in the driver's
    style, if any) on its cursor."""
    _execute(conn, sql, parameters, many=False, fetch=False)


def rows_of_sql(conn: Connection, sql: str) -> list[Any]:
    """The rows one statement of the driver's SQL (no parameters) selects, run on its cursor."""
    return _execute(conn, sql, None, many=False, fetch=True)[0]


def run_many(conn: Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
    """Run one statement of the driver's SQL once for each of `rows` (positional parameters in
    the driver's style) on its cursor: one driver call."""
    _execute(conn, sql, rows, many=True, fetch=False)


def driver_call(conn: Connection, call: Callable[[], object], sql: str) -> None:
    """`call()`, a call of the connection's driver itself (its `commit`, say; `sql` names it
    in an error), with the driver's error coming out as SQLAlchemy's, as from `run_sql`."""
    try:
        call()
    except conn.dialect.loaded_dbapi.Error as err:
        raise DBAPIError.instance(
            sql,
            None,
            err,
            conn.dialect.loaded_dbapi.Error,
            hide_parameters=True,
            dialect=conn.dialect,
        ) from err


def _execute(
    conn: Connection, sql: str, parameters: Any, *, many: bool, fetch: bool
) -> tuple[list[Any], int]:
    """`sql` on a cursor of the connection's driver: the rows fetched (when `fetch`) and
    the row count. The driver's error comes out as SQLAlchemy's (IntegrityError,
    OperationalError, ...), without the parameters."""
    dialect = conn.dialect
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        if many:
            cursor.executemany(sql, parameters)
        elif parameters is None:
            cursor.execute(sql)
        else:
            cursor.execute(sql, parameters)
        return (cursor.fetchall() if fetch else []), cursor.rowcount
    except dialect.loaded_dbapi.Error as err:
        raise DBAPIError.instance(
            sql,
            None,
            err,
            dialect.loaded_dbapi.Error,
            hide_parameters=True,
            dialect=dialect,
            ismulti=many,
        ) from err
    finally:
        cursor.close()


def together(
    conn: Connection, runs: Sequence[tuple[Statement, Mapping[str, Any]]]
) -> list[list[Any]]:
    """The rows each SELECT of `runs` selects, the statements run one after the other.

    On PostgreSQL (psycopg 3) they go to the server in one message, answered in one round
    trip, with the transaction's BEGIN first when they are the first statements of their
    transaction (psycopg would send its own BEGIN and wait for the answer: a round trip of its
    own). Their parameters are bound on the client, by psycopg's own literal quoting
    (`ClientCursor.mogrify`). The server runs them one after the other, each under a snapshot
    of its own (READ COMMITTED): a statement that waits for a lock holds up the next one,
    which then sees everything committed before it. To send that BEGIN, the connection is put
    in psycopg's autocommit mode, which only stops psycopg from sending a BEGIN of its own:
    the statements, and all that follows until COMMIT or ROLLBACK, are in the transaction
    that BEGIN opened; the engine turns the mode off again when the connection goes back to
    its pool (`referee.store.engine`). Elsewhere the statements are simply run in turn. A
    driver error comes out as SQLAlchemy's, as from `Statement.all`.
    """
    dialect = conn.dialect
    if dialect.name != "postgresql":
        return [statement.all(conn, values) for statement, values in runs]
    import psycopg

    driver = conn.connection.driver_connection
    assert isinstance(driver, psycopg.Connection)
    prepared = [statement._for(dialect) for statement, _ in runs]
    binder = psycopg.ClientCursor(driver)
    try:
        texts = [
            binder.mogrify(plan.sql, plan.parameters(values))
            for (_, values), plan in zip(runs, prepared, strict=True)
        ]
    finally:
        binder.close()
    begin = driver.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE
    if begin:
        driver.autocommit = True  # no BEGIN of psycopg's own: ours goes with the statements
        texts.insert(0, "BEGIN")
    sql = ";\n".join(texts)
    cursor = driver.cursor()
    try:
        cursor.execute(sql)
        results: list[list[Any]] = []
        if begin:
            cursor.nextset()
        for index, plan in enumerate(prepared):
            if index:
                cursor.nextset()
            results.append([plan.row._make(row) for row in cursor.fetchall()])
        return results
    except dialect.loaded_dbapi.Error as err:
        shown = ";\n".join(plan.sql for plan in prepared)  # the SQL without the values
        raise DBAPIError.instance(
            shown, None, err, dialect.loaded_dbapi.Error, hide_parameters=True, dialect=dialect
        ) from err
    finally:
        cursor.close()


class _Prepared:
    """One statement compiled for one dialect: the SQL, the order of its parameters (for
    positional parameter styles), and the row type of what it selects."""

    __slots__ = ("names", "row", "sql")

    def __init__(self, compiled: Compiled, columns: Sequence[str] | None) -> None:
        self.sql = compiled.string
        positions = getattr(compiled, "positiontup", None)
        self.names: tuple[str, ...] | None = tuple(positions) if positions is not None else None
        self.row: Any = namedtuple("Row", columns) if columns else None

    def parameters(self, values: Mapping[str, Any]) -> Any:
        return values if self.names is None else tuple(values[name] for name in self.names)


class Statement:
    """A SQLAlchemy Core statement run on the driver's cursor (see the module's docstring).

    `columns`: the columns an INSERT or UPDATE sets (compiled into it once); a SELECT's
    result columns are its own.
    """

    __slots__ = ("_columns", "_prepared", "statement")

    def __init__(self, statement: Executable, columns: Sequence[str] | None = None) -> None:
        self.statement = statement
        self._columns = list(columns) if columns is not None else None
        self._prepared: dict[tuple[str, str], _Prepared] = {}

    def _for(self, dialect: Dialect) -> _Prepared:
        key = (dialect.name, dialect.paramstyle)
        prepared = self._prepared.get(key)
        if prepared is None:
            compiled = self.statement.compile(dialect=dialect, column_keys=self._columns)  # type: ignore[attr-defined]
            selected = getattr(self.statement, "selected_columns", None)
            names = [column.key for column in selected] if selected is not None else None
            prepared = self._prepared[key] = _Prepared(compiled, names)
        return prepared

    def _run(self, conn: Connection, values: Any, many: bool) -> tuple[list[Any], int]:
        prepared = self._for(conn.dialect)
        if many:
            parameters = [prepared.parameters(v) for v in values]
            return _execute(conn, prepared.sql, parameters, many=True, fetch=False)
        rows, count = _execute(
            conn,
            prepared.sql,
            prepared.parameters(values),
            many=False,
            fetch=prepared.row is not None,
        )
        return [prepared.row._make(row) for row in rows], count

    def all(self, conn: Connection, values: Mapping[str, Any]) -> list[Any]:
        """Every selected row, as named tuples (`row.seq`, `row.hash`)."""
        return self._run(conn, values, False)[0]

    def first(self, conn: Connection, values: Mapping[str, Any]) -> Any | None:
        """The first selected row as a named tuple, or None."""
        rows = self._run(conn, values, False)[0]
        return rows[0] if rows else None

    def run(self, conn: Connection, values: Mapping[str, Any]) -> int:
        """Run an INSERT, UPDATE or DELETE once; the count of rows it changed."""
        return int(self._run(conn, values, False)[1])

    def many(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run an INSERT for each of `rows` (one driver call)."""
        if rows:
            self._run(conn, rows, True)
