"""Every subcommand of `referee`, gathered from one module per area."""

from __future__ import annotations

import click


def all_commands() -> list[click.Command]:
    """The commands and groups the `referee` group offers, in help order."""
    from referee.cli.discord import discord_command
    from referee.cli.fairness import verify_roll
    from referee.cli.judge import judge_command
    from referee.cli.lab import lab
    from referee.cli.ledger import export, verify
    from referee.cli.msv import msv
    from referee.cli.roll import roll_command
    from referee.cli.serve import serve
    from referee.cli.srp import srp
    from referee.cli.srp_fight import fight_command

    srp.add_command(fight_command)

    return [
        serve, roll_command, verify_roll, msv, srp, verify, export, judge_command, discord_command,
        lab,
    ]  # fmt: skip
