"""Text typed on the command line that must be text: a bout id, a token, a client seed.

A shell hands Python its arguments as bytes; bytes that are not UTF-8 (typed in a terminal
set to another encoding) come in as lone surrogates, which no database, hash or signature
can take. `utf8_text` is the click callback of the options and arguments that are looked up
or hashed as text: such a value is one line and exit status 2 (a `NotationError`), where it
was a traceback. File paths are not among them: a path is bytes, and opens as it is.

>>> utf8_text(None, None, "table:tarl")
'table:tarl'
>>> utf8_text(None, None, "A\\udcffB")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
referee.errors.NotationError: 'A\\udcffB' is not UTF-8 text (a byte this terminal's encoding ...
"""

from __future__ import annotations

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
