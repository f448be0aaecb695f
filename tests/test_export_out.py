"""`referee export --out FILE`: the export whole or not at all, and nothing left behind; a
path that is no regular file (a pipe, a device) is written to, never replaced by a file."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from tests.drafts import closed_bout


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A SQLite store with bout b1, closed: one roll."""
    path = str(tmp_path / "store" / "bouts.db")
    os.mkdir(tmp_path / "store")
    closed_bout(path, rolls=1)
    return path


def test_an_export_into_a_pipe_is_written_to_the_pipe(db: str, tmp_path: Path) -> None:
    fifo = tmp_path / "out" / "export.pipe"
    os.mkdir(fifo.parent)
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # open without a writer: no wait
    try:
        result = CliRunner().invoke(cli, ["export", "b1", "--db", db, "--out", str(fifo)])
        assert (result.exit_code, result.stdout) == (
            0,
            f"exported bout 'b1': 3 events to {fifo}\n",
        )
        assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still the pipe, not a file in its place
        written = os.read(reader, 1 << 20).decode("utf-8")
    finally:
        os.close(reader)
    assert [e["type"] for e in json.loads(written)["events"]] == ["bout_opened", "roll", "closed"]
    assert os.listdir(fifo.parent) == ["export.pipe"]


def test_an_export_that_cannot_take_its_place_leaves_nothing_behind(
    db: str, tmp_path: Path
) -> None:
    target = tmp_path / "out" / "taken"
    os.makedirs(target)
    result = CliRunner().invoke(cli, ["export", "b1", "--db", db, "--out", str(target)])
    assert (result.exit_code, result.stdout, result.stderr) == (
        4,  # an answer that cannot be written, as a closed pipe or a full disk
        "",
        f"error: cannot write {str(target)!r}: Is a directory\n",
    )
    assert os.listdir(target.parent) == ["taken"]


def test_a_write_that_fails_halfway_leaves_the_older_file_and_nothing_of_its_own(
    tmp_path: Path,
) -> None:
    """`write_whole` (export --out, judge --html) writes beside the target and renames: an
    answer that fails halfway (here its second part) leaves the older file as it was and no
    file of its own behind."""
    from referee.cli.files import write_whole

    target = tmp_path / "verdict.html"
    target.write_text("the older page", encoding="utf-8")

    def parts() -> Iterator[str]:
        yield "<!doctype html>"
        raise RuntimeError("the judge failed halfway")

    with pytest.raises(RuntimeError, match="halfway"):
        write_whole(str(target), parts())
    assert os.listdir(tmp_path) == ["verdict.html"]
    assert target.read_text(encoding="utf-8") == "the older page"
    write_whole(str(target), iter(["<p>", "new"]))
    assert os.listdir(tmp_path) == ["verdict.html"]
    assert target.read_text(encoding="utf-8") == "<p>new"
