"""Whatever goes wrong in a command is one line on stderr with its own exit status, never a
traceback: exit status 1 is only "does not verify" (`referee verify`, `verify-roll`, `luck`),
so a bug (3), an answer that cannot be written (4) or Ctrl-C (130) must never look like it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from tests.vectors.generate import ruling_vectors

SRC = str(Path(__file__).resolve().parent.parent / "src")


@pytest.fixture
def export(tmp_path: Path) -> Path:
    """A genuine export of a closed bout (the shared test vectors' first)."""
    vector = ruling_vectors()[0]
    assert vector.verdict == "verified"
    path = tmp_path / "bout.json"
    path.write_text(vector.text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("raised", "code", "message"),
    [
        (
            IndexError("list index out of range"),
            3,
            "error: internal error (IndexError: list index out of range); this is a bug in "
            "referee, please report it with the command that gave it\n",
        ),
        (KeyboardInterrupt(), 130, "error: interrupted\n"),
        (
            OSError(28, "No space left on device"),
            4,
            "error: cannot write the output: No space left on device\n",
        ),
        (BrokenPipeError(32, "Broken pipe"), 4, "error: cannot write the output: Broken pipe\n"),
        (
            OSError(2, "No such file or directory"),
            3,
            "error: internal error (FileNotFoundError: [Errno 2] No such file or directory); "
            "this is a bug in referee, please report it with the command that gave it\n",
        ),
    ],
    ids=["bug", "interrupted", "disk-full", "closed-pipe", "not-a-write"],
)
def test_verify_never_says_1_for_what_is_not_a_failed_check(
    monkeypatch: pytest.MonkeyPatch, export: Path, raised: BaseException, code: int, message: str
) -> None:
    from referee.cli import ledger

    def fail(*args: object, **kwargs: object) -> None:
        raise raised

    monkeypatch.setattr(ledger, "verify_export", fail)
    result = CliRunner().invoke(cli, ["verify", str(export)])
    assert (result.exit_code, result.stdout, result.stderr) == (code, "", message)
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_the_export_verifies_when_nothing_goes_wrong(export: Path) -> None:
    assert CliRunner().invoke(cli, ["verify", str(export)]).exit_code == 0


def test_a_closed_pipe_is_exit_4_and_one_line(export: Path) -> None:
    """A real process whose stdout is a pipe nobody reads any more (its reading end closed
    before it starts): one line on stderr, exit status 4, no traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "referee.cli.main", "verify", str(export)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": SRC},
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (4, "error: cannot write the output: Broken pipe\n")
