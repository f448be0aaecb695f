#!/usr/bin/env python3
"""The test suite under load, in random order: what a busy CI machine does to it, on purpose.

Each run starts one CPU hog per core (a busy loop that stops by itself after its time), runs
the whole suite with pytest-xdist and pytest-randomly under a seed of its own (printed, so a
failure can be run again in the same order: `pytest -n auto --randomly-seed=SEED`), then
kills its hogs. A run that outlives its time is killed with every process it started. After
each run the repository is checked for files the tests left in it.

    .ci/stress.py [--runs 3] [--minutes 30] [--hogs N] [-- PYTEST ARGS...]

`make test-stress` runs it; with CI=true and REFEREE_TEST_PG_URL set, PostgreSQL and Chromium
tests run too. The exit code is 0 only when every run passed and left the tree clean.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: A busy loop for one core, ending by itself after argv[1] seconds.
HOG = """import sys, time
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    pass
"""

#: Paths the build itself keeps in the tree (ignored by git); anything else new is a test's.
BUILD_PATHS = (
    ".venv/", ".mypy_cache/", ".ruff_cache/", ".pytest_cache/", "src/referee.egg-info/",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Run:
    """One run of the suite under load: its seed, exit code, wall time and load average."""

    number: int
    seed: int
    returncode: int
    seconds: float
    load: tuple[float, float, float]
    left_behind: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return self.returncode == 0 and not self.left_behind

    def __str__(self) -> str:
        verdict = "passed" if self.passed else f"FAILED (exit {self.returncode})"
        load = ", ".join(f"{x:.1f}" for x in self.load)
        tail = f"; left in the tree: {', '.join(self.left_behind)}" if self.left_behind else ""
        return (
            f"run {self.number}: {verdict} in {self.seconds / 60:.1f} min, "
            f"--randomly-seed={self.seed}, load average at the end {load}{tail}"
        )


def untracked() -> set[str]:
    """Files in the tree that git does not track (ignored ones too), build paths left out."""
    found = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    paths = {line[3:] for line in found.splitlines() if line[:2] in ("??", "!!")}
    return {p for p in paths if not p.startswith(BUILD_PATHS) and "__pycache__/" not in p}


def start_hogs(count: int, seconds: float) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", HOG, str(seconds)]) for _ in range(count)]


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for proc in processes:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def run_once(number: int, args: argparse.Namespace, pytest_args: list[str]) -> Run:
    seed = random.SystemRandom().randrange(2**31)
    limit = args.minutes * 60
    command = [sys.executable, "-m", "pytest", "-n", "auto", "--dist", "worksteal"]
    command += [f"--randomly-seed={seed}", "--durations=10", *pytest_args]
    print(f"== run {number}: {args.hogs} CPU hogs; {' '.join(command[1:])}", flush=True)
    before = untracked()
    hogs = start_hogs(args.hogs, limit + 60)  # they stop by themselves even if we die
    started = time.monotonic()
    suite = subprocess.Popen(command, cwd=ROOT, start_new_session=True)
    try:
        returncode = suite.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        print(f"== run {number} outlived {args.minutes} minutes: killed", flush=True)
        os.killpg(suite.pid, signal.SIGKILL)
        returncode = suite.wait()
    finally:
        stop(hogs)
    seconds = time.monotonic() - started
    left = tuple(sorted(untracked() - before))
    return Run(number, seed, returncode, seconds, os.getloadavg(), left)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="how many runs (default 3)")
    parser.add_argument("--minutes", type=float, default=30, help="time limit of each run")
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 2, help="busy processes")
    parser.add_argument("pytest_args", nargs="*", help="after --: passed on to pytest")
    args = parser.parse_args()
    runs = []
    for number in range(1, args.runs + 1):
        runs.append(run_once(number, args, args.pytest_args))
        print(f"== {runs[-1]}", flush=True)
    print("== summary")
    for run in runs:
        print(f"   {run}")
    return 0 if all(run.passed for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
