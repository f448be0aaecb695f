"""Group battles under any SRP pack: two sides of sheets, attacks in turn order.

The rules (RULINGS.md): the turn order is the listed one (side 1 as listed, then side 2), or
with `turn_order = "roll"` each fighter rolls d20 + its sheet's `initiative` once, highest
first, ties in listed order (SRP-19). Each turn the fighter makes one melee attack with the
weapon in hand on the enemy the policy names: attack d20, defense d20 (the target's own
defense kind and skill) and damage d6 (SRP-4), levels by the pack (SRP-5, formulas too), the
outcome chart with shields (SRP-7, 11), damage with the high-skill and level bonuses
(SRP-8), hits over armor, criticals halving AP with at least one hit (SRP-9). A weapon marked
S* that hits at special or better stuns: the target loses its next turn (SRP-16). A fighter
is down when its hits reach its total (SRP-9, the pack's `down`); the battle ends when one
side is down. Movement, facing, missiles and declared special actions are not played.

* `exact_battle`: a Markov chain over (hits taken by each fighter, who is stunned, whose turn)
  for each turn order. Hits only grow, so the hit vectors are visited in order of their sum;
  within one vector the turns that deal no hits (and stuns) cycle, solved as one small linear
  system. Cells: the product of every fighter's hits to down x 2^(stunnable fighters) x
  fighters x turn orders.
* `simulate_battle`: numpy, every battle of a batch at once, each attack one draw from the
  same exact per-pair outcome distribution; every figure with its standard error.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from referee.analysis.srp_odds import strike_counts
from referee.errors import LimitError, NotationError, RuleError
from referee.lab.battle_result import (
    MIN_BATTLES,
    BattleFigures,
    Policy,
    Progress,
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


# --- sides ----------------------------------------------------------------------------------


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
            sheets.append(_sheet_file(name.strip(), spec.strip(), pack, pavise_ap))
        else:
            sheets.append(sheet_from_spec(name.strip(), spec, pack, pavise_ap=pavise_ap))
    check_side(len(sheets))
    return sheets


def _sheet_file(name: str, path: str, gear: GearPack, pavise_ap: int) -> Sheet:
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


# --- the pieces both methods share ----------------------------------------------------------


class _Setup:
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


def _summarise(setup: _Setup, ends: dict[tuple[int, ...], float]) -> Summary:
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


# --- exact ----------------------------------------------------------------------------------


def exact_battle(
    first: Sequence[Sheet],
    second: Sequence[Sheet],
    rules: SrpRules,
    policy: Policy | str = Policy.FOCUS_WEAKEST,
) -> SrpBattleResult:
    """The battle's exact chain (floats; see the module docstring), up to `MAX_EXACT_CELLS`.

    >>> a, b = parse_srp_side("A=skill=14 damage=3 hits=4"), parse_srp_side("B=skill=12 hits=4")
    >>> r = exact_battle(a, b, SrpRules())
    >>> round(r.p_first_side, 4), r.states
    (0.7557, 32)
    """
    fighters = make_fighters(first, second, rules)
    cells = exact_cells(fighters, rules)
    if cells > MAX_EXACT_CELLS:
        raise LimitError(
            f"the exact chain would have {cells:,} cells (at most {MAX_EXACT_CELLS:,}); "
            "use the Monte Carlo"
        )
    setup = _Setup(fighters, rules, Policy.of(policy))
    ends: dict[tuple[int, ...], float] = {}
    rounds = 1.0
    for order, weight in setup.orders().items():
        got, more = _exact_order(setup, order)
        for k, p in got.items():
            ends[k] = ends.get(k, 0.0) + weight * p
        rounds += weight * more
    total = sum(ends.values())
    if abs(total - 1.0) > 1e-9:
        raise RuleError(
            f"the battle can go on forever (it ends with probability {total:.6f}): "
            "some fighters can never hurt the enemies the policy sends them against"
        )
    p_first, survive, means, hits, survivors = _summarise(setup, ends)
    return SrpBattleResult(
        fighters, setup.policy, "exact", 0, cells, p_first, rounds, survive, means, hits,
        (tuple(survivors[0]), tuple(survivors[1])),
    )  # fmt: skip


def _exact_order(
    setup: _Setup, order: tuple[int, ...]
) -> tuple[dict[tuple[int, ...], float], float]:
    """Terminal hit vectors and expected wraps (new rounds) for one turn order."""
    n = setup.n
    size = (1 << len(setup.stunnable)) * n
    start = tuple([0] * n)
    mass: dict[tuple[int, ...], np.ndarray] = {start: np.zeros(size)}
    mass[start][0] = 1.0  # no one stunned, position 0 of the order
    heap = [(0, start)]
    ends: dict[tuple[int, ...], float] = {}
    wraps = 0.0
    while heap:
        _, taken = heapq.heappop(heap)
        entering = mass.pop(taken)
        inside = np.zeros((size, size))
        leaving: list[tuple[int, tuple[int, ...], int, float, bool]] = []
        for state in np.flatnonzero(entering >= 0).tolist():
            for p, nxt, nstate, wrap in _moves(setup, order, taken, state):
                if nxt == taken:
                    inside[state, nstate] += p
                leaving.append((state, nxt, nstate, p, wrap))
        try:
            visits = np.linalg.solve((np.eye(size) - inside).T, entering)
        except np.linalg.LinAlgError:
            raise RuleError(
                "the battle can go on forever: some fighters can never hurt the enemies "
                "the policy sends them against"
            ) from None
        if not np.all(np.isfinite(visits)) or visits.max() > 1e12:
            raise RuleError("the battle can go on forever: a cycle of turns never deals a hit")
        for state, nxt, nstate, p, wrap in leaving:
            flow = float(visits[state]) * p
            if flow == 0.0:
                continue
            if nxt != taken and setup.winner(nxt) is not None:
                ends[nxt] = ends.get(nxt, 0.0) + flow
                continue
            if wrap:
                wraps += flow
            if nxt != taken:
                if nxt not in mass:
                    mass[nxt] = np.zeros(size)
                    heapq.heappush(heap, (sum(nxt), nxt))
                mass[nxt][nstate] += flow
    return ends, wraps


def _moves(
    setup: _Setup, order: tuple[int, ...], taken: tuple[int, ...], state: int
) -> list[tuple[float, tuple[int, ...], int, bool]]:
    """Every next (probability, hits taken, local state, starts a new round) from one state."""
    n = setup.n
    flags, pos = divmod(state, n)
    actor = order[pos]
    if taken[actor] >= setup.need[actor]:
        return []  # never occupied: the pointer only rests on fighters still up
    bit = setup.bit.get(actor, 0)
    if flags & bit:  # stunned: loses this turn (SRP-16)
        npos, wrap = _advance(setup, order, taken, pos)
        return [(1.0, taken, (flags & ~bit) * n + npos, wrap)]
    out = []
    for target, q in setup.targets(actor, taken):
        for (hits, stun), p in setup.outcomes[actor, target]:
            nxt = list(taken)
            nxt[target] = min(setup.need[target], taken[target] + hits)
            new = tuple(nxt)
            tbit = setup.bit.get(target, 0)
            nflags = flags | tbit if stun else flags
            if new[target] >= setup.need[target]:
                nflags &= ~tbit
            if setup.winner(new) is not None:
                out.append((q * p, new, 0, False))
                continue
            npos, wrap = _advance(setup, order, new, pos)
            out.append((q * p, new, nflags * n + npos, wrap))
    return out


def _advance(
    setup: _Setup, order: tuple[int, ...], taken: Sequence[int], pos: int
) -> tuple[int, bool]:
    n = setup.n
    for step in range(1, n + 1):
        cand = (pos + step) % n
        if taken[order[cand]] < setup.need[order[cand]]:
            return cand, cand <= pos
    return pos, True  # unreachable: the actor itself is up


# --- Monte Carlo ----------------------------------------------------------------------------


def simulate_battle(
    first: Sequence[Sheet],
    second: Sequence[Sheet],
    rules: SrpRules,
    policy: Policy | str,
    battles: int,
    gen: np.random.Generator,
    progress: Progress | None = None,
) -> SrpBattleResult:
    """`battles` battles with numpy, batch by batch; each figure with its standard error."""
    if isinstance(battles, bool) or not MIN_BATTLES <= battles <= MAX_BATTLES:
        raise LimitError(
            f"battles {battles!r} is out of range (expected {MIN_BATTLES}..{MAX_BATTLES:,}: "
            "a standard error needs at least two)"
        )
    fighters = make_fighters(first, second, rules)
    setup = _Setup(fighters, rules, Policy.of(policy))
    return SrpBattleResult.simulated(fighters, setup.policy, exact_cells(fighters, rules),
                                     setup.need, lambda count: _simulate_batch(setup, count, gen),
                                     battles, BATCH, progress)  # fmt: skip


def _tables(setup: _Setup) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (attacker, target): cumulative probabilities, hits and stun of each outcome."""
    n = setup.n
    width = max(len(v) for v in setup.outcomes.values())
    cdf = np.ones((n, n, width))
    hits = np.zeros((n, n, width), dtype=np.int64)
    stun = np.zeros((n, n, width), dtype=bool)
    for (a, b), outs in setup.outcomes.items():
        probs = np.cumsum([p for _, p in outs])
        probs[-1] = 1.0
        cdf[a, b, : len(outs)] = probs
        hits[a, b, : len(outs)] = [k for (k, _), _ in outs]
        stun[a, b, : len(outs)] = [s for (_, s), _ in outs]
        hits[a, b, len(outs) :] = hits[a, b, len(outs) - 1]
    return cdf, hits, stun


