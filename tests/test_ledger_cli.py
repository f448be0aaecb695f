"""`referee verify` and `referee export`: exact output and exit codes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from referee.ledger import event_hash
from referee.ledger.record import UNCHAINED_SEED, opened_events
from referee.store import Store
from tests.drafts import AT, HEADER, SEED, Draft, closed_bout, roll
from tests.vectors.generate import ruling_vectors


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A SQLite store with bout b1: two rolls, seed revealed."""
    path = str(tmp_path / "bouts.db")
    closed_bout(path, rolls=2)
    return path


def run(*args: str, stdin: str | None = None) -> Any:
    return CliRunner().invoke(cli, list(args), input=stdin)


def export_file(db: str, tmp_path: Path) -> Path:
    out = tmp_path / "b1.json"
    result = run("export", "b1", "--db", db, "--out", str(out))
    assert (result.exit_code, result.output) == (0, f"exported bout 'b1': 4 events to {out}\n")
    return out


def test_export_then_verify_ok(db: str, tmp_path: Path) -> None:
    out = export_file(db, tmp_path)
    doc = json.loads(out.read_text())
    assert doc["fairness"]["server_seed"] == SEED
    assert [e["payload"]["faces"] for e in doc["events"][1:3]] == [[6, 14, 6], [6, 2, 5]]
    result = run("verify", str(out))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines == [
        "checked bout 'b1' ('Spar', msv)",
        "rulings by the referee: none",
        "ok: 4 events, 2 rolls, 1 seed; chain, commitment, faces, nonce, time, header, complete"
        + (", rules hold" if "rules" in lines[2] else " hold"),
        f"not checked: {UNCHAINED_SEED}",
    ]
    assert result.stderr == ""


def test_export_to_stdout_pipes_into_verify(db: str) -> None:
    exported = run("export", "b1", "--db", db)
    assert exported.exit_code == 0
    assert json.loads(exported.stdout)["bout"]["id"] == "b1"
    assert run("verify", "-", stdin=exported.stdout).exit_code == 0


def test_verify_tampered_face_exits_1_naming_the_event(db: str, tmp_path: Path) -> None:
    out = export_file(db, tmp_path)
    doc = json.loads(out.read_text())
    doc["events"][2]["payload"]["faces"][1] = 3
    out.write_text(json.dumps(doc))
    result = run("verify", str(out))
    assert result.exit_code == 1
    assert result.stderr == (
        "error: event 2 (roll): hash does not match the event (someone changed it) (+1 more)\n"
    )
    assert result.stdout.splitlines() == [
        "checked bout 'b1' ('Spar', msv)",
        "rulings by the referee: none",
        "FAILED: 2 problem(s) in 4 events, 2 rolls, 1 seed",
        "  event 2 (roll): hash does not match the event (someone changed it)",
        "  event 2 (roll): face 3 does not match the seed (expected 2) at die 2 of 3 (d20)",
        f"not checked: {UNCHAINED_SEED}",
        "not checked: rules: not checked while the chain or the dice are bad",
    ]


def test_verify_json_report(db: str, tmp_path: Path) -> None:
    out = export_file(db, tmp_path)
    result = run("verify", "--json", str(out))
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert (report["ok"], report["events"], report["rolls"], report["problems"]) == (True, 4, 2, [])
    assert (report["verdict"], report["complete"], report["rulings"]) == ("verified", True, [])
    assert report["last_event"] == {"seq": 3, "type": "closed"}


def test_verify_expect_hash(db: str, tmp_path: Path) -> None:
    out = export_file(db, tmp_path)
    doc = json.loads(out.read_text())
    seen = doc["events"][3]["hash"]
    assert run("verify", str(out), "--expect-hash", seen).exit_code == 0
    doc["events"].pop()
    doc["bout"]["status"] = "open"
    out.write_text(json.dumps(doc))
    result = run("verify", str(out), "--expect-hash", seen, "--partial")
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: export: no event has hash {seen!r} (the export was cut or rewritten)\n"
    )


