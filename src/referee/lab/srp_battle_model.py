"""What a group battle of SRP is made of, for both ways of working it out (`srp_battle_exact`,
`srp_battle_simulate`): its bounds, the fighters read from their specs, each strike's outcomes,
the battle's setup (who may strike whom, in which orders) and the result."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from referee.analysis.srp_odds import strike_counts
from referee.errors import LimitError, NotationError, RuleError
from referee.lab.battle_result import (
    BattleFigures,
    Policy,
    check_side,
    line_up,
)
from referee.systems.files import read_text_file
from referee.systems.srp.combatants import attack_from, defense_from, sheet_from_spec
from referee.systems.srp.gear import GearPack, example_pack, parse_toml
from referee.systems.srp.melee import Attack, Defense
from referee.systems.srp.rules import SrpRules, TurnOrder, hits_to_down
from referee.systems.srp.sheet import Sheet, sheet_from_table

#: Bounds on untrusted input (DESIGN: budgets).
MAX_BATTLES = 10_000_000


MAX_EXACT_CELLS = 2_000_000


AUTO_EXACT_CELLS = 200_000  # above this, `battle` answers by Monte Carlo unless told


MAX_EXACT_ROLLERS = 4  # rolled turn orders are enumerated exactly (20^4 rolls) up to this


MAX_TURNS = 20_000  # Monte Carlo: a battle still going after this many turns is an error


BATCH = 50_000


Outcome = tuple[int, bool]  # (hits, stunned)


@dataclass(frozen=True, slots=True)
class SrpFighter:
    """One fighter of a battle: its sheet, side (0 or 1) and hits to be down."""

    name: str
    side: int
    sheet: Sheet
    need: int

    @property
    def skill(self) -> int:
        """The skill with the weapon in hand (the policies' "strongest")."""
        return self.sheet.skill()


def strike_outcomes(attack: Attack, defense: Defense, rules: SrpRules) -> dict[Outcome, Fraction]:
    """Exact P(hits, stunned) of one attack over the 2,400 face triples (SRP-4..9, 16 S*).

    >>> from referee.systems.srp.rules import DEFAULT_RULES
    >>> from referee.systems.srp.sheet import DefenseKind
    >>> out = strike_outcomes(Attack(skill=10, stun=True), Defense(kind=DefenseKind.NONE,
    ...                       armor=20), DEFAULT_RULES)
    >>> [(k, str(p)) for k, p in out.items()]
    [((0, False), '17/20'), ((0, True), '1/10'), ((1, True), '1/20')]
    """
    return {k: Fraction(n, 2400) for k, n in strike_counts(attack, defense, rules).items()}


def parse_srp_side(text: str, gear: GearPack | None = None, *, pavise_ap: int = 0) -> list[Sheet]:
    """`"Ann=skill=15 damage=3 hits=12; Orc=orc.toml"`: fighters split by `;`, each NAME=SPEC
    (the short spec of `referee srp odds`, `weapon=NAME` from the gear pack) or NAME=FILE.toml
    (a sheet as a TOML table).

    >>> [(s.name, s.skill(), s.hits) for s in parse_srp_side("Ann=skill=15 hits=12; Orc=hits=8")]
    [('Ann', 15, 12), ('Orc', 0, 8)]
    """
    pack = gear or example_pack()
    sheets = []
    for part in text.split(";"):
        name, sep, spec = part.strip().partition("=")
        if not sep or not name.strip() or not spec.strip():
            raise NotationError(
                f"bad fighter {part.strip()!r} in {text!r} "
                "(expected NAME=SPEC like 'Ann=skill=15 hits=12', or NAME=SHEET.toml)"
            )
        if spec.strip().lower().endswith(".toml"):
            sheets.append(sheet_file(name.strip(), spec.strip(), pack, pavise_ap))
        else:
            sheets.append(sheet_from_spec(name.strip(), spec, pack, pavise_ap=pavise_ap))
    check_side(len(sheets))
    return sheets


def sheet_file(name: str, path: str, gear: GearPack, pavise_ap: int) -> Sheet:
    data = parse_toml(read_text_file(path, "sheet"), path)
    return sheet_from_table(name, data, gear, pavise_ap=pavise_ap, where=path)


def make_fighters(
    first: Sequence[Sheet], second: Sequence[Sheet], rules: SrpRules
) -> tuple[SrpFighter, ...]:
    """Both sides as one list; a repeated name gets a number ("Orc", "Orc 2")."""
    check_side(len(first))
    check_side(len(second))
    return line_up(
        (first, second),
        lambda sheet: sheet.name,
        lambda label, side, sheet: SrpFighter(label, side, sheet, hits_to_down(sheet.hits, rules)),
    )


class Setup:
    """Per-pair outcome tables, stunnable fighters and the turn orders of one battle."""

    def __init__(self, fighters: Sequence[SrpFighter], rules: SrpRules, policy: Policy) -> None:
        self.fighters, self.rules, self.policy = tuple(fighters), rules, policy
        self.n = len(fighters)
        self.need = tuple(f.need for f in fighters)
        self.outcomes: dict[tuple[int, int], list[tuple[Outcome, float]]] = {}
        stunnable = set()
        for a, b in itertools.permutations(range(self.n), 2):
            if fighters[a].side == fighters[b].side:
                continue
            att = attack_from(fighters[a].sheet)
            dist = strike_outcomes(att, defense_from(fighters[b].sheet), rules)
            self.outcomes[a, b] = [(k, float(p)) for k, p in dist.items()]
            if any(stun for (_, stun) in dist):
                stunnable.add(b)
        if all(k == (0, False) for v in self.outcomes.values() for k, _ in v):
            raise RuleError("neither side can ever deal a hit: the battle would never end")
        self.stunnable = tuple(sorted(stunnable))
        self.bit = {f: 1 << i for i, f in enumerate(self.stunnable)}
        skills = sorted({f.skill for f in fighters})
        self.rank = [skills.index(f.skill) for f in fighters]

    def targets(self, actor: int, taken: Sequence[int]) -> list[tuple[int, float]]:
        """Whom `actor` attacks given the hits taken: (target, probability)."""
        side = self.fighters[actor].side
        alive = [
            j for j in range(self.n) if self.fighters[j].side != side and taken[j] < self.need[j]
        ]
        if self.policy is Policy.RANDOM:
            return [(j, 1.0 / len(alive)) for j in alive]
        return [(min(alive, key=lambda j: self.key(j, taken)), 1.0)]

    def key(self, j: int, taken: Sequence[int]) -> tuple[int, int, int]:
        left = self.need[j] - taken[j]
        if self.policy is Policy.FOCUS_WEAKEST:
            return (left, self.rank[j], j)
        if self.policy is Policy.FOCUS_STRONGEST:
            return (-self.rank[j], left, j)
        return (taken[j], 0, j)

    def orders(self) -> dict[tuple[int, ...], float]:
        """P(turn order): the listed order, or the exact d20 + initiative rolls (SRP-19)."""
        listed = tuple(range(self.n))
        if self.rules.turn_order is TurnOrder.LISTED:
            return {listed: 1.0}
        if self.n > MAX_EXACT_ROLLERS:
            raise LimitError(
                f"rolled turn orders are exact for up to {MAX_EXACT_ROLLERS} fighters "
                f"(this battle has {self.n}); use the Monte Carlo"
            )
        bonus = [f.sheet.initiative for f in self.fighters]
        out: dict[tuple[int, ...], int] = {}
        for faces in itertools.product(range(1, 21), repeat=self.n):
            order = tuple(sorted(listed, key=lambda i: (-(faces[i] + bonus[i]), i)))
            out[order] = out.get(order, 0) + 1
        total = 20**self.n
        return {k: v / total for k, v in out.items()}

    def winner(self, taken: Sequence[int]) -> int | None:
        """The side left standing, or None while both have someone up."""
        up = [False, False]
        for j, f in enumerate(self.fighters):
            up[f.side] = up[f.side] or taken[j] < self.need[j]
        if up[0] and up[1]:
            return None
        return 0 if up[0] else 1


def exact_cells(fighters: Sequence[SrpFighter], rules: SrpRules) -> int:
    """The size of the exact chain: hit vectors x stun flags x whose turn x turn orders.

    Stun flags count only fighters an enemy's S* weapon could stun; a rolled order counts
    n! orders (at most).
    """
    cells = 1
    for f in fighters:
        cells *= f.need
    stunnable = {
        i
        for i, f in enumerate(fighters)
        for g in fighters
        if g.side != f.side and attack_from(g.sheet).stun
    }
    orders = 1 if rules.turn_order is TurnOrder.LISTED else math.factorial(len(fighters))
    flags: int = 2 ** len(stunnable)
    return cells * flags * len(fighters) * orders


@dataclass(frozen=True, slots=True)
class SrpBattleResult(BattleFigures[SrpFighter]):
    """What a battle gives: win chances, rounds, survivors and hits (with standard errors)."""

    @property
    def mean_hits(self) -> tuple[float, ...]:
        """Per fighter: the mean hits taken."""
        return self.mean_taken

    @property
    def hits(self) -> tuple[tuple[float, ...], ...]:
        """Per fighter: P(hits taken = k), k = 0..need."""
        return self.taken

    def to_json(self) -> dict[str, object]:
        """As JSON (floats)."""
        fighters: list[dict[str, object]] = [
            {"name": f.name, "side": f.side + 1, "skill": f.skill, "hits": f.sheet.hits}
            for f in self.fighters
        ]
        figures = self.figures_json(fighters, "mean_hits_taken", "hits_distribution")
        return {"system": "srp", **figures}


Summary = tuple[
    float, tuple[float, ...], tuple[float, ...], tuple[tuple[float, ...], ...], list[list[float]]
]


def summarise(setup: Setup, ends: dict[tuple[int, ...], float]) -> Summary:
    n, need = setup.n, setup.need
    p_first = 0.0
    survive = [0.0] * n
    hits = [[0.0] * (need[i] + 1) for i in range(n)]
    sizes = [sum(1 for f in setup.fighters if f.side == s) for s in (0, 1)]
    survivors = [[0.0] * (sizes[0] + 1), [0.0] * (sizes[1] + 1)]
    for taken, p in ends.items():
        side = setup.winner(taken)
        assert side is not None
        p_first += p if side == 0 else 0.0
        up = 0
        for i in range(n):
            hits[i][taken[i]] += p
            if taken[i] < need[i]:
                survive[i] += p
                up += setup.fighters[i].side == side
        survivors[side][up] += p
    means = tuple(sum(k * q for k, q in enumerate(h)) for h in hits)
    return p_first, tuple(survive), means, tuple(tuple(h) for h in hits), survivors
