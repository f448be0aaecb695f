"""Exact odds of SRP (SRP-5..9): one attacker against one defender, and a duel, in Fractions.

MSV's are its siblings `referee.analysis.msv_*`; the lab builds its battles on both, and
`referee.dice.odds` gives the exact odds of any dice expression.

`hit_distribution` groups the 20 x 20 x 6 faces by level: for each attack level and
defense level (with how many d20 faces give each) the chart is applied once per d6
face, so it does 4 x 4 x 6 cells of work instead of 2,400.

The duel: two fighters attack in turn, the first-named first (one attack each per
exchange), until one has taken enough hits to be down (SRP-9, by the pack's `down`
rule). Zero-hit attacks make the chain loop, which is solved exactly per state:
W = (R_a + p_a0 * R_b) / (1 - p_a0 * p_b0).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from referee.systems.srp.levels import Level
from referee.systems.srp.melee import Attack, Defense, chart, damage_terms, hits_for, stuns
from referee.systems.srp.rules import DEFAULT_RULES, SrpRules, hits_to_down
from referee.systems.srp.sheet import DefenseKind
from referee.vocabulary import JSON

#: Faces of the three dice together (SRP-4).
OUTCOMES = 20 * 20 * 6


def hits_of(
    attack: Attack,
    defense: Defense,
    hit: Level,
    die: int,
    shield_on: bool,
    rules: SrpRules = DEFAULT_RULES,
) -> int:
    """Hits of a hit at level `hit` with damage die `die` (the arithmetic of `melee.resolve`)."""
    damage = max(0, sum(v for _, v in damage_terms(attack, die, hit, rules)))
    armor = defense.armor + (defense.shield.ap if shield_on and defense.shield else 0)
    if hit is Level.CRITICAL:
        return max(1, hits_for(damage, armor // 2))
    return hits_for(damage, armor)


def level_weights(
    attack: Attack, defense: Defense, rules: SrpRules = DEFAULT_RULES
) -> tuple[DefenseKind, list[tuple[Level, int]], list[tuple[Level | None, int]]]:
    """The defense an attack meets, and the attack and defense levels with how many d20 faces
    give each (levels no face gives left out). A grappler's attack on the fighter it holds hits
    automatically: its failures count as successes, and the foe has no defense (SRP-16, as
    `melee.resolve` does).

    >>> kind, attack, defense = level_weights(Attack(skill=10, automatic=True), Defense())
    >>> kind.name, [(level.name, n) for level, n in attack], defense
    ('NONE', [('SUCCESS', 17), ('SPECIAL', 2), ('CRITICAL', 1)], [(None, 20)])
    """
    counts = list(rules.level_counts(attack.effective_skill))
    if attack.automatic:
        counts = [0, counts[0] + counts[1], counts[2], counts[3]]
    attack_levels = [(Level(i), n) for i, n in enumerate(counts) if n]
    kind = DefenseKind.NONE if attack.automatic else defense.kind
    if kind is DefenseKind.NONE:
        return kind, attack_levels, [(None, 20)]
    defending = rules.level_counts(defense.skill, defending=True)
    return kind, attack_levels, [(Level(i), n) for i, n in enumerate(defending) if n]


def strike_counts(
    attack: Attack, defense: Defense, rules: SrpRules = DEFAULT_RULES
) -> dict[tuple[int, bool], int]:
    """How many of the 2,400 face triples give each (hits, stunned) (SRP-4..9, 16 S*): a
    stunning attack stuns as `melee.stuns` says (the pack's `stun_on`, `stun_needs_hits`).

    >>> sum(strike_counts(Attack(skill=12, stun=True), Defense()).values())
    2400
    """
    kind, attack_levels, defense_levels = level_weights(attack, defense, rules)
    out: dict[tuple[int, bool], int] = {}
    for a_level, a_count in attack_levels:
        for d_level, d_count in defense_levels:
            hit, shield_on, _ = chart(a_level, d_level, kind, rules)
            weight = a_count * d_count
            if hit is None:
                out[0, False] = out.get((0, False), 0) + 6 * weight
                continue
            for die in range(1, 7):
                hits = hits_of(attack, defense, hit, die, shield_on, rules)
                key = (hits, stuns(attack, a_level, hit, hits, rules, []))
                out[key] = out.get(key, 0) + weight
    return dict(sorted(out.items()))


def hit_counts(attack: Attack, defense: Defense, rules: SrpRules = DEFAULT_RULES) -> dict[int, int]:
    """How many of the 2,400 face triples give each number of hits (`strike_counts`, stunned
    or not).

    >>> sum(hit_counts(Attack(skill=12), Defense()).values())
    2400
    """
    out: dict[int, int] = {}
    for (hits, _), count in strike_counts(attack, defense, rules).items():
        out[hits] = out.get(hits, 0) + count
    return dict(sorted(out.items()))


def hit_distribution(
    attack: Attack, defense: Defense, rules: SrpRules = DEFAULT_RULES
) -> dict[int, Fraction]:
    """Exact P(hits = k) for one attack, as Fractions over the 2,400 face triples.

    >>> dist = hit_distribution(Attack(skill=10), Defense(kind=DefenseKind.NONE, armor=20))
    >>> dist
    {0: Fraction(19, 20), 1: Fraction(1, 20)}
    """
    return {k: Fraction(n, OUTCOMES) for k, n in hit_counts(attack, defense, rules).items()}


@dataclass(frozen=True, slots=True)
class AttackOdds:
    """The exact hit distribution of one attack and its summaries."""

    distribution: Mapping[int, Fraction]

    @property
    def p_hit(self) -> Fraction:
        """P(at least one hit)."""
        return 1 - self.distribution.get(0, Fraction(0))

    @property
    def mean(self) -> Fraction:
        """Expected hits per attack."""
        return sum((k * p for k, p in self.distribution.items()), Fraction(0))

    def as_dict(self) -> dict[str, JSON]:
        """As JSON values: probabilities as exact "n/d" strings (events carry no floats)."""
        return {
            "distribution": {str(k): str(p) for k, p in self.distribution.items()},
            "p_hit": str(self.p_hit),
            "mean_hits": str(self.mean),
        }


def attack_odds(attack: Attack, defense: Defense, rules: SrpRules = DEFAULT_RULES) -> AttackOdds:
    """Exact hit distribution, P(at least one hit) and mean hits of one attack.

    >>> odds = attack_odds(Attack(skill=10), Defense(kind=DefenseKind.NONE, armor=20))
    >>> odds.p_hit, odds.mean
    (Fraction(1, 20), Fraction(1, 20))
    """
    return AttackOdds(hit_distribution(attack, defense, rules))


@dataclass(frozen=True, slots=True)
class DuelOdds:
    """Who wins a duel of alternating attacks, the first fighter attacking first."""

    first: Fraction
    second: Fraction
    never: Fraction

    def as_dict(self) -> dict[str, JSON]:
        """As JSON values (exact "n/d" strings)."""
        return {
            "first_wins": str(self.first),
            "second_wins": str(self.second),
            "never_ends": str(self.never),
        }


def duel_odds(
    first: Mapping[int, Fraction],
    second: Mapping[int, Fraction],
    first_total: int,
    second_total: int,
    rules: SrpRules = DEFAULT_RULES,
) -> DuelOdds:
    """Exact P(first wins) when `first` (hits dealt per attack) attacks first, then `second`,
    and so on, until one is down. `*_total` are the fighters' own hit totals.

    >>> one_hit = {1: Fraction(1)}
    >>> duel_odds(one_hit, one_hit, 2, 2)
    DuelOdds(first=Fraction(1, 1), second=Fraction(0, 1), never=Fraction(0, 1))
    """
    need_second = hits_to_down(second_total, rules)
    need_first = hits_to_down(first_total, rules)
    p_a0 = first.get(0, Fraction(0))
    p_b0 = second.get(0, Fraction(0))
    if p_a0 == 1 and p_b0 == 1:
        return DuelOdds(Fraction(0), Fraction(0), Fraction(1))
    win: dict[tuple[int, int], Fraction] = {}
    wait: dict[tuple[int, int], Fraction] = {}
    for taken_a in range(need_first - 1, -1, -1):
        for taken_b in range(need_second - 1, -1, -1):
            r_a = sum(
                (
                    p if taken_b + k >= need_second else p * wait[taken_a, taken_b + k]
                    for k, p in first.items()
                    if k > 0
                ),
                Fraction(0),
            )
            r_b = sum(
                (
                    p * win[taken_a + k, taken_b]
                    for k, p in second.items()
                    if k > 0 and taken_a + k < need_first
                ),
                Fraction(0),
            )
            w = (r_a + p_a0 * r_b) / (1 - p_a0 * p_b0)
            win[taken_a, taken_b] = w
            wait[taken_a, taken_b] = p_b0 * w + r_b
    p_first = win[0, 0]
    return DuelOdds(p_first, 1 - p_first, Fraction(0))
