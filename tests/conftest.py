"""Shared fixtures: PostgreSQL when reachable, Chromium when present.

Outside CI a missing PostgreSQL or Chromium skips the tests that need it;
with CI=true it fails them.

Property tests run under the hypothesis profile of tests/depth.py ("fixed": the same examples
every run; "deep": fresh ones), with no example database, and hypothesis keeps its files in a
temporary directory: no test writes into the repository.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

from referee.rng import Entropy
from tests.depth import PROFILE

IN_CI = os.environ.get("CI", "").lower() == "true"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--seed-salt",
        default="",
        help="give every test other (still deterministic) server seeds; see tests/seeds.py",
    )


settings.register_profile("fixed", derandomize=True, database=None)
settings.register_profile("deep", derandomize=False, database=None, print_blob=True)
settings.load_profile(PROFILE)

#: Where hypothesis keeps its caches during this run (removed at its end).
_HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="referee-hypothesis-")
set_hypothesis_home_dir(_HYPOTHESIS_HOME)


def pytest_configure(config: pytest.Config) -> None:
    from tests.seeds import SALT

    SALT["value"] = str(config.getoption("--seed-salt"))


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_HYPOTHESIS_HOME, ignore_errors=True)


@pytest.fixture
def entropy() -> Entropy:
    """Where the test's service (`live`, `web`) draws its server seeds: the test's own
    deterministic source. A module that plays a bout known in advance overrides this fixture
    with `tests.seeds.fixed(SEED)`."""
    from tests.seeds import for_test

    return for_test()


def pytest_report_header(config: pytest.Config) -> list[str]:
    salt = config.getoption("--seed-salt")
    lines = [f"hypothesis profile: {PROFILE} (tests/depth.py)"]
    return [*lines, f"server seeds salted with {salt!r}"] if salt else lines


def need(condition: bool, what: str) -> None:
    """Skip (or, in CI, fail) when a real part the test needs is missing."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{what} is required when CI=true", pytrace=False)
    pytest.skip(f"{what} is not available here")


from tests.pg_fixtures import db_url, pg_base_url, pg_url  # noqa: E402
from tests.service_fixtures import LiveServer, live, shared_live  # noqa: E402

__all__ = [
    "LiveServer",
    "db_url",
    "entropy",
    "live",
    "need",
    "pg_base_url",
    "pg_url",
    "shared_live",
]


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
