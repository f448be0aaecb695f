"""Spirit combat as a bout action: one round of SRP-17 per `spirit` action.

The acting fighter leads its side against one enemy, the target: each rolls 2d6 + Spirit
(the actor first), each ally named in `helpers` adds +1 to the actor's roll, the higher
total takes 1 PM from the other lead, a tie takes nothing. The round itself is
`referee.systems.srp.spirit.resolve_round`, the very code `referee srp spirit` plays, so the
rules live in one place. A fighter's PM and Spirit are its sheet's `pm` and `spirit` stats;
the outcome writes the new PM (and, at -1 PM, the Spirit lost for good) as stat events, so
both sides' PM are in the folded state after every round. A fighter at -1 PM has passed out
(SRP-17): it loses its turns until the referee sets its PM back (0 PM after an hour).

Hidden stats (SRP-10): `pm` and `spirit` may be hidden. The summary, which everyone sees,
never names a hidden PM or a total that would tell a hidden Spirit; the payload holds them
all (`totals`, `pm_after`) and the public log keeps only what `payloads.Spirit` declares
public.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from referee.errors import RuleError
from referee.rng import Rng
from referee.systems.base import ConditionChange, Outcome, StatChange
from referee.systems.srp import payloads
from referee.systems.srp.actions import Condition
from referee.systems.srp.contest import TWO_D6
from referee.systems.srp.rules import SpiritAtZero
from referee.systems.srp.spirit import (
    SpiritFighter,
    SpiritRound,
    resolve_round,
    spent,
    strongest_lead,
)

if TYPE_CHECKING:
    from referee.bout.state import BoutState, Fighter
    from referee.systems.srp.system import SrpSystem

#: The PM at which a combatant has passed out (SRP-17).
PASSED_OUT_PM = -1
#: Minutes of play a combatant at -1 PM stays out before it is back at 0 PM (SRP-17).
OUT_FOR_MINUTES = 60
#: Actions that are not "anything else" in a spirit combat: fighting it, passing, turning.
SPIRIT_KINDS = frozenset({"spirit", "pass", "face"})
_IN_IT = Condition.IN_SPIRIT_COMBAT.value


def passed_out(fighter: Fighter) -> bool:
    """Whether the fighter is at -1 PM: passed out in spirit combat (SRP-17)."""
    pm = fighter.stats.get("pm")
    return isinstance(pm, int) and not isinstance(pm, bool) and pm <= PASSED_OUT_PM


def _spirit_fighter(fighter: Fighter) -> SpiritFighter:
    spirit = fighter.stats.get("spirit", 0)
    pm = fighter.stats.get("pm", 0)
    return SpiritFighter(fighter.name, int(spirit or 0), int(pm or 0))


def _helpers(bout: BoutState, actor: str, options: Mapping[str, Any]) -> list[Fighter]:
    raw = options.get("helpers", [])
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
        raise RuleError(f"helpers {raw!r} is not a list of fighters' names")
    side = bout.fighter(actor).side
    out: list[Fighter] = []
    for name in raw:
        helper = bout.fighter(name)
        if helper.name == actor or helper.name in (h.name for h in out):
            raise RuleError(f"{helper.name} is named twice in the spirit combat")
        if helper.side != side or helper.defeated:
            raise RuleError(f"{helper.name} cannot help {actor}: not a standing ally")
        if passed_out(helper):
            raise RuleError(f"{helper.name} has passed out (-1 PM) and cannot help (SRP-17)")
        out.append(helper)
    return out


def _engaged_allies(bout: BoutState, target: Fighter, actor: str) -> list[Fighter]:
    """The target's standing, conscious allies already in spirit combat: they help the
    target's side (SRP-17, many against one)."""
    return [
        f
        for f in bout.fighters
        if f.side == target.side
        and f.name != target.name
        and not f.defeated
        and not passed_out(f)
        and f.has(_IN_IT)
    ]