def test_verify_expect_commitment(db: str, tmp_path: Path) -> None:
    """An export rewritten from another seed holds together by itself; the commitment a
    player kept from the start of the bout shows it."""
    out = export_file(db, tmp_path)
    shown = json.loads(out.read_text())["fairness"]["commitment"]
    assert run("verify", str(out), "--expect-commitment", shown.upper()).exit_code == 0
    other = "ab" * 32
    result = run("verify", str(out), "--expect-commitment", other, "--expect-hash", other)
    assert result.exit_code == 1
    assert (
        f"  fairness: the export's commitment {shown[:12] + '...'!r} is not 'abababababab...', "
        "the one you were shown (the export was rewritten from another seed)"
    ) in result.stdout
    assert f"no event has hash {other!r}" in result.stdout
    for bad in ("nope", "ab" * 31, "zz" * 32):
        result = run("verify", str(out), "--expect-commitment", bad)
        assert (result.exit_code, result.stderr) == (
            2,
            f"error: --expect-commitment {bad!r} is not 64 hex characters\n",
        )
    result = run("verify", str(out), "--expect-hash", "x")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: --expect-hash 'x' holds no event hash: give 64 hex characters, SEQ:HASH "
        "(e.g. 57:3f9a...c2), or the whole line that said it\n",
    )


def test_verify_roll_of_a_stream(tmp_path: Path) -> None:
    """`verify-roll --stream` recomputes a roll of a bout with dice streams (scheme 2)."""
    args = ["verify-roll", "--server-seed", SEED, "--client-seed", "table", "--nonce", "0"]
    result = run(*args, "--dice", "d20,d20,d6", "--stream", "act:Tarl")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1] == "roll act:Tarl 0 (d20,d20,d6): 19 19 6"
    plain = run(*args, "--dice", "d20,d20,d6")
    assert plain.stdout.splitlines()[1] == "roll 0 (d20,d20,d6): 6 14 6"
    as_json = json.loads(run(*args, "--dice", "d6", "--stream", "referee", "--json").stdout)
    assert as_json["stream"] == "referee" and len(as_json["faces"]) == 1
    for bad in ("bogus", "act:", "free:" + "x" * 60, "act:\n"):
        result = run(*args, "--dice", "d6", "--stream", bad)
        assert result.exit_code == 2 and result.stderr.startswith("error: --stream: "), bad


def test_verify_unrevealed_seed_exits_1(tmp_path: Path) -> None:
    path = str(tmp_path / "x.db")
    with Store.open(path) as store:
        store.create_bout(system="msv", name="S", server_seed=SEED, bout_id="b2", created_at=AT)
        header = {**HEADER, "id": "b2", "name": "S"}
        store.extend("b2", lambda events, dice: [Draft("bout_opened", "referee", header)], at=AT)
        store.extend("b2", roll, at=AT)
    exported = run("export", "b2", "--db", path)
    result = run("verify", "-", stdin=exported.stdout)
    assert result.exit_code == 1
    assert result.stderr == (
        "error: fairness: server seed is not revealed yet, so the faces cannot be checked yet "
        "(+1 more)\n"
    )
    assert result.stdout.splitlines()[4] == (
        "  event 1 (roll): the export ends here without the close, so it is partial (the bout "
        "is not closed yet, or the export was cut short); --partial checks it up to here"
    )
    partial = run("verify", "--partial", "-", stdin=exported.stdout)
    assert (partial.exit_code, partial.stderr) == (0, "")
    assert partial.stdout.splitlines()[2:4] == [
        "ok (partial): 2 events, 1 rolls, 1 seed, up to event 1 (roll), not closed; chain, "
        "commitment, faces, nonce, time, header, complete"
        + (", rules hold" if "rules" in partial.stdout else " hold"),
        "not checked: faces: 1 roll(s) under a server seed not revealed yet are not checked",
    ]


def test_verify_names_a_cut_export_an_edited_header_and_a_time_going_back(
    db: str, tmp_path: Path
) -> None:
    out = export_file(db, tmp_path)
    doc = json.loads(out.read_text())
    cut = {**doc, "events": doc["events"][:2]}
    out.write_text(json.dumps(cut))
    for flags in ((), ("--partial",)):
        result = run("verify", str(out), *flags)
        assert result.exit_code == 1
        assert result.stderr == (
            "error: event 1 (roll): bout.status says closed but the chain ends here without "
            "the close: the export was cut short\n"
        )
    edited = json.loads(json.dumps(doc))
    edited["bout"]["name"] = "Another"
    edited["bout"]["winner"] = "Tarl"
    out.write_text(json.dumps(edited))
    result = run("verify", str(out))
    assert result.stdout.splitlines()[3:5] == [
        "  export: bout.winner is not covered by the chain (a bout has id, system, name, rules, "
        "created_at, status)",
        "  event 0 (bout_opened): bout.name 'Another' differs from the name 'Spar' the chain "
        "opens with",
    ]
    back = json.loads(json.dumps(doc))
    back["events"][2]["at"] = "2026-11-29T22:40:11.999999Z"
    rehash_all(back["events"])
    out.write_text(json.dumps(back))
    result = run("verify", str(out))
    assert result.stderr == (
        "error: event 2 (roll): at '2026-11-29T22:40:11.999999Z' is before the previous "
        "event's '2026-11-29T22:40:12.000000Z' (times must not go backwards)\n"
    )


