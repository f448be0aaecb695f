"""The whole record (ledger 2, docs/ledger.md): the client seed's parts and its fixing in the
chain, held to the export's `fairness`; sealed events opened by their openings. Hand-built
chains, one rule each (the shared vectors in tests/vectors/whole.json hold both verifiers to
the same words); and a seal made by the service gives nothing away."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from referee.ledger import SeedRecord, build_export, chain, verify_export
from referee.ledger.record import UNCHAINED_SEED
from referee.ledger.seal import SealedDraft, chained, link_sealed, opening, seal_of
from referee.rng import SECURE_ENTROPY, VerifiableStreams, commitment
from referee.service.bouts import ANONYMOUS, Caller, RefereeService
from referee.store import Role, Store
from tests.vectors.generate import rehash_from

SEED = "00" * 32
AT = "2026-11-29T22:40:12.000000Z"
HEADER = {"id": "b1", "system": "msv", "name": "Spar", "rules": {}, "created_at": AT,
          "commitment": commitment(SEED), "dice_scheme": 2, "ledger": 2,
          "client_seed": "gm"}  # fmt: skip


def export(*steps: tuple[str, str, dict[str, Any]], client_seed: str = "gm:t1") -> dict[str, Any]:
    """A closed bout's export: the header, then `steps` (type, actor, payload), then the close;
    a step of type "roll" is thrown from Tarl's free stream under `client_seed`."""
    dice = VerifiableStreams(SEED, client_seed, lambda name: 0)
    events = [chain(None, "bout_opened", "referee", HEADER, AT)]
    for kind, actor, payload in steps:
        if kind == "roll":
            throw = dice.stream("free:Tarl").throw((20,))
            payload = {"nonce": throw.nonce, "dice": ["d20"], "faces": list(throw.faces),
                       "stream": "free:Tarl"}  # fmt: skip
        events.append(chain(events[-1], kind, actor, payload, AT))
    events.append(chain(events[-1], "closed", "referee", {"server_seed": SEED}, AT))
    bout = {key: HEADER[key] for key in ("id", "system", "name", "rules", "created_at")}
    seeds = [SeedRecord(0, commitment(SEED), SEED, None)]
    return build_export({**bout, "status": "closed"}, seeds, client_seed, events)


JOIN = ("fighter_added", "Tarl", {"name": "Tarl", "stats": {"cs": 60}, "seed_part": "t1"})
FIXED = ("client_seed_fixed", "system", {"client_seed": "gm:t1"})
FREE = ("action", "Tarl", {"kind": "roll", "dice": ["d20"], "by": "Tarl"})
ROLL = ("roll", "system", {})


def first(doc: dict[str, Any]) -> tuple[Any, Any, str]:
    report = verify_export(doc)
    assert report.first is not None, "verified"
    return report.first.seq, report.first.check, report.first.message


def test_a_bout_whose_chain_fixes_its_client_seed_verifies_with_the_check_named() -> None:
    report = verify_export(export(JOIN, FIXED, FREE, ROLL))
    assert report.verdict == "verified" and "client seed" in report.checks
    assert report.as_json()["skipped"] == ["rules: no rule checker available"]
    assert export(JOIN, FIXED, FREE, ROLL)["fairness"]["dice_scheme"] == 2


def test_an_export_made_before_says_what_it_lacks() -> None:
    doc = export(JOIN, FIXED, FREE, ROLL)
    old = copy.deepcopy(doc)
    old["events"][0]["payload"].pop("ledger")
    rehash_from(old, 0)
    del old["fairness"]["dice_scheme"]
    report = verify_export(old)
    assert report.verdict == "verified" and "client seed" not in report.checks
    assert UNCHAINED_SEED in report.skipped


@pytest.mark.parametrize(
    ("steps", "seq", "said"),
    [
        (
            (JOIN, FREE, ROLL),
            3,
            "a roll before the client seed was fixed (a ledger-2 bout fixes it with a "
            "client_seed_fixed event first)",
        ),
        (
            (FIXED, JOIN, FREE, ROLL),
            1,
            "it fixes the client seed 'gm:t1', but the chain's parts make 'gm'",
        ),
        ((JOIN, FIXED, FIXED, FREE, ROLL), 3, "the client seed is fixed again (it was at event 2)"),
        (
            (
                JOIN,
                FIXED,
                ("fighter_added", "Orc", {"name": "Orc", "stats": {"cs": 60}, "seed_part": "o"}),
                FREE,
                ROLL,
            ),
            3,
            "a client-seed part joins after the client seed was fixed at event 2",
        ),
        (
            (("fighter_added", "Tarl", {"name": "Tarl", "seed_part": "a:b"}), FIXED, FREE, ROLL),
            1,
            "seed_part 'a:b' is not a client-seed part (text without ':')",
        ),
    ],
)
def test_the_client_seed_is_held_to_its_parts_and_its_fixing(
    steps: tuple[Any, ...], seq: int, said: str
) -> None:
    assert first(export(*steps)) == (seq, "client seed", said)


