"""docs/deploy.md's backup and restore, done as written: a closed spar is backed up (PostgreSQL:
pg_dump; SQLite: sqlite3 .backup), restored into a fresh database, exported with
`referee export` and checked with `referee verify`, both run as a user runs them."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.conftest import need
from tests.pg_fixtures import with_search_path
from tests.service_fixtures import LiveServer, start_server
from tests.test_service_bouts import msv_spar

REFEREE = [sys.executable, "-m", "referee.cli.main"]


def closed_spar(db_url: str) -> str:
    """A whole MSV spar over HTTP on `db_url`, closed (seed revealed): its bout id."""
    server, thread, store, url = start_server(db_url)
    try:
        import httpx

        with httpx.Client(base_url=url, timeout=60) as http:
            live = LiveServer(url, store, http)
            bout, _ = msv_spar(live)
            assert (
                live.post(f"/api/bouts/{bout['id']}/close", bout["referee_token"]).status_code
                == 200
            )
            return str(bout["id"])
    finally:
        server.stop()
        thread.join(10)
        store.close()


def export_and_verify(bout_id: str, db_url: str, tmp_path: Path) -> str:
    out = tmp_path / "bout.json"
    exported = subprocess.run(
        [*REFEREE, "export", bout_id, "--db", db_url, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert exported.returncode == 0, exported.stderr
    verified = subprocess.run(
        [*REFEREE, "verify", str(out)], capture_output=True, text=True, timeout=120
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    return verified.stdout


def test_a_sqlite_backup_restores_and_verifies(tmp_path: Path) -> None:
    need(shutil.which("sqlite3") is not None, "the sqlite3 command")
    live_db = tmp_path / "live.db"
    bout_id = closed_spar(str(live_db))
    backup = tmp_path / "backup.db"
    done = subprocess.run(
        ["sqlite3", str(live_db), f".backup {backup}"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    restored = tmp_path / "restored" / "referee.db"
    restored.parent.mkdir()
    shutil.copyfile(backup, restored)
    live_db.unlink()  # the original is gone: only the restored copy answers
    report = export_and_verify(bout_id, str(restored), tmp_path)
    assert "ok" in report.lower()


@pytest.fixture
def fresh_database(pg_base_url: str) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database; dropped after the test."""
    name = f"referee_restore_{secrets.token_hex(5)}"
    with psycopg.connect(pg_base_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(pg_base_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(pg_base_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.postgres
def test_a_postgres_backup_restores_into_a_fresh_database_and_verifies(
    pg_url: str, pg_base_url: str, fresh_database: str, tmp_path: Path
) -> None:
    need(shutil.which("pg_dump") is not None, "pg_dump")
    bout_id = closed_spar(pg_url)
    schema = pg_url.split("search_path%3D")[1]
    dump = tmp_path / "referee.dump"
    env = {**os.environ, "PGCONNECT_TIMEOUT": "30"}
    dumped = subprocess.run(
        ["pg_dump", "--format=custom", f"--schema={schema}", f"--file={dump}", pg_base_url],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert dumped.returncode == 0, dumped.stderr
    restored = subprocess.run(
        ["pg_restore", "--no-owner", f"--dbname={fresh_database}", str(dump)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert restored.returncode == 0, restored.stderr
    report = export_and_verify(bout_id, with_search_path(fresh_database, schema), tmp_path)
    assert "ok" in report.lower()
