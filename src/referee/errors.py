"""One root exception for everything `referee` raises on purpose.

Each subclass carries the CLI exit code and HTTP status it maps to, so that the
CLI and the service turn errors into answers in exactly one place each.

>>> try:
...     raise NotationError("unexpected 'x' at column 4 in '3d6x2' (expected an operator)")
... except RefereeError as err:
...     (err.exit_code, err.http_status)
(2, 400)
"""

from __future__ import annotations


class RefereeError(Exception):
    """Root of every error `referee` raises for bad input or a broken rule."""

    exit_code: int = 2
    http_status: int = 400
    code: str = "bad_request"

    @property
    def public(self) -> str:
        """The message as the service and the bots say it to whoever asked (the CLI, run by
        the operator, says `str(err)`)."""
        return str(self)


class NotationError(RefereeError, ValueError):
    """Dice notation or a chat line that cannot be read."""

    code = "bad_notation"


class RuleError(RefereeError, ValueError):
    """An action or value the rules do not allow (negative CS, unknown shield, ...)."""

    code = "rule_violation"


class RulePackError(RefereeError, ValueError):
    """A rule pack or gear pack that does not load: unknown key, wrong type, bad value."""

    code = "bad_rule_pack"


class FormatFileError(RefereeError, ValueError):
    """A chat-format file that does not load: bad TOML, unknown key, wrong type, bad pattern."""

    code = "bad_format_file"


class LimitError(RefereeError, ValueError):
    """Untrusted input past a stated bound (too many dice, too long, too large)."""

    code = "limit_exceeded"
    http_status = 413


class TooLargeError(LimitError):
    """A request body over the service's size limit (HTTP 413, `too_large`)."""

    code = "too_large"


class ScriptError(RefereeError, ValueError):
    """A scripted dice source that ran out, or was given a face that does not fit."""

    code = "bad_script"


class VerificationError(RefereeError):
    """A roll, commitment or ledger that does not check out."""

    code = "verification_failed"
    exit_code = 1
    http_status = 422


class NotFoundError(RefereeError, LookupError):
    """An unknown bout, fighter, rule system or pack."""

    code = "not_found"
    http_status = 404


class AuthError(RefereeError):
    """A missing or unknown token."""

    code = "unauthorized"
    http_status = 401


class ForbiddenError(RefereeError):
    """A known token that may not do this."""

    code = "forbidden"
    http_status = 403


class ConflictError(RefereeError):
    """An action that does not fit the bout's state: out of turn, paused, ended."""

    code = "conflict"
    http_status = 409


class StorageError(RefereeError):
    """The database cannot be reached or used (down, locked too long, newer schema)."""

    code = "storage_unavailable"
    http_status = 503

    @property
    def public(self) -> str:
        """Where the database is (a path, a host, a user) is the operator's to know: the
        service logs it and tells its clients only that the database is unavailable."""
        return "the database is unavailable right now; nothing was stored; try again later"


class InternalError(RefereeError):
    """Something that went wrong by no fault of the input: a bug in `referee` (exit status 3,
    never the 1 of a roll or ledger that does not check out)."""

    code = "internal_error"
    exit_code = 3
    http_status = 500


class OutputError(RefereeError):
    """The answer could not be written (a closed pipe, a full disk): exit status 4."""

    code = "output_failed"
    exit_code = 4
    http_status = 500


class Interrupted(RefereeError):
    """Stopped by the user (Ctrl-C): exit status 130, as a shell says for SIGINT."""

    code = "interrupted"
    exit_code = 130
    http_status = 500


__all__ = [
    "AuthError",
    "ConflictError",
    "ForbiddenError",
    "InternalError",
    "Interrupted",
    "LimitError",
    "NotFoundError",
    "NotationError",
    "OutputError",
    "RefereeError",
    "RuleError",
    "RulePackError",
    "ScriptError",
    "StorageError",
    "TooLargeError",
    "VerificationError",
]
