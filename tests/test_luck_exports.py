"""`referee luck`: verified exports only, the record and the luck read from them, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from referee.errors import VerificationError
from referee.lab.luck_exports import attack_swing, luck_report, reading, verified
from referee.service.bouts import RefereeService
from referee.service.chat import answer_chat
from referee.store import Store
from referee.systems.msv.rules import MsvRules
from tests.seeds import for_test
from tests.test_judge_export import NAMES, REFEREE, play
from tests.test_service_trust import SRP_SHEET


@pytest.fixture
def exports(tmp_path: Path) -> list[Path]:
    """Two closed MSV spars of Tarl Cabot and Pa-Kur (free rolls, a void, seed rotations)."""
    out = []
    with Store.open(str(tmp_path / "bouts.db")) as store:
        for number, skills in enumerate(((65, 70), (40, 80))):
            doc = RefereeService(store).export(play(store, skills), REFEREE)
            path = tmp_path / f"bout-{number}.json"
            path.write_text(json.dumps(doc), "utf-8")
            out.append(path)
    return out


def docs(paths: list[Path]) -> list[Any]:
    return [json.loads(p.read_text("utf-8")) for p in paths]


def counted(doc: Any, fighter: str) -> tuple[int, int, int, int]:
    """(attacks, hits, damage, low-half dice) of `fighter`, counted from the events directly."""
    outcomes = [
        e["payload"]
        for e in doc["events"]
        if e["type"] == "outcome" and e["payload"].get("actor") == fighter
    ]
    faces = [
        (int(die[1:]), face)
        for e in doc["events"]
        if e["type"] == "roll" and e["payload"]["stream"].split(":", 1)[-1] == fighter
        for die, face in zip(e["payload"]["dice"], e["payload"]["faces"], strict=True)
    ]
    return (
        len(outcomes),
        sum(o["success"] for o in outcomes),
        sum(o["damage"] for o in outcomes),
        sum(face <= sides // 2 for sides, face in faces),
    )


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, ["luck", *args])


def test_an_attack_s_exact_chances_come_from_the_rules() -> None:
    swing = attack_swing(MsvRules(), 40, False, 0)
    assert swing.hit_chance == 0.4
    # faces 1-15: 1, 16-30: 2, 31-39: 3 and 40 (a critical: 3, MSV-3/4), 41-100 a miss
    assert swing.damage_chances == pytest.approx((0.6, 0.15, 0.15, 0.1))
    assert attack_swing(MsvRules(), 0, False, 0).damage_chances == (1.0,)


def test_the_report_counts_what_the_export_holds(exports: list[Path]) -> None:
    held = docs(exports)
    readings = [reading(verified(doc, "bout")) for doc in held]
    for fighter in NAMES:
        report = luck_report(readings, fighter.upper())
        sums = [counted(doc, fighter) for doc in held]
        attacks, hits, damage, lows = (sum(column) for column in zip(*sums, strict=True))
        found = report.luck
        assert found.hits is not None and found.damage is not None and found.halves is not None
        assert (found.attacks, found.hits.observed, found.damage.total) == (attacks, hits, damage)
        assert found.halves.observed == lows
        assert found.hits.expected == pytest.approx(
            sum(
                o["payload"]["cs"] / 100
                for doc in held
                for o in doc["events"]
                if o["type"] == "outcome" and o["payload"].get("actor") == fighter
            )
        )
        (record,) = report.records
        winners = [r.bout.winner for r in readings]
        assert (record.name, record.fought) == (fighter, 2)
        assert (record.won, record.lost) == (winners.count(fighter), 2 - winners.count(fighter))
    everyone = luck_report(readings, None)
    assert [r.name for r in everyone.records] == list(NAMES)
    assert everyone.luck.attacks == sum(counted(doc, f)[0] for doc in held for f in NAMES)


def test_luck_prints_the_report_and_says_each_export_it_verified(exports: list[Path]) -> None:
    result = run(*map(str, exports), "--fighter", "pa-kur")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "luck of Pa-Kur over 2 verified exports"
    assert lines[1] in (
        "verdict: no sign of bias (at 1%)",
        "verdict: unlikely from fair dice (at 1%)",
    )
    assert lines[2].startswith("record: Pa-Kur: 2 bouts, ")
    assert lines[3].startswith("primary: low halves ")
    assert lines[4].startswith("false alarms: fair dice, as many as these, are called unlikely ")
    assert [line.split(":")[0] for line in lines[5:9]] == [
        "hits",
        "longest run of misses",
        "damage",
        "faces",
    ]
    assert result.stderr.splitlines()[0].startswith(f"[1/2] {exports[0]}: verified (bout ")


def test_luck_json_is_the_report(exports: list[Path]) -> None:
    result = run(*map(str, exports), "--json", "-q")
    assert (result.exit_code, result.stderr) == (0, "")
    answer = json.loads(result.stdout)
    readings = [reading(verified(doc, "bout")) for doc in docs(exports)]
    assert answer == json.loads(json.dumps(luck_report(readings, None).as_json()))
    assert answer["luck"]["false_alarm_rate"].startswith("fair dice are called unlikely 1% ")


def test_an_export_that_does_not_verify_is_refused_with_its_reason(
    exports: list[Path], tmp_path: Path
) -> None:
    doc = docs(exports)[1]
    roll = next(e for e in doc["events"] if e["type"] == "roll")
    roll["payload"]["faces"][0] = roll["payload"]["faces"][0] % 100 + 1
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(doc), "utf-8")
    result = run(str(exports[0]), str(forged), "--fighter", "Pa-Kur", "--quiet")
    assert result.exit_code == 1
    reason = f"{str(forged)!r} does not verify: event {roll['seq']} (roll): hash does not match"
    assert result.stderr.splitlines()[0].startswith(f"[2/2] {forged}: refused: {reason}")
    assert result.stderr.splitlines()[-1].startswith(f"error: 1 of 2 exports refused; {reason}")
    assert result.stdout.splitlines()[0] == "luck of Pa-Kur over 1 verified export"
    with pytest.raises(VerificationError, match="does not verify"):
        verified(doc, "forged")


def test_a_running_bout_and_a_file_that_is_no_export_are_refused(
    exports: list[Path], tmp_path: Path
) -> None:
    doc = docs(exports)[0]
    running = {**doc, "events": doc["events"][:-1], "bout": {**doc["bout"], "status": "running"}}
    with pytest.raises(VerificationError):
        verified(running, "running")
    junk = tmp_path / "junk.json"
    junk.write_text("[1, ", "utf-8")
    result = run(str(junk))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == (
        f"error: 1 of 1 exports refused; {str(junk)!r} is not JSON: Expecting value at line 1 "
        "column 5"
    )
    result = run()
    assert result.exit_code == 2
    assert "give one or more exports" in result.stderr


def test_an_srp_bout_gives_its_record_and_its_dice(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "bouts.db")) as store:
        service = RefereeService(store, 0, for_test())
        bout = service.create_bout("srp", "Ford", "gm")["id"]
        for name in ("Ann", "Bran"):
            service.add_fighter(bout, REFEREE, name, SRP_SHEET)
        answer_chat(service, bout, REFEREE, "init")
        for _ in range(60):
            state = service.state(bout)
            if state.winner or state.status.value != "running":
                break
            foe = next(f.name for f in state.fighters if f.name != state.current)
            answer_chat(service, bout, REFEREE, f"attack {state.current} {foe}")
        service.close(bout, REFEREE)
        doc = service.export(bout, REFEREE)
    read = reading(verified(doc, "srp"))
    assert (read.bout.system, read.swings) == ("srp", ())
    winner = read.bout.winner
    assert winner in ("Ann", "Bran")
    report = luck_report([read], "Ann")
    (record,) = report.records
    assert (record.won, record.lost) == ((1, 0) if winner == "Ann" else (0, 1))
    faces = [
        (int(die[1:]), face)
        for e in doc["events"]
        if e["type"] == "roll" and e["payload"]["stream"] == "act:Ann"
        for die, face in zip(e["payload"]["dice"], e["payload"]["faces"], strict=True)
    ]
    assert report.luck.dice == len(faces) > 0
    assert report.luck.halves is not None
    assert report.luck.halves.observed == sum(f <= s // 2 for s, f in faces)
    assert report.luck.hits is None and report.luck.damage is None


def test_a_bout_given_twice_counts_once(exports: list[Path], tmp_path: Path) -> None:
    """The same bout's export given again (a copy under another name) is refused: its dice
    and its result counted twice would skew the record and the verdict."""
    copy = tmp_path / "copy.json"
    copy.write_text(exports[0].read_text("utf-8"), "utf-8")
    result = run(str(exports[0]), str(copy), str(exports[1]), "--fighter", "Pa-Kur", "-q")
    bout = docs(exports)[0]["bout"]["id"]
    reason = f"{str(copy)!r} is of bout {bout!r}, read already from {str(exports[0])!r}: each "
    assert result.exit_code == 1
    assert result.stderr == (
        f"[2/3] {copy}: refused: {reason}bout counts once\n"
        f"error: 1 of 3 exports refused; {reason}bout counts once\n"
    )
    once = run(str(exports[0]), str(exports[1]), "--fighter", "Pa-Kur", "-q")
    assert result.stdout.replace("3 verified", "2 verified") == once.stdout
    assert "luck of Pa-Kur over 2 verified exports" in result.stdout


def test_an_alpha_of_nan_is_refused_before_any_export_is_read(tmp_path: Path) -> None:
    """`nan` is in no range, but no comparison refuses it: it was taken, every export was
    verified, and only then did the report refuse it."""
    never = tmp_path / "never-read.json"
    result = run(str(never), "--alpha", "nan")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.endswith(
        "Error: Invalid value for '--alpha': nan is not in the range 0.0001<=x<=0.5.\n"
    )
