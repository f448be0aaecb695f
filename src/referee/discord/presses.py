"""What a button carries and what pressing it does.

A button under an answer names what it does (`referee:attack:NAME`, `referee:pass:`; a select
menu's choice `disarm:NAME`), not a reference to a running process, so it works after a
restart. It also carries the turn it was made for (`referee:@MARK:attack:NAME`): the spar and
the seq of the record at which the fighter to act got the action (`action_began`: the turn, a
resume after a pause, the outcome that gave a critical's free attack, the void that gave a
voided action back); `~spar:end`'s button carries its spar only (`referee:@BOUT:end:`). A press
of a button whose turn has passed (a double press, whose first press took the action; an older
answer's button; one made before a void; a closed spar's, under a new spar in the channel) is
refused with nothing stored. A button made before marks were carried has none and acts as it
always did.

A press is one command of the channel (`Desk.press`: one unit of work, the channel's row
held): the bout is locked before its turn is read, so the turn the button is checked against
is the one its action is taken on, whatever else is in flight (a second press, the turn
clock's skip, a move in the web console).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from referee.bout.state import BoutState, Status
from referee.errors import ConflictError
from referee.vocabulary import EventType

if TYPE_CHECKING:
    from referee.discord.desk import Desk
    from referee.discord.replies import Person, Place, Reply

#: What every custom id of the bot's buttons and menus starts with.
BUTTON_PREFIX = "referee:"

STALE = (
    "this button is from an earlier turn (the spar moved on since); nothing changed: use the "
    "buttons of the latest answer"
)


def action_began(records: Sequence[Mapping[str, Any]], state: BoutState) -> Mapping[str, Any]:
    """The record at which the fighter to act got the action they owe: the last turn or
    resume; the last void, which took an action back and gave the action again (the turn it
    gave back is a new one: a button made before the void is stale, and the turn clock starts
    again); or, for a critical's free attack, the outcome that gave it (its seq is
    `state.last_outcome`). A record a void took back is never one (it lies before the void)."""
    began: Mapping[str, Any] = next(
        r
        for r in reversed(records)
        if r["type"] in (EventType.TURN, EventType.RESUMED, EventType.INITIATIVE, EventType.VOIDED)
    )
    if state.free_attack is not None and state.free_attack == state.current:
        given = state.last_outcome
        if given is not None and given > int(began["seq"]):
            gave: Mapping[str, Any] = next(r for r in records if int(r["seq"]) == given)
            return gave
    return began


def turn_mark(bout_id: str, state: BoutState, records: Sequence[Mapping[str, Any]]) -> str | None:
    """The mark of the turn now (`BOUT.SEQ`), for the buttons of an answer; None while nobody
    is to act."""
    if state.status is not Status.RUNNING or not state.current:
        return None
    return f"{bout_id}.{int(action_began(records, state)['seq'])}"


def press(
    desk: Desk, where: Place, who: Person, custom_id: str, values: Sequence[str]
) -> Reply:  # fmt: skip
    """Press a button (`custom_id`) or choose from a menu (`values`) as `who`: what the button
    says, as `~spar:attack` or `~spar:act` would do it, with the same checks; refused first
    when the button's turn has passed. Run it as `Desk.press`, whose unit the check and the
    action share: the bout is locked here before its turn is read."""
    chosen = custom_id[len(BUTTON_PREFIX) :]
    mark = None
    if chosen.startswith("@"):
        mark, _, chosen = chosen[1:].partition(":")
    if chosen.startswith("menu:"):  # a select menu: the choice names action and target
        chosen = str(values[0]) if values else ""
    action, _, target = chosen.partition(":")
    if mark is not None:  # while nobody is to act (paused, ended) the spar's refusal says why
        bout = desk.bout_of(where)
        spar, _, seq = mark.partition(".")  # no seq: a button of the spar, not of a turn (end)
        if spar != bout:
            raise ConflictError(STALE)
        if seq:
            desk.service.hold(bout)  # the turn read now is the one the action is taken on
            now = turn_mark(bout, desk.service.state(bout), desk.service.records(bout))
            if now is not None and now != mark:
                raise ConflictError(STALE)
    if action == "attack":
        return desk.attack(where, who, target)
    if action == "end":  # the confirmation of `~spar:end`
        return desk.end(where, who, target or None)
    return desk.act(where, who, action, target or None, {})
