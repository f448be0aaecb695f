"""Each `referee` subcommand is loaded when it is run (`referee.cli.commands`): a quick command
does not load the service's web framework and database layer, nor the lab's numpy, and every
command is still listed, and found, as before."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from referee.cli.commands import COMMANDS, all_commands
from referee.cli.main import cli

HEAVY = ("fastapi", "starlette", "sqlalchemy", "numpy", "referee.service", "referee.store")


@pytest.mark.parametrize(
    ("args", "heavy"),
    [
        (["roll", "1d6"], HEAVY),
        (["msv", "attack", "--cs", "65", "--roll", "47"], HEAVY[:3] + HEAVY[4:]),  # numpy: odds
    ],
)
def test_a_quick_command_loads_neither_the_service_nor_numpy(
    args: list[str], heavy: tuple[str, ...]
) -> None:
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print(sorted(m for m in {heavy!r} if m in sys.modules)))\n"
        f"from referee.cli import entry\nentry.main({args!r})\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert loaded.stdout.strip().splitlines()[-1:] == ["[]"], (loaded.stdout, loaded.stderr)


def test_every_command_is_listed_in_help_order_and_found() -> None:
    context = click.Context(cli)
    assert cli.list_commands(context) == list(COMMANDS)
    assert [c.name for c in all_commands()] == list(COMMANDS)
    for name in COMMANDS:
        assert cli.get_command(context, name) is not None
    assert cli.get_command(context, "nope") is None
    shown = CliRunner().invoke(cli, ["--help"]).output
    assert [line.split()[0] for line in shown.split("Commands:\n")[1].splitlines()] == list(
        COMMANDS
    )
    assert "fight" in CliRunner().invoke(cli, ["srp", "--help"]).output
    unknown = CliRunner().invoke(cli, ["nope"])
    assert unknown.exit_code == 2 and "No such command 'nope'" in unknown.output
