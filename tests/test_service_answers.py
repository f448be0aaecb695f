"""An action's answer (`action_answer`) and its chat line (`said`) are made in one pass over
the events; they equal the answers of the plain way they were first written (kept here as the
reference), for any run of real events of both rule systems."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.chat.answers import SAID, said
from referee.payloads import events as p
from referee.sentences import receipt, sentence
from referee.service.bouts import action_answer, failure_of
from referee.vocabulary import EventType
from tests.every_event import every_event


def plain_action_answer(events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    outcome = next((e for e in events if e["type"] == EventType.OUTCOME), None)
    rolls = [e["payload"] for e in events if e["type"] == EventType.ROLL]
    answer: dict[str, Any] = dict(outcome["payload"]) if outcome else {}
    failure = failure_of(events)
    if failure is not None:
        answer["failed"] = failure
    answer["rolls"] = rolls
    answer["events"] = [{"seq": e["seq"], "type": e["type"]} for e in events]
    if outcome:
        answer["seq"] = outcome["seq"]
    for e in events:
        if e["type"] == EventType.TURN:
            answer["next"] = p.Turn.read(e["payload"]).fighter
        if e["type"] == EventType.ENDED:
            answer["winner"] = p.Ended.read(e["payload"]).winner
    first = p.Roll.read(rolls[0]) if rolls else None
    if first is not None and "roll" not in answer and len(first.faces) == 1:
        answer["roll"] = first.faces[0]
    return answer


def plain_said(events: Sequence[Mapping[str, Any]], system: str | None = None) -> str:
    actor = next((e.get("actor") for e in events if e.get("type") == EventType.ACTION), None)
    roller = str(actor) if actor is not None else None
    receipts = "".join(
        receipt(e.get("payload") or {}, roller) for e in events if e.get("type") == EventType.ROLL
    )
    parts: list[str] = []
    again: str | None = None
    for event in events:
        kind = event.get("type")
        if kind not in SAID:
            continue
        text = sentence(event, system)
        if kind in (EventType.OUTCOME, EventType.FAILED):
            text += receipts
            receipts = ""
        if kind == EventType.OUTCOME:
            outcome = p.Outcome.read(event.get("payload") or {})
            again = outcome.actor if outcome.extra_action else None
        parts.append(text)
    if again is not None and not any(e.get("type") == EventType.TURN for e in events):
        parts.append(f"{again} acts again at once")
    ended = (part if part.endswith((".", "!", "?")) else part + "." for part in parts)
    return " ".join(ended) if parts else "done"


SYSTEMS = ("msv", "srp")
EVENTS = {system: every_event(system) for system in SYSTEMS}
#: Runs of a bout's events: slices (as one action's events come) and any picks in any order.
runs = st.sampled_from(SYSTEMS).flatmap(
    lambda system: st.tuples(
        st.just(system),
        st.one_of(
            st.tuples(st.integers(0, len(EVENTS[system])), st.integers(0, 12)).map(
                lambda ab: EVENTS[system][ab[0] : ab[0] + ab[1]]
            ),
            st.lists(st.sampled_from(EVENTS[system]), max_size=12),
        ),
    )
)


@settings(max_examples=400, deadline=None)
@given(runs)
def test_one_pass_answers_equal_the_plain_ones(run: tuple[str, list[dict[str, Any]]]) -> None:
    system, events = run
    assert said(events, system) == plain_said(events, system)
    if all("seq" in e for e in events):
        try:
            expected: Any = plain_action_answer(events)
        except KeyError as err:  # a malformed pick: both fail alike
            expected = err
        try:
            got: Any = action_answer(events)
        except KeyError as err:
            got = err
        if isinstance(expected, KeyError):
            assert isinstance(got, KeyError)
        else:
            assert list(got.items()) == list(expected.items())


def test_every_event_type_is_in_the_runs() -> None:
    kinds = {e["type"] for system in SYSTEMS for e in EVENTS[system]}
    assert {EventType.ACTION, EventType.ROLL, EventType.TURN, EventType.ENDED} <= kinds
    assert {EventType.OUTCOME, EventType.FAILED} <= kinds
