"""Group battles under any MSV pack: two sides, initiative for all, attacks in turn order.

The rules (RULINGS.md): everyone rolls initiative (MSV-5; a tied group rerolls among itself);
fighters act in that order round after round (MSV-6), each action one attack on a target the
policy names, plus the free attacks a critical gives on the same, stunned foe (MSV-4; none
once it is defeated); a fighter is defeated at the pack's threshold (MSV-7); the battle ends
when one side is left. A round is counted when its first living fighter acts.

One *action* (an attack and its chain of free attacks on one target) deals a total damage
whose distribution `action_damage` gives exactly, so both engines below draw or weigh one
action at a time:

* `exact_battle` is a Markov chain over (damage taken by every fighter, initiative order, who
  acts), swept level by level of total damage in float64; misses cycle within a level and that
  cycle is summed in closed form. It is used when the state space is at most `MAX_EXACT_CELLS`.
* `simulate_battle` is a numpy Monte Carlo of n battles at once, with standard errors.

Target policies: `focus-weakest` (the living enemy closest to defeat; ties: lower CS, then
listed first), `focus-strongest` (the highest CS; ties: closest to defeat), `spread` (the
least damaged), `random` (uniform among living enemies).

>>> from referee.systems.msv.rules import default_rules
>>> b = exact_battle(parse_side("A=60"), parse_side("B=65"), default_rules(), "focus-weakest")
>>> round(b.p_first_side, 4), round(b.expected_rounds, 3)
(0.3923, 7.8)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np

from referee.analysis.msv_outcomes import Outcome, attack_outcomes, key_distribution
from referee.errors import LimitError, RuleError
from referee.lab.battle_result import (
    MIN_BATTLES,
    BattleFigures,
    Policy,
    Progress,
    check_side,
    line_up,
)
from referee.systems.msv.attack import D100, check_cs, interpret
from referee.systems.msv.notation import read_fighter
from referee.systems.msv.rules import MsvRules

#: Bounds on untrusted input (DESIGN: budgets).
MAX_BATTLES = 10_000_000
MAX_EXACT_CELLS = 8_000_000
AUTO_EXACT_CELLS = 1_000_000  # above this, `battle` answers by Monte Carlo unless told
MAX_STEPS = 100_000
MAX_INITIATIVE_COLUMNS = 1000


@dataclass(frozen=True, slots=True)
class Fighter:
    """One fighter of a battle."""

    name: str
    cs: int
    side: int


def parse_side(text: str) -> tuple[tuple[str, int], ...]:
    """`"Tarl=65,Rask=55"` -> (("Tarl", 65), ("Rask", 55)); each fighter read as
    `referee.systems.msv.notation.read_fighter` reads it (old dice `2dN` too).

    >>> parse_side("Tarl=65, Orc=50")
    (('Tarl', 65), ('Orc', 50))
    """
    out = []
    for part in text.split(","):
        name, cs = read_fighter(part.strip())
        out.append((name, int(cs)))
    check_side(len(out))
    return tuple(out)


def make_fighters(
    first: Sequence[tuple[str, int]], second: Sequence[tuple[str, int]]
) -> tuple[Fighter, ...]:
    """Both sides as one list; a repeated name gets a number ("Orc", "Orc 2").

    >>> [f.name for f in make_fighters([("Orc", 50)], [("Orc", 50), ("Orc", 50)])]
    ['Orc', 'Orc 2', 'Orc 3']
    """
    return line_up(
        (first, second),
        lambda entry: entry[0],
        lambda label, side, entry: Fighter(label, int(check_cs(entry[1])), side),
    )


def action_damage(outcomes: dict[Outcome, Fraction], threshold: int) -> np.ndarray:
    """P(one action deals total damage k) for k = 0..threshold-1, then P(>= threshold).

    An action is a roll plus the free attacks its criticals chain (MSV-4).

    >>> from referee.systems.msv.rules import default_rules
    >>> g = action_damage(attack_outcomes(100, default_rules()), 15)
    >>> round(float(g[0]), 3), round(float(g.sum()), 12)
    (0.0, 1.0)
    """
    # A free attack that deals nothing (MSV-4 on a 0-damage critical) is rolled again: the
    # action's total then follows the rest, scaled by 1 / (1 - P(that outcome)).
    loop = sum((p for out, p in outcomes.items() if out.again and out.damage == 0), Fraction(0))
    if loop >= 1:
        raise RuleError("every attack is a free attack that deals no damage: an action never ends")
    exact = [Fraction(0)] * threshold
    for k in range(threshold):
        total = Fraction(0)
        for out, p in outcomes.items():
            if out.again and 1 <= out.damage <= k:
                total += p * exact[k - out.damage]
            elif not out.again and out.damage == k:
                total += p
        exact[k] = total / (1 - loop)
    values = [float(x) for x in exact]
    return np.array([*values, max(0.0, 1.0 - math.fsum(values))])


def order_distribution(keys: Sequence[dict[int, Fraction]]) -> dict[tuple[int, ...], Fraction]:
    """Exact P(initiative order) for fighters with these key distributions (MSV-5 rerolls).

    A group that can never settle (every key always equal) keeps the listed order.

    >>> from referee.systems.msv.rules import default_rules
    >>> d = order_distribution([key_distribution(65, default_rules())] * 2)
    >>> d[(0, 1)]
    Fraction(1, 2)
    """
    size = math.prod(len(k) for k in keys)
    if size > 200_000:
        raise LimitError(f"initiative has {size} key combinations, more than the exact bound")

    @cache
    def settle(group: tuple[int, ...]) -> dict[tuple[int, ...], Fraction]:
        if len(group) == 1:
            return {group: Fraction(1)}
        result: dict[tuple[int, ...], Fraction] = {}
        stuck = Fraction(0)
        for combo in itertools.product(*(keys[i].items() for i in group)):
            p = math.prod((c[1] for c in combo), start=Fraction(1))
            values = [c[0] for c in combo]
            if len(set(values)) == 1:
                stuck += p
                continue
            blocks = [
                tuple(i for i, v in zip(group, values, strict=True) if v == level)
                for level in sorted(set(values), reverse=True)
            ]
            partial: dict[tuple[int, ...], Fraction] = {(): p}
            for block in blocks:
                sub = settle(block)
                partial = {a + b: pa * pb for a, pa in partial.items() for b, pb in sub.items()}
            for order, q in partial.items():
                result[order] = result.get(order, Fraction(0)) + q
        if stuck == 1:
            return {group: Fraction(1)}
        return {order: q / (1 - stuck) for order, q in result.items()}

    return settle(tuple(range(len(keys))))


@dataclass(frozen=True, slots=True)
class BattleResult(BattleFigures[Fighter]):
    """What a battle gives: win chances, rounds, survivors and damage (with standard errors)."""

    @property
    def mean_damage(self) -> tuple[float, ...]:
        """Per fighter: the mean damage taken."""
        return self.mean_taken

    @property
    def damage(self) -> tuple[tuple[float, ...], ...]:
        """Per fighter: P(damage taken = k), k = 0..threshold."""
        return self.taken

    def to_json(self) -> dict[str, object]:
        """As JSON (floats).

        >>> from referee.systems.msv.rules import default_rules
        >>> f = parse_side("A=60")
        >>> exact_battle(f, parse_side("B=60"), default_rules(), "spread").to_json()["method"]
        'exact'
        """
        fighters = [{"name": f.name, "cs": f.cs, "side": f.side + 1} for f in self.fighters]
        return self.figures_json(fighters, "mean_damage", "damage_distribution")


def _ranks(fighters: Sequence[Fighter]) -> np.ndarray:
    """Each fighter's CS as a dense rank (equal CS, equal rank)."""
    result: np.ndarray = np.unique([f.cs for f in fighters], return_inverse=True)[1]
    return result.reshape(-1)


