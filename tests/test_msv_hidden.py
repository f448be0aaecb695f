"""An MSV fighter's CS kept hidden by the referee (as SRP-10 hides SRP skills): everyone but
the referee reads `vs CS hidden` in outcomes and initiative until the reveal or the close; the
referee's view and the closed export carry the CS and verify."""

from __future__ import annotations

import json

import pytest

from referee.bout import commands as c
from referee.bout.replay import check_export
from referee.errors import ForbiddenError
from referee.ledger import event_hash, verify_export
from referee.service.bouts import ANONYMOUS, Caller, RefereeService
from referee.store import Role, Store
from tests.seeds import for_test

REF = Caller(Role.REFEREE)


def fight(service: RefereeService) -> str:
    bout = service.create_bout("msv", "Hidden")["id"]
    service.add_fighter(bout, REF, "Tarl", {"cs": 65})
    service.add_fighter(bout, REF, "Orc", {"cs": 73}, "raiders", ("cs",))
    service.command(bout, REF, c.RollInitiative())
    attacked: set[str] = set()
    while len(attacked) < 2:  # until both have attacked (a bout has at most 15 hits a side)
        state = service.state(bout)
        if state.current is None:
            break
        attacked.add(state.current)
        service.command(bout, REF, c.Act(state.current, "attack", {}))
    return bout


def public_text(service: RefereeService, bout: str) -> str:
    return json.dumps(service.visible_records(bout, ANONYMOUS))


def test_a_hidden_cs_reads_as_hidden_until_revealed() -> None:
    service = RefereeService(Store.open("sqlite://"), entropy=for_test())
    bout = fight(service)
    everything = service.visible_records(bout, REF)
    public = service.visible_records(bout, ANONYMOUS)
    assert "73" in json.dumps([e["payload"].get("stats") for e in everything])
    orc_added = next(e for e in public if e["type"] == "fighter_added" and
                     e["payload"]["name"] == "Orc")  # fmt: skip
    assert orc_added["payload"]["stats"] == {"cs": "hidden"}
    initiative = next(e for e in public if e["type"] == "initiative")
    rolls = [r for rnd in initiative["payload"]["detail"]["rounds"] for r in rnd["rolls"]]
    assert {r["name"]: r["cs"] for r in rolls} == {"Tarl": 65, "Orc": "hidden"}
    # sealed in the chain: its hash is everyone's, its seal holds the hidden CS
    assert "sealed" in initiative and initiative["hash"] == event_hash(initiative)
    orc_attacks = [e for e in public if e["type"] == "outcome" and e["payload"]["actor"] == "Orc"]
    tarl_attacks = [e for e in public if e["type"] == "outcome" and e["payload"]["actor"] == "Tarl"]
    assert orc_attacks and tarl_attacks
    for e in orc_attacks:
        assert " vs CS hidden: " in e["payload"]["summary"] and "cs" not in e["payload"]
    for e in tarl_attacks:
        assert " vs CS 65: " in e["payload"]["summary"]
    assert "CS 73" not in public_text(service, bout) and '"cs": 73' not in public_text(
        service, bout
    )
    referee_summaries = [e["payload"]["summary"] for e in everything if e["type"] == "outcome"]
    assert any(" vs CS 73: " in s for s in referee_summaries)
    # A fighter joining by itself may not hide its own CS.
    with pytest.raises(ForbiddenError, match="only the referee may hide"):
        service.add_fighter(service.create_bout("msv", "x")["id"], ANONYMOUS, "Sly", {"cs": 50},
                            hidden=("cs",), joining=True)  # fmt: skip
    service.command(bout, REF, c.Reveal("Orc"))
    assert "CS 73" in public_text(service, bout)
    # revealed: every seal is opened in the public export too, and the rules check there
    shown = service.export(bout, ANONYMOUS)
    sealed = [str(e["seq"]) for e in shown["events"] if "sealed" in e]
    assert sealed and sorted(shown["openings"]) == sorted(sealed)
    assert verify_export(shown, partial=True, replay=check_export).verdict == "partial"
    service.close(bout, REF)
    assert verify_export(service.export(bout, ANONYMOUS)).ok


def test_the_close_shows_a_cs_never_revealed() -> None:
    service = RefereeService(Store.open("sqlite://"), entropy=for_test())
    bout = fight(service)
    assert "CS 73" not in json.dumps(service.export(bout, ANONYMOUS))
    service.close(bout, REF)
    exported = service.export(bout, ANONYMOUS)
    assert "CS 73" in json.dumps(exported) and verify_export(exported).ok
