"""A test that hangs fails with its name within its timeout, under pytest-xdist too.

pyproject.toml's `[tool.pytest.ini_options]` set two clocks on every test. pytest-timeout's
`timeout` (the signal method: SIGALRM) raises a failure inside the test, which then fails with
its traceback while the run goes on. A test that outlives it, because it catches that exception
or because a C call holds the GIL without ever checking for signals, is ended by pytest's
faulthandler at `faulthandler_timeout` (`faulthandler_exit_on_timeout`): every thread's stack is
printed, naming the test's function, and its process exits; pytest-xdist reports the test as
the one its worker crashed in and starts another worker for the rest. (pytest-timeout's thread
method would miss the C call: its timer thread needs the GIL too.)

The test here runs pytest with the project's own configuration, shorter clocks, and one xdist
worker on a file of tests that never end in each of those three ways.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HANGS = """import itertools
import time


def test_loops_in_python():
    while True:
        pass


def test_swallows_the_timeout():
    while True:
        try:
            time.sleep(0.01)
        except BaseException:
            pass


def test_holds_the_gil_in_c():
    sum(itertools.repeat(1))


def test_after_them():
    pass
"""


def test_the_second_clock_comes_after_the_first() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pytest_ini = options["tool"]["pytest"]["ini_options"]
    assert pytest_ini["timeout_method"] == "signal"
    assert pytest_ini["faulthandler_exit_on_timeout"] is True
    assert pytest_ini["faulthandler_timeout"] > pytest_ini["timeout"] > 0


def test_a_hang_fails_with_its_name_under_xdist(tmp_path: Path) -> None:
    (tmp_path / "test_hangs.py").write_text(HANGS, encoding="utf-8")
    # Only the two plugins at work here are loaded (each of the three xdist workers would
    # import every installed one, hypothesis's among them, for nothing).
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    command = [
        sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"),
        "--rootdir", str(tmp_path), "-p", "no:cacheprovider", "-p", "pytest_timeout",
        "-p", "xdist", "-n", "1", "--timeout", "2", "-o", "faulthandler_timeout=4",
        "test_hangs.py",
    ]  # fmt: skip
    # Bounded by the subprocess's own timeout (75 s were seen on a loaded machine; the run takes
    # three xdist workers in turn), within the 300 s of this test: a run that never ends fails it.
    run = subprocess.run(
        command, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True,
        text=True, timeout=240,
    )  # fmt: skip
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    # The signal ends a loop in Python: the test fails with its traceback.
    assert "FAILED test_hangs.py::test_loops_in_python - Failed: Timeout (>2.0s)" in out
    # faulthandler ends the other two with their workers, each named.
    assert re.search(r'File ".*test_hangs.py", line \d+ in test_swallows_the_timeout', out), out
    assert "worker 'gw0' crashed while running 'test_hangs.py::test_swallows_the_timeout'" in out
    assert re.search(r'File ".*test_hangs.py", line 19 in test_holds_the_gil_in_c', out), out
    assert "worker 'gw1' crashed while running 'test_hangs.py::test_holds_the_gil_in_c'" in out
    assert "3 failed, 1 passed" in out
