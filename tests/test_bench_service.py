"""`benchmarks/bench_service.py`'s rounds: each taken in slices, the two servers' in turn
(ABBA), so that a drift of the machine's speed falls on both sides alike. The benchmark
itself is run by `make bench`, not here (speed is reported, not tested)."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_service.py"
_SPEC = importlib.util.spec_from_file_location("bench_service", BENCH)
assert _SPEC is not None and _SPEC.loader is not None
_BENCH = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_BENCH)
slice_plan = _BENCH.slice_plan


def test_a_round_of_ten_slices_takes_turns_abba() -> None:
    plan = slice_plan(2000, 10, bare_first=True)
    assert [bare for bare, _ in plan[:8]] == [True, False, False, True, True, False, False, True]
    assert all(share == 200 for _, share in plan)
    assert slice_plan(2000, 10, bare_first=False)[0] == (False, 200)


def test_one_slice_is_each_side_once() -> None:
    assert slice_plan(600, 1, bare_first=True) == [(True, 600), (False, 600)]
    assert slice_plan(600, 1, bare_first=False) == [(False, 600), (True, 600)]


@given(st.integers(1, 5000), st.integers(1, 64), st.booleans())
def test_each_side_answers_every_attack_in_slices_of_nearly_equal_size(
    per_client: int, slices: int, bare_first: bool
) -> None:
    plan = slice_plan(per_client, slices, bare_first)
    for side in (True, False):
        shares = [share for bare, share in plan if bare is side]
        assert sum(shares) == per_client
        assert min(shares) >= 1
        assert max(shares) - min(shares) <= 1
    # Neither side is always first: the first of each pair alternates.
    firsts = [plan[i][0] for i in range(0, len(plan), 2)]
    assert firsts[0] is bare_first
    assert all(a is not b for a, b in itertools.pairwise(firsts))
