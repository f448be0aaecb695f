"""The in-browser verifier against the Python one, on real exports of a real service.

Every tampered export must be rejected in the browser with exactly the problems
`referee.ledger.verify_export` finds (same order, same words), so the first one names the
same event ("event 7 (roll): ..."). The JavaScript SHA-256 / HMAC / dice code is checked
against Python's hashlib / hmac / `verifiable_faces` (CONTEXT.md, verifiable rolls).
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from referee.ledger.canonical import event_hash
from referee.ledger.verify import verify_export
from referee.rng import verifiable_faces
from tests.browser_fixtures import PHONE, browser, clean, pages, shoot, web  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser

Doc = dict[str, Any]
#: A fighter whose name needs UTF-8 and a non-BMP character in the canonical JSON.
UNICODE_NAME = "Ærnir 🗡 of Tor"

JS_VERIFY = """async (doc) => {
  try {
    const r = await window.refereeVerify.verifyExport(doc);
    return {ok: r.ok, problems: r.problems.map(String), rolls: r.rows.length};
  } catch (err) {
    return {error: err.message};
  }
}"""


def spar_export(server: LiveServer) -> Doc:
    """A closed MSV spar with a seed rotation, a free roll and a non-ASCII fighter."""
    bout = server.post(
        "/api/bouts", json={"system": "msv", "name": "Verify me", "client_seed": "t"}
    )
    bout_id, token = bout.json()["id"], bout.json()["referee_token"]
    for name, cs in ((UNICODE_NAME, 60), ("Pa-Kur", 70)):
        r = server.post(f"/api/bouts/{bout_id}/fighters", token, json={"name": name, "cs": cs})
        assert r.status_code == 201, r.text
    assert server.post(f"/api/bouts/{bout_id}/initiative", token).status_code == 200
    for action in range(200):
        view = server.get(f"/api/bouts/{bout_id}").json()
        if view["status"] != "running":
            break
        if action == 3:
            assert server.post(f"/api/bouts/{bout_id}/rotate-seed", token).status_code == 200
            server.post(f"/api/bouts/{bout_id}/rolls", token, json={"dice": "3d6"})
        actor = view["turn"]
        target = next(f["name"] for f in view["fighters"] if f["name"] != actor)
        r = server.post(
            f"/api/bouts/{bout_id}/attacks", token, json={"attacker": actor, "target": target}
        )
        assert r.status_code == 200, r.text
    assert server.post(f"/api/bouts/{bout_id}/close", token).status_code == 200
    doc: Doc = server.get(f"/api/bouts/{bout_id}/export").json()
    assert doc["fairness"].get("rotations"), "the export should list the rotated seed"
    return doc


def rechain(doc: Doc, start: int) -> None:
    """Re-link and re-hash the events from position `start`: a forger's repair of the chain."""
    events = doc["events"]
    for i in range(start, len(events)):
        if i > 0:
            events[i]["prev"] = events[i - 1]["hash"]
        events[i]["hash"] = event_hash(events[i])


def first_of(doc: Doc, kind: str, after: int = 0) -> int:
    return next(i for i, e in enumerate(doc["events"]) if e["type"] == kind and i >= after)


def change_face(doc: Doc, forge: bool = False) -> None:
    i = first_of(doc, "roll", 6)
    faces = doc["events"][i]["payload"]["faces"]
    faces[0] = faces[0] % 100 + 1
    if forge:
        rechain(doc, i)


def change_summary(doc: Doc) -> None:
    doc["events"][first_of(doc, "outcome", 8)]["payload"]["summary"] += " (edited)"


def change_nonce(doc: Doc) -> None:
    i = first_of(doc, "roll", 10)
    doc["events"][i]["payload"]["nonce"] += 1
    rechain(doc, i)


def drop_event(doc: Doc) -> None:
    del doc["events"][5]


def swap_events(doc: Doc) -> None:
    events = doc["events"]
    events[6], events[7] = events[7], events[6]


def wrong_seed(doc: Doc) -> None:
    doc["fairness"]["server_seed"] = hashlib.sha256(b"another seed").hexdigest()


def wrong_client_seed(doc: Doc) -> None:
    doc["fairness"]["client_seed"] += "x"


def bad_time(doc: Doc) -> None:
    doc["events"][2]["at"] = "2026-13-01T00:00:00Z"


def bad_rotation(doc: Doc) -> None:
    i = first_of(doc, "seed_rotated")
    doc["events"][i]["payload"]["next_commitment"] = "0" * 64
    rechain(doc, i)


