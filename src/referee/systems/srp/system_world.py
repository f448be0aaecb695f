"""Positions from a virtual world: where each avatar stands, reported with an action.

With the rule-pack switch `world_positions` on (the referee's choice when the bout is made), an
action may carry `at` (where its actor stands) and `target_at` (where its target stands), each
`[x_cm, y_cm, facing]` in whole centimetres and degrees (0 = +x, 90 = +y, as sheets have them).
The fighters are placed there before the action is decided, so reach, the rear arc (SRP-14) and
zones of control (SRP-15) follow from where the avatars stand; the placement is recorded as the
action's own `stat` events, so the rules replay decides the action again from the same ground.
With the switch off (the default) the map's positions stand and such an option is refused.

>>> read_stand([1250, -300, -90], "at")
(1250, -300, 270)
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from referee.errors import LimitError, RuleError
from referee.systems.base import StatChange

if TYPE_CHECKING:
    from referee.bout.state import BoutState

#: The options that report where avatars stand, and whose position each one gives.
WORLD_KEYS = ("at", "target_at")
#: How far from the origin a reported position may lie, in centimetres (10 km, as sheets).
MAX_CM = 10**6


def read_stand(raw: Any, key: str) -> tuple[int, int, int]:
    """`[x_cm, y_cm, facing]` checked: whole numbers, within 10 km, facing -360..360 degrees
    (kept as 0..359).

    >>> read_stand([0, 0, 1.5], "at")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.RuleError: at [0, 0, 1.5] is not [x_cm, y_cm, facing] in whole centimetres ...
    """
    whole = isinstance(raw, list) and len(raw) == 3
    if not whole or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw):
        raise RuleError(
            f"{key} {raw!r} is not [x_cm, y_cm, facing] in whole centimetres and degrees"
        )
    x, y, facing = raw
    if not (-MAX_CM <= x <= MAX_CM and -MAX_CM <= y <= MAX_CM):
        raise LimitError(f"{key} {raw!r} lies more than 10 km from the origin")
    if not -360 <= facing <= 360:
        raise LimitError(f"{key} facing {facing} is not -360..360 degrees")
    return x, y, facing % 360


def stand_where_reported(
    world_positions: bool, bout: BoutState, actor: str, options: dict[str, Any]
) -> tuple[BoutState, tuple[StatChange, ...]]:
    """Take `at` and `target_at` out of `options` and place the fighters there: the state the
    action is decided in, and the stat changes that record the placement (none without them).
    """
    reported = {key: options.pop(key) for key in WORLD_KEYS if key in options}
    if not reported:
        return bout, ()
    if not world_positions:
        raise RuleError(
            "this bout keeps the map's positions (the referee's switch: world_positions is "
            "false), so an action may not report where avatars stand ('at', 'target_at')"
        )
    names = {"at": actor, "target_at": options.get("target")}
    changes: list[StatChange] = []
    for key, raw in reported.items():
        name = names[key]
        if not isinstance(name, str) or not bout.has_fighter(name):
            raise RuleError(f"{key} needs a target fighter named in 'target'")
        x, y, facing = read_stand(raw, key)
        fighter = bout.fighter(name)
        stats = {**fighter.stats, "x_cm": x, "y_cm": y, "facing": facing}
        bout = bout.with_fighter(replace(fighter, stats=stats))
        changes += [
            StatChange(name, "x_cm", x),
            StatChange(name, "y_cm", y),
            StatChange(name, "facing", facing),
        ]
    return bout, tuple(changes)