def rehash_all(events: list[dict[str, Any]]) -> None:
    for i, event in enumerate(events):
        event["prev"] = events[i - 1]["hash"] if i else "0" * 64
        event["hash"] = event_hash(event)


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


def test_verify_names_a_lone_surrogate_and_never_stops_with_a_traceback(tmp_path: Path) -> None:
    """A forged export (its chain hashed again over a note with a lone surrogate, or a last
    event whose type has one): `referee verify`, text and --json, says what is wrong and exits 1;
    what no UTF-8 can carry is written as its escape."""
    forged = next(v for v in ruling_vectors() if "lone surrogate" in v.name)
    note = tmp_path / "note.json"
    note.write_text(forged.text, encoding="utf-8")
    doc = json.loads(forged.text)
    doc["events"][-1]["type"] = "closed\ud800"
    last = tmp_path / "last.json"
    last.write_text(json.dumps(doc), encoding="utf-8")
    for path, said in ((note, "x\\ud800y"), (last, "closed\\ud800")):
        for args in ([], ["--json"]):
            done = subprocess.run(
                [sys.executable, "-m", "referee.cli.main", "verify", *args, str(path)],
                capture_output=True,
                timeout=120,
                env={**os.environ, "PYTHONIOENCODING": "utf-8"},
            )
            out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
            assert done.returncode == 1 and "Traceback" not in err, err
            assert err.startswith("error: event ")
            if args:
                report = json.loads(out)
                assert report["verdict"] == "rejected" and report["first_problem"]
            else:
                assert said in out + err


def test_export_of_a_bout_still_going_leaves_hidden_stats_out(tmp_path: Path) -> None:
    """`referee export` (JSON and --chat) of a bout still going is the export everyone gets from
    the service: the hidden CS shows nowhere, unless the referee's token says otherwise; once
    the bout is closed the export is complete."""
    from referee.bout import commands as c
    from referee.service.bouts import RefereeService
    from tests.seeds import for_test

    path = str(tmp_path / "spar.db")
    with Store.open(path) as store:
        service = RefereeService(store, entropy=for_test())
        made = service.create_bout("msv", "Ambush", client_seed="gm")
        bout, referee = made["id"], service.caller(made["id"], made["referee_token"])
        service.add_fighter(bout, referee, "Tarl", {"cs": 65})
        orc = service.add_fighter(bout, referee, "Orc", {"cs": 73}, hidden=("cs",))["token"]
        service.command(bout, referee, c.RollInitiative())
        for _ in range(4):
            current = service.state(bout).current
            if current is None:
                break
            foe = "Orc" if current == "Tarl" else "Tarl"
            service.act(bout, referee, current, "attack", {"target": foe})
    secret = re.compile(r"\"cs\": 73\b|CS 73\b")
    for args in ([], ["--chat"], ["--token", orc], ["--chat", "--token", orc]):
        shown = run("export", bout, "--db", path, *args)
        assert shown.exit_code == 0, shown.output
        assert not secret.search(shown.stdout), args
        assert "hidden" in shown.stdout
        assert shown.stderr == (  # the fighter is told that the referee must close first
            f"bout {bout!r} is not closed: nobody can verify it before the referee closes it "
            "(referee verify --partial checks it up to now)\n"
        )
    full = run("export", bout, "--db", path, "--token", made["referee_token"])
    # the referee's export: every event as the chain holds it, the opening of each sealed one
    referees = json.loads(full.stdout)
    assert referees["events"][2]["payload"]["stats"] == {"cs": "hidden"}
    assert referees["openings"]["2"]["payload"]["stats"] == {"cs": 73}
    assert run("verify", "--partial", "-", stdin=full.stdout).exit_code == 0
    chat = run("export", bout, "--db", path, "--chat", "--token", made["referee_token"])
    assert re.search(r"vs CS 73\b", chat.stdout)
    refused = run("export", bout, "--db", path, "--token", "not-a-token")
    assert (refused.exit_code, refused.stderr) == (2, "error: unknown token\n")
    with Store.open(path) as store:
        RefereeService(store).close(bout, RefereeService(store).caller(bout, made["referee_token"]))
    closed = run("export", bout, "--db", path)
    assert opened_events(json.loads(closed.stdout))[2]["payload"]["stats"] == {"cs": 73}
    assert run("verify", "-", stdin=closed.stdout).exit_code == 0


