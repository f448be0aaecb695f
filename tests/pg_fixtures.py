"""PostgreSQL fixtures: a fresh schema per test, and a `db_url` run over SQLite and PostgreSQL.

Import these names in tests/conftest.py (`from pg_fixtures import db_url, pg_base_url, pg_url`)
or in a test module. The server comes from $REFEREE_TEST_PG_URL, else
postgresql://postgres@127.0.0.1:5432/postgres. When it cannot be reached the PostgreSQL
tests are skipped, except with CI=true, where they fail.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from urllib.parse import quote

import psycopg
import pytest

PG_ENV = "REFEREE_TEST_PG_URL"
DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def _admin_url() -> str:
    return os.environ.get(PG_ENV) or DEFAULT_PG_URL


def with_search_path(url: str, schema: str) -> str:
    """The URL with libpq `options` that put `schema` first on the search path."""
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema}', safe='')}"


@pytest.fixture(scope="session")
def pg_base_url() -> str:
    """A reachable PostgreSQL server's URL, or skip (fail under CI=true)."""
    url = _admin_url()
    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as err:
        reason = f"PostgreSQL at ${PG_ENV} or the default is unreachable: {type(err).__name__}"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return url


@contextlib.contextmanager
def fresh_schema(base_url: str) -> Iterator[str]:
    """A URL whose connections use a fresh, empty schema; dropped at the end."""
    schema = f"referee_test_{secrets.token_hex(6)}"
    with psycopg.connect(base_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield with_search_path(base_url, schema)
    finally:
        with psycopg.connect(base_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def pg_url(pg_base_url: str) -> Iterator[str]:
    """A URL whose connections use a fresh, empty schema; dropped after the test."""
    with fresh_schema(pg_base_url) as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> str:
    """A fresh database URL: a SQLite file in tmp_path, then a PostgreSQL schema."""
    if request.param == "sqlite":
        return os.path.join(tmp_path, "referee.db")
    url: str = request.getfixturevalue("pg_url")
    return url
