"""A Combat Skill typed on the command line (MSV-2), read by the rules' own check.

`read_cs` reads every CS argument and option (`**CS`): a whole number 0..100, else the
rules' own error (a `RuleError`, turned into one line and exit 2 by `referee.cli.main`).
`SkillCommand` is the command class of those that take CS arguments: click reads `-65` as
the option `-6`, so a negative number there is answered as the negative CS it is.

>>> read_cs(None, None, "65")
65
>>> read_cs(None, None, "-65")
Traceback (most recent call last):
...
referee.errors.RuleError: CS must be a whole number >= 0 (MSV-2), got -65
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import click

from referee.systems.msv.attack import check_cs, check_fighter_cs

#: A token click would take for an option but that is a negative whole number.
NEGATIVE = re.compile(r"-[0-9]+")
#: A whole number as typed, too large for a CS or not: at most 100 digits are read, so that
#: the bound is what refuses 10**23 (and a longer number is no number).
WHOLE = re.compile(r"-?[0-9]{1,100}")


def read_cs(ctx: click.Context | None, param: click.Parameter | None, value: Any) -> Any:
    """The callback of every CS argument and option: a whole number 0..MAX_CS (MSV-2), None
    when none was given; anything else is the rules' RuleError."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return check_fighter_cs(value)
    text = str(value).strip()
    if not WHOLE.fullmatch(text):
        check_cs(text)  # not a whole number: the rules' own words for it
    return check_fighter_cs(int(text))  # too large (10**23, say): the rules' bound


#: What a CS argument or option takes: `@click.argument("cs_a", **CS)`.
CS: dict[str, Any] = {"callback": read_cs, "metavar": "CS"}


class SkillCommand(click.Command):
    """A command with CS arguments: `referee msv duel 60 -65` says that a CS cannot be negative
    (MSV-2), where click alone would say "No such option: -6"."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given: Sequence[str] = list(args)
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption:
            negative = next((a for a in given if NEGATIVE.fullmatch(a)), None)
            if negative is not None:
                check_cs(int(negative))
            raise