def _simulate_batch(
    setup: _Setup, count: int, gen: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, fighters = setup.n, setup.fighters
    cdf, table_hits, table_stun = _tables(setup)
    need = np.array(setup.need, dtype=np.int64)
    side = np.array([f.side for f in fighters])
    rank = np.array(setup.rank, dtype=np.int64)
    index = np.arange(n)
    can_stun = np.zeros(n, dtype=bool)
    can_stun[list(setup.stunnable)] = True
    if setup.rules.turn_order is TurnOrder.LISTED:
        order = np.tile(index, (count, 1))
    else:  # d20 + initiative, highest first, ties in listed order (SRP-19)
        bonus = np.array([f.sheet.initiative for f in fighters])
        totals = gen.integers(1, 21, size=(count, n)) + bonus
        order = np.argsort(-totals, axis=1, kind="stable")
    taken = np.zeros((count, n), dtype=np.int64)
    stunned = np.zeros((count, n), dtype=bool)
    pos = np.zeros(count, dtype=np.int64)
    rounds = np.ones(count, dtype=np.int64)
    active = np.ones(count, dtype=bool)
    first_wins = np.zeros(count, dtype=bool)
    for _ in range(MAX_TURNS):
        live = np.flatnonzero(active)
        if live.size == 0:
            break
        actor = order[live, pos[live]]
        lost = stunned[live, actor]
        stunned[live[lost], actor[lost]] = False
        act, who = live[~lost], actor[~lost]
        if act.size:
            target = _choose(setup.policy, taken[act], need, side, rank, who, index, gen)
            u = gen.random(act.size)
            k = np.minimum((u[:, None] >= cdf[who, target]).sum(axis=1), cdf.shape[2] - 1)
            dealt = table_hits[who, target, k]
            new = np.minimum(need[target], taken[act, target] + dealt)
            taken[act, target] = new
            up = new < need[target]
            stunned[act, target] = np.where(
                up, stunned[act, target] | (table_stun[who, target, k] & can_stun[target]), False
            )
        down = taken[live] >= need
        side0_down: np.ndarray = np.all(down[:, side == 0], axis=1)
        side1_down: np.ndarray = np.all(down[:, side == 1], axis=1)
        over = side0_down | side1_down
        first_wins[live[over]] = side1_down[over]
        active[live[over]] = False
        going = live[~over]
        if going.size:
            rows = np.arange(going.size)[:, None]
            alive_in_order = taken[going][rows, order[going]] < need[order[going]]
            cand = (pos[going, None] + np.arange(1, n + 1)) % n
            ok = alive_in_order[np.arange(going.size)[:, None], cand]
            nxt = cand[np.arange(going.size), ok.argmax(axis=1)]
            rounds[going] += nxt <= pos[going]
            pos[going] = nxt
    else:
        raise RuleError(
            f"{int(active.sum()):,} battles had not ended after {MAX_TURNS:,} turns: "
            "some fighters can never hurt the enemies the policy sends them against"
        )
    return taken, first_wins, rounds


def _choose(
    policy: Policy,
    taken: np.ndarray,
    need: np.ndarray,
    side: np.ndarray,
    rank: np.ndarray,
    who: np.ndarray,
    index: np.ndarray,
    gen: np.random.Generator,
) -> np.ndarray:
    """The target of each acting fighter by the policy (the same keys as `_Setup.key`)."""
    n = len(need)
    valid = (side[None, :] != side[who][:, None]) & (taken < need)
    left = need - taken
    big = n + 1
    if policy is Policy.FOCUS_WEAKEST:
        score = (left * big + rank) * big + index
    elif policy is Policy.FOCUS_STRONGEST:
        score = ((big - rank) * 10_000 + left) * big + index
    elif policy is Policy.SPREAD:
        score = taken * big + index
    else:
        score = gen.random(taken.shape)
    score = np.where(valid, score.astype(float), np.inf)
    chosen: np.ndarray = score.argmin(axis=1)
    return chosen


def battle(
    first: Sequence[Sheet],
    second: Sequence[Sheet],
    rules: SrpRules,
    policy: Policy | str = Policy.FOCUS_WEAKEST,
    battles: int = 200_000,
    gen: np.random.Generator | None = None,
    progress: Progress | None = None,
    exact: bool | None = None,
) -> SrpBattleResult:
    """Exact when the chain is small (`AUTO_EXACT_CELLS`, or `exact=True`), else Monte Carlo."""
    fighters = make_fighters(first, second, rules)
    cells = exact_cells(fighters, rules)
    rollers_ok = rules.turn_order is TurnOrder.LISTED or len(fighters) <= MAX_EXACT_ROLLERS
    if exact or (exact is None and cells <= AUTO_EXACT_CELLS and rollers_ok):
        return exact_battle(first, second, rules, policy)
    if gen is None:
        raise RuleError("a Monte Carlo battle needs a random generator (gen=)")
    return simulate_battle(first, second, rules, policy, battles, gen, progress)
