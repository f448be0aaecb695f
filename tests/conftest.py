"""Shared fixtures: PostgreSQL when reachable, Chromium when present.

Outside CI a missing PostgreSQL or Chromium skips the tests that need it;
with CI=true it fails them.
"""

from __future__ import annotations

import os

import pytest

from referee.rng import Entropy

IN_CI = os.environ.get("CI", "").lower() == "true"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--seed-salt",
        default="",
        help="give every test other (still deterministic) server seeds; see tests/seeds.py",
    )


def pytest_configure(config: pytest.Config) -> None:
    from tests.seeds import SALT

    SALT["value"] = str(config.getoption("--seed-salt"))


@pytest.fixture
def entropy() -> Entropy:
    """Where the test's service (`live`, `web`) draws its server seeds: the test's own
    deterministic source. A module that plays a bout known in advance overrides this fixture
    with `tests.seeds.fixed(SEED)`."""
    from tests.seeds import for_test

    return for_test()


def pytest_report_header(config: pytest.Config) -> str | None:
    salt = config.getoption("--seed-salt")
    return f"server seeds salted with {salt!r}" if salt else None


def need(condition: bool, what: str) -> None:
    """Skip (or, in CI, fail) when a real part the test needs is missing."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{what} is required when CI=true", pytrace=False)
    pytest.skip(f"{what} is not available here")


from tests.pg_fixtures import db_url, pg_base_url, pg_url  # noqa: E402
from tests.service_fixtures import LiveServer, live  # noqa: E402

__all__ = ["LiveServer", "db_url", "entropy", "live", "need", "pg_base_url", "pg_url"]


@pytest.fixture(autouse=True)
def _bot_files_outside_the_tree(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """dpytest writes every file a bot sends to `./dpytest_N.dat`: the Discord tests run in a
    temporary directory, so no test writes into the repository."""
    if request.module.__name__.rsplit(".", 1)[-1].startswith("test_discord_"):
        monkeypatch.chdir(tmp_path_factory.mktemp("discord"))