def test_an_unknown_ledger_format_is_named_at_the_header() -> None:
    doc = export(JOIN, FIXED, FREE, ROLL)
    doc["events"][0]["payload"]["ledger"] = 3
    rehash_from(doc, 0)
    assert first(doc)[:2] == (0, "client seed")
    assert "ledger 3 is not a ledger format this verifier knows (1 or 2)" in first(doc)[2]


def sealed_export(openings: bool = True) -> dict[str, Any]:
    """A closed bout whose second event is sealed (the hidden CS 73 of an Orc)."""
    events = [chain(None, "bout_opened", "referee", HEADER, AT)]
    whole = {"name": "Orc", "stats": {"cs": 73}, "hidden": ["cs"]}
    public = {"name": "Orc", "stats": {"cs": "hidden"}, "hidden": ["cs"]}
    draft = SealedDraft("fighter_added", "referee", whole, public, "ab" * 16)
    record, _ = link_sealed(events[-1], draft, AT)
    events.append(chained(record))
    events.append(chain(events[-1], "closed", "referee", {"server_seed": SEED}, AT))
    bout = {key: HEADER[key] for key in ("id", "system", "name", "rules", "created_at")}
    seeds = [SeedRecord(0, commitment(SEED), SEED, None)]
    found = {"1": opening(record)} if openings else None
    return build_export({**bout, "status": "closed"}, seeds, "gm", events, found)


def test_a_sealed_event_is_checked_by_its_opening() -> None:
    doc = sealed_export()
    assert verify_export(doc).verdict == "verified" and "seal" in verify_export(doc).checks
    salted = copy.deepcopy(doc)
    salted["openings"]["1"]["salt"] = "cd" * 16
    assert first(salted) == (1, "seal", "the opening does not match its seal (a hidden value "
                                        "was changed)")  # fmt: skip
    valued = copy.deepcopy(doc)
    valued["openings"]["1"]["payload"]["stats"]["cs"] = 74
    assert first(valued)[:2] == (1, "seal")
    stray = copy.deepcopy(doc)
    stray["openings"]["0"] = stray["openings"]["1"]
    assert first(stray) == (0, "seal", "an opening for an event not sealed")
    beyond = copy.deepcopy(doc)
    beyond["openings"]["9"] = beyond["openings"]["1"]
    assert first(beyond) == (None, "seal", "openings names event '9', which the export does "
                                           "not hold")  # fmt: skip
    shut = sealed_export(openings=False)
    assert first(shut) == (1, "seal", "sealed, and the export does not open it (a closed "
                                      "bout's export opens every seal)")  # fmt: skip


def test_a_public_part_that_says_what_its_opening_does_not_is_a_problem() -> None:
    doc = sealed_export()
    found = doc["openings"]["1"]
    doc["events"][1]["payload"]["stats"]["cs"] = 70  # the watchers were told 70
    rehash_from(doc, 1)
    doc["events"][1]["sealed"] = seal_of(found["payload"], found["salt"])
    rehash_from(doc, 1)
    assert first(doc) == (1, "seal", "its public part says payload.stats.cs is 70, its opening 73")


def test_a_seal_gives_nothing_away() -> None:
    """The seal of an event that holds a hidden CS, made by the service with the OS's entropy:
    trying every CS with any salt a watcher could guess finds nothing; the stored salt opens it,
    and only for the true CS (the seal binds it); two seals of one payload differ."""
    service = RefereeService(Store.open("sqlite://"), entropy=SECURE_ENTROPY)
    referee = Caller(Role.REFEREE)
    bouts = [service.create_bout("msv", "Ambush")["id"] for _ in range(2)]
    for bout in bouts:
        service.add_fighter(bout, referee, "Orc", {"cs": 73}, hidden=("cs",))
    shown = service.visible_records(bouts[0], ANONYMOUS)[-1]
    assert shown["payload"]["stats"] == {"cs": "hidden"} and "seal" not in shown
    guesses = ["00" * 16, "ff" * 16, bouts[0].encode().hex()[:32].ljust(32, "0"), SEED[:32]]
    payload = {"name": "Orc", "side": "Orc", "stats": {"cs": 0}, "hidden": ["cs"]}
    for cs in range(101):
        for salt in guesses:
            tried = {**payload, "stats": {"cs": cs}}
            assert seal_of(tried, salt) != shown["sealed"]
    stored = service.store.events(bouts[0])[-1]
    salt = stored["seal"]["salt"]
    opens = [cs for cs in range(101) if seal_of({**payload, "stats": {"cs": cs}}, salt)
             == shown["sealed"]]  # fmt: skip
    assert opens == [73]
    other = service.store.events(bouts[1])[-1]
    assert other["seal"]["salt"] != salt and other["sealed"] != stored["sealed"]
