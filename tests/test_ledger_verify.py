"""Verifying exports: commitments, faces, nonces, seed rotation, rule checkers (CONTEXT.md)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import NotationError, RuleError
from referee.ledger import (
    Problem,
    SeedRecord,
    build_export,
    chain,
    event_hash,
    roll_payload,
    rotation_payload,
    seed_position,
    verify_ledger,
)
from referee.ledger.export import stream_nonce
from referee.payloads.events import Roll
from referee.rng import VerifiableRng, commitment, verifiable_faces
from tests.depth import examples
from tests.oracles import reference_faces

AT = "2026-11-29T22:40:12.000000Z"
SEED0 = "00" * 32
SEED1 = "11" * 32
CLIENT = "table:tarl"


def export_doc(plan: str, *, reveal: bool = True) -> dict[str, Any]:
    """An export from a plan: 'r' a d20,d20,d6 roll, 'n' a note, 'R' a seed rotation."""
    seeds = [SEED0, SEED1]
    rng = VerifiableRng(SEED0, CLIENT)
    events: list[dict[str, Any]] = []
    last = None
    index = 0
    for step in plan:
        if step == "r":
            t = rng.throw((20, 20, 6))
            last = chain(last, "roll", "Tarl", roll_payload(t.nonce or 0, t.dice, t.faces), AT)
        elif step == "n":
            last = chain(last, "note", "ref", {"text": "hold"}, AT)
        else:
            index += 1
            payload = rotation_payload(index, seeds[index - 1], commitment(seeds[index]))
            last = chain(last, "seed_rotated", None, payload, AT)
            rng = VerifiableRng(seeds[index], CLIENT)
        events.append(last)
    records = [
        SeedRecord(i, commitment(seeds[i]), seeds[i] if (reveal or i < index) else None, None)
        for i in range(index + 1)
    ]
    records = [records[0]] + [
        SeedRecord(r.index, r.commitment, r.server_seed, _rotation_seq(events, r.index))
        for r in records[1:]
    ]
    return build_export({"id": "b1", "system": "msv"}, records, CLIENT, events)


def _rotation_seq(events: list[dict[str, Any]], index: int) -> int:
    seqs: list[int] = [e["seq"] for e in events if e["type"] == "seed_rotated"]
    return seqs[index - 1]


def rehash(doc: dict[str, Any]) -> None:
    """Recompute every prev and hash, as a careful forger would."""
    prev = "0" * 64
    for event in doc["events"]:
        event["prev"] = prev
        event["hash"] = event_hash(event)
        prev = event["hash"]


def messages(doc: dict[str, Any], checkers: Any = ()) -> list[str]:
    return [str(p) for p in verify_ledger(doc, checkers).problems]


def test_golden_faces_from_the_scheme() -> None:
    # CONTEXT.md scheme, pinned by referee.rng's own doctest: seed 00..00, client "table".
    assert verifiable_faces(SEED0, "table", 0, (20, 20, 6)) == (6, 14, 6)


def test_every_roll_of_an_export_matches_the_independent_oracle() -> None:
    doc = export_doc("rrrRrr")
    seeds = [SEED0] * 3 + [SEED1] * 2
    rolls = [e for e in doc["events"] if e["type"] == "roll"]
    for seed, event in zip(seeds, rolls, strict=True):
        p = event["payload"]
        assert p["faces"] == reference_faces(seed, CLIENT, p["nonce"], [20, 20, 6])


def test_intact_export_verifies() -> None:
    report = verify_ledger(export_doc("rnrrn"))
    assert report.ok and report.first is None
    assert (report.events, report.rolls, report.seeds) == (5, 3, 1)
    assert report.checks == ("chain", "commitment", "faces", "nonce", "time")
    assert report.skipped == ("rules: no rule checker available",)


def test_changed_face_without_rehash_names_the_event_hash() -> None:
    doc = export_doc("rnrrn")
    doc["events"][2]["payload"]["faces"][0] += 1
    assert messages(doc)[0] == "event 2 (roll): hash does not match the event (someone changed it)"


def test_changed_face_with_rehash_names_the_face() -> None:
    doc = export_doc("rnrrn")
    face = doc["events"][2]["payload"]["faces"][0]
    doc["events"][2]["payload"]["faces"][0] = face % 20 + 1
    rehash(doc)
    assert messages(doc) == [
        f"event 2 (roll): face {face % 20 + 1} does not match the seed (expected {face}) "
        "at die 1 of 3 (d20)"
    ]


def test_single_die_message_is_the_plain_form() -> None:
    rng = VerifiableRng(SEED0, CLIENT)
    t = rng.throw((100,))
    event = chain(None, "roll", "Tarl", roll_payload(0, t.dice, [t.faces[0] % 100 + 1]), AT)
    doc = build_export({}, [SeedRecord(0, commitment(SEED0), SEED0, None)], CLIENT, [event])
    assert messages(doc) == [
        f"event 0 (roll): face {t.faces[0] % 100 + 1} does not match the seed "
        f"(expected {t.faces[0]})"
    ]


def test_changed_payload_field_is_named() -> None:
    doc = export_doc("rnrrn")
    doc["events"][1]["payload"]["text"] = "go"
    assert messages(doc) == ["event 1 (note): hash does not match the event (someone changed it)"]


def test_reordered_rolls_are_named_by_chain_and_nonce() -> None:
    doc = export_doc("rnrrn")
    doc["events"][2], doc["events"][3] = doc["events"][3], doc["events"][2]
    found = messages(doc)
    assert found[0] == (
        "event 3 (roll): seq 3 follows event 1 (expected 2: an event is missing or out of order)"
    )


def test_dropped_roll_is_named_even_after_rehash() -> None:
    doc = export_doc("rnrrn")
    del doc["events"][2]
    for seq, event in enumerate(doc["events"]):
        event["seq"] = seq
    rehash(doc)
    assert messages(doc) == ["event 2 (roll): nonce 2 (expected 1: nonces run from 0 per seed)"]


def test_wrong_commitment_is_named_first() -> None:
    doc = export_doc("rr")
    doc["fairness"]["commitment"] = commitment(SEED1)
    assert messages(doc) == [
        f"fairness: commitment {commitment(SEED1)} does not match the revealed server seed "
        f"(its commitment is {commitment(SEED0)})"
    ]


def test_other_server_seed_fails_the_commitment_and_the_faces() -> None:
    doc = export_doc("rr")
    doc["fairness"]["server_seed"] = SEED1
    found = verify_ledger(doc).problems
    assert [(p.seq, p.check) for p in found] == [(None, "commitment"), (0, "faces"), (1, "faces")]


def test_unrevealed_seed_cannot_be_checked_yet() -> None:
    report = verify_ledger(export_doc("rr", reveal=False))
    assert not report.ok
    assert [str(p) for p in report.problems] == [
        "fairness: server seed is not revealed yet, so the faces cannot be checked yet"
    ]


def test_bad_nonce_after_rehash() -> None:
    doc = export_doc("rr")
    doc["events"][1]["payload"]["nonce"] = 5
    rehash(doc)
    assert messages(doc) == ["event 1 (roll): nonce 5 (expected 1: nonces run from 0 per seed)"]


def test_rotation_verifies_and_restarts_nonces() -> None:
    doc = export_doc("rrRrr")
    assert [e["payload"].get("nonce") for e in doc["events"]] == [0, 1, None, 0, 1]
    assert doc["fairness"]["rotations"] == [
        {"index": 1, "seq": 2, "commitment": commitment(SEED1), "server_seed": SEED1}
    ]
    assert doc["events"][2]["payload"] == {
        "index": 1,
        "server_seed": SEED0,
        "next_commitment": commitment(SEED1),
    }
    report = verify_ledger(doc)
    assert report.ok and (report.rolls, report.seeds) == (4, 2)
    assert seed_position(doc["events"]) == seed_position(doc["events"][:3] + doc["events"][3:])


def test_rolls_after_rotation_are_checked_with_the_new_seed() -> None:
    doc = export_doc("rrRrr")
    expected = verifiable_faces(SEED1, CLIENT, 0, (20, 20, 6))
    assert tuple(doc["events"][3]["payload"]["faces"]) == expected


def test_rotation_with_unrevealed_new_seed_checks_the_old_rolls_only() -> None:
    doc = export_doc("rrRr", reveal=False)
    assert doc["fairness"]["server_seed"] == SEED0
    assert messages(doc) == [
        "fairness: server seed 1 is not revealed yet, so the faces cannot be checked yet"
    ]


def test_rotation_revealing_a_wrong_seed_is_named() -> None:
    doc = export_doc("rrRr")
    doc["events"][2]["payload"]["server_seed"] = SEED1
    doc["fairness"]["server_seed"] = None
    rehash(doc)
    found = verify_ledger(doc).problems
    assert [(p.seq, p.check) for p in found] == [
        (0, "faces"),
        (1, "faces"),
        (2, "commitment"),
    ]
    assert found[2].message == (
        f"revealed seed 0 does not match its commitment {commitment(SEED0)!r}"
    )


def test_rotation_missing_from_fairness_is_named() -> None:
    doc = export_doc("rRr")
    del doc["fairness"]["rotations"]
    found = messages(doc)
    assert found[0] == "fairness: the events rotate the seed 1 times but fairness lists 1 seeds"
    assert "event 1 (seed_rotated): fairness.rotations lists no seed 1" in found


def test_closed_event_may_reveal_the_current_seed() -> None:
    doc = export_doc("rr", reveal=False)
    last = doc["events"][-1]
    doc["events"].append(chain(last, "closed", "ref", {"server_seed": SEED0}, AT))
    # The export must give the seed its chain reveals: null there was let through once.
    assert messages(doc) == [
        "fairness: server seed is not revealed yet, so the faces cannot be checked yet",
        "event 2 (closed): fairness.server_seed gives no server seed 0, but this event reveals it",
    ]
    doc["fairness"]["server_seed"] = SEED0
    assert verify_ledger(doc).ok
    doc["fairness"]["server_seed"] = None
    doc["events"][-1] = chain(last, "closed", "ref", {"server_seed": SEED1}, AT)
    assert messages(doc) == [
        "fairness: server seed is not revealed yet, so the faces cannot be checked yet",
        f"event 2 (closed): revealed seed 0 does not match its commitment {commitment(SEED0)!r}",
    ]
    # and a close that restates another commitment than the one in force, re-hashed
    doc["fairness"]["server_seed"] = SEED0
    stated = {"server_seed": SEED0, "commitment": commitment(SEED1)}
    doc["events"][-1] = chain(last, "closed", "ref", stated, AT)
    assert messages(doc) == [
        f"event 2 (closed): the close's commitment {commitment(SEED1)!r} is not the commitment "
        f"of seed 0, {commitment(SEED0)!r}"
    ]


def test_roll_shape_problems() -> None:
    doc = export_doc("r")
    doc["events"][0]["payload"]["dice"] = ["d20", "x", "d6"]
    rehash(doc)
    assert messages(doc) == ["event 0 (roll): die 'x' is not a die name like 'd20'"]


def test_not_an_export_is_a_notation_error() -> None:
    with pytest.raises(NotationError, match="'events' is missing"):
        verify_ledger({"bout": {}, "fairness": {}})
    with pytest.raises(NotationError, match="an export is a JSON object, got list"):
        verify_ledger([])


def test_checkers_plug_in_and_run_only_on_a_sound_chain() -> None:
    def odd_attack(doc: Any) -> list[Problem]:
        return [
            Problem(e["seq"], e["type"], "an odd attack is not allowed here", "rules")
            for e in doc["events"]
            if e["type"] == "roll" and e["payload"]["faces"][0] % 2
        ]

    doc = export_doc("r" * 6)
    odd = [e["seq"] for e in doc["events"] if e["payload"]["faces"][0] % 2]
    report = verify_ledger(doc, [odd_attack])
    assert "rules" in report.checks
    assert [p.seq for p in report.problems] == odd
    assert 0 < len(odd) < 6
    broken = copy.deepcopy(doc)
    broken["events"][0]["payload"]["nonce"] = 1
    report = verify_ledger(broken, [odd_attack])
    assert report.skipped == ("rules: not checked while the chain or the dice are bad",)
    assert all(p.check != "rules" for p in report.problems)


def test_checker_raising_a_referee_error_becomes_a_problem() -> None:
    def broken(doc: Any) -> list[Problem]:
        raise RuleError("unknown action 'fly'")

    assert messages(export_doc("r"), [broken]) == [
        "export: rule check failed: unknown action 'fly'"
    ]


def test_report_json() -> None:
    doc = export_doc("rr")
    doc["events"][1]["payload"]["nonce"] = 3
    rehash(doc)
    data = verify_ledger(doc).as_json()
    assert data["ok"] is False
    assert (
        data["first_problem"] == "event 1 (roll): nonce 3 (expected 1: nonces run from 0 per seed)"
    )
    assert data["problems"][0] == {
        "seq": 1,
        "type": "roll",
        "check": "nonce",
        "message": "nonce 3 (expected 1: nonces run from 0 per seed)",
        "text": data["first_problem"],
    }


@pytest.mark.parametrize(
    ("system", "stats"),
    [("coin-test", ({"power": 1}, {"power": 1})), ("msv", ({"cs": 65}, {"cs": 70}))],
)
def test_a_whole_bout_from_the_engine_verifies_with_the_rule_checker(
    system: str, stats: tuple[dict[str, int], dict[str, int]]
) -> None:
    from referee.bout import commands as c
    from referee.bout.replay import check_export
    from referee.bout.runner import BoutRunner
    from referee.systems import system_names
    from tests import coin_system  # noqa: F401  (registers the "coin-test" rule system)

    if system not in system_names():
        pytest.skip(f"the {system} rule system is not there")
    rng = VerifiableRng(SEED0, CLIENT)
    bout = BoutRunner.open(system, "spar", rng=rng)
    bout.run(c.AddFighter("Tarl", stats[0]))
    bout.run(c.AddFighter("Pa-Kur", stats[1]))
    bout.run(c.RollInitiative())
    bout.play_out()
    last = None
    events = []
    for e in bout.events:
        last = chain(last, e.type, e.actor, e.payload, AT)
        events.append(last)
    doc = build_export({}, [SeedRecord(0, commitment(SEED0), SEED0, None)], CLIENT, events)
    report = verify_ledger(doc, replay=check_export)
    assert report.ok, report.problems
    assert report.checks[-1] == "rules" and report.rolls > 3
    wound = next(e for e in doc["events"] if e["type"] == "wound")
    wound["payload"]["amount"] += 1
    rehash(doc)
    report = verify_ledger(doc, replay=check_export)
    assert report.first is not None and report.first.check == "rules"
    assert report.first.seq == wound["seq"]
    assert str(report.first).startswith(f"event {wound['seq']} (wound): ")


junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4) | st.floats(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_verify_never_crashes_on_junk(data: st.DataObject) -> None:
    doc = export_doc("rRr")
    events = doc["events"]
    target = data.draw(st.sampled_from(["event", "key", "payload", "fairness", "rotation"]))
    i = data.draw(st.integers(0, len(events) - 1))
    if target == "event":
        events[i] = data.draw(junk)
    elif target == "key":
        events[i][data.draw(st.sampled_from(list(events[i])))] = data.draw(junk)
    elif target == "payload":
        payload = events[i]["payload"]
        payload[data.draw(st.sampled_from([*payload, "x"]))] = data.draw(junk)
    elif target == "fairness":
        key = data.draw(st.sampled_from([*doc["fairness"], "rotations"]))
        doc["fairness"][key] = data.draw(junk)
    else:
        rotation = doc["fairness"]["rotations"][0]
        rotation[data.draw(st.sampled_from(list(rotation)))] = data.draw(junk)
    report = verify_ledger(doc)
    assert isinstance(report.ok, bool)
    for problem in report.problems:
        assert str(problem)


def reference_stream_nonce(events: list[dict[str, Any]], stream: str) -> int:
    """`stream_nonce` as first written, a `Roll.given` of every roll (its oracle)."""
    for event in reversed(events):
        if event.get("type") == "seed_rotated":
            return 0
        if event.get("type") == "roll":
            roll = Roll.given(event.get("payload"))
            if roll.stream == stream:
                return int(roll.nonce) + 1
    return 0


stream_names = st.sampled_from(["act:Tarl", "act:Pa-Kur", "free:Tarl"])
some_roll_payload = st.fixed_dictionaries(
    {"nonce": st.integers(0, 9)},
    optional={"stream": stream_names | st.none(), "dice": st.just(["d6"])},
)
some_event = st.one_of(
    st.builds(lambda p: {"type": "roll", "payload": p}, some_roll_payload),
    st.builds(lambda p: {"type": "roll", "payload": p}, st.none() | st.lists(st.integers())),
    st.sampled_from([{"type": "seed_rotated"}, {"type": "turn", "payload": {}}, {}]),
)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(some_event, max_size=8), stream_names)
def test_stream_nonce_reads_the_rolls_as_given_does(
    events: list[dict[str, Any]], stream: str
) -> None:
    assert stream_nonce(events, stream) == reference_stream_nonce(events, stream)