def _targets(policy: Policy, fighters: Sequence[Fighter], taken: np.ndarray, t: int) -> np.ndarray:
    """Weights W[..., attacker, target] for damage arrays `taken` of shape (..., n)."""
    n = len(fighters)
    cs = _ranks(fighters)
    side = np.array([f.side for f in fighters])
    alive = taken < t
    weights = np.zeros((*taken.shape[:-1], n, n))
    for a in range(n):
        enemy = alive & (side != side[a])  # (..., n)
        if policy is Policy.RANDOM:
            count = enemy.sum(axis=-1, keepdims=True)
            weights[..., a, :] = np.where(enemy, 1.0 / np.maximum(count, 1), 0.0)
            continue
        big = 10**6
        if policy is Policy.FOCUS_WEAKEST:
            score = taken * 1000 - cs  # most damage first, then the lower CS
        elif policy is Policy.FOCUS_STRONGEST:
            score = cs * 1000 + taken
        else:
            score = -taken
        score = np.where(enemy, score * 16 - np.arange(n), -big * 1000)  # listed first wins
        best = np.argmax(score, axis=-1)
        one = np.zeros_like(weights[..., a, :])
        np.put_along_axis(one, best[..., None], 1.0, axis=-1)
        weights[..., a, :] = np.where(enemy.any(axis=-1, keepdims=True), one, 0.0)
    return weights


