"""Spirit combat as an engine: round after round of opposed Spirit rolls (SRP-17).

Each round each side still conscious names a lead, chosen afresh every round (`leads`
names them by round; otherwise the default, `strongest_lead`); the many side's helpers add +1
each; both leads roll 2d6 + Spirit (one roll per side, first side first); the higher
total takes 1 PM from the other lead, a tie takes nothing. A member that does
something else that round loses 1 PM and neither rolls nor helps. At -1 PM a
combatant passes out and loses 1 Spirit for good. When every member of a side is at
0 PM or below, the other side may end the combat or go on; spells that need a
spirit at 0 PM (command, bind, ally) are then allowed on it. That check is made before
every round, the first included (the pack's `spirit_at_zero = "end"`), or only after each
round (`"fight"`: a side that starts at 0 PM fights the first round all the same).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from referee.errors import LimitError, NotationError, RuleError
from referee.numerals import is_whole
from referee.rng import Rng
from referee.systems.srp.contest import TWO_D6, check_2d6
from referee.systems.srp.rules import DEFAULT_RULES, SpiritAtZero, SrpRules
from referee.vocabulary import JSON

#: Rounds a spirit combat may run at most (a stated bound).
MAX_ROUNDS = 1000


@dataclass(frozen=True, slots=True, eq=False)
class SpiritFighter:
    """One combatant of a spirit combat. A spirit creature's PM starts at its Spirit: `pm`
    None is "as its Spirit" (`current_pm`); every side a round gives back says it outright.

    >>> SpiritFighter("Ghost", 4).current_pm
    4
    """

    name: str
    spirit: int
    pm: int | None = None
    out: bool = False

    def __post_init__(self) -> None:
        if self.spirit < 0 or self.spirit > 100 or self.current_pm < -1 or self.current_pm > 100:
            raise RuleError(
                f"{self.name}: Spirit {self.spirit!r} / PM {self.pm!r} out of range "
                "(expected Spirit 0..100, PM -1..100)"
            )

    @property
    def current_pm(self) -> int:
        """PM now: `pm`, or the Spirit when `pm` is None."""
        return self.pm if self.pm is not None else self.spirit

    def __eq__(self, other: object) -> bool:
        """Equal when the same in every way that counts (a `pm` of None is the Spirit)."""
        if not isinstance(other, SpiritFighter):
            return NotImplemented
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    def _compared(self) -> tuple[str, int, int, bool]:
        return (self.name, self.spirit, self.current_pm, self.out)


Sides = tuple[tuple[SpiritFighter, ...], tuple[SpiritFighter, ...]]
LeadChooser = Callable[[Sequence[SpiritFighter]], SpiritFighter]


def strongest_lead(members: Sequence[SpiritFighter]) -> SpiritFighter:
    """Default lead: most PM, then highest Spirit, then the first listed.

    >>> strongest_lead([SpiritFighter("a", 2), SpiritFighter("b", 4), SpiritFighter("c", 3)]).name
    'b'
    """
    return max(members, key=lambda m: (m.current_pm, m.spirit, -members.index(m)))


@dataclass(frozen=True, slots=True)
class SpiritRound:
    """One round: leads, dice, totals, who lost PM, who passed out, explained."""

    number: int
    leads: tuple[str | None, str | None]
    dice: tuple[tuple[int, int] | None, tuple[int, int] | None]
    totals: tuple[int | None, int | None]
    losers: tuple[str, ...]
    passed_out: tuple[str, ...]
    explanation: tuple[str, ...]
    pm_after: tuple[tuple[tuple[str, int], ...], ...] = ()
    """Each side's members and their PM once the round is over."""

    def as_dict(self) -> dict[str, JSON]:
        """As JSON values."""
        return {
            "round": self.number,
            "leads": list(self.leads),
            "dice": [None if d is None else list(d) for d in self.dice],
            "totals": list(self.totals),
            "lost_pm": list(self.losers),
            "passed_out": list(self.passed_out),
            "explanation": list(self.explanation),
            "pm_after": [[{"name": n, "pm": pm} for n, pm in side] for side in self.pm_after],
        }

    def pm_line(self) -> str:
        """Both sides' PM after the round, one line.

        >>> SpiritRound(1, (None, None), (None, None), (None, None), (), (), (),
        ...             ((("Andrea", 5),), (("G1", 3), ("G2", 3)))).pm_line()
        'PM now: Andrea 5 | G1 3, G2 3'
        """
        sides = (", ".join(f"{n} {pm}" for n, pm in side) for side in self.pm_after)
        return "PM now: " + " | ".join(sides)


