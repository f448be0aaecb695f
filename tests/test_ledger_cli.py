"""`referee verify` and `referee export`: exact output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from referee.ledger import chain, roll_payload
from referee.rng import VerifiableRng
from referee.store import Store

SEED = "00" * 32
AT = "2026-11-29T22:40:12.000000Z"


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A SQLite store with bout b1: two rolls, seed revealed."""
    path = str(tmp_path / "bouts.db")
    with Store.open(path) as store:
        store.create_bout(
            system="msv",
            name="Spar",
            server_seed=SEED,
            client_seed="table",
            bout_id="b1",
            created_at=AT,
        )

        def roll(last: Any, events: Any, rng: VerifiableRng) -> list[dict[str, Any]]:
            t = rng.throw((20, 20, 6))
            return [chain(last, "roll", "Tarl", roll_payload(t.nonce or 0, t.dice, t.faces), AT)]

        store.append_with_rng("b1", roll)
        store.append_with_rng("b1", roll)
        store.reveal_seed("b1")
    return path


def run(*args: str, stdin: str | None = None) -> Any:
    return CliRunner().invoke(cli, list(args), input=stdin)


def export_file(db: str, tmp_path: Path) -> Path:
    out = tmp_path / "b1.json"
    result = run("export", "b1", "--db", db, "--out", str(out))
    assert (result.exit_code, result.output) == (0, f"exported bout 'b1': 2 events to {out}\n")
    return out


def test_export_then_verify_ok(db: str, tmp_path: Path) -> None:
    out = export_file(db, tmp_path)
    doc = json.loads(out.read_text())
    assert doc["fairness"]["server_seed"] == SEED
    assert [e["payload"]["faces"] for e in doc["events"]] == [[6, 14, 6], [6, 2, 5]]
    result = run("verify", str(out))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "ok: 2 events, 2 rolls, 1 seed; chain, commitment, faces, nonce" + (
        ", rules hold" if "rules" in lines[0] else " hold"
    )
    assert result.stderr == ""


def test_export_to_stdout_pipes_into_verify(db: str) -> None:
    exported = run("export", "b1", "--db", db)
    assert exported.exit_code == 0
    assert json.loads(exported.stdout)["bout"]["id"] == "b1"
    assert run("verify", "-", stdin=exported.stdout).exit_code == 0


def test_verify_tampered_face_exits_1_naming_the_event(db: str, tmp_path: Path) -> None:
    out = export_file(db, tmp_path)
    doc = json.loads(out.read_text())
    doc["events"][1]["payload"]["faces"][1] = 3
    out.write_text(json.dumps(doc))
    result = run("verify", str(out))
    assert result.exit_code == 1
    assert result.stderr == (
        "error: event 1 (roll): hash does not match the event (someone changed it) (+1 more)\n"
    )
    assert result.stdout.splitlines()[:3] == [
        "FAILED: 2 problem(s) in 2 events, 2 rolls, 1 seed",
        "  event 1 (roll): hash does not match the event (someone changed it)",
        "  event 1 (roll): face 3 does not match the seed (expected 2) at die 2 of 3 (d20)",
    ]


def test_verify_json_report(db: str, tmp_path: Path) -> None:
    out = export_file(db, tmp_path)
    result = run("verify", "--json", str(out))
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert (report["ok"], report["events"], report["rolls"], report["problems"]) == (True, 2, 2, [])


def test_verify_expect_hash(db: str, tmp_path: Path) -> None:
    out = export_file(db, tmp_path)
    doc = json.loads(out.read_text())
    seen = doc["events"][1]["hash"]
    assert run("verify", str(out), "--expect-hash", seen).exit_code == 0
    doc["events"].pop()
    out.write_text(json.dumps(doc))
    result = run("verify", str(out), "--expect-hash", seen)
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: export: no event has hash {seen!r} (the export was cut or rewritten)\n"
    )


def test_verify_unrevealed_seed_exits_1(tmp_path: Path) -> None:
    path = str(tmp_path / "x.db")
    with Store.open(path) as store:
        store.create_bout(system="msv", name="S", server_seed=SEED, bout_id="b2")
    exported = run("export", "b2", "--db", path)
    result = run("verify", "-", stdin=exported.stdout)
    assert result.exit_code == 1
    assert result.stderr == (
        "error: fairness: server seed is not revealed yet, so the faces cannot be checked yet\n"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "{",
            "'FILE' is not JSON: Expecting property name enclosed in double quotes at line 1 "
            "column 2",
        ),
        ("[]", "an export is a JSON object, got list"),
        (
            '{"bout": {}}',
            "not a referee export: 'fairness' is missing or not a dict "
            "(expected bout, fairness and events)",
        ),
    ],
)
def test_verify_unreadable_input_exits_2(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = run("verify", str(path))
    assert result.exit_code == 2
    assert result.stderr == f"error: {message.replace('FILE', str(path))}\n"


def test_verify_missing_file_exits_2(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.json")
    result = run("verify", missing)
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: cannot read {missing!r}: No such file or directory\n",
    )


def test_export_unknown_bout_and_missing_database_exit_2(db: str, tmp_path: Path) -> None:
    result = run("export", "nope", "--db", db)
    assert (result.exit_code, result.stderr) == (2, "error: no bout 'nope'\n")
    missing = tmp_path / "none.db"
    result = run("export", "b1", "--db", str(missing))
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: no database file at {str(missing)!r}\n",
    )
    assert not missing.exists()


def test_export_bad_url_exits_2(tmp_path: Path) -> None:
    result = run("export", "b1", "--db", "mysql://u@h/db")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: database URL 'mysql://...' is not supported (expected a SQLite file path, "
        "sqlite:///path or postgresql://...)\n",
    )


def test_help_has_examples() -> None:
    for command in ("verify", "export"):
        result = run(command, "--help")
        assert result.exit_code == 0 and "Examples:" in result.output
