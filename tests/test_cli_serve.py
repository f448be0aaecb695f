"""`referee serve` as a user starts it: it binds first, then says it is serving; a taken port
is one clear line and exit 2."""

from __future__ import annotations

import gc
import socket
import subprocess
import sys
from pathlib import Path

import httpx

SERVE = [sys.executable, "-m", "referee.cli.main", "serve"]


def test_a_taken_port_is_one_line_naming_it_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*SERVE, "--db", str(tmp_path / "r.db"), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert "serving" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"error: port {port} on 127.0.0.1 is in use; stop what uses it or pick another "
        f"with --port (for example --port {port + 1})"
    ]
    assert not (tmp_path / "r.db").exists()  # nothing was opened either


def test_an_unknown_host_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [*SERVE, "--db", str(tmp_path / "r.db"), "--host", "no-such-host.invalid"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("error: cannot listen on host 'no-such-host.invalid'")


def test_serving_is_said_only_once_connections_are_accepted(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [*SERVE, "--db", str(tmp_path / "r.db"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("referee database: sqlite:///")
        line = proc.stdout.readline()
        assert line.startswith("referee is serving on http://127.0.0.1:")
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        assert port > 0
        # Said only after the bind: the very first request is answered, with no retry loop.
        answer = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=60)
        assert answer.status_code == 200
        assert answer.json()["status"] == "ok"
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_the_served_app_is_frozen_for_the_garbage_collector(tmp_path: Path) -> None:
    """What the process holds from the start (modules, the app, its routes) is moved out of
    the collector's reach, so full collections while serving do not walk it again."""
    from referee.cli.serve import _app
    from referee.store import Store

    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    settings = {"rates": [], "max_streams": 10, "max_streams_per_address": 2, "poll_seconds": None}
    with Store.open(str(tmp_path / "frozen.db")) as store:
        try:
            _app(store, settings)
            assert gc.get_freeze_count() > 0
        finally:
            gc.unfreeze()
