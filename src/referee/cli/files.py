"""A file the user names for an answer (`referee export --out`, `referee judge --html`),
written whole or not at all.

>>> import os, tempfile
>>> where = tempfile.mkdtemp()
>>> write_whole(os.path.join(where, "a.json"), ["{", "}"])
>>> open(os.path.join(where, "a.json")).read(), os.listdir(where)
('{}', ['a.json'])
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable

from referee.errors import OutputError


def write_whole(path: str, parts: Iterable[str]) -> None:
    """`parts` at `path`, written a part at a time into a file beside it, which then takes its
    name: a failure halfway leaves no half file, an older one there as it was, and no file of
    its own behind. A path that is no regular file (`/dev/stdout`, a pipe) is written as it
    is: replacing it would put a file where the device or the pipe was. A file that cannot be
    written is an `OutputError` (exit status 4), as stdout's is."""
    try:
        if os.path.exists(path) and not os.path.isfile(path):
            with open(path, "w", encoding="utf-8") as handle:
                for part in parts:
                    handle.write(part)
            return
        partial = f"{path}.{os.getpid()}.partial"
        try:
            with open(partial, "x", encoding="utf-8") as handle:
                for part in parts:  # each written and let go before the next is made
                    handle.write(part)
            os.replace(partial, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(partial)
            raise
    except OSError as err:
        raise OutputError(f"cannot write {path!r}: {err.strerror or err}") from None
