"""How the CLI shows records: JSON for scripts, rich text for people."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # rich is imported by the commands that draw tables (not by every command)
    from rich.console import Console
    from rich.table import Table


def console() -> Console:
    """A console on stdout (plain when not a terminal, so output stays testable)."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """`click.echo`, but a character UTF-8 cannot carry (a lone surrogate, which only a forged
    export or log can bring in) is written as its `\\uXXXX` escape instead of stopping the
    command with a traceback. In JSON text the escape is exactly how JSON writes it.

    >>> echo("ok " + chr(0xD800))
    ok \\ud800
    """
    click.echo(text.encode("utf-8", "backslashreplace").decode("utf-8"), err=err, nl=nl)


def emit_json(data: Any) -> None:
    """Print one JSON document (keys in insertion order, UTF-8 kept)."""
    echo(json.dumps(data, ensure_ascii=False, indent=2))


def table(title: str | None, columns: list[str], rows: list[list[Any]]) -> Table:
    """A rich table with the given header and rows, every cell shown with `str`."""
    from rich.table import Table

    out = Table(title=title)
    for column in columns:
        out.add_column(column)
    for row in rows:
        out.add_row(*(str(cell) for cell in row))
    return out