def _changes(
    before: Sequence[SpiritFighter], after: Sequence[SpiritFighter], clock: int
) -> list[StatChange]:
    """The stat events of a round: new PM, the Spirit lost for good, and the evening's
    minute a combatant passed out at (SRP-17)."""
    was = {m.name: m for m in before}
    stats: list[StatChange] = []
    for m in after:
        if m.current_pm != was[m.name].current_pm:
            stats.append(StatChange(m.name, "pm", m.current_pm))
        if m.spirit != was[m.name].spirit:
            stats.append(StatChange(m.name, "spirit", m.spirit))
        if m.out and not was[m.name].out:
            stats.append(StatChange(m.name, "out_since", clock))
    return stats


def spirit_round(
    system: SrpSystem,
    bout: BoutState,
    actor: str,
    target: Fighter,
    options: Mapping[str, Any],
    rng: Rng,
) -> Outcome:
    """One round of spirit combat: `actor` (with its helpers) against `target` and the
    target's allies already in the combat, whose lead is chosen afresh this round (SRP-17)."""
    if passed_out(target):
        raise RuleError(f"{target.name} has passed out (-1 PM): no spirit combat with it")
    me = bout.fighter(actor)
    helpers = _helpers(bout, actor, options)
    allies = _engaged_allies(bout, target, actor)
    ours = (_spirit_fighter(me), *(_spirit_fighter(h) for h in helpers))
    theirs = (_spirit_fighter(target), *(_spirit_fighter(a) for a in allies))
    if spent(ours) and system.srp.spirit_at_zero is SpiritAtZero.END:
        raise RuleError(
            f"{actor}'s side is at 0 PM or below: {target.name}'s side ends the spirit combat "
            "before the round (SRP-17, spirit_at_zero = end)"
        )
    faces = (rng.throw(TWO_D6).faces, rng.throw(TWO_D6).faces)
    (after_ours, after_theirs), report = resolve_round(
        (ours, theirs),
        bout.round,
        faces,
        choose=lambda members: members[0] if members[0].name == actor else strongest_lead(members),
    )
    stats = _changes((*ours, *theirs), (*after_ours, *after_theirs), bout.clock)
    joined = [
        ConditionChange(f.name, _IN_IT, None)
        for f in (me, *helpers, target, *allies)
        if not f.has(_IN_IT)
    ]
    spent_now = [m.name for m in after_theirs if m.current_pm == 0]
    payload = payloads.Spirit(
        target=target.name,
        helpers=tuple(h.name for h in helpers),
        leads=report.leads,
        dice=report.dice,
        totals=report.totals,
        lost_pm=report.losers,
        passed_out=report.passed_out,
        explanation=report.explanation,
        pm_after=tuple(
            tuple(payloads.Member(name=n, pm=pm) for n, pm in side) for side in report.pm_after
        ),
        bindable=tuple(spent_now),
    )
    hidden = {f.name: f.hidden for f in (me, *helpers, target, *allies)}
    return Outcome(
        "spirit",
        payload,
        summary(report, hidden, spent_now),
        conditions=tuple(joined),
        stats=tuple(stats),
    )


def distracted_cost(bout: BoutState, actor: str, kind: str) -> tuple[list[StatChange], str]:
    """What doing anything but fight costs a fighter in spirit combat (SRP-17): its opponent
    takes 1 PM (the opponent's choice, taken as made), while a foe in the combat has PM to
    fight on and the fighter itself is not spent (a spent side's combat is over). The same
    round as `resolve_round` plays it for a member that does something else."""
    me = bout.fighter(actor)
    if kind in SPIRIT_KINDS or not me.has(_IN_IT) or passed_out(me):
        return [], ""
    foes = [
        f
        for f in bout.enemies_of(actor)
        if f.has(_IN_IT) and not passed_out(f) and int(f.stats.get("pm", 0) or 0) > 0
    ]
    if not foes or int(me.stats.get("pm", 0) or 0) <= 0:
        return [], ""
    ours, theirs = (_spirit_fighter(me),), tuple(_spirit_fighter(f) for f in foes)
    (after, _), report = resolve_round(
        (ours, theirs), bout.round, (None, None), distracted=frozenset({actor})
    )
    stats = _changes(ours, after, bout.clock)
    hidden = "pm" in me.hidden
    pm = "?" if hidden else str(after[0].current_pm)
    said = f" {actor} is in spirit combat and does something else: loses 1 PM (now {pm})."
    if report.passed_out:
        said += f" {actor} passes out and loses 1 Spirit for good."
    return stats, said


