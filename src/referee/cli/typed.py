"""What is typed on the command line: text that must be text (a bout id, a token, a client
seed), and whole numbers as people type them.

A shell hands Python its arguments as bytes; bytes that are not UTF-8 (typed in a terminal
set to another encoding) come in as lone surrogates, which no database, hash or signature
can take. `utf8_text` is the click callback of the options and arguments that are looked up
or hashed as text: such a value is one line and exit status 2 (a `NotationError`), where it
was a traceback. File paths are not among them: a path is bytes, and opens as it is.

`WHOLE` and `WholeRange` are click's `int` and `IntRange` for the number options, reading
ASCII digits only, as `referee.numerals` says every typed number is read: `int()` alone reads
`٤٧` as 47 and `4_7` as 47, where a CS, a die face in the dice notation and a `NAME=CS` refuse
them. At most 100 digits (a seed the commands print has 19 or 20).

>>> WHOLE.convert("47", None, None), WholeRange(min=0).convert("-0", None, None)
(47, 0)
>>> WHOLE.convert("٤٧", None, None)
Traceback (most recent call last):
...
click.exceptions.BadParameter: '٤٧' is not a valid integer.

>>> utf8_text(None, None, "table:tarl")
'table:tarl'
>>> utf8_text(None, None, "A\\udcffB")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
referee.errors.NotationError: 'A\\udcffB' is not UTF-8 text (a byte this terminal's encoding ...
"""

from __future__ import annotations

import math
import re
from typing import Any

import click

from referee.errors import NotationError


def utf8_text(ctx: click.Context | None, param: click.Parameter | None, value: Any) -> Any:
    """The value as given when it is UTF-8 text (None when none was given), else the error
    that names the option or argument."""
    if value is None:
        return None
    try:
        str(value).encode("utf-8")
    except UnicodeEncodeError:
        where = f"{_name(param)} " if param is not None else ""
        raise NotationError(
            f"{where}{value!r} is not UTF-8 text (a byte this terminal's encoding could not read)"
        ) from None
    return value


def _name(param: click.Parameter) -> str:
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return param.human_readable_name


#: A whole number as the number options take it: a sign, then 1..100 ASCII digits.
WHOLE_TEXT = re.compile(r"[+-]?[0-9]{1,100}")


def _check_typed(kind: WholeNumber | WholeRange, value: Any, param: Any, ctx: Any) -> None:
    if isinstance(value, str) and not WHOLE_TEXT.fullmatch(value.strip()):
        kind.fail(f"{value!r} is not a valid integer.", param, ctx)


class WholeNumber(click.types.IntParamType):
    """click's `int`, reading ASCII digits only."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        _check_typed(self, value, param, ctx)
        return super().convert(value, param, ctx)


class WholeRange(click.IntRange):
    """click's `IntRange`, reading ASCII digits only."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        _check_typed(self, value, param, ctx)
        return super().convert(value, param, ctx)


#: The type of every whole-number option without bounds: `type=WHOLE`.
WHOLE = WholeNumber()


class Share(click.FloatRange):
    """click's `FloatRange` for a share (a false-alarm rate): `nan`, which is in no range but
    which no comparison refuses, is refused as out of it.

    >>> Share(0.0001, 0.5).convert("nan", None, None)
    Traceback (most recent call last):
    ...
    click.exceptions.BadParameter: nan is not in the range 0.0001<=x<=0.5.
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        found = super().convert(value, param, ctx)
        if math.isnan(found):
            self.fail(f"{found} is not in the range {self.min}<=x<={self.max}.", param, ctx)
        return found