def no_seed_yet(doc: Doc) -> None:
    """The export as it was before the close: the bout still open, its last seed not revealed."""
    doc["events"] = [e for e in doc["events"] if e["type"] != "closed"]
    doc["fairness"]["rotations"][0]["server_seed"] = None
    doc["bout"]["status"] = "open"


def cut_short(doc: Doc) -> None:
    doc["events"] = doc["events"][: len(doc["events"]) // 2]


def header_edit(doc: Doc) -> None:
    doc["bout"]["name"] = "Not the bout you watched"


TAMPERS: dict[str, Callable[[Doc], None]] = {
    "untouched": lambda doc: None,
    "face": change_face,
    "forged face": lambda doc: change_face(doc, forge=True),
    "summary": change_summary,
    "nonce": change_nonce,
    "dropped": drop_event,
    "swapped": swap_events,
    "server seed": wrong_seed,
    "client seed": wrong_client_seed,
    "time": bad_time,
    "rotation": bad_rotation,
    "unrevealed": no_seed_yet,
    "cut short": cut_short,
    "header": header_edit,
}


def test_the_browser_verifier_agrees_with_python_on_every_tampering(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    export = spar_export(web)
    page = pages()
    page.goto(web.url + "/static/verify.html")
    page.wait_for_function("window.refereeVerify !== undefined")
    for name, tamper in TAMPERS.items():
        doc = copy.deepcopy(export)
        tamper(doc)
        python = verify_export(doc)
        js = page.evaluate(JS_VERIFY, doc)
        assert js == {
            "ok": python.ok,
            "problems": [str(p) for p in python.problems],
            "rolls": python.rolls,
        }, name
        assert python.ok == (name == "untouched"), name
    assert page.evaluate(JS_VERIFY, {"events": 3}) == {
        "error": "not a referee export: 'bout' is missing or not a dict "
        "(expected bout, fairness and events)"
    }
    clean(page)


def test_a_tampered_export_is_rejected_naming_the_first_bad_event(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    export = spar_export(web)
    page = pages()
    page.goto(web.url + "/static/verify.html")

    face = copy.deepcopy(export)
    change_face(face)
    seq = face["events"][first_of(face, "roll", 6)]["seq"]
    page.fill("#export-text", json.dumps(face, ensure_ascii=False))
    page.click("#paste-form button[type=submit]")
    expect(page.locator("#verdict.bad")).to_have_text(
        f"Rejected: event {seq} (roll): hash does not match the event (someone changed it)"
    )

    forged = copy.deepcopy(export)
    change_face(forged, forge=True)
    first = verify_export(forged).first
    assert first is not None and first.check == "faces"
    page.fill("#export-text", json.dumps(forged, ensure_ascii=False))
    page.click("#paste-form button[type=submit]")
    expect(page.locator("#verdict.bad")).to_have_text(f"Rejected: {first}")
    expect(page.locator("#rolls tr.bad")).to_have_count(1)

    summary = copy.deepcopy(export)
    change_summary(summary)
    seq = summary["events"][first_of(summary, "outcome", 8)]["seq"]
    page.fill("#export-text", "")
    page.set_input_files(
        "#export-file",
        files=[
            {
                "name": "tampered.json",
                "mimeType": "application/json",
                "buffer": json.dumps(summary).encode(),
            }
        ],
    )
    page.click("#paste-form button[type=submit]")
    expect(page.locator("#verdict.bad")).to_have_text(
        f"Rejected: event {seq} (outcome): hash does not match the event (someone changed it)"
    )
    shoot(page, "verify-tampered")
    page.set_input_files("#export-file", files=[])
    early = copy.deepcopy(export)
    no_seed_yet(early)
    page.fill("#export-text", json.dumps(early))
    page.click("#paste-form button[type=submit]")
    report = verify_export(early, partial=True)
    assert report.verdict == "partial"
    seq, kind = report.last
    unchecked = sum(
        1 for e in early["events"][first_of(early, "seed_rotated") :] if e["type"] == "roll"
    )
    expect(page.locator("#verdict.pending")).to_have_text(
        f"Partial: {report.events} events, {report.rolls} rolls, 2 seed(s), verified up to event "
        f"{seq} ({kind}); the export does not end with the close (the bout is still going, or "
        f"the export was cut short). Not checked yet: {unchecked} roll(s) under a server seed "
        "not revealed yet are not checked (until the seed is revealed)."
    )
    page.set_input_files("#export-file", files=[])
    huge = copy.deepcopy(export)
    huge["events"][3]["payload"]["big"] = 2**64
    rechain(huge, 3)
    assert verify_export(huge).ok
    page.fill("#export-text", json.dumps(huge))
    page.click("#paste-form button[type=submit]")
    expect(page.locator("#verdict.pending")).to_have_text(
        "Cannot verify here: this export holds 1 integer(s) beyond 2^53, which a browser cannot "
        "read exactly, so it cannot be verified here: check it with `referee verify FILE`"
    )
    page.set_input_files("#export-file", files=[])
    page.fill("#export-text", "{not json")
    page.click("#paste-form button[type=submit]")
    expect(page.locator("#message.error")).to_contain_text("the export is not valid JSON")
    clean(page)


FACE_CASES = [
    ("00" * 32, "table", 0, [20, 20, 6]),
    ("ab" * 32, "t:Ærnir 🗡", 7, [100]),
    ("0f" * 32, "x", 3, [6] * 20),  # more than 8 words: cursor 1 and 2
    ("5a" * 32, "x", 1, [2**31 + 1] * 6),  # about half the words rejected
    ("c3" * 32, "x", 2, [2**32, 2**32 - 1, 3, 1]),
]


#: Keys that sort differently by UTF-16 unit and by code point (Python sorts by code point),
#: escapes, a non-BMP character.
MIXED = {"é": [1, "🗡\n\x01"], "a": None, "Z": True, "\ud7ff": 0, "\ue000": 1, "😀": 2, "ﬀ": 3}


@pytest.mark.parametrize("pure", [False, True], ids=["webcrypto", "pure-js"])
def test_js_hashes_and_faces_match_python(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
    pure: bool,
) -> None:
    page = pages()
    page.goto(web.url + "/static/verify.html")
    texts = ["", "abc", "a" * 55, "b" * 56, "c" * 64, "d" * 119, "Ærnir 🗡 é" * 9]
    keys = ["k", "key", "s" * 63, "s" * 64, "s" * 65, "é" * 40, "00" * 32]  # <, =, > a block
    got = page.evaluate(
        """async ([texts, keys, cases, pure, mixed]) => {
          const c = await import("/static/js/canon.js");
          const sha = [];
          for (const t of texts) sha.push(await c.sha256Hex(t, {pure}));
          const macs = [];
          for (const [i, t] of texts.entries()) {
            const mac = await c.hmacFor(keys[i], {pure});
            macs.push(c.toHex(await mac(t)));
          }
          const faces = [];
          for (const [seed, client, nonce, sides] of cases) {
            faces.push(await c.facesOf(await c.hmacFor(seed, {pure}), client, nonce, sides));
          }
          return {sha, macs, faces, canon: c.canonicalText(mixed)};
        }""",
        [texts, keys, FACE_CASES, pure, MIXED],
    )
    assert got["sha"] == [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    assert got["macs"] == [
        hmac.new(k.encode(), t.encode(), "sha256").hexdigest()
        for k, t in zip(keys, texts, strict=True)
    ]
    assert got["faces"] == [list(verifiable_faces(*case)) for case in FACE_CASES]
    assert got["canon"] == json.dumps(
        MIXED, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    clean(page)


#: Every how-many-th stored vector the browser itself runs (Node runs all of them).
SAMPLE_EVERY = 6

JS_VERIFY_TEXT = """async ([text, partial]) => {
  try {
    const r = await window.refereeVerify.verifyExportText(text, {partial});
    return {verdict: r.verdict, problems: r.problems.map(String), rulings: r.rulings.map(String)};
  } catch (err) {
    return {error: err.constructor.name, message: err.message};
  }
}"""


def test_the_browser_agrees_with_python_on_a_sample_of_the_stored_vectors(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    from tests.test_ledger_vectors import python_judge
    from tests.vectors.generate import Vector, stored

    page = pages()
    page.goto(web.url + "/static/verify.html")
    page.wait_for_function("window.refereeVerify !== undefined")
    sample = [Vector(**v) for v in stored()[::SAMPLE_EVERY]]
    assert len(sample) >= 30
    for vector in sample:
        python = python_judge(vector)
        js = page.evaluate(JS_VERIFY_TEXT, [vector.text, vector.partial])
        if "error" in python:
            assert js["error"] == "NotAnExport", vector.name
        elif python.get("unsafe"):
            assert js["error"] == "CannotVerifyHere", vector.name
        else:
            wanted = {k: python[k] for k in ("verdict", "problems", "rulings")}
            assert js == wanted, f"{vector.name}:\n{vector.text}"
    clean(page)


def test_the_verifier_checks_an_export_against_what_this_browser_saw(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    """A rewrite from another seed (every face and hash recomputed) verifies by itself; the
    commitment and the last event hash a player's browser kept while the bout went on show it,
    and the verifier page checks them without being asked."""
    from tests.vectors.generate import stored

    text = next(v["text"] for v in stored() if v["name"] == "valid closed export")
    doc = json.loads(text)
    bout, last = doc["bout"]["id"], doc["events"][-1]
    page = pages()
    page.goto(web.url + "/static/verify.html")

    def kept(memory: dict[str, Any]) -> None:
        page.evaluate(
            "([key, value]) => localStorage.setItem(key, value)",
            [f"referee-witness-{bout}", json.dumps(memory)],
        )
        page.fill("#export-text", text)
        page.click("#paste-form button[type=submit]")

    kept({"commitment": doc["fairness"]["commitment"], "seq": last["seq"], "hash": last["hash"]})
    expect(page.locator("#verdict.ok")).to_be_visible()
    expect(page.locator("#memory.ok")).to_contain_text("Matches what this browser saw")

    other = "ab" * 32
    kept({"commitment": other, "seq": last["seq"], "hash": other})
    # The chain holds by itself, but not what this browser saw: no green verdict for it.
    expect(page.locator("#verdict.bad")).to_have_text(
        "Rejected: this export does not match what this browser was shown of this bout (see "
        f"below). By itself it holds together ({len(doc['events'])} events, "
        f"{sum(e['type'] == 'roll' for e in doc['events'])} rolls, 1 seed(s), ending with the "
        "close), as an export rewritten whole does."
    )
    expect(page.locator("#memory.bad")).to_have_text(
        "Does NOT match what this browser saw of this bout: the commitment "
        f"{doc['fairness']['commitment'][:12]}… is not the one this browser was shown "
        f"(abababababab…): the export was rewritten from another seed; event {last['seq']} has "
        "another hash than the one this browser saw: the export was rewritten."
    )
    expect(page.locator("#message.error")).to_contain_text("does not match what this browser")

    kept({"seq": last["seq"] + 5, "hash": other})
    expect(page.locator("#memory.bad")).to_contain_text(
        f"event {last['seq'] + 5}, which this browser saw, is not in it: the export was cut"
    )

    # The client seed this browser was shown: the export's, or it followed by more parts
    # (fighters who joined after); not another; once this browser saw it fixed, only itself.
    seed = doc["fairness"]["client_seed"]
    referee_part = seed.split(":")[0]
    kept({"client_seed": referee_part})
    expect(page.locator("#memory.ok")).to_have_text(
        f"Matches what this browser saw of this bout: the client seed {seed} is the one this "
        f"browser was shown ({referee_part}) with the parts of fighters who joined after."
    )
    kept({"client_seed": "forged"})
    expect(page.locator("#memory.bad")).to_have_text(
        f"Does NOT match what this browser saw of this bout: the client seed {seed} is not the "
        "one this browser was shown (forged, or it followed by more parts): the export was "
        "rewritten."
    )
    kept({"client_seed": referee_part, "client_seed_fixed": True})
    expect(page.locator("#memory.bad")).to_have_text(
        f"Does NOT match what this browser saw of this bout: the client seed {seed} is not the "
        f"one this browser was shown when the first roll fixed it ({referee_part}): the export "
        "was rewritten."
    )
    kept({"client_seed": seed, "client_seed_fixed": True})
    expect(page.locator("#memory.ok")).to_have_text(
        "Matches what this browser saw of this bout: the client seed is the one this browser "
        f"was shown ({seed})."
    )
    clean(page)


def test_on_a_phone_each_rolls_check_is_on_screen(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    """At 390 px the rolls' table scrolls sideways; its verdict column comes first after the
    event, so every row's check is in view without scrolling."""
    export = spar_export(web)
    page = pages(PHONE)
    page.goto(web.url + "/static/verify.html")
    page.fill("#export-text", json.dumps(export, ensure_ascii=False))
    page.click("#paste-form button[type=submit]")
    expect(page.locator("#verdict.ok")).to_be_visible()
    header = page.locator("table.rolls thead th").nth(1)
    expect(header).to_have_text("Check")
    width = page.evaluate("() => document.documentElement.clientWidth")
    cells = page.locator("#rolls tr td:first-of-type")
    assert cells.count() > 0
    for box in [cells.nth(i).bounding_box() for i in range(cells.count())]:
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert set(cells.all_text_contents()) == {"✓ ok"}
    clean(page)