def _conscious(side: Sequence[SpiritFighter]) -> list[SpiritFighter]:
    return [m for m in side if not m.out]


def _total(lead: SpiritFighter, helpers: int, dice: tuple[int, int]) -> tuple[int, str]:
    total = sum(dice) + lead.spirit + helpers
    helped = f" + {helpers} helpers" if helpers else ""
    return total, f"{lead.name}: 2d6 ({dice[0]}+{dice[1]}) + Spirit {lead.spirit}{helped} = {total}"


def resolve_round(
    sides: Sides,
    number: int,
    dice: tuple[Sequence[int] | None, Sequence[int] | None],
    *,
    distracted: frozenset[str] = frozenset(),
    choose: LeadChooser = strongest_lead,
    named: Sequence[str] = (),
) -> tuple[Sides, SpiritRound]:
    """One round from given dice (None for a side that does not roll); returns the new sides.

    `named`: the leads the sides name this round (at most one each; a side that names none
    gets `choose`'s). A name that is no active member of either side is an error.

    >>> andrea = (SpiritFighter("Andrea", 5),)
    >>> ghosts = (SpiritFighter("G1", 4), SpiritFighter("G2", 3), SpiritFighter("G3", 2))
    >>> new, rnd = resolve_round((andrea, ghosts), 1, ((6, 5), (3, 4)))
    >>> rnd.totals, rnd.losers, new[1][0].pm
    ((16, 13), ('G1',), 3)
    """
    lines: list[str] = []
    losers = [n for side in sides for n in (m.name for m in _conscious(side)) if n in distracted]
    for name in losers:
        lines.append(f"{name} does something else: the other side takes 1 PM")
    active = [[m for m in _conscious(side) if m.name not in distracted] for side in sides]
    leads = [_lead(a, named, choose, number) for a in active]
    stray = [n for n in named if not any(m.name == n for a in active for m in a)]
    if stray:
        raise RuleError(f"round {number}: {stray[0]} cannot lead: not fighting on either side")
    totals: list[int | None] = [None, None]
    used: list[tuple[int, int] | None] = [None, None]
    if leads[0] is not None and leads[1] is not None:
        for i in (0, 1):
            lead = leads[i]
            face = dice[i]
            if lead is None or face is None:
                raise RuleError(
                    f"round {number}: both sides roll, but dice for side {i + 1} are missing"
                )
            used[i] = check_2d6(face, f"side {i + 1}")
            totals[i], line = _total(lead, len(active[i]) - 1, used[i])  # type: ignore[arg-type]
            lines.append(line)
        losers.extend(_contest_loser(leads[0], leads[1], totals, lines))
    new_sides, fainted = _apply(sides, losers, lines)
    names = (leads[0].name if leads[0] else None, leads[1].name if leads[1] else None)
    report = SpiritRound(
        number,
        names,
        (used[0], used[1]),
        (totals[0], totals[1]),
        tuple(losers),
        fainted,
        tuple(lines),
        tuple(tuple((m.name, m.current_pm) for m in side) for side in new_sides),
    )
    return new_sides, report


