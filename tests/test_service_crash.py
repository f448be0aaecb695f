"""`kill -9` at random points of a bounded load, at a small scale: benchmarks/bench_crash.py
(which prints the counts at full scale) is run with a few bouts and kills, over SQLite and
PostgreSQL, and every count must be 0: no acknowledged write lost, none applied twice, no
half-done operation in the database, every export verifying with `referee verify`, no
unexpected answer. Seeded; timing decides only where a kill lands, never what must hold."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_crash.py"
COUNTS = ("lost", "applied_twice", "half_done", "exports_failing", "unexpected_answers")


def _crash(database: str, env: dict[str, str]) -> dict[str, object]:
    command = [sys.executable, str(BENCH), "--database", database, "--json", "--seed", "7"]
    command += ["--bouts", "2", "--steps", "8", "--kills", "4", "--kill-chance", "0.3"]
    command += ["--drop-chance", "0.2"]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=600, env={**os.environ, **env}
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _check(result: dict[str, object]) -> None:
    assert {name: result[name] for name in COUNTS} == dict.fromkeys(COUNTS, 0), result["problems"]
    assert result["bouts"] == 2
    assert isinstance(result["kills"], int) and result["kills"] >= 1
    assert isinstance(result["starts"], int) and result["starts"] > 1
    assert isinstance(result["dropped"], int) and result["dropped"] >= 1


def test_kill_9_during_a_load_loses_nothing_and_leaves_nothing_half_done() -> None:
    _check(_crash("sqlite", {}))


@pytest.mark.postgres
def test_kill_9_on_postgresql_loses_nothing_and_leaves_nothing_half_done(
    pg_base_url: str,
) -> None:
    _check(_crash("postgresql", {"REFEREE_TEST_PG_URL": pg_base_url}))
