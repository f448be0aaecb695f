"""A SQLite database the store cannot use: a file that is not SQLite, a damaged one, one whose
write lock another connection holds past the busy timeout. Each is one clear StorageError (CLI
exit 2, HTTP 503, docs/storage.md "Errors"), never the driver's error, and changes nothing."""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from referee.cli.main import cli
from referee.errors import StorageError
from referee.rng import Entropy
from referee.store import Store
from referee.store.engine import make_engine
from tests.service_fixtures import serving


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def filled(tmp_path: Path) -> Path:
    """A database of the current schema holding one bout."""
    path = tmp_path / "bouts.db"
    with Store.open(str(path)) as store:
        store.create_bout(system="msv", name="Spar", client_seed="table", bout_id="b1")
    return path


def damaged(filled: Path, how: str) -> Path:
    data = filled.read_bytes()
    if how == "text":
        filled.write_bytes(b"this is a note, not a database\n" * 40)
    elif how == "truncated":
        filled.write_bytes(data[:5000])
    else:  # a page in the middle overwritten
        filled.write_bytes(data[:4096] + bytes(range(256)) * 16 + data[8192:])
    for extra in ("-wal", "-shm"):
        Path(f"{filled}{extra}").unlink(missing_ok=True)
    return filled


@pytest.mark.parametrize("how", ["text", "truncated", "overwritten"])
def test_a_file_that_is_not_a_usable_database_is_one_line_and_exit_2(
    filled: Path, how: str
) -> None:
    path = damaged(filled, how)
    before = digest(path)
    unusable = r"is unavailable: DatabaseError: (file is not a database|database disk image)"
    with pytest.raises(StorageError, match=unusable), Store.open(str(path)) as store:
        store.export("b1")
    result = CliRunner().invoke(cli, ["export", "b1", "--db", str(path)])
    assert (result.exit_code, result.stdout) == (2, ""), result.stderr
    assert result.stderr.startswith(f"error: database 'sqlite:///{path}' is unavailable: ")
    assert result.stderr.count("\n") == 1
    assert digest(path) == before


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite's busy timeout at 1 s instead of 30, for the engines made from now on."""
    monkeypatch.setattr("referee.store.engine.BUSY_TIMEOUT_S", 1)


def bouts_in(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [row[0] for row in conn.execute("SELECT id FROM bouts ORDER BY id")]


def test_a_lock_held_past_the_busy_timeout_is_a_storage_error(
    short_busy_timeout: None, filled: Path
) -> None:
    store = Store.open(str(filled))
    other = sqlite3.connect(filled, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        message = "is locked: another connection has held its write lock for longer than"
        with pytest.raises(StorageError, match=message):
            store.create_bout(system="msv", name="Two", client_seed="t", bout_id="b2")
        with pytest.raises(StorageError, match=message):
            Store.open(str(filled))  # its migrations write too
        result = CliRunner().invoke(cli, ["export", "b1", "--db", str(filled)])
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == (
            f"error: database 'sqlite:///{filled}' is locked: another connection has held its "
            "write lock for longer than the busy timeout; nothing was changed\n"
        )
    finally:
        other.execute("ROLLBACK")
        other.close()
        store.close()
    assert bouts_in(filled) == ["b1"]


def test_a_locked_database_answers_503_over_http(
    short_busy_timeout: None, filled: Path, entropy: Entropy
) -> None:
    with serving(str(filled), entropy) as live:
        other = sqlite3.connect(filled, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            made = live.post("/api/bouts", json={"system": "msv", "name": "Two"})
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert made.status_code == 503, made.text
        assert made.json()["error"] == "storage_unavailable"
        assert bouts_in(filled) == ["b1"]
        again = live.post("/api/bouts", json={"system": "msv", "name": "Two"})
        assert again.status_code == 201, again.text  # the lock gone, it serves again


def test_a_database_whose_folder_cannot_be_made_is_a_storage_error(filled: Path) -> None:
    """`--db` under a file: no folder can be made there; one line, exit 2, nothing changes."""
    before = digest(filled)
    where = filled / "sub" / "bouts.db"
    message = f"cannot make the folder of database 'sqlite:///{where}': Not a directory"
    with pytest.raises(StorageError, match=message):
        Store.open(str(where))
    result = CliRunner().invoke(cli, ["serve", "--db", str(where), "--port", "0"])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"error: {message}\n")
    assert digest(filled) == before


@dataclass(frozen=True)
class Note:
    type: str
    actor: str | None
    payload: dict[str, Any]


@pytest.mark.postgres
def test_a_postgresql_lock_held_past_the_busy_timeout_is_a_storage_error(
    short_busy_timeout: None, pg_url: str
) -> None:
    """Another session holds the bout's row lock: the append waits the busy timeout (as
    `lock_timeout`), then fails as one StorageError, not for ever; nothing is appended."""
    with Store.open(pg_url) as store:
        store.create_bout(system="msv", name="Spar", client_seed="table", bout_id="b1")
        other = make_engine(pg_url)
        with other.connect() as holder:
            holder.execute(text("SELECT id FROM bouts WHERE id = 'b1' FOR UPDATE"))
            with pytest.raises(StorageError, match="is locked: another connection has held"):
                store.extend("b1", lambda events, dice: [Note("note", "ref", {})])
            holder.rollback()
        other.dispose()
        assert store.events("b1") == []
        assert [e["seq"] for e in store.extend("b1", lambda ev, d: [Note("note", "ref", {})])] == [
            0
        ]
