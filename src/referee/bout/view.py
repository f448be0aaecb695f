"""What each viewer may see of a bout: the public view hides hidden stats (SRP-10)."""

from __future__ import annotations

from referee.bout.state import BoutState, Fighter
from referee.vocabulary import JSON


def fighter_view(f: Fighter, threshold: int | None, reveal_all: bool = False) -> dict[str, JSON]:
    """One fighter as JSON; hidden stats left out unless `reveal_all` (the referee's view)."""
    stats: dict[str, JSON] = {k: v for k, v in f.stats.items() if reveal_all or k not in f.hidden}
    out: dict[str, JSON] = {
        "name": f.name,
        "side": f.side,
        "stats": stats,
        "wounds": f.wounds,
        "defeated": f.defeated,
        "conditions": {k: v for k, v in sorted(f.conditions.items())},
    }
    if threshold is not None:
        out["threshold"] = threshold
    if reveal_all and f.hidden:
        hidden: list[JSON] = list(sorted(f.hidden))
        out["hidden"] = hidden
    return out


def state_view(
    state: BoutState, thresholds: dict[str, int], reveal_all: bool = False
) -> dict[str, JSON]:
    """The bout as JSON for a page, a HUD or a script."""
    return {
        "system": state.system,
        "name": state.name,
        "status": state.status.value,
        "round": state.round,
        "order": list(state.order),
        "turn": state.current,
        "free_attack": state.free_attack,
        "winner": state.winner,
        "joining_closed": state.joining_closed,
        "clock": state.clock,
        "fighters": [fighter_view(f, thresholds.get(f.name), reveal_all) for f in state.fighters],
    }