def _check_battle(fighters: Sequence[Fighter], rules: MsvRules) -> list[np.ndarray]:
    tables = [action_damage(attack_outcomes(f.cs, rules), rules.defeat_threshold) for f in fighters]
    for side in (0, 1):
        if all(tables[i][0] == 1.0 for i, f in enumerate(fighters) if f.side == side):
            other = [i for i, f in enumerate(fighters) if f.side != side]
            if all(tables[i][0] == 1.0 for i in other):
                raise RuleError("nobody can ever deal damage: the battle would never end")
    return tables


def exact_cells(fighters: Sequence[Fighter], rules: MsvRules) -> int:
    """The size of the exact chain: damage states x initiative orders x who acts.

    >>> from referee.systems.msv.rules import default_rules
    >>> exact_cells(make_fighters([("A", 60), ("B", 55)], [("C", 65), ("D", 50)]), default_rules())
    6291456
    """
    n = len(fighters)
    return int((rules.defeat_threshold + 1) ** n * math.factorial(n) * n)


def exact_battle(
    first: Sequence[tuple[str, int]],
    second: Sequence[tuple[str, int]],
    rules: MsvRules,
    policy: Policy | str = Policy.FOCUS_WEAKEST,
) -> BattleResult:
    """The exact battle (float64 chain); LimitError past `MAX_EXACT_CELLS`."""
    fighters = make_fighters(first, second)
    pol = Policy.of(policy)
    cells = exact_cells(fighters, rules)
    if cells > MAX_EXACT_CELLS:
        raise LimitError(f"the exact chain would have {cells} cells (bound {MAX_EXACT_CELLS})")
    tables = _check_battle(fighters, rules)
    keys = [key_distribution(f.cs, rules) for f in fighters]
    orders = order_distribution(keys)
    return _Chain(fighters, rules.defeat_threshold, tables, orders, pol).run(cells)