def _lead(
    active: Sequence[SpiritFighter], named: Sequence[str], choose: LeadChooser, number: int
) -> SpiritFighter | None:
    """The side's lead this round: the one it names, else `choose`'s; None with nobody."""
    if not active:
        return None
    picked = [m for m in active if m.name in named]
    if len(picked) > 1:
        raise RuleError(f"round {number}: one lead a side, not {side_name(picked)}")
    return picked[0] if picked else choose(active)


def _contest_loser(
    a: SpiritFighter, b: SpiritFighter, totals: list[int | None], lines: list[str]
) -> list[str]:
    ta, tb = totals[0] or 0, totals[1] or 0
    if ta == tb:
        lines.append(f"tie at {ta}: nobody loses PM")
        return []
    winner, loser = (a, b) if ta > tb else (b, a)
    lines.append(f"{winner.name} wins: {loser.name} loses 1 PM")
    return [loser.name]


def _apply(sides: Sides, losers: Sequence[str], lines: list[str]) -> tuple[Sides, tuple[str, ...]]:
    fainted: list[str] = []

    def hit(m: SpiritFighter) -> SpiritFighter:
        if m.name not in losers:
            return m if m.pm is not None else replace(m, pm=m.spirit)
        pm = m.current_pm - 1
        if pm > -1:
            return replace(m, pm=pm)
        fainted.append(m.name)
        lines.append(
            f"{m.name} drops to -1 PM, passes out (0 PM again after an hour) "
            f"and loses 1 Spirit for good ({m.spirit} -> {max(0, m.spirit - 1)})"
        )
        return replace(m, pm=-1, spirit=max(0, m.spirit - 1), out=True)

    new = (tuple(hit(m) for m in sides[0]), tuple(hit(m) for m in sides[1]))
    return new, tuple(fainted)


def spent(side: Sequence[SpiritFighter]) -> bool:
    """Whether every member of a side is at 0 PM or below (SRP-17).

    >>> spent([SpiritFighter("a", 3, pm=0), SpiritFighter("b", 2, pm=-1)])
    True
    """
    return all(m.current_pm <= 0 for m in side)


@dataclass(frozen=True, slots=True)
class SpiritCombat:
    """A whole spirit combat: every round, the final sides, and how it ended."""

    rounds: tuple[SpiritRound, ...]
    sides: Sides
    ended: str
    bindable: tuple[str, ...]

    def as_dict(self) -> dict[str, JSON]:
        """As JSON values."""
        return {
            "rounds": [r.as_dict() for r in self.rounds],
            "sides": [[_fighter_json(m) for m in side] for side in self.sides],
            "ended": self.ended,
            "bindable": list(self.bindable),
        }


def _fighter_json(m: SpiritFighter) -> dict[str, JSON]:
    return {"name": m.name, "spirit": m.spirit, "pm": m.current_pm, "passed_out": m.out}


#: Decides, when one side is spent, whether the other side ends the combat (True) or goes on.
EndChoice = Callable[[Sides, int], bool]


def end_when_spent(sides: Sides, spent_side: int) -> bool:
    """Default choice: end the combat as soon as a side is spent."""
    return True


