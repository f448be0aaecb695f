"""`referee serve` as a user starts it: it binds first, then says it is serving; a taken port
is one clear line and exit 2."""

from __future__ import annotations

import gc
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

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


def test_a_host_that_is_no_name_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [*SERVE, "--db", str(tmp_path / "r.db"), "--host", "not..a..host"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (  # not the idna codec's traceback
        "error: cannot listen on host 'not..a..host': not a host name or address "
        "(try --host 127.0.0.1)\n"
    )
    assert not (tmp_path / "r.db").exists()


def _serve(tmp_path: Path) -> tuple[subprocess.Popen[str], str, int]:
    """`referee serve --port 0` started: the process, its first line, and the port its second
    line says it serves on."""
    proc = subprocess.Popen(
        [*SERVE, "--db", str(tmp_path / "r.db"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    first, line = proc.stdout.readline(), proc.stdout.readline()
    assert line.startswith("referee is serving on http://127.0.0.1:"), (first, line)
    return proc, first, int(line.split("http://127.0.0.1:")[1].split("/")[0])


def test_serving_is_said_only_once_connections_are_accepted(tmp_path: Path) -> None:
    proc, first, port = _serve(tmp_path)
    try:
        assert first.startswith("referee database: sqlite:///")
        assert port > 0
        # Said only after the bind: the very first request is answered, with no retry loop.
        answer = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=60)
        assert answer.status_code == 200
        assert answer.json()["status"] == "ok"
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_ctrl_c_stops_the_service_quietly_with_exit_code_0(tmp_path: Path) -> None:
    """Ctrl+C (SIGINT) shuts down gracefully and says so: no "Aborted!", exit code 0, so
    `make run` reports no error either."""
    proc, _, port = _serve(tmp_path)
    assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=60).status_code == 200
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.strip().splitlines()[-1] == "referee stopped."
    assert "Aborted" not in out + err and "Traceback" not in err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_watched_bout_does_not_keep_the_service_from_stopping(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """A live stream never ends by itself: once, Ctrl+C or a SIGTERM (systemd's stop) waited
    for every watcher to leave. Now the stream is cut as a hang-up would cut it (the browser's
    EventSource comes back with Last-Event-ID), and the service stops as it does unwatched."""
    proc, _, port = _serve(tmp_path)
    try:
        made = httpx.post(
            f"http://127.0.0.1:{port}/api/bouts", json={"system": "msv", "name": "S"}, timeout=60
        ).json()
        with socket.create_connection(("127.0.0.1", port), timeout=60) as watcher:
            watcher.sendall(
                f"GET /api/bouts/{made['id']}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode()
            )
            seen = b""
            while b"event: bout_opened" not in seen:
                chunk = watcher.recv(65536)
                assert chunk, seen
                seen += chunk
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=60)  # hung until the watcher left, before
            while watcher.recv(65536):  # the stream was cut: the watcher reads its end
                pass
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
    if sig == signal.SIGINT:
        assert proc.returncode == 0, err
        assert out.strip().splitlines()[-1] == "referee stopped."
    else:  # uvicorn stops gracefully, then raises the SIGTERM again: a clean stop to systemd
        assert proc.returncode == -signal.SIGTERM, err
    assert "Traceback" not in err


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


class Served:
    """`referee serve` in a subprocess with a lowered open-file limit; its URL and port."""

    def __init__(self, tmp_path: Path, files: int, *options: str) -> None:
        command = [*SERVE, "--db", str(tmp_path / "r.db"), "--port", "0", *options]
        self.log = open(tmp_path / "serve.log", "w")  # noqa: SIM115  (closed in stop)
        # The shell lowers the limit for the server alone, then becomes it (exec: same pid).
        self.proc = subprocess.Popen(
            ["sh", "-c", f'ulimit -n {files} && exec "$@"', "sh", *command],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        assert self.proc.stdout is not None
        line = ""
        while "serving on" not in line:
            line = self.proc.stdout.readline()
            assert line, "referee serve stopped before serving"
        self.url = line.split("serving on ")[1].split()[0].rstrip("/")
        self.port = int(self.url.rsplit(":", 1)[1])

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)
        self.log.close()


def half_sent(port: int) -> socket.socket:
    """A connection that sends half a request and then nothing."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: referee\r\n")
    return sock


def test_half_sent_requests_do_not_keep_healthz_from_answering(tmp_path: Path) -> None:
    """A client holding more half-sent requests than the process may have files open (1,024
    here; about 20,000 took the service down before) no longer keeps anyone out: past its
    connection cap the service lets the longest-waiting connection go, and `/healthz` answers.
    Bounded: 1,100 connections, each opened once; the server is killed at the end."""
    served = Served(tmp_path, 1024)
    held: list[socket.socket] = []
    try:
        for _ in range(1_100):
            held.append(half_sent(served.port))
        answer = httpx.get(f"{served.url}/healthz", timeout=30)
        assert answer.status_code == 200 and answer.json()["status"] == "ok"
    finally:
        for sock in held:
            sock.close()
        served.stop()


def test_a_request_sent_too_slowly_is_cut_off(tmp_path: Path) -> None:
    """A connection that does not send its whole request within --request-timeout is closed
    (the client reads the end of the stream); a whole request is answered as ever."""
    served = Served(tmp_path, 1024, "--request-timeout", "1")
    held = [half_sent(served.port) for _ in range(5)]
    try:
        for sock in held:
            sock.settimeout(60)  # generous: the server closes it after about a second
            assert sock.recv(1024) == b"", "a half-sent request was kept open"
        assert httpx.get(f"{served.url}/healthz", timeout=30).status_code == 200
    finally:
        for sock in held:
            sock.close()
        served.stop()
