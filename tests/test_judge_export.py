"""The other way round: a bout run on the service, exported as chat (`referee export --chat`),
is decided by `referee judge --export` back to the bout's own verdict with no anomaly; and
every edit of that transcript shows as the anomaly it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.bout import commands as c
from referee.cli.main import cli
from referee.errors import RuleError, VerificationError
from referee.service.bouts import Caller, RefereeService
from referee.store import Role, Store
from referee.transcripts import Ledger, LedgerRoll, Use, bout_as_chat, judge_log
from referee.transcripts.reader import HostRoll
from tests.seeds import for_test

REFEREE = Caller(Role.REFEREE)
NAMES = ("Tarl Cabot", "Pa-Kur")


def play(store: Store, cs: tuple[int, int] = (65, 70), rotate_every: int = 7) -> str:
    """A closed MSV spar with free rolls (a fighter's and the referee's), a voided attack
    and seed rotations (nonces start again from 0 after each)."""
    service = RefereeService(store, rotate_every, for_test())
    bout_id = service.create_bout("msv", "Spar at the Tarn Cot", "table")["id"]
    for name, skill in zip(NAMES, cs, strict=True):
        service.add_fighter(bout_id, REFEREE, name, {"cs": skill})
    service.command(bout_id, REFEREE, c.RollInitiative())
    for action in range(500):
        state = service.state(bout_id)
        if state.winner or state.status.value != "running":
            break
        actor = str(state.current)
        if action == 2:
            service.command(bout_id, REFEREE, c.FreeRoll(actor, (6, 6, 6)))
        if action == 3:
            service.command(bout_id, REFEREE, c.FreeRoll("referee", (20,)))
        service.act(bout_id, REFEREE, actor, "attack", {})
        if action == 4:
            service.command(bout_id, REFEREE, c.Void())
    service.close(bout_id, REFEREE)
    return bout_id


@pytest.fixture
def bout(tmp_path: Path) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(database path, export, the bout's own verdict)."""
    db = str(tmp_path / "bouts.db")
    with Store.open(db) as store:
        bout_id = play(store)
        doc = RefereeService(store).export(bout_id, REFEREE)
        state = RefereeService(store).state(bout_id)
    wounds = {f.name: f.wounds for f in state.fighters}
    voided = {e["seq"] for e in doc["events"] if e["type"] == "voided"}
    attacks = sum(
        1
        for e in doc["events"]
        if e["type"] == "action"
        and e["payload"]["kind"] == "attack"
        and not any(v["payload"]["from"] <= e["seq"] <= v["payload"]["to"] for v in _voids(doc))
    )
    assert voided and doc["fairness"].get("rotations")
    truth = {
        "winner": state.winner,
        "damage_dealt": {NAMES[0]: wounds[NAMES[1]], NAMES[1]: wounds[NAMES[0]]},
        "attacks": attacks,
    }
    return db, doc, truth


def _voids(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in doc["events"] if e["type"] == "voided"]


