"""The README's console examples, run through the CLI and compared line by line."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli.main import cli

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def examples() -> list[tuple[str, str]]:
    """(command line, expected output) for every `$ referee ...` in a console block."""
    found = []
    for block in BLOCK.findall(README.read_text(encoding="utf-8")):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    found.append((command, "\n".join(output)))
                command, output = line[2:], []
            else:
                output.append(line)
        if command is not None:
            found.append((command, "\n".join(output)))
    return found


def test_readme_has_examples() -> None:
    assert len(examples()) >= 2


@pytest.mark.parametrize(("command", "expected"), examples(), ids=lambda v: v[:40])
def test_readme_example(command: str, expected: str) -> None:
    argv = shlex.split(command)
    assert argv[0] == "referee"
    result = CliRunner().invoke(cli, argv[1:])
    shown = (result.stdout + result.stderr).rstrip("\n")
    if "..." in expected:
        pattern = ".*".join(re.escape(part) for part in expected.split("..."))
        assert re.fullmatch(pattern, shown, re.S), shown
    else:
        assert shown == expected