# ---- what a player kept: --bout, --expect-hash in its three forms, --expect-client-seed ---------


def ledger_2_spar(tmp_path: Path) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """A closed spar of ledger 2 (the client seed in the chain), fought through the service:
    the export's file, the export, and what a fighter who joined first and left before the
    second joined was shown (the commitment, the client seed, its join's seq and hash)."""
    from referee.bout import commands as c
    from referee.service.bouts import ANONYMOUS, RefereeService
    from tests.seeds import for_test

    with Store.open(str(tmp_path / "spar.db")) as store:
        service = RefereeService(store, entropy=for_test())
        made = service.create_bout("msv", "Spar at the Tarn Cot", client_seed="gm")
        bout, referee = made["id"], service.caller(made["id"], made["referee_token"])
        joined = service.add_fighter(
            bout, ANONYMOUS, "Tarl", {"cs": 60}, client_seed="tarl-7", joining=True
        )
        last = service.visible_records(bout, ANONYMOUS)[-1]
        held = {
            "commitment": made["commitment"],
            "client_seed": joined["client_seed"],
            "seq": last["seq"],
            "hash": last["hash"],
        }
        service.add_fighter(bout, ANONYMOUS, "Orc", {"cs": 70}, client_seed="orc-3", joining=True)
        service.command(bout, referee, c.RollInitiative())
        for _ in range(200):
            current = service.state(bout).current
            if current is None:
                break
            foe = "Orc" if current == "Tarl" else "Tarl"
            service.act(bout, referee, current, "attack", {"target": foe})
        service.close(bout, referee)
        doc = service.export(bout)
    path = tmp_path / "spar.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert (
        held["client_seed"] == "gm:tarl-7" and doc["fairness"]["client_seed"] == "gm:tarl-7:orc-3"
    )
    return path, doc, held


def test_verify_names_the_bout_it_checked_and_fails_on_another_than_the_one_asked_for(
    db: str, tmp_path: Path
) -> None:
    out = export_file(db, tmp_path)
    asked = run("verify", str(out), "--bout", "b1")
    assert asked.exit_code == 0, asked.output
    lines = asked.stdout.splitlines()
    assert lines[0] == "checked bout 'b1' ('Spar', msv), the bout asked for (--bout)"
    assert lines[2].startswith("ok: 4 events") and lines[2].endswith(", bout hold")
    other = run("verify", str(out), "--bout", "b2")
    assert other.exit_code == 1
    assert other.stdout.splitlines()[:4] == [
        "checked bout 'b1' ('Spar', msv), NOT bout 'b2', the one asked for (--bout)",
        "rulings by the referee: none",
        "FAILED: 1 problem(s) in 4 events, 2 rolls, 1 seed",
        "  export: this export is of bout 'b1' ('Spar'), not of bout 'b2', the one asked for "
        "(--bout)",
    ]
    assert other.stderr == (
        "error: export: this export is of bout 'b1' ('Spar'), not of bout 'b2', the one asked "
        "for (--bout)\n"
    )
    report = json.loads(run("verify", "--json", str(out), "--bout", "b2").stdout)
    assert report["bout"] == {
        "id": "b1",
        "name": "Spar",
        "system": "msv",
        "asked": "b2",
        "same": False,
    }
    assert (report["verdict"], report["problems"][0]["check"]) == ("rejected", "bout")
    plain = json.loads(run("verify", "--json", str(out)).stdout)
    assert plain["bout"] == {
        "id": "b1",
        "name": "Spar",
        "system": "msv",
        "asked": None,
        "same": None,
    }


