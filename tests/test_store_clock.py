"""The store's clock (`referee.store.clock`) writes exactly what `referee.ledger.utc_time`
writes for the same moment: the ledger's time stamps are the same text either way."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from referee.ledger import utc_time
from referee.store import Store
from referee.store.clock import utc_now, utc_text

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: From the epoch to the year 2200, in nanoseconds.
MOMENTS = st.integers(min_value=0, max_value=7_258_118_400 * 10**9)


def moment(nanoseconds: int) -> datetime:
    return EPOCH + timedelta(microseconds=nanoseconds // 1000)


@given(MOMENTS)
def test_the_text_of_a_moment_is_utc_times(nanoseconds: int) -> None:
    assert utc_text(nanoseconds) == utc_time(moment(nanoseconds))


@given(MOMENTS, st.integers(min_value=0, max_value=3 * 10**9))
def test_the_remembered_second_never_stands_for_another(first: int, later: int) -> None:
    """Within the same second and across seconds, one after the other and back."""
    for nanoseconds in (first, first + later, first, first + later // 1000):
        assert utc_text(nanoseconds) == utc_time(moment(nanoseconds))


def test_the_edges_of_a_second() -> None:
    second = 1_795_992_012 * 10**9
    for nanoseconds in (second - 1, second, second + 999, second + 1000, second + 10**9 - 1):
        assert utc_text(nanoseconds) == utc_time(moment(nanoseconds))
    assert utc_text(second - 1) == "2026-11-29T22:40:11.999999Z"
    assert utc_text(second + 999) == "2026-11-29T22:40:12.000000Z"


def test_now_is_between_two_readings_of_utc_time() -> None:
    before = utc_time()
    now = utc_now()
    after = utc_time()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", now)
    assert before <= now <= after


def test_a_store_stamps_by_it_unless_given_a_clock() -> None:
    with Store.open("sqlite://") as store:
        assert store.clock is utc_now
    with Store.open("sqlite://", clock=lambda: "2026-11-29T22:40:12.000000Z") as store:
        assert store.clock() == "2026-11-29T22:40:12.000000Z"
