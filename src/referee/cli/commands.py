"""Every subcommand of `referee`, one module per area, each imported only when it is run (or
listed by `referee --help`): `referee judge` does not load the service's web framework and
database layer, nor the lab's numpy.

This is click's documented way of loading subcommands lazily (a group's `list_commands` and
`get_command`, see `referee.cli.main.RefereeGroup`).
"""

from __future__ import annotations

from importlib import import_module

import click

#: Each subcommand's name -> (its module, its name there), in help order.
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("referee.cli.serve", "serve"),
    "roll": ("referee.cli.roll", "roll_command"),
    "verify-roll": ("referee.cli.fairness", "verify_roll"),
    "msv": ("referee.cli.msv", "msv"),
    "srp": ("referee.cli.srp", "srp"),
    "verify": ("referee.cli.ledger", "verify"),
    "luck": ("referee.cli.luck", "luck_command"),
    "export": ("referee.cli.ledger", "export"),
    "judge": ("referee.cli.judge", "judge_command"),
    "discord": ("referee.cli.discord", "discord_command"),
    "lab": ("referee.cli.lab", "lab"),
}


def load_command(name: str) -> click.Command | None:
    """The subcommand called `name`, imported now (None: no such command).

    >>> load_command("roll").name, load_command("nope")
    ('roll', None)
    """
    found = COMMANDS.get(name)
    if found is None:
        return None
    module, attribute = found
    command: object = getattr(import_module(module), attribute)
    assert isinstance(command, click.Command) and command.name == name, (name, command)
    if name == "srp":  # `referee srp fight` and the evening live in modules of their own
        from referee.cli.srp_evening import evening_command, next_fight_command
        from referee.cli.srp_fight import fight_command

        assert isinstance(command, click.Group)
        for sub in (fight_command, next_fight_command, evening_command):
            command.add_command(sub)
    return command


def all_commands() -> list[click.Command]:
    """The commands and groups the `referee` group offers, in help order (all imported)."""
    return [command for name in COMMANDS if (command := load_command(name)) is not None]