def test_verify_expect_hash_takes_a_hash_a_seq_and_hash_or_the_line_a_client_said(
    tmp_path: Path,
) -> None:
    from referee.discord.desk import head_line

    path, doc, held = ledger_2_spar(tmp_path)
    head = doc["events"][-1]
    forms = [
        held["hash"].upper(),
        f"{held['seq']}:{held['hash']}",
        f"  {head['seq']}:{head['hash']}\n",
        head_line(doc),  # the Discord bot's closing line
        # the Second Life HUD's closing line (examples/secondlife/fighter-hud.lsl)
        f"the bout is closed; its last event hash is {head['hash']}. Verify: "
        f"https://referee.example.org/static/verify.html#bout={doc['bout']['id']}",
    ]
    for form in forms:
        result = run("verify", str(path), "--expect-hash", form)
        assert (result.exit_code, result.stderr) == (0, ""), (form, result.output)
        assert result.stdout.splitlines()[2].endswith(", rules, kept hash hold"), form
    # Every form at once, and the bout with them.
    many = [a for form in forms for a in ("--expect-hash", form)]
    assert run("verify", str(path), *many, "--bout", doc["bout"]["id"]).exit_code == 0


def test_verify_a_kept_seq_and_hash_names_the_event_whose_hash_differs(tmp_path: Path) -> None:
    path, doc, held = ledger_2_spar(tmp_path)
    other = doc["events"][held["seq"] + 1]
    seen = f"{held['seq']}:{other['hash']}"  # a hash that is in the export, but not at that event
    assert run("verify", str(path), "--expect-hash", other["hash"]).exit_code == 0
    result = run("verify", str(path), "--expect-hash", seen)
    assert result.exit_code == 1
    kind = doc["events"][held["seq"]]["type"]
    assert result.stderr == (
        f"error: event {held['seq']} ({kind}): its hash {held['hash'][:12] + '...'!r} is not "
        f"{other['hash']!r}, the hash you kept of it (the export was rewritten)\n"
    )
    # The same from a Discord line whose event number is not the hash's
    line = f"Head hash: {other['hash']} (event {held['seq']}). Keep it: ..."
    assert run("verify", str(path), "--expect-hash", line).stderr == result.stderr
    gone = run("verify", str(path), "--expect-hash", f"999:{held['hash']}")
    assert (gone.exit_code, gone.stderr) == (
        1,
        f"error: export: no event 999, whose hash {held['hash']!r} you kept (the export was cut "
        "or rewritten)\n",
    )


def test_verify_expect_client_seed_accepts_the_one_shown_and_more_parts_after_it(
    tmp_path: Path,
) -> None:
    path, doc, held = ledger_2_spar(tmp_path)
    for shown_seed in (held["client_seed"], doc["fairness"]["client_seed"], "gm"):
        result = run("verify", str(path), "--expect-client-seed", shown_seed)
        assert (result.exit_code, result.stderr) == (0, ""), shown_seed
        assert result.stdout.splitlines()[2].endswith(", rules, kept client seed hold")
    for wrong in ("gm:orc-3", "gm:tarl", "forged-3:tarl-7", "gm:tarl-7:orc-3:x"):
        result = run("verify", str(path), "--expect-client-seed", wrong)
        assert (result.exit_code, result.stderr) == (
            1,
            f"error: export: the export's client seed 'gm:tarl-7:orc-3' is neither {wrong!r}, "
            "the one you were shown, nor it followed by ':' and more parts (the export was "
            "rewritten)\n",
        ), wrong


def test_the_operators_rewrite_fails_against_what_a_fighter_kept_on_the_command_line(
    tmp_path: Path,
) -> None:
    """The rewrite (tests/attacks.py) holds together by itself, with the commitment shown at the
    start; the hash and the client seed a fighter kept before the first roll reject it."""
    from tests.attacks import loser_wins, winner

    path, doc, held = ledger_2_spar(tmp_path)
    forged = loser_wins(doc)
    assert winner(forged) != winner(doc)
    rewritten = tmp_path / "rewritten.json"
    rewritten.write_text(json.dumps(forged), encoding="utf-8")
    bout = ["--bout", doc["bout"]["id"], "--expect-commitment", held["commitment"]]
    assert run("verify", str(rewritten), *bout).exit_code == 0  # by itself: it holds
    kept = f"{held['seq']}:{held['hash']}"
    result = run(
        "verify", str(rewritten), *bout, "--expect-hash", kept,
        "--expect-client-seed", held["client_seed"],
    )  # fmt: skip
    assert result.exit_code == 1
    found = [line.strip() for line in result.stdout.splitlines() if line.startswith("  ")]
    assert found == [
        f"export: the export's client seed {forged['fairness']['client_seed']!r} is neither "
        "'gm:tarl-7', the one you were shown, nor it followed by ':' and more parts (the export "
        "was rewritten)",
        f"event {held['seq']} (fighter_added): its hash "
        f"{forged['events'][held['seq']]['hash'][:12] + '...'!r} is not {held['hash']!r}, the "
        "hash you kept of it (the export was rewritten)",
    ]
    assert run("verify", str(path), *bout, "--expect-hash", kept).exit_code == 0