def spirit_combat(
    sides: Sides,
    rng: Rng,
    *,
    choose: LeadChooser = strongest_lead,
    end: EndChoice = end_when_spent,
    distracted: Mapping[int, frozenset[str]] | None = None,
    leads: Mapping[int, Sequence[str]] | None = None,
    max_rounds: int = 100,
    rules: SrpRules = DEFAULT_RULES,
) -> SpiritCombat:
    """Play a spirit combat round by round until a side is spent (and the other ends it),
    a side has nobody conscious, or `max_rounds` pass. `distracted` and `leads` name, by
    round, who does something else and who leads.

    >>> from referee.rng import ScriptedRng
    >>> fight = spirit_combat(((SpiritFighter("A", 5, pm=1),), (SpiritFighter("G", 2),)),
    ...                       ScriptedRng([1, 1, 6, 6]))
    >>> fight.ended, fight.bindable
    ('A is at 0 PM or below: G ends the combat', ('A',))
    """
    if not 1 <= max_rounds <= MAX_ROUNDS:
        raise LimitError(f"max rounds {max_rounds!r} is out of range (expected 1..{MAX_ROUNDS})")
    if not sides[0] or not sides[1]:
        raise RuleError("a spirit combat needs at least one combatant on each side")
    rounds: list[SpiritRound] = []
    plans, named = distracted or {}, leads or {}
    if rules.spirit_at_zero is SpiritAtZero.END:  # SRP-17: checked before the first round too
        ended = _ending(sides, end, 0)
        if ended is not None:
            return SpiritCombat((), sides, ended[0], ended[1])
    for number in range(1, max_rounds + 1):
        away = plans.get(number, frozenset())
        rolls = _throws(sides, away, rng)
        sides, report = resolve_round(
            sides, number, rolls, distracted=away, choose=choose, named=named.get(number, ())
        )
        rounds.append(report)
        ended = _ending(sides, end, number)
        if ended is not None:
            return SpiritCombat(tuple(rounds), sides, ended[0], ended[1])
    return SpiritCombat(tuple(rounds), sides, f"stopped after {max_rounds} rounds", ())


def _throws(
    sides: Sides, away: frozenset[str], rng: Rng
) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
    rolling = [any(m.name not in away for m in _conscious(side)) for side in sides]
    if not all(rolling):
        return None, None
    return rng.throw(TWO_D6).faces, rng.throw(TWO_D6).faces


def side_name(side: Sequence[SpiritFighter]) -> str:
    """A side as its members' names: "Andrea", "Ghost#1 and Ghost#2", "A, B and C".

    >>> side_name([SpiritFighter("A", 1), SpiritFighter("B", 1), SpiritFighter("C", 1)])
    'A, B and C'
    """
    names = [m.name for m in side]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _verb(side: Sequence[SpiritFighter], one: str, many: str) -> str:
    return f"{side_name(side)} {one if len(side) == 1 else many}"


def _ending(sides: Sides, end: EndChoice, number: int) -> tuple[str, tuple[str, ...]] | None:
    for i in (0, 1):
        other = sides[1 - i]
        if not _conscious(sides[i]):
            out = _verb(sides[i], "has", "have")
            return f"{out} passed out: {_verb(other, 'wins', 'win')}", ()
    for i in (0, 1):
        if spent(sides[i]):
            bindable = tuple(m.name for m in sides[i] if m.current_pm == 0)
            if end(sides, i):
                low = _verb(sides[i], "is", "are")
                ends = _verb(sides[1 - i], "ends", "end")
                return (f"{low} at 0 PM or below: {ends} the combat", bindable)
    return None


def parse_spirits(tokens: Sequence[str]) -> tuple[SpiritFighter, ...]:
    """`Andrea=5` (Spirit 5, PM 5) or `Andrea=5/3` (PM 3); repeated names numbered `#1`, ...

    >>> [f.name for f in parse_spirits(["Ghost=4", "Ghost=3", "Wisp=1"])]
    ['Ghost#1', 'Ghost#2', 'Wisp']
    """
    parsed = []
    for token in tokens:
        name, sep, value = token.partition("=")
        spirit_text, _, pm_text = value.partition("/")
        if (
            not sep
            or not name
            or not is_whole(spirit_text)
            or (pm_text and not is_whole(pm_text, signs="-"))
        ):
            raise NotationError(f"bad combatant {token!r} (expected NAME=SPIRIT or NAME=SPIRIT/PM)")
        parsed.append((name, int(spirit_text), int(pm_text) if pm_text else None))
    counts = {n: sum(1 for m, _, _ in parsed if m == n) for n, _, _ in parsed}
    seen: dict[str, int] = {}
    out = []
    for name, strength, pm in parsed:
        seen[name] = seen.get(name, 0) + 1
        label = f"{name}#{seen[name]}" if counts[name] > 1 else name
        out.append(SpiritFighter(label, strength, pm))
    return tuple(out)