def recovered(fighter: Fighter, clock: int) -> tuple[dict[str, Any], str] | None:
    """0 PM again once an hour of play has passed since it passed out at -1 PM (SRP-17)."""
    since = fighter.stats.get("out_since")
    if not passed_out(fighter) or not isinstance(since, int) or isinstance(since, bool):
        return None
    if clock - since < OUT_FOR_MINUTES:
        return None
    reason = (
        f"recovery: at -1 PM since minute {since}, an hour has passed (minute {clock}): "
        "back to 0 PM (SRP-17)"
    )
    return {"pm": 0}, reason


def refuse_change(fighter: Fighter, stats: Mapping[str, Any], clock: int) -> str | None:
    """A fighter out at -1 PM does not recover to 0 within the hour (SRP-17)."""
    since = fighter.stats.get("out_since")
    pm = stats.get("pm")
    back = isinstance(pm, int) and pm > PASSED_OUT_PM
    if not passed_out(fighter) or not back or not isinstance(since, int):
        return None
    if clock - since >= OUT_FOR_MINUTES:
        return None
    return (
        f"{fighter.name} passed out at minute {since} of the evening: it does not recover to "
        f"0 PM before minute {since + OUT_FOR_MINUTES} (now minute {clock}; let time pass, "
        "SRP-17)"
    )


def summary(
    report: SpiritRound, hidden: Mapping[str, frozenset[str]], spent: Sequence[str] = ()
) -> str:
    """The round in one line anyone may read: totals, who lost PM, both sides' PM now.

    A total is `?` when its lead's Spirit is hidden, a PM `?` when that PM is hidden.

    >>> r = SpiritRound(2, ("Andrea", "Ghost"), ((6, 5), (3, 4)), (16, 11), ("Ghost",), (), (),
    ...                 ((("Andrea", 5),), (("Ghost", 3),)))
    >>> summary(r, {})
    'Andrea vs Ghost in spirit combat: 16 vs 11, Ghost loses 1 PM. PM now: Andrea 5 | Ghost 3'
    >>> summary(r, {"Ghost": frozenset({"pm", "spirit"})})
    'Andrea vs Ghost in spirit combat: 16 vs ?, Ghost loses 1 PM. PM now: Andrea 5 | Ghost ?'
    """
    lead, foe = (n or "?" for n in report.leads)
    totals = [
        "?" if name is None or "spirit" in hidden.get(name, ()) or total is None else str(total)
        for name, total in zip(report.leads, report.totals, strict=True)
    ]
    if report.losers:
        verdict = " and ".join(f"{n} loses 1 PM" for n in report.losers)
    else:
        verdict = "a tie, nobody loses PM"
    parts = [f"{lead} vs {foe} in spirit combat: {totals[0]} vs {totals[1]}, {verdict}."]
    for name in report.passed_out:
        parts.append(f"{name} passes out and loses 1 Spirit for good.")
    sides = (
        ", ".join(f"{n} {'?' if 'pm' in hidden.get(n, ()) else pm}" for n, pm in side)
        for side in report.pm_after
    )
    parts.append("PM now: " + " | ".join(sides))
    shown = [n for n in spent if "pm" not in hidden.get(n, ())]
    if shown:
        parts.append(
            f"({' and '.join(shown)} at 0 PM: {lead} may end the spirit combat; "
            "command, bind and ally may be cast on it)"
        )
    return " ".join(parts)