def test_what_you_kept_is_checked_even_while_the_rules_wait_for_sealed_events(
    tmp_path: Path,
) -> None:
    """A public export of a bout still going holds sealed events (hidden stats): the rules wait
    for their opening, what you kept does not."""
    from referee.bout import commands as c
    from referee.service.bouts import RefereeService
    from tests.seeds import for_test

    with Store.open(str(tmp_path / "hidden.db")) as store:
        service = RefereeService(store, entropy=for_test())
        made = service.create_bout("msv", "Ambush", client_seed="gm")
        bout, referee = made["id"], service.caller(made["id"], made["referee_token"])
        service.add_fighter(bout, referee, "Tarl", {"cs": 65})
        service.add_fighter(bout, referee, "Orc", {"cs": 73}, hidden=("cs",))
        service.command(bout, referee, c.RollInitiative())
        doc = service.export(bout)
    path = tmp_path / "running.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    plain = run("verify", "--partial", str(path))
    assert plain.exit_code == 0 and "rules: not checked while 2 sealed event(s)" in plain.stdout
    other = "ab" * 32
    for args, said in (
        (("--bout", "elsewhere"), "export: this export is of bout"),
        (("--expect-hash", other), f"export: no event has hash {other!r}"),
        (("--expect-client-seed", "forged"), "export: the export's client seed 'gm' is neither"),
    ):
        result = run("verify", "--partial", str(path), *args)
        assert result.exit_code == 1 and result.stderr.startswith(f"error: {said}"), args


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        (
            "--expect-hash",
            "12:" + "zz" * 32,
            "--expect-hash '12:zzzz...' holds no event hash: give 64 hex characters, SEQ:HASH "
            "(e.g. 57:3f9a...c2), or the whole line that said it",
        ),
        (
            "--expect-hash",
            "",
            "--expect-hash '' holds no event hash: give 64 hex characters, SEQ:HASH "
            "(e.g. 57:3f9a...c2), or the whole line that said it",
        ),
        (
            "--expect-hash",
            f"commitment {'ab' * 32}, head {'cd' * 32}",
            "--expect-hash 'commitment abab..., ...' holds 2 different 64-hex values: "
            "give the event hash alone (or SEQ:HASH)",
        ),
        (
            "--expect-hash",
            f"(event 3) {'ab' * 32} (event 4)",
            "--expect-hash '(event 3) abab... (e...' names 2 events (3, 4): give SEQ:HASH",
        ),
        (
            "--expect-client-seed",
            "",
            "--expect-client-seed '' is not a client seed: its parts (1 or more characters each, "
            "no control characters) are joined by ':'",
        ),
        (
            "--expect-client-seed",
            "gm::x",
            "--expect-client-seed 'gm::x' is not a client seed: its parts (1 or more characters "
            "each, no control characters) are joined by ':'",
        ),
        (
            "--expect-client-seed",
            "gm:x\n",
            "--expect-client-seed 'gm:x\\n' is not a client seed: its parts (1 or more characters "
            "each, no control characters) are joined by ':'",
        ),
        ("--bout", "", "--bout '' is not a bout id"),
    ],
    ids=[
        "bad hex",
        "empty",
        "two hashes",
        "two events",
        "empty seed",
        "empty part",
        "newline",
        "empty bout",
    ],
)
def test_verify_refuses_a_kept_value_it_cannot_read_in_one_line(
    db: str, tmp_path: Path, option: str, value: str, message: str
) -> None:
    out = export_file(db, tmp_path)
    result = run("verify", str(out), option, value)
    # a value longer than 80 characters is cut to 77 and "..." (abab... is 64 hex digits)
    shown_message = message.replace("abab...", "ab" * 32).replace("zzzz...", "zz" * 32)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"error: {shown_message}\n")