class _Chain:
    """The level-by-level forward sweep of `exact_battle`."""

    def __init__(
        self,
        fighters: tuple[Fighter, ...],
        t: int,
        tables: list[np.ndarray],
        orders: dict[tuple[int, ...], Fraction],
        policy: Policy,
    ) -> None:
        self.fighters, self.t, self.tables, self.policy = fighters, t, tables, policy
        self.n = n = len(fighters)
        self.orders = list(orders)
        self.p_orders = np.array([float(orders[o]) for o in self.orders])
        self.stride = (t + 1) ** np.arange(n)
        size = (t + 1) ** n
        digits = (np.arange(size)[:, None] // self.stride[None, :]) % (t + 1)
        self.taken = digits  # (size, n)
        self.alive = digits < t
        self.side = np.array([f.side for f in fighters])
        self.mask = (self.alive * (2 ** np.arange(n))).sum(axis=1)
        self._tables_for_masks()

    def _tables_for_masks(self) -> None:
        """NEXT, PREV and FIRST per (living mask, order, fighter)."""
        n, count = self.n, len(self.orders)
        self.next = np.zeros((2**n, count, n), dtype=np.int64)
        self.prev = np.zeros((2**n, count, n), dtype=np.int64)
        self.first = np.zeros((2**n, count), dtype=np.int64)
        for mask in range(2**n):
            for o, order in enumerate(self.orders):
                living = [f for f in order if mask >> f & 1]
                if not living:
                    continue
                self.first[mask, o] = living[0]
                for f in range(n):
                    pos = order.index(f)
                    after = [g for g in order[pos + 1 :] + order[: pos + 1] if mask >> g & 1]
                    before = [g for g in order[pos:] + order[:pos] if mask >> g & 1][::-1]
                    self.next[mask, o, f] = after[0]
                    self.prev[mask, o, f] = before[0]

    def _ended(self, index: np.ndarray) -> np.ndarray:
        alive = self.alive[index]
        ones = (alive & (self.side == 0)).any(axis=-1)
        twos = (alive & (self.side == 1)).any(axis=-1)
        result: np.ndarray = ~(ones & twos)
        return result

    def run(self, cells: int) -> BattleResult:
        n, t, count = self.n, self.t, len(self.orders)
        size = len(self.taken)
        mass = np.zeros((size, count, n))
        final = np.zeros(size)
        order_index = np.arange(count)
        for o, order in enumerate(self.orders):
            mass[0, o, order[0]] = self.p_orders[o]
        level = self.taken.sum(axis=1)
        misses = np.array([table[0] for table in self.tables])
        rounds = 0.0
        for total in range(n * t + 1):
            states = np.flatnonzero((level == total) & ~self._ended(np.arange(size)))
            if states.size == 0:
                continue
            visits = self._cycle(mass[states], states, misses)  # (k, count, n)
            masks = self.mask[states]
            first = self.first[masks]  # (k, count)
            rounds += float(np.take_along_axis(visits, first[..., None], axis=2).sum())
            weights = _targets(self.policy, self.fighters, self.taken[states], t)
            for a in range(n):
                flow = visits[:, :, a]
                if not flow.any():
                    continue
                for target in range(n):
                    share = weights[:, a, target]
                    if not share.any():
                        continue
                    self._spread(mass, final, states, flow * share[:, None], a, target, order_index)
        return self._result(final, rounds, cells)

    def _cycle(self, incoming: np.ndarray, states: np.ndarray, misses: np.ndarray) -> np.ndarray:
        """Visits to each fresh turn within one damage state: the miss cycle summed exactly."""
        masks = self.mask[states]
        prev = self.prev[masks]  # (k, count, n)
        alive = self.alive[states][:, None, :]  # (k, 1, n)
        living = alive.sum(axis=-1, keepdims=True)
        visits = incoming.copy()
        carry = np.ones_like(incoming)
        source = np.broadcast_to(np.arange(self.n), incoming.shape).copy()
        for step in range(1, self.n):
            source = np.take_along_axis(prev, source, axis=2)
            carry = carry * misses[source]
            add = carry * np.take_along_axis(incoming, source, axis=2)
            visits += np.where(step < living, add, 0.0)
        loop = np.prod(np.where(alive, misses, 1.0), axis=-1, keepdims=True)
        result: np.ndarray = np.where(alive, visits / (1.0 - loop), 0.0)
        return result

    def _spread(
        self,
        mass: np.ndarray,
        final: np.ndarray,
        states: np.ndarray,
        flow: np.ndarray,
        attacker: int,
        target: int,
        order_index: np.ndarray,
    ) -> None:
        """Send `flow` (k, count) through one action of `attacker` on `target`."""
        t, table = self.t, self.tables[attacker]
        have = self.taken[states, target]
        room = t - have  # damage that defeats the target
        for k in range(1, t + 1):
            if k < t:
                p = np.where(k < room, table[k], 0.0)
            else:
                cumulative = np.concatenate([[0.0], np.cumsum(table[:t])])
                p = np.maximum(0.0, 1.0 - cumulative[room])
                k_add = room
            step = k if k < t else k_add
            live = p > 0
            if not live.any():
                continue
            dest = states[live] + step * self.stride[target] if k < t else (
                states[live] + k_add[live] * self.stride[target])  # fmt: skip
            amount = flow[live] * p[live][:, None]
            ended = self._ended(dest)
            if ended.any():
                final_add = amount[ended].sum(axis=1)
                np.add.at(final, dest[ended], final_add)
            keep = ~ended
            if keep.any():
                d = dest[keep]
                nxt = self.next[self.mask[d], :, attacker]  # (m, count)
                rows = np.broadcast_to(d[:, None], nxt.shape)
                cols = np.broadcast_to(order_index[None, :], nxt.shape)
                mass[rows, cols, nxt] += amount[keep]

    def _result(self, final: np.ndarray, rounds: float, cells: int) -> BattleResult:
        n, t = self.n, self.t
        total = final.sum()
        final = final / total if total > 0 else final
        alive = self.alive
        wins_first = float(final[(alive & (self.side == 0)).any(axis=1)].sum())
        p_survives = tuple(float(final[alive[:, f]].sum()) for f in range(n))
        damage = tuple(
            tuple(float(final[self.taken[:, f] == k].sum()) for k in range(t + 1)) for f in range(n)
        )
        mean = tuple(sum(k * p for k, p in enumerate(d)) for d in damage)
        survivors = []
        for side in (0, 1):
            members = self.side == side
            up = (alive & members).sum(axis=1)
            survivors.append(
                tuple(float(final[up == k].sum()) for k in range(int(members.sum()) + 1))
            )
        survivors[0] = (0.0, *survivors[0][1:])
        survivors[1] = (0.0, *survivors[1][1:])
        return BattleResult(
            self.fighters, self.policy, "exact", 0, cells, wins_first, rounds, p_survives,
            mean, damage, (survivors[0], survivors[1]),
        )  # fmt: skip


def simulate_battle(
    first: Sequence[tuple[str, int]],
    second: Sequence[tuple[str, int]],
    rules: MsvRules,
    policy: Policy | str,
    battles: int,
    gen: np.random.Generator,
    progress: Progress | None = None,
    chunk: int = 100_000,
) -> BattleResult:
    """`battles` battles at once in numpy; `progress(done, total)` after every chunk."""
    fighters = make_fighters(first, second)
    pol = Policy.of(policy)
    if not MIN_BATTLES <= battles <= MAX_BATTLES:
        raise LimitError(
            f"battles must be in {MIN_BATTLES}..{MAX_BATTLES}, got {battles!r} "
            "(a standard error needs at least two)"
        )
    _check_battle(fighters, rules)
    keys = [key_distribution(f.cs, rules) for f in fighters]
    sim = _Simulation(fighters, rules, keys, pol)
    need = [rules.defeat_threshold] * len(fighters)
    return BattleResult.simulated(fighters, pol, exact_cells(fighters, rules), need,
                                  lambda size: sim.run(size, gen), battles, chunk,
                                  progress)  # fmt: skip


class _Simulation:
    def __init__(
        self,
        fighters: tuple[Fighter, ...],
        rules: MsvRules,
        keys: list[dict[int, Fraction]],
        policy: Policy,
    ) -> None:
        self.fighters, self.t, self.policy = fighters, rules.defeat_threshold, policy
        self.n = len(fighters)
        self.side = np.array([f.side for f in fighters])
        self.first_side = self.side == 0
        self.index = np.arange(self.n)
        self.second = ~self.first_side
        self.side_columns = np.stack([self.first_side, self.second], axis=1).astype(np.float32)
        self.enemies = self.side[:, None] != self.side[None, :]  # enemies[a, b]
        self.wide, self.narrow = (self.n + 1) ** 2, self.n + 1
        self.rank = rank = _ranks(fighters)
        # ties: focus-weakest prefers the lower CS, then the one listed first
        self.weak_tie = (self.n - 1 - rank) * self.narrow + (self.n - 1 - self.index)
        self.strong_base = rank * (self.t + 1) * self.narrow + (self.n - 1 - self.index)
        self.spread_tie = self.n - 1 - self.index
        # cumulative action tables, one row per fighter: P(total damage <= k)
        self.members = [np.flatnonzero(self.side == side) for side in (0, 1)]
        self.side_sizes = np.array([np.sum(self.side == 0), np.sum(self.side == 1)], np.int8)
        # per fighter and d100 face (flat: fighter * 100 + face - 1): damage and free attack
        hits = [interpret(f.cs, face, rules) for f in fighters for face in range(1, D100 + 1)]
        self.face_damage = np.array([h.damage for h in hits], dtype=np.int16)
        self.face_again = np.array([h.free_attack for h in hits], dtype=bool)
        self.key_values = [np.array(list(k)) for k in keys]
        self.key_cumulative = [np.cumsum([float(p) for p in k.values()]) for k in keys]

    def _keys(self, size: int, gen: np.random.Generator) -> np.ndarray:
        out = np.empty((size, self.n), dtype=np.int64)
        for f in range(self.n):
            pick = np.searchsorted(self.key_cumulative[f], gen.random(size), side="right")
            out[:, f] = self.key_values[f][np.minimum(pick, len(self.key_values[f]) - 1)]
        return out

    def _orders(self, size: int, gen: np.random.Generator) -> np.ndarray:
        """Initiative orders: lexicographic over fresh key rolls (MSV-5's rerolls of ties)."""
        first = self._keys(size, gen)
        columns = [first]
        pairs = [
            (a, b)
            for a in range(self.n)
            for b in range(a + 1, self.n)
            if not (len(self.key_values[a]) == 1 and len(self.key_values[b]) == 1)
        ]  # two fighters whose keys can never differ keep the listed order
        same = np.zeros((size, max(1, len(pairs))), dtype=bool)
        for j, (a, b) in enumerate(pairs):
            same[:, j] = first[:, a] == first[:, b]
        tied = np.flatnonzero(same.any(axis=1))
        for _ in range(MAX_INITIATIVE_COLUMNS):
            if tied.size == 0:
                break
            column = np.zeros((size, self.n), dtype=np.int64)
            column[tied] = self._keys(tied.size, gen)
            columns.append(column)
            for j, (a, b) in enumerate(pairs):
                same[tied, j] &= column[tied, a] == column[tied, b]
            tied = tied[same[tied].any(axis=1)]
        index = np.broadcast_to(np.arange(self.n), (size, self.n))
        keys = (index, *(-c for c in columns[::-1]))  # the first roll decides first
        result: np.ndarray = np.lexsort(keys, axis=-1)
        return result

    def _score(self, fighter: np.ndarray | int, taken: np.ndarray) -> np.ndarray:
        """The policy's score of `fighter` as a target with `taken` damage (defeated: lowest).

        Scores are distinct per fighter, so the largest names one target (see `_targets`)."""
        if self.policy is Policy.FOCUS_WEAKEST:
            score = taken * self.wide + self.weak_tie[fighter]
        elif self.policy is Policy.FOCUS_STRONGEST:
            score = self.strong_base[fighter] + taken * self.narrow
        elif self.policy is Policy.SPREAD:
            score = self.spread_tie[fighter] - taken * self.wide
        else:
            score = np.zeros_like(taken)
        dead = self.spread_tie[fighter] - 10**6 * self.narrow  # below every living score
        result: np.ndarray = np.where(taken < self.t, score, dead).astype(np.int32)
        return result

    def _pick(self, who: np.ndarray, key: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """The target of each attacker `who`: the best-scored enemy (`key` is (n, m))."""
        if self.policy is not Policy.RANDOM:
            # every score ends in the digit n - 1 - fighter (base n + 1): the best names itself
            best = [np.max(key[members], axis=0) for members in self.members]
            top = np.where(self.side[who] == 0, best[1], best[0])
            named: np.ndarray = self.n - 1 - top % self.narrow
            return named
        chance = gen.random(key.shape)
        picks = []
        for members in self.members:
            first = members[0]
            best = key[first] + chance[first]
            pick = np.full(who.size, first, dtype=np.intp)
            for j in members[1:]:
                score = key[j] + chance[j]
                better = score > best
                np.copyto(best, score, where=better)
                np.copyto(pick, j, where=better)
            picks.append(pick)
        result: np.ndarray = np.where(self.side[who] == 0, picks[1], picks[0])
        return result

    def run(self, size: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every battle steps through the initiative order in lockstep, one position at a time;
        a defeated fighter's position is skipped. Each attack rolls a d100 face and reads the
        attacker's damage and free attack from its face table (MSV-2..MSV-4); the rows whose
        attack gave a free attack on a foe still standing roll again (MSV-4)."""
        n, t = self.n, self.t
        orders = self._orders(size, gen).T.copy()  # (n, size): the fighter at each position
        taken = np.zeros((n, size), dtype=np.int16)  # fighter-major: rows stay contiguous
        key = np.repeat(self._score(self.index, np.zeros(n, np.int16))[:, None], size, axis=1)
        up = np.repeat(self.side_sizes[:, None], size, axis=1)  # (2, size) fighters standing
        ids = np.arange(size)
        done = np.zeros(size, dtype=bool)
        out_taken = np.zeros((size, n), dtype=np.int64)
        out_rounds = np.zeros(size, dtype=np.int64)
        steps = 0
        for round_number in itertools.count(1):
            for position in range(n):
                steps += 1
                if ids.size == 0 or steps > MAX_STEPS:
                    break
                m = ids.size
                rows = np.arange(m)
                flat_taken, flat_key, flat_up = taken.reshape(-1), key.reshape(-1), up.reshape(-1)
                who = orders[position]
                acts = (flat_taken[who * m + rows] < t) & ~done
                target = self._pick(who, key, gen)
                cell = target * m + rows  # (target, battle) in the flat fighter-major arrays
                before = flat_taken[cell]
                face = who * D100 + gen.integers(0, D100, m, dtype=np.int16)
                hurt = np.minimum(before + self.face_damage[face] * acts, t).astype(np.int16)
                chain = np.flatnonzero(self.face_again[face] & acts & (hurt < t))
                hurt = self._free_attacks(chain, who, target, hurt, gen)
                flat_taken[cell] = hurt
                flat_key[cell] = self._score(target, hurt)
                beaten = (hurt >= t) & (before < t)
                if not beaten.any():
                    continue
                side_cell = self.side[target] * m + rows
                flat_up[side_cell] -= beaten
                over = beaten & (flat_up[side_cell] == 0)
                if over.any():
                    out_taken[ids[over]] = taken[:, over].T
                    out_rounds[ids[over]] = round_number
                    done |= over
                    if 4 * int(done.sum()) >= m:  # compress now and then, not each step
                        keep = ~done
                        ids, done = ids[keep], done[keep]
                        # C order, so the flat views above stay views
                        orders, taken, up, key = (
                            np.ascontiguousarray(a[:, keep]) for a in (orders, taken, up, key)
                        )
            if ids.size == 0 or done.all():
                wins = ((out_taken < t) & (self.side == 0)).any(axis=1)
                return out_taken, wins, out_rounds
            if steps > MAX_STEPS:
                raise LimitError(f"a simulated battle ran past {MAX_STEPS} actions")
        raise AssertionError("unreachable")  # pragma: no cover

    def _free_attacks(
        self,
        chain: np.ndarray,
        who: np.ndarray,
        target: np.ndarray,
        hurt: np.ndarray,
        gen: np.random.Generator,
    ) -> np.ndarray:
        """The free attacks criticals give (MSV-4): the rows `chain` roll again on the same
        stunned foe until a roll gives none or the foe is defeated."""
        t = self.t
        for _ in range(MAX_STEPS):
            if chain.size == 0:
                return hurt
            face = who[chain] * D100 + gen.integers(0, D100, chain.size, dtype=np.int16)
            after = np.minimum(hurt[chain] + self.face_damage[face], t).astype(np.int16)
            hurt[chain] = after
            chain = chain[self.face_again[face] & (after < t)]
        raise LimitError(f"a chain of free attacks ran past {MAX_STEPS} rolls")


def battle(
    first: Sequence[tuple[str, int]],
    second: Sequence[tuple[str, int]],
    rules: MsvRules,
    policy: Policy | str = Policy.FOCUS_WEAKEST,
    battles: int = 1_000_000,
    gen: np.random.Generator | None = None,
    progress: Progress | None = None,
    exact: bool | None = None,
) -> BattleResult:
    """Exact when the chain is small (`AUTO_EXACT_CELLS`, or `exact=True`), else Monte Carlo."""
    fighters = make_fighters(first, second)
    small = exact_cells(fighters, rules) <= AUTO_EXACT_CELLS
    if exact or (exact is None and small):
        return exact_battle(first, second, rules, policy)
    if gen is None:
        raise RuleError("a Monte Carlo battle needs a random generator (gen=)")
    return simulate_battle(first, second, rules, policy, battles, gen, progress)
