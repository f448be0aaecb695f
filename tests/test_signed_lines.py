"""Roll lines that prove themselves (docs/ledger.md, "Signed roll lines"), on a real service.

The signed message's test vector (Ed25519 is deterministic: a fixed key signs a fixed message
to fixed bytes); the service's key made at its first start, kept in the database (the same
after a restart, on SQLite and PostgreSQL), published at `GET /api/signing-key` and in every
export (which both verifiers still verify); every receipt signed (an attack's answer, a free
roll's, the chat endpoint's host line) and checked by `POST /api/signatures/check`; the
private key in no answer, export or line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from referee.bout.replay import check_export
from referee.cli.main import cli
from referee.ledger import verify_export
from referee.ledger.signatures import (
    PrivateKey,
    bout_tag,
    check_line,
    read_key,
    roll_message,
)
from referee.service.signing import KEY_NAME
from referee.store import Store
from tests.seeds import for_test
from tests.service_fixtures import LiveServer, serving
from tests.test_chat_endpoint import msv_bout
from tests.test_ledger_vectors import NodeVerifier, check, node  # noqa: F401
from tests.vectors.generate import Vector

#: The test vector of docs/ledger.md ("Signed roll lines"): the key of the 32 bytes 0..31.
SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
PUBLIC = "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg"
MESSAGE = (
    b'{"bout":"SwCFNzvzuSKhoPDw","dice":["d100"],"faces":[47],"nonce":3,"roller":"Tarl",'
    b'"signed":"referee roll receipt 1","stream":"act:Tarl"}'
)
SIGNED_LINE = (
    "OnlineHost: Tarl rolled 1 100-sided die: 47 (nonce 3) sig:56475aa7.SwCFNzvzuSKhoPDw."
    "HLMR6IAOQFFApuKXn_8NvBnISg-7H9PCMjtYHJLdnu-gd4826drDoHOqMgA-PfNMFe7eAvbTjLn-qhf5cj3OCw"
)


def test_the_signed_message_and_its_signature_are_the_documented_vector() -> None:
    key = PrivateKey.from_text(SECRET)
    assert key.public.text == PUBLIC and key.public.key_id == "56475aa7"
    assert bout_tag("b1") == "SwCFNzvzuSKhoPDw"
    assert roll_message(bout_tag("b1"), "Tarl", ["d100"], [47], 3, None) == MESSAGE
    payload = {"dice": ["d100"], "faces": [47], "nonce": 3, "stream": "act:Tarl"}
    assert SIGNED_LINE.endswith(" " + key.sign_roll("b1", "Tarl", payload))
    assert check_line(SIGNED_LINE, key.public, "b1").genuine
    assert len(SIGNED_LINE.encode()) == 170  # far under Second Life's 1,024 bytes
    # the doc's worked example is the same vector
    doc = (Path(__file__).resolve().parent.parent / "docs" / "ledger.md").read_text()
    assert SIGNED_LINE in doc and MESSAGE.decode() in doc and PUBLIC in doc


def test_every_change_to_a_signed_line_is_caught() -> None:
    key = read_key(PUBLIC)
    other = PrivateKey.from_text("HyAhIiMkJSYnKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4")
    changed = {
        "face": SIGNED_LINE.replace(": 47 ", ": 48 "),
        "nonce": SIGNED_LINE.replace("(nonce 3)", "(nonce 4)"),
        "roller": SIGNED_LINE.replace("Tarl", "Rask"),
        "stream": SIGNED_LINE.replace("(nonce 3)", "(nonce 3, free:Tarl)"),
        "dice": SIGNED_LINE.replace("100-sided", "20-sided").replace(": 47", ": 17"),
    }
    for what, line in changed.items():
        found = check_line(line, key)
        assert not found.genuine and "does not verify" in found.reason, what
    assert "another bout" in check_line(SIGNED_LINE, key, "b2").reason
    assert "another key" in check_line(SIGNED_LINE, other.public).reason
    assert check_line(SIGNED_LINE.split(" sig:")[0], key).reason == "it carries no signature"


def _roll_everything(live: LiveServer) -> tuple[str, list[str], list[dict[str, Any]]]:
    """A bout with an attack, a free roll and a chat //roll, closed: its id, what was said,
    the answers."""
    bid, ref, tokens = msv_bout(live, ("Tarl", 65), ("Pa Kur", 60))
    answers = [live.post(f"/api/bouts/{bid}/initiative", ref).json()]
    first = answers[0]["order"][0]
    foe = "Pa Kur" if first == "Tarl" else "Tarl"
    r = live.post(
        f"/api/bouts/{bid}/attacks", tokens[first], json={"attacker": first, "target": foe}
    )
    assert r.status_code == 200, r.text
    answers.append(r.json())
    r = live.post(f"/api/bouts/{bid}/rolls", tokens["Tarl"], json={"dice": "2d20"})
    answers.append(r.json())
    said = [live.chat(bid, tokens["Tarl"], "//roll -sides100 -dice1").text]
    assert live.chat(bid, ref, "close bout").status_code == 200
    return bid, said, answers


def test_the_service_signs_every_receipt_and_publishes_its_key(live: LiveServer) -> None:
    published = live.get("/api/signing-key").json()
    key = read_key(published["public_key"])
    assert published["algorithm"] == "Ed25519" and published["key_id"] == key.key_id
    assert published["fingerprint"].startswith("SHA256:") and "PUBLIC KEY" in published["pem"]
    assert read_key(published["pem"]) == key == read_key(json.dumps(published))
    bid, said, answers = _roll_everything(live)
    attack, free = answers[1], answers[2]
    for roll in attack["rolls"] + free["rolls"]:
        assert roll["signature"].startswith(f"sig:{key.key_id}.{bout_tag(bid)}.")
        assert roll["line"].endswith(" " + roll["signature"])
        assert check_line(roll["line"], key, bid).genuine, roll
    assert attack["rolls"][0]["line"].startswith(f"OnlineHost: {attack['actor']} rolled 1 ")
    (chat,) = said
    assert check_line(chat, key, bid).genuine and ", free:Tarl) sig:" in chat
    # the check endpoint says the same, and names what is wrong
    r = live.post("/api/signatures/check", json={"line": chat, "bout": bid})
    assert r.json() == {
        "genuine": True,
        "reason": f"signed by key {key.key_id} for bout {bout_tag(bid)}",
        "bout_tag": bout_tag(bid),
        "key_id": key.key_id,
    }
    r = live.post("/api/signatures/check", json={"line": chat, "bout": "another"})
    assert r.status_code == 200 and not r.json()["genuine"] and "another bout" in r.json()["reason"]
    r = live.post("/api/signatures/check", json={"line": "hello there"})
    assert r.status_code == 400 and r.json()["error"] == "bad_notation"
    # the export holds the key and still verifies
    doc = live.get(f"/api/bouts/{bid}/export").json()
    assert doc["signing_key"] == {
        k: published[k] for k in ("algorithm", "public_key", "key_id", "fingerprint")
    }
    assert verify_export(doc, replay=check_export).ok
    # the private key is in the store alone: no answer, line or export holds it
    with live.store.engine.connect() as conn:
        secret = conn.exec_driver_sql(
            "SELECT private_key FROM signing_keys WHERE name = ?"
            if live.store.engine.dialect.name == "sqlite"
            else "SELECT private_key FROM signing_keys WHERE name = %s",
            (KEY_NAME,),
        ).scalar()
    assert isinstance(secret, str) and PrivateKey.from_text(secret).public == key
    seen = json.dumps([published, answers, said, doc, live.get(f"/api/bouts/{bid}/log").json()])
    assert secret not in seen


def test_the_key_is_made_once_and_kept_across_restarts(db_url: str) -> None:
    with serving(db_url, for_test()) as first:
        before = first.get("/api/signing-key").json()
    with serving(db_url, for_test()) as second:
        assert second.get("/api/signing-key").json() == before
    with Store.open(db_url) as store:
        kept = store.signing_key(KEY_NAME, lambda: ("Ed25519", "x", "y"))
    assert kept[0] == "Ed25519" and kept[2] == before["public_key"]


def test_both_verifiers_take_an_export_with_the_key_and_one_without(
    live: LiveServer,
    node: NodeVerifier,  # noqa: F811
) -> None:
    bid, _, _ = _roll_everything(live)
    assert live.chat(bid, None, "help").status_code == 200
    refs = live.post("/api/bouts", json={"system": "msv", "name": "x"}).json()  # an empty bout
    for doc in (
        live.get(f"/api/bouts/{bid}/export").json(),
        live.get(f"/api/bouts/{refs['id']}/export").json(),
    ):
        assert "signing_key" in doc
        check(Vector("signed", json.dumps(doc), verify_export(doc).verdict), node)
        old = {k: v for k, v in doc.items() if k != "signing_key"}  # an export made before
        check(Vector("before", json.dumps(old), verify_export(doc).verdict), node)


def test_verify_roll_and_the_judge_take_the_key_as_text_file_or_export(tmp_path: Path) -> None:
    runner = CliRunner()
    key_file = tmp_path / "key.txt"
    key_file.write_text(PUBLIC + "\n")
    export = tmp_path / "bout.json"
    export.write_text(json.dumps({"bout": {"id": "b1"}, "signing_key": {"public_key": PUBLIC}}))
    for given in (PUBLIC, str(key_file), str(export)):
        ran = runner.invoke(cli, ["verify-roll", "--key", given, "--bout", "b1", SIGNED_LINE])
        assert (ran.exit_code, ran.stdout) == (
            0,
            "line 1: genuine: signed by key 56475aa7 for bout SwCFNzvzuSKhoPDw\n",
        ), ran.output
    tampered = SIGNED_LINE.replace(": 47 ", ": 48 ")
    ran = runner.invoke(cli, ["verify-roll", "--key", PUBLIC, tampered])
    assert ran.exit_code == 1
    assert ran.stderr == (
        "error: line 1 is not genuine: its signature does not verify: the line was changed "
        "after it was signed\n"
    )
    for bad, said in (
        (["verify-roll", "--key", "nonsense", SIGNED_LINE], "error: not a public key"),
        (["verify-roll", "--key", PUBLIC, "hello"], "error: not a roll line of the service's"),
        (["verify-roll", SIGNED_LINE], "error: --key is needed"),
        (["verify-roll", "--key", PUBLIC], "error: no LINE to check"),
    ):
        ran = runner.invoke(cli, bad)
        assert ran.exit_code == 2 and ran.stderr.startswith(said) and ran.stderr.count("\n") == 1, (
            bad,
            ran.output,
        )
    rask = {"dice": ["d100"], "faces": [20], "nonce": 0, "stream": "act:Rask"}
    token = PrivateKey.from_text(SECRET).sign_roll("b1", "Rask", rask)
    second = f"OnlineHost: Rask rolled 1 100-sided die: 20 (nonce 0) {token}"
    log = tmp_path / "spar.log"
    log.write_text(
        f"Spar between Tarl (CS 65) and Rask (CS 60)\n{SIGNED_LINE}\n{second}\n{tampered}\n"
    )
    ran = runner.invoke(cli, ["judge", str(log), "--key", str(key_file), "--json"])
    assert ran.exit_code == 1, ran.output
    anomalies = json.loads(ran.stdout)["anomalies"]
    assert [(a["line"], a["kind"]) for a in anomalies] == [(4, "forged")]
    assert "does not verify" in anomalies[0]["reason"]


def test_verify_roll_takes_the_key_answer_as_text_and_names_a_missing_key_file(
    tmp_path: Path,
) -> None:
    """The service's key answer pasted as text (a JSON line longer than a file name may be)
    is read as the key; a file name that names no file says so."""
    answer = json.dumps({"algorithm": "Ed25519", "public_key": PUBLIC, "pad": "x" * 300})
    ran = CliRunner().invoke(cli, ["verify-roll", "--key", answer, SIGNED_LINE])
    assert (ran.exit_code, ran.stdout) == (
        0,
        "line 1: genuine: signed by key 56475aa7 for bout SwCFNzvzuSKhoPDw\n",
    ), ran.output
    missing = tmp_path / "bout-b1.json"
    ran = CliRunner().invoke(cli, ["verify-roll", "--key", str(missing), SIGNED_LINE])
    assert (ran.exit_code, ran.stdout, ran.stderr) == (
        2,
        "",
        f"error: --key: cannot read {str(missing)!r}: No such file or directory\n",
    )
