"""What a browser keeps of a bout it was shown (static/js/witness.js), and the verifier page
holding an export to it, in a real Chromium: the commitment, the client seed (the newest one
shown) and the newest event hash, kept by every page that shows a bout. The operator's rewrite
(tests/attacks.py: the bout fought again under another referee part, every face and hash made
afresh) holds together by itself; a browser that was there rejects it, a browser that was not
cannot tell. And the verifier says which bout it checked, and when it is not the one asked for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from referee.bout.replay import check_export
from referee.ledger import verify_export
from tests.attacks import loser_wins, winner
from tests.browser_fixtures import browser, clean, pages, watched, web, web_on_each  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser

Doc = dict[str, Any]
#: The referee's part of the client seed, and the part of the fighter who joins by the API.
REFEREE_PART = "gm-1"
ORC_PART = "orc-3"

KEPT = "(id) => JSON.parse(localStorage.getItem(`referee-witness-${id}`))"


def new_bout(server: LiveServer, name: str = "Witnessed spar") -> tuple[str, str]:
    made = server.post(
        "/api/bouts", json={"system": "msv", "name": name, "client_seed": REFEREE_PART}
    )
    assert made.status_code == 201, made.text
    return made.json()["id"], made.json()["referee_token"]


def fight_and_close(server: LiveServer, bout: str, ref: str) -> Doc:
    """Initiative, attacks until the bout ends, the close; the export everyone gets."""
    assert server.post(f"/api/bouts/{bout}/initiative", ref).status_code == 200
    for _ in range(200):
        view = server.get(f"/api/bouts/{bout}").json()
        if view["status"] != "running":
            break
        actor = view["turn"]
        foe = next(f["name"] for f in view["fighters"] if f["name"] != actor)
        body = {"attacker": actor, "target": foe}
        assert server.post(f"/api/bouts/{bout}/attacks", ref, json=body).status_code == 200
    assert server.get(f"/api/bouts/{bout}").json()["status"] == "ended"
    assert server.post(f"/api/bouts/{bout}/close", ref).status_code == 200
    doc: Doc = server.get(f"/api/bouts/{bout}/export").json()
    return doc


def serve_instead(page: Any, bout: str, doc: Doc) -> re.Pattern[str]:
    """The page is given `doc` whenever it asks for bout `bout`'s export; returns the route's
    pattern (for `page.unroute`)."""
    body = json.dumps(doc, ensure_ascii=False)
    pattern = re.compile(rf"/api/bouts/{re.escape(bout)}/export$")
    page.route(
        pattern,
        lambda route: route.fulfill(status=200, content_type="application/json", body=body),
    )
    return pattern


def test_a_fresh_browser_that_joined_and_then_closed_its_tab_before_the_first_roll_rejects_the_rewrite(  # noqa: E501
    web_on_each: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    """On SQLite, then PostgreSQL."""
    web = web_on_each  # noqa: F811
    bout, ref = new_bout(web)
    # One browser: the join page, its own part of the client seed, the fighter page it lands on.
    page = pages()
    context = page.context
    page.goto(f"{web.url}/static/join.html#bout={bout}")
    expect(page.locator("#status")).to_have_text("MSV · open")
    part = page.input_value("#join-seed")
    assert re.fullmatch(r"[0-9a-f]{16}", part), part  # drawn by the page, not by the server
    page.fill("#join-name", "Tarl")
    page.fill("#join-cs", "60")
    page.click("#join-submit")
    page.wait_for_url(re.compile(rf"/static/fighter\.html#bout={bout}&token=[\w-]+$"))
    expect(page.locator("#you")).to_have_text("You are Tarl.")
    log = web.get(f"/api/bouts/{bout}/log").json()
    newest = log[-1]
    assert newest["type"] == "fighter_added" and not any(e["type"] == "roll" for e in log)
    # The page shows the newest event's hash once it has shown the event (and kept it).
    expect(page.locator("#kept-hash")).to_have_text(f"{newest['seq']}:{newest['hash']}")
    commitment = web.get(f"/api/bouts/{bout}").json()["commitment"]
    shown_seed = f"{REFEREE_PART}:{part}"
    assert page.evaluate(KEPT, bout) == {
        "commitment": commitment,
        "client_seed": shown_seed,
        "seq": newest["seq"],
        "hash": newest["hash"],
    }
    clean(page)
    page.close()  # the tab is closed before the first roll; the browser keeps what it saw

    # The rest through the API: a second fighter joins, the fight, the close.
    orc = {"name": "Orc", "cs": 70, "client_seed": ORC_PART}
    joined = web.post(f"/api/bouts/{bout}/join", json=orc)
    assert joined.status_code == 201, joined.text
    genuine = fight_and_close(web, bout, ref)
    assert genuine["fairness"]["client_seed"] == f"{shown_seed}:{ORC_PART}"
    # The operator's rewrite: the same bout id and commitment, the loser wins, and by itself it
    # verifies, rules included.
    forged = loser_wins(genuine)
    assert winner(forged) != winner(genuine)
    assert forged["bout"]["id"] == bout and forged["fairness"]["commitment"] == commitment
    assert verify_export(forged, replay=check_export).verdict == "verified"

    # The browser that was there, served the rewrite: not verified.
    seen = watched(context.new_page())
    serve_instead(seen, bout, forged)
    seen.goto(f"{web.url}/static/verify.html#bout={bout}")
    expect(seen.locator("#memory.bad")).to_have_text(
        "Does NOT match what this browser saw of this bout: the commitment is the one this "
        f"browser was shown ({commitment[:12]}…); the client seed "
        f"{forged['fairness']['client_seed']} is not the one this browser was shown "
        f"({shown_seed}, or it followed by more parts): the export was rewritten; event "
        f"{newest['seq']} has another hash than the one this browser saw: the export was "
        "rewritten."
    )
    expect(seen.locator("#message.error")).to_have_text(
        "The export does not match what this browser was shown of this bout: see the report."
    )
    expect(seen.locator("#verdict")).to_have_class("verdict bad")
    expect(seen.locator("#verdict")).to_have_text(
        re.compile(r"^Rejected: this export does not match what this browser was shown of this ")
    )
    expect(seen.locator(".verdict.ok")).to_have_count(0)
    expect(seen.locator("#checked")).to_have_text(
        f"Checked bout {bout} “Witnessed spar” (MSV), the bout asked for."
    )
    clean(seen)

    # The control: a browser that never saw the bout cannot tell the rewrite from the bout.
    fresh = pages()
    serve_instead(fresh, bout, forged)
    fresh.goto(f"{web.url}/static/verify.html#bout={bout}")
    expect(fresh.locator("#message.ok")).to_have_text("Verified.")
    expect(fresh.locator("#verdict.ok")).to_contain_text("Verified: ")
    expect(fresh.locator("#memory")).to_have_text(
        re.compile(r"^This browser kept nothing of this bout, so it cannot tell this export from ")
    )
    clean(fresh)

    # And the browser that was there, shown the genuine export: verified, and it matches.
    again = watched(context.new_page())
    again.goto(f"{web.url}/static/verify.html#bout={bout}")
    expect(again.locator("#message.ok")).to_have_text("Verified.")
    expect(again.locator("#verdict.ok")).to_contain_text("Verified: ")
    expect(again.locator("#memory.ok")).to_have_text(
        "Matches what this browser saw of this bout: the commitment is the one this browser was "
        f"shown ({commitment[:12]}…); the client seed {genuine['fairness']['client_seed']} is "
        f"the one this browser was shown ({shown_seed}) with the parts of fighters who joined "
        f"after; event {newest['seq']}, the last this browser saw, is in it with the hash it had."
    )
    clean(again)


def test_the_verifier_warns_when_the_export_is_of_another_bout_than_the_one_asked_for(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    asked, asked_ref = new_bout(web, "The bout you mean")
    other, other_ref = new_bout(web, "Another bout")
    for bout, ref in ((asked, asked_ref), (other, other_ref)):
        for name, cs in (("Tarl", 60), ("Orc", 70)):
            added = web.post(f"/api/bouts/{bout}/fighters", ref, json={"name": name, "cs": cs})
            assert added.status_code == 201, added.text
    genuine = fight_and_close(web, asked, asked_ref)
    elsewhere = fight_and_close(web, other, other_ref)
    assert verify_export(elsewhere).verdict == "verified"

    # Fetched: the service (or whoever stands between) answers with another bout's export.
    page = pages()
    route = serve_instead(page, asked, elsewhere)
    page.goto(f"{web.url}/static/verify.html#bout={asked}")
    expect(page.locator("#checked")).to_have_text(
        f"Checked bout {other} “Another bout” (MSV): NOT bout {asked}, the bout asked for."
    )
    expect(page.locator("#checked")).to_have_class("verdict bad")
    expect(page.locator("#verdict")).to_have_class("verdict bad")
    expect(page.locator("#verdict")).to_have_text(
        f"Not the bout asked for: this export is of bout {other} “Another bout”, not of bout "
        f"{asked}. By itself it holds together ({len(elsewhere['events'])} events, "
        f"{sum(e['type'] == 'roll' for e in elsewhere['events'])} rolls, 1 seed(s), ending with "
        "the close), as an export rewritten whole does."
    )
    expect(page.locator("#message.error")).to_have_text(
        f"This export is of another bout (bout {other} “Another bout”) than the one asked for "
        f"(bout {asked}): it says nothing of bout {asked}."
    )
    expect(page.locator(".verdict.ok")).to_have_count(0)

    # Pasted (or opened) on the page of bout `asked`: the same warning.
    page.unroute(route)
    page.fill("#export-text", json.dumps(elsewhere, ensure_ascii=False))
    page.click("#paste-form button[type=submit]")
    expect(page.locator("#checked")).to_have_text(
        f"Checked bout {other} “Another bout” (MSV): NOT bout {asked}, the bout asked for."
    )
    expect(page.locator("#verdict")).to_have_text(re.compile(r"^Not the bout asked for: "))
    expect(page.locator(".verdict.ok")).to_have_count(0)
    # The bout's own export, pasted there: verified, and named.
    page.fill("#export-text", json.dumps(genuine, ensure_ascii=False))
    page.click("#paste-form button[type=submit]")
    expect(page.locator("#message.ok")).to_have_text("Verified.")
    expect(page.locator("#checked")).to_have_text(
        f"Checked bout {asked} “The bout you mean” (MSV), the bout asked for."
    )
    # The address names another bout: the page fetches that one, and holds pastes to it.
    page.evaluate("(id) => { location.hash = `#bout=${id}`; }", other)
    expect(page.locator("#checked")).to_have_text(
        f"Checked bout {other} “Another bout” (MSV), the bout asked for."
    )
    expect(page.locator("#message.ok")).to_have_text("Verified.")
    page.fill("#export-text", json.dumps(genuine, ensure_ascii=False))
    page.click("#paste-form button[type=submit]")
    expect(page.locator("#checked")).to_have_text(
        f"Checked bout {asked} “The bout you mean” (MSV): NOT bout {other}, the bout asked for."
    )
    # With no bout in its address, the page names the bout it checked and asks nothing of it.
    plain = pages()
    plain.goto(f"{web.url}/static/verify.html")
    plain.fill("#export-text", json.dumps(elsewhere, ensure_ascii=False))
    plain.click("#paste-form button[type=submit]")
    expect(plain.locator("#message.ok")).to_have_text("Verified.")
    expect(plain.locator("#checked")).to_have_text(f"Checked bout {other} “Another bout” (MSV).")
    for shown in (page, plain):
        clean(shown)


def test_every_page_that_shows_a_bout_keeps_its_commitment_client_seed_and_newest_hash(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    """The board (no token), the referee page and the home page's "My bouts" each keep what
    they show; once a roll has fixed the client seed, the pages that saw it keep it fixed."""
    bout, ref = new_bout(web)
    added = web.post(
        f"/api/bouts/{bout}/fighters", ref, json={"name": "Tarl", "cs": 60, "client_seed": "t-1"}
    )
    assert added.status_code == 201, added.text
    commitment = web.get(f"/api/bouts/{bout}").json()["commitment"]
    board = pages()
    board.goto(f"{web.url}/static/board.html#bout={bout}")
    newest = web.get(f"/api/bouts/{bout}/log").json()[-1]
    expect(board.locator("#kept-hash")).to_have_text(f"{newest['seq']}:{newest['hash']}")
    assert board.evaluate(KEPT, bout) == {
        "commitment": commitment,
        "client_seed": f"{REFEREE_PART}:t-1",
        "seq": newest["seq"],
        "hash": newest["hash"],
    }
    # Another fighter, then initiative: the first roll fixes the client seed.
    body = {"name": "Orc", "cs": 70, "client_seed": ORC_PART}
    orc = web.post(f"/api/bouts/{bout}/fighters", ref, json=body)
    assert orc.status_code == 201, orc.text
    assert web.post(f"/api/bouts/{bout}/initiative", ref).status_code == 200
    newest = web.get(f"/api/bouts/{bout}/log").json()[-1]
    whole = f"{REFEREE_PART}:t-1:{ORC_PART}"
    referee = pages()
    referee.goto(f"{web.url}/static/referee.html#bout={bout}&token={ref}")
    for shown in (board, referee):
        expect(shown.locator("#kept-hash")).to_have_text(f"{newest['seq']}:{newest['hash']}")
        assert shown.evaluate(KEPT, bout) == {
            "commitment": commitment,
            "client_seed": whole,
            "client_seed_fixed": True,
            "seq": newest["seq"],
            "hash": newest["hash"],
        }
    # The home page asks the service where each bout of "My bouts" stands: it keeps what the
    # answer shows (no event, so no hash).
    home = pages()
    home.goto(f"{web.url}/")
    entry = {"id": bout, "role": "referee", "fighter": None, "token": ref, "system": "msv"}
    home.evaluate("(e) => localStorage.setItem('referee-my-bouts', JSON.stringify([e]))", entry)
    home.reload()
    expect(home.locator(f".my-bout[data-id='{bout}'] .my-state")).to_contain_text("running")
    assert home.evaluate(KEPT, bout) == {"commitment": commitment, "client_seed": whole}
    for shown in (board, referee, home):
        clean(shown)
