"""A stream's next nonce, as the store keeps it per bout (`rolls_of`, `next_nonce`), is
`stream_nonce`'s for the same events, however the events come in (read once, or a few at a
time as a bout's writes add them)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from referee.ledger import stream_nonce
from referee.store.rolls import next_nonce, rolls_of

STREAMS = ["act:A", "act:B", "free:A"]

ROLLS = st.builds(
    lambda stream, nonce: {"type": "roll", "payload": {"nonce": nonce, "stream": stream}},
    st.sampled_from([*STREAMS, None, 7]),
    st.integers(min_value=0, max_value=50),
)
OTHERS = st.sampled_from(
    [
        {"type": "seed_rotated", "payload": {}},
        {"type": "turn", "payload": {"stream": "act:A", "nonce": 99}},
        {"type": "roll", "payload": "not an object"},
        {"type": "roll", "payload": {"nonce": 3}},
    ]
)
EVENTS = st.lists(st.one_of(ROLLS, OTHERS), max_size=30)


@given(EVENTS, st.lists(st.integers(min_value=1, max_value=6), max_size=10))
def test_the_next_nonce_of_every_stream_is_stream_nonces(
    events: list[Any], steps: list[int]
) -> None:
    rolls: dict[str, Any] = {}
    seen = 0
    for step in [*steps, len(events)]:
        upto = min(len(events), seen + step)
        rolls = rolls_of(rolls, events[seen:upto])
        seen = upto
        for stream in [*STREAMS, "free:B"]:
            assert next_nonce(rolls, stream) == stream_nonce(events[:seen], stream)


def test_moving_on_leaves_the_rolls_it_started_from_as_they_were() -> None:
    first = rolls_of({}, [{"type": "roll", "payload": {"nonce": 4, "stream": "act:A"}}])
    later = rolls_of(first, [{"type": "seed_rotated", "payload": {}}])
    assert first == {"act:A": 4}
    assert later == {}
