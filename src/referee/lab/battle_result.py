"""What every group battle shares, whatever the system: budgets, policies and the figures.

`referee.lab.battle` (MSV) and `referee.lab.srp_battle` (SRP) each play their own rules, and
each returns a subclass of `BattleFigures`: the win chances, rounds, who stands at the end and
with how many up (with standard errors for a Monte Carlo), and what each fighter took (MSV
damage, SRP hits). A subclass adds only how its fighters are written in JSON and the names
of its own figures.

>>> line_up(([("Orc", 50)], [("Tarl", 65), ("Orc", 50)]), lambda m: m[0],
...         lambda label, side, m: (label, side, m[1]))
(('Orc', 0, 50), ('Tarl', 1, 65), ('Orc 2', 1, 50))
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, Self, TypeVar

import numpy as np

from referee.errors import LimitError, NotationError

#: Bounds on untrusted input, the same under every system (DESIGN: budgets).
MAX_FIGHTERS = 8
MAX_PER_SIDE = 6
#: The fewest Monte Carlo battles: a standard error needs two.
MIN_BATTLES = 2

Progress = Callable[[int, int], None]
Batch = tuple[np.ndarray, np.ndarray, np.ndarray]  # taken (battles, fighters), side 1 won, rounds
M = TypeVar("M")


class Policy(enum.Enum):
    """Whom a fighter attacks among the living enemies."""

    FOCUS_WEAKEST = "focus-weakest"
    """The enemy closest to defeat (most damage taken); ties: lower CS, then listed first."""
    FOCUS_STRONGEST = "focus-strongest"
    """The enemy with the highest CS; ties: most damage taken, then listed first."""
    SPREAD = "spread"
    """The enemy with the least damage taken; ties: listed first."""
    RANDOM = "random"
    """Any living enemy, each as likely."""

    @classmethod
    def of(cls, name: Policy | str) -> Policy:
        """A policy by name (or the policy itself), or one clear error.

        >>> Policy.of("spread").value
        'spread'
        """
        if isinstance(name, Policy):
            return name
        try:
            return cls(name)
        except ValueError:
            known = ", ".join(p.value for p in cls)
            raise NotationError(f"unknown policy {name!r} (expected one of {known})") from None


def check_side(size: int) -> None:
    """LimitError unless a side has 1..`MAX_PER_SIDE` fighters."""
    if not 1 <= size <= MAX_PER_SIDE:
        raise LimitError(f"a side has 1..{MAX_PER_SIDE} fighters, got {size}")


class Sided(Protocol):
    """A fighter of a battle: its name and side (0 or 1)."""

    @property
    def name(self) -> str: ...

    @property
    def side(self) -> int: ...


F = TypeVar("F", bound=Sided)


def line_up(
    sides: tuple[Sequence[M], Sequence[M]],
    name: Callable[[M], str],
    make: Callable[[str, int, M], F],
) -> tuple[F, ...]:
    """Both sides as one list, `make(label, side, member)` each; a repeated name gets a
    number ("Orc", "Orc 2"); LimitError past `MAX_FIGHTERS`."""
    seen: dict[str, int] = {}
    out = []
    for side, members in enumerate(sides):
        for member in members:
            label = name(member)
            seen[label] = seen.get(label, 0) + 1
            out.append(make(label if seen[label] == 1 else f"{label} {seen[label]}", side, member))
    if len(out) > MAX_FIGHTERS:
        raise LimitError(f"a battle has at most {MAX_FIGHTERS} fighters, got {len(out)}")
    return tuple(out)


@dataclass(frozen=True, slots=True)
class BattleFigures(Generic[F]):
    """What a battle gives: win chances, rounds, survivors and what each fighter took.

    `taken[i][k]` is P(fighter i took k at the end) for k = 0 up to what downs it.
    """

    fighters: tuple[F, ...]
    policy: Policy
    method: str  # "exact" or "monte-carlo"
    battles: int  # Monte Carlo: how many; exact: 0
    states: int  # the cells of the exact chain (Monte Carlo: what exact would have needed)
    p_first_side: float
    expected_rounds: float
    p_survives: tuple[float, ...]
    mean_taken: tuple[float, ...]
    taken: tuple[tuple[float, ...], ...]
    survivors: tuple[tuple[float, ...], tuple[float, ...]]  # per side: P(side wins with k up)
    se_first_side: float = 0.0
    se_rounds: float = 0.0
    se_survives: tuple[float, ...] = ()

    @property
    def p_second_side(self) -> float:
        """The other side wins whenever the first does not (a battle always ends)."""
        return 1.0 - self.p_first_side

    @classmethod
    def simulated(
        cls,
        fighters: tuple[F, ...],
        policy: Policy,
        states: int,
        need: Sequence[int],
        run: Callable[[int], Batch],
        battles: int,
        batch: int,
        progress: Progress | None,
    ) -> Self:
        """`battles` battles played `batch` at a time by `run(count)` (`progress(done, total)`
        after each batch), summed up with standard errors (`battles` is at least
        `MIN_BATTLES`: a standard error needs two).

        A fighter is down when what it took reaches `need`; each figure is a sample mean.
        """
        parts = []
        for done in range(0, battles, batch):
            parts.append(run(min(batch, battles - done)))
            if progress is not None:
                progress(min(done + batch, battles), battles)
        taken, wins, rounds = (np.concatenate([p[i] for p in parts]) for i in range(3))
        return cls._sampled(fighters, policy, states, need, taken, wins, rounds.astype(float))

    @classmethod
    def _sampled(
        cls,
        fighters: tuple[F, ...],
        policy: Policy,
        states: int,
        need: Sequence[int],
        taken: np.ndarray,
        wins: np.ndarray,
        rounds: np.ndarray,
    ) -> Self:
        alive, count = taken < np.array(need), len(taken)

        def se(x: np.ndarray) -> float:
            return float(x.std(ddof=1) / math.sqrt(count))

        dist = tuple(
            tuple(float(x) for x in np.bincount(taken[:, i], minlength=top + 1) / count)
            for i, top in enumerate(need)
        )
        side = np.array([f.side for f in fighters])
        survivors = []
        for s in (0, 1):
            up = alive[:, side == s].sum(axis=1)
            won = wins if s == 0 else ~wins
            counts = np.bincount(up[won], minlength=int((side == s).sum()) + 1) / count
            survivors.append(tuple(float(x) for x in counts))
        return cls(
            fighters, policy, "monte-carlo", count, states, float(wins.mean()),
            float(rounds.mean()), tuple(float(x) for x in alive.mean(axis=0)),
            tuple(float(x) for x in taken.mean(axis=0)), dist, (survivors[0], survivors[1]),
            se(wins.astype(float)), se(rounds),
            tuple(se(alive[:, i].astype(float)) for i in range(len(fighters))),
        )  # fmt: skip

    def figures_json(
        self, fighters: list[dict[str, object]], mean: str, dist: str
    ) -> dict[str, object]:
        """As JSON (floats), the fighters as given and what they took under the keys `mean`
        and `dist`."""
        return {
            "method": self.method,
            "policy": self.policy.value,
            "battles": self.battles,
            "states": self.states,
            "fighters": fighters,
            "p_side_1_wins": self.p_first_side,
            "p_side_2_wins": self.p_second_side,
            "se_side_wins": self.se_first_side,
            "expected_rounds": self.expected_rounds,
            "se_rounds": self.se_rounds,
            "p_survives": list(self.p_survives),
            "se_survives": list(self.se_survives),
            mean: list(self.mean_taken),
            dist: [list(d) for d in self.taken],
            "survivors_distribution": [list(s) for s in self.survivors],
        }
