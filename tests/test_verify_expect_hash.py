"""`referee verify --expect-hash SEQ:HASH`: an event number that cannot be one is never dropped
(which would leave only "some event has this hash", a weaker check than the one asked for)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from tests.vectors.generate import ruling_vectors


@pytest.fixture
def export(tmp_path: Path) -> tuple[Path, str]:
    """A genuine export and the hash of its event 5."""
    vector = ruling_vectors()[0]
    path = tmp_path / "bout.json"
    path.write_text(vector.text, encoding="utf-8")
    return path, json.loads(vector.text)["events"][5]["hash"]


def verify(path: Path, kept: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["verify", str(path), "--expect-hash", kept])
    return result.exit_code, result.stderr


def test_the_event_number_is_held_to_however_long(export: tuple[Path, str]) -> None:
    path, hash5 = export
    assert verify(path, f"5:{hash5}") == (0, "")
    seq = "9" * 20  # past the 18 digits the pattern read: the hash was then taken alone
    assert verify(path, f"{seq}:{hash5}") == (
        1,
        f"error: export: no event {seq}, whose hash {hash5!r} you kept (the export was cut or "
        "rewritten)\n",
    )
    line = f"Head hash: {hash5} (event {seq}). Keep it: ..."
    assert verify(path, line)[0] == 1


@pytest.mark.parametrize("seq", ["-1", "+5"])
def test_a_signed_event_number_is_one_line_and_exit_2(export: tuple[Path, str], seq: str) -> None:
    path, hash5 = export
    code, err = verify(path, f"{seq}:{hash5}")
    assert code == 2
    assert err == (
        f"error: --expect-hash '{seq}:{hash5}': {seq} is no event number (they run 0, 1, 2, ...)\n"
    )
