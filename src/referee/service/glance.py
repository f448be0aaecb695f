"""A bout at a glance, for objects in a virtual world: a meter's floating text, a HUD's menu.

One short public JSON answer (no token; nothing hidden in it: names, wounds against
thresholds, conditions, whose turn, the actions legal now) that never exceeds a Second Life
script's default 2,048-byte read (docs/secondlife.md), whatever the fighters' names or their
number: when the whole answer would be longer, `fit` leaves out, in this order, the rows of
fighters other than the one asked for (`?fighter=NAME`) and the one to act, then the last foes
of each action, then the announcement, and says so (`"cut": true`). The announcement is also
left out (null) when it is longer than one chat line (1,024 bytes), which no object could say.
`GET /api/bouts/{id}/glance?after=SEQ` answers 204 with no body while the bout has no event
after SEQ, so polling a quiet bout costs a few bytes.

The actions legal now are the rule system's own answer: each action kind of the system is
tried for the fighter whose action it is, against each foe standing (or with no target), with
dice that stop it at its first throw. An action the rules refuse before any die is thrown is
not legal now; one that reaches its dice (or needs none) is. Nothing is stored or thrown. The
rules are asked of the fighters as anyone may know them: a stat still hidden counts as its rule
system's default (an SRP sheet without it: no skills, 0 PM), since the rules' checks may read it
(SRP-17: no spirit combat from a side at 0 PM) and this answer is anyone's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from referee.bout.actions import why_not
from referee.bout.state import BoutState, Fighter, Status
from referee.errors import RefereeError
from referee.service.bouts import ANONYMOUS, RefereeService, rule_system
from referee.systems.base import RuleSystem
from referee.vocabulary import JSON

#: Fighters a glance lists first (a bout may hold more: the actor's and the asker's rows come too).
MAX_FIGHTERS = 16
#: Most bytes of a glance: what a Second Life script reads of an answer unless it asks for more.
MAX_BYTES = 2048
#: Most bytes of the announcement: one line of Second Life chat.
MAX_ANNOUNCE = 1024
#: The condition every rule system here uses for a fighter that loses its next action.
STUNNED = "stunned"
#: Stats that place a fighter on the ground; left out when the world gives positions.
PLACEMENT = ("x_cm", "y_cm")


def glance(service: RefereeService, bout_id: str, fighter: str | None = None) -> dict[str, JSON]:
    """The bout at a glance (see the module text), at most `MAX_BYTES` once encoded; `fighter`
    (a fighter of the bout, or NotFoundError) names the row to keep when not every row fits."""
    record = service.store.get_bout(bout_id)
    state = service.state(bout_id)
    if fighter is not None:
        state.fighter(fighter)  # NotFoundError for a name not in the bout
    system = rule_system(state)
    last = service.visible_records(bout_id, ANONYMOUS, state.next_seq - 2)
    answer: dict[str, JSON] = {
        "seq": state.next_seq - 1,
        "status": state.status_name,
        "round": state.round,
        "turn": state.current,
        "winner": state.winner,
        "commitment": record.commitment,
        "hash": last[-1].get("hash") if last else None,
        "announce": announcement(state),
        "fighters": [
            _row(system, f)
            for i, f in enumerate(state.fighters)
            if i < MAX_FIGHTERS or f.name in (state.current, fighter)
        ],
        "actions": legal_actions(system, state),
    }
    if "world_positions" in state.rules:
        answer["positions"] = "world" if state.rules["world_positions"] else "map"
    if len(str(answer["announce"]).encode("utf-8")) > MAX_ANNOUNCE:
        answer["announce"] = None
    kept = {state.current, fighter}
    return fit(answer, lambda row: row.get("name") in kept)


def encoded(answer: Mapping[str, JSON]) -> bytes:
    """The answer as the service sends it (Starlette's JSONResponse encoding)."""
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def fit(answer: dict[str, JSON], keep: Callable[[dict[str, JSON]], bool]) -> dict[str, JSON]:
    """`answer` cut down to `MAX_BYTES` (see the module text); `keep(row)` is true of the
    fighters' rows kept to the last.

    >>> rows = [{"name": "x" * 500}, {"name": "me"}, {"name": "y" * 500}]
    >>> cut = fit({"fighters": rows, "actions": {"attack": ["z" * 1200, "w" * 1200]}},
    ...           lambda row: row["name"] == "me")
    >>> cut["fighters"], [len(foe) for foe in cut["actions"]["attack"]], cut["cut"]
    ([{'name': 'me'}], [1200], True)
    """
    if len(encoded(answer)) <= MAX_BYTES:
        return answer
    answer = {**answer, "cut": True}
    rows = answer.get("fighters")
    if isinstance(rows, list):
        answer["fighters"] = [r for r in rows if isinstance(r, dict) and keep(r)]
    actions = answer.get("actions")
    if isinstance(actions, dict):
        trimmed = {
            kind: list(foes) if isinstance(foes, list) else foes for kind, foes in actions.items()
        }
        answer["actions"] = trimmed
        while len(encoded(answer)) > MAX_BYTES:
            longest = max(trimmed.values(), key=lambda f: len(f) if isinstance(f, list) else 0)
            if not isinstance(longest, list) or not longest:
                break
            longest.pop()
    if len(encoded(answer)) > MAX_BYTES:
        answer["announce"] = None
    return answer


def _row(system: RuleSystem, fighter: Fighter) -> dict[str, JSON]:
    return {
        "name": fighter.name,
        "wounds": fighter.wounds,
        "threshold": system.defeat_threshold(fighter),
        "stunned": fighter.has(STUNNED),
        "down": fighter.defeated,
    }


def announcement(state: BoutState) -> str:
    """The spar's announcement as the judge reads it (docs/judge.md): every fighter with its
    Combat Skill when it has a public one, `CS hidden` when it is hidden.

    >>> from referee.bout.state import BoutState, Fighter
    >>> fighters = (Fighter("Tarl", "Tarl", {"cs": 65}), Fighter("Pa-Kur", "Pa-Kur", {"cs": 70}))
    >>> announcement(BoutState(name="Spar", fighters=fighters))
    'Spar between Tarl (CS 65) and Pa-Kur (CS 70)'
    """
    named = [f"{f.name}{_skill(f)}" for f in state.fighters]  # all: the judge counts them
    sides: dict[str, list[str]] = {}
    for fighter, shown in zip(state.fighters, named, strict=False):
        sides.setdefault(fighter.side, []).append(shown)
    if len(sides) < len(named):  # teams: each side named, its fighters joined by '&'
        return "Spar: " + " vs ".join(f"Team {s}: {' & '.join(f)}" for s, f in sides.items())
    if len(named) == 2:
        return f"Spar between {named[0]} and {named[1]}"
    return "Spar between " + ", ".join(named)


def _skill(fighter: Fighter) -> str:
    cs = fighter.stats.get("cs")
    if "cs" in fighter.hidden:
        return " (CS hidden)"
    return f" (CS {cs})" if isinstance(cs, int) and not isinstance(cs, bool) else ""


def legal_actions(system: RuleSystem, state: BoutState) -> dict[str, JSON]:
    """Each action kind legal now for the fighter whose action it is -> the foes it may be
    aimed at (empty for an action without a target); `{}` when nobody is to act.

    >>> from referee.bout.state import BoutState, Fighter, Status
    >>> from referee.systems.base import find_system
    >>> fighters = (Fighter("Tarl", "Tarl", {"cs": 65}), Fighter("Pa-Kur", "Pa-Kur", {"cs": 70}))
    >>> state = BoutState(system="msv", fighters=fighters, order=("Tarl", "Pa-Kur"), turn=0,
    ...                   round=1, status=Status.RUNNING)
    >>> legal_actions(find_system("msv")(), state)
    {'attack': ['Pa-Kur']}
    """
    actor = state.current
    if actor is None or state.status is not Status.RUNNING or state.closed:
        return {}
    ground = _off_the_map(state) if state.rules.get("world_positions") else state
    ground = as_known(system, ground)
    fighter = ground.fighter(actor)
    legal: dict[str, JSON] = {}
    for kind in system.actions:
        if system.blocked(fighter, kind):
            continue
        foes: list[JSON] = [
            f.name for f in ground.enemies_of(actor) if _tried(system, ground, actor, kind, f.name)
        ]
        if foes:
            legal[kind] = foes
        elif _tried(system, ground, actor, kind, None):
            legal[kind] = []
    return legal


def _off_the_map(state: BoutState) -> BoutState:
    """The state with nobody placed: where avatars stand is only known when they act."""
    fighters = tuple(
        replace(f, stats={k: v for k, v in f.stats.items() if k not in PLACEMENT})
        for f in state.fighters
    )
    return replace(state, fighters=fighters)


def as_known(system: RuleSystem, state: BoutState) -> BoutState:
    """The state with each stat still hidden at its rule system's default: the stats checked as
    a sheet without them (a rule system that cannot make one keeps them: MSV's only hideable
    stat, its CS, is read by no check before the die)."""
    if not any(f.hidden for f in state.fighters):
        return state
    fighters = []
    for f in state.fighters:
        shown = {k: v for k, v in f.stats.items() if k not in f.hidden}
        try:
            known = dict(system.check_stats(shown)) if f.hidden else f.stats
        except RefereeError:
            known = f.stats
        fighters.append(replace(f, stats=known))
    return replace(state, fighters=tuple(fighters))


def _tried(system: RuleSystem, state: BoutState, actor: str, kind: str, target: str | None) -> bool:
    options: Mapping[str, Any] = {} if target is None else {"target": target}
    return why_not(state, actor, kind, options, system) is None
