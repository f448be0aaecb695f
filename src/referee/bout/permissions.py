"""Who may do what in a bout: the one table of permissions, and the one check.

Two kinds of asker give orders to a bout: the referee (`by == "referee"`) and a fighter (`by`
is its name). Every operation is either the referee's alone, or also the fighter's it names
(a fighter acts, rolls, joins and quits for itself). The engine checks the commands it decides
(`decide`), and the service the operations outside the ledger's commands (close, rotate the
seed, hand over, reissue a token), both with `check` over this table: there is no other
place a permission is granted or refused. Who the asker is (a token standing for the referee
or a fighter) is the service's to say; what that asker may do is said only here.

A replayed export is checked by the same table: an action recorded `by` a fighter for another
fighter does not follow the rules.

>>> check("referee", "pause")
>>> check("Tarl", "act", "Tarl")
>>> check("Tarl", "pause")
Traceback (most recent call last):
...
referee.errors.ForbiddenError: only the referee may pause the bout
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType

from referee.errors import ForbiddenError, RuleError

REFEREE = "referee"


class May(Enum):
    """Who may give an operation."""

    REFEREE = "only the referee"
    SELF = "the fighter it names, or the referee"


@dataclass(frozen=True, slots=True)
class Permission:
    """Who may, and what the refusal says (`{by}`, `{actor}` and `{what}` filled in)."""

    may: May
    what: str
    refusal: str = "only the referee may {what}"


def _self(what: str, refusal: str) -> Permission:
    return Permission(May.SELF, what, refusal)


def _referee(what: str) -> Permission:
    return Permission(May.REFEREE, what)


#: Every operation on a bout and who may give it.
PERMISSIONS: MappingProxyType[str, Permission] = MappingProxyType(
    {
        # fighters
        "add": _self("add a fighter", "{by!r} may not add {actor!r}: only the referee may"),
        "hide": _referee("hide a fighter's stats"),
        "update": _referee("update a fighter"),
        "remove": _self("remove a fighter", "a fighter may only remove itself"),
        "reveal": _referee("reveal stats"),
        "reissue": _referee("reissue a fighter's token"),
        # the fight
        "initiative": _referee("roll initiative"),
        "act": _self("act", "{by!r} may not act for {actor!r}"),
        "circumstances": Permission(
            May.REFEREE,
            "choose circumstances",
            "{what}: not {actor}'s to choose (the referee rules circumstances and a rear "
            "attack; the defender's sheet gives its defense)",
        ),
        "roll": _self("roll", "{by!r} may not roll for {actor!r}"),
        # the referee's powers
        "skip": _referee("skip a turn"),
        "pause": _referee("pause the bout"),
        "resume": _referee("resume the bout"),
        "close joining": _referee("close the bout to joiners"),
        "override": _referee("override an outcome"),
        "void": _referee("void an action"),
        "end": _referee("end the bout"),
        "cancel": _referee("cancel the bout"),
        # fairness and the bout's keys
        "close": _referee("close the bout"),
        "rotate": _referee("rotate the server seed"),
        "hand over": _referee("hand the bout over"),
        # an evening of fights
        "carry": _referee("carry a fighter from the last fight"),
        "pass time": _referee("let play time pass"),
        "next fight": _referee("start the next fight of the evening"),
    }
)


def check(by: str, operation: str, actor: str | None = None, what: str | None = None) -> None:
    """Nothing when `by` may do `operation` (for the fighter `actor`); ForbiddenError (403)
    otherwise. `what` replaces the operation's own words in the refusal (the options named)."""
    permission = PERMISSIONS.get(operation)
    if permission is None:  # a programming error, never the asker's
        raise RuleError(f"no permission is written for {operation!r}")
    if by == REFEREE:
        return
    if permission.may is May.SELF and actor is not None and by == actor:
        return
    words = what if what is not None else permission.what
    raise ForbiddenError(permission.refusal.format(by=by, actor=actor, what=words))
