"""Reading the files a user names (rule packs, sheets, fight files): one RulePackError for any
problem, never an OSError or a UnicodeDecodeError.

>>> read_text_file("/nonexistent/pack.toml", "rule pack")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
referee.errors.RulePackError: cannot read rule pack '/nonexistent/pack.toml': No such file ...
"""

from __future__ import annotations

from referee.errors import RulePackError


def read_text_file(path: str, what: str) -> str:
    """The UTF-8 text of a file the user named; one RulePackError for anything else.

    `what` names the file in the message ("rule pack", "fight file").
    """
    try:
        # `open`, not pathlib: `referee judge --rules` reads its pack through here, and the
        # judge's quick start loads no more than judging needs (tests/test_judge_cli.py)
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as err:
        raise RulePackError(f"cannot read {what} {path!r}: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise RulePackError(f"{what} {path!r} is not UTF-8 text") from None
