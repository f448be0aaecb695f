"""Every subcommand of `referee`, gathered from one module per area."""

from __future__ import annotations

import click


def all_commands() -> list[click.Command]:
    """The commands and groups the `referee` group offers, in help order."""
    from referee.cli.fairness import verify_roll

    return [verify_roll]