def test_the_chat_export_is_judged_back_to_the_bout_s_verdict(bout: Any, tmp_path: Path) -> None:
    db, doc, truth = bout
    out = tmp_path / "spar.log"
    result = CliRunner().invoke(cli, ["export", doc["bout"]["id"], "--db", db, "--chat"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == bout_as_chat(doc)
    out.write_text(result.output, encoding="utf-8")
    (tmp_path / "bout.json").write_text(json.dumps(doc), encoding="utf-8")
    judged = CliRunner().invoke(
        cli, ["judge", str(out), "--export", str(tmp_path / "bout.json"), "--json"]
    )
    assert judged.exit_code == 0, judged.output
    verdict = json.loads(judged.output)
    assert verdict["anomalies"] == []
    assert {k: verdict[k] for k in truth} == truth
    uses = {r["use"] for r in verdict["rolls"]}
    assert uses == {"initiative", "attack", "free-roll", "voided"} | (
        {"free-attack"} if "free-attack" in uses else set()
    )
    # Without the export the same transcript is judged the same, but the free rolls show.
    plain = judge_log(result.output).verdict
    assert {a.kind.value for a in plain.anomalies} <= {"wrong-dice", "not-a-fighter", "out-of-turn"}


def _lines(doc: dict[str, Any]) -> list[str]:
    return bout_as_chat(doc)


def test_an_edited_face_is_forged_and_a_deleted_receipt_missing(bout: Any) -> None:
    _, doc, truth = bout
    lines = _lines(doc)
    # The first attack's receipt, whatever the (random) server seed made of it.
    attack = next(
        i for i, line in enumerate(lines) if "OnlineHost" in line and " attacks " in lines[i + 1]
    )
    edited = [*lines]
    face, nonce = lines[attack].split("die: ")[1].split(" (nonce ")
    other = "15" if face != "15" else "16"
    edited[attack] = lines[attack].split("die: ")[0] + f"die: {other} (nonce {nonce}"
    verdict = judge_log("\n".join(edited), export=doc).verdict
    kinds = [(a.line, a.kind.value) for a in verdict.anomalies]
    assert (attack + 1, "forged") in kinds
    # The verdict is the ledger's, whatever the log says (it was "unfinished" before).
    assert {k: verdict.to_json()[k] for k in truth} == truth
    removed = [*lines[:attack], *lines[attack + 1 :]]
    verdict = judge_log("\n".join(removed), export=doc).verdict
    missing = [a for a in verdict.anomalies if a.kind.value == "missing"]
    assert len(missing) == 1 and f"nonce {nonce.rstrip(')')} " in missing[0].reason
    following = next(i for i in range(attack, len(removed)) if "(nonce" in removed[i])
    assert missing[0].line == following + 1  # where the next receipt now stands


def test_a_receipt_past_a_rotation_claims_the_later_seed_s_roll() -> None:
    """Nonces start again after a rotation, so seed 0 and seed 1 may each hold a nonce 2 by
    the same fighter with the same face. The receipt that follows seed 1's nonce 1 is seed 1's
    nonce 2, and seed 0's (whose receipt was deleted) is the missing one."""
    rolls = [
        LedgerRoll(3, 2, "Tarl", (100,), (45,), "attack"),  # seed 0, nonce 2
        LedgerRoll(9, 1, "Tarl", (100,), (30,), "attack"),  # seed 1, nonce 1
        LedgerRoll(12, 2, "Tarl", (100,), (45,), "attack"),  # seed 1, nonce 2
    ]
    ledger = Ledger.from_rolls(rolls)
    claims = [
        ledger.claim(HostRoll("Tarl", 1, 100, (face,), nonce)) for nonce, face in ((1, 30), (2, 45))
    ]
    assert [(held.seq if held else None, why) for held, why in claims] == [(9, None), (12, None)]
    assert ledger.missing() == [rolls[0]]
    # In ledger order, the first receipt of nonce 2 is still seed 0's.
    ledger = Ledger.from_rolls(rolls)
    held, why = ledger.claim(HostRoll("Tarl", 1, 100, (45,), 2))
    assert held == rolls[0] and why is None


def test_a_plain_host_line_or_an_unknown_nonce_is_forged_with_an_export(bout: Any) -> None:
    _, doc, _ = bout
    lines = _lines(doc)
    name = NAMES[0]
    for extra, reason in (
        (f"OnlineHost: {name} rolled 1 100-sided die: 50", "no nonce"),
        (
            f"OnlineHost: {name} rolled 1 100-sided die: 50 (nonce 999)",
            "no roll of Tarl Cabot's with nonce 999",
        ),
        (f"OnlineHost: {name} rolled 1 100-sided die: 50 (nonce 0)", "nonce 0 (the ledger has"),
    ):
        verdict = judge_log("\n".join([*lines, extra]), export=doc).verdict
        assert [(a.line, a.kind.value) for a in verdict.anomalies] == [(len(lines) + 1, "forged")]
        assert reason in verdict.anomalies[0].reason


def test_a_ledger_that_does_not_verify_is_a_clear_error(bout: Any) -> None:
    _, doc, _ = bout
    broken = json.loads(json.dumps(doc))
    broken["events"][3]["payload"]["name"] = "Someone Else"
    with pytest.raises(VerificationError, match="the export does not verify: event 3"):
        judge_log("\n".join(_lines(doc)), export=broken)
    srp = json.loads(json.dumps(doc))
    srp["bout"]["system"] = "srp"
    with pytest.raises(RuleError, match="the judge decides MSV spars"):
        judge_log("\n".join(_lines(doc)), export=srp)


def test_an_export_that_does_not_verify_is_bad_input_for_the_command(
    bout: Any, tmp_path: Path
) -> None:
    """Exit status 2 (the export cannot be used), not 1 (some rolls do not count)."""
    _, doc, _ = bout
    broken = json.loads(json.dumps(doc))
    broken["events"][3]["payload"]["name"] = "Someone Else"
    (tmp_path / "spar.log").write_text("\n".join(_lines(doc)), encoding="utf-8")
    (tmp_path / "bout.json").write_text(json.dumps(broken), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["judge", str(tmp_path / "spar.log"), "--export", str(tmp_path / "bout.json")]
    )
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: the export does not verify: event 3")
    assert result.stderr.count("\n") == 1


def test_an_open_bout_judges_with_a_note_until_its_seed_is_revealed(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "open.db")) as store:
        service = RefereeService(store, entropy=for_test())
        bout_id = service.create_bout("msv", "Open", "t")["id"]
        for name, skill in zip(NAMES, (65, 70), strict=True):
            service.add_fighter(bout_id, REFEREE, name, {"cs": skill})
        service.command(bout_id, REFEREE, c.RollInitiative())
        doc = service.export(bout_id, REFEREE)
    case = judge_log("\n".join(bout_as_chat(doc)), export=doc)
    assert case.verdict.anomalies == ()
    assert [r.use for r in case.verdict.rolls][:2] == [Use.INITIATIVE, Use.INITIATIVE]
    assert case.verdict.notes == (
        "not checked: server seed is not revealed yet, so the faces cannot be checked yet",
    )
