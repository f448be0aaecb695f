"""The console as a judge watches a spar, in Debian's Chromium: whose turn it is (heading,
title, an optional sound), controls disabled with their reason, every log line's time, who
rolled what at initiative, copy buttons, links reissued from any tab, nothing left to press
after the close."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import WAIT_MS, browser, clean, pages, shoot, web  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser


def msv_bout(
    server: LiveServer, rules: dict[str, Any] | None = None
) -> tuple[str, str, dict[str, str]]:
    """An MSV bout of Tarl (CS 65) and Pa-Kur (CS 70), not begun: (id, referee token, tokens)."""
    body: dict[str, Any] = {"system": "msv", "name": "Judged spar"}
    if rules:
        body["rules"] = rules
    r = server.post("/api/bouts", json=body)
    bid, ref = r.json()["id"], r.json()["referee_token"]
    tokens = {}
    for name, cs in (("Tarl", 65), ("Pa-Kur", 70)):
        r = server.post(f"/api/bouts/{bid}/fighters", ref, json={"name": name, "cs": cs})
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["token"]
    return bid, ref, tokens


def link(server: LiveServer, page: str, bid: str, token: str | None = None) -> str:
    tail = f"&token={token}" if token else ""
    return f"{server.url}/static/{page}.html#bout={bid}{tail}"


def test_whose_turn_it_is_and_what_cannot_act_now(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, ref, tokens = msv_bout(web)
    views = {name: pages() for name in tokens}
    for name, page in views.items():
        page.goto(link(web, "fighter", bid, tokens[name]))
        page.wait_for_selector(f"#you:has-text('You are {name}.')")
        button = page.locator("#act-submit")
        expect(button).to_be_disabled()
        expect(button).to_have_attribute(
            "title", "Waiting for initiative: the referee rolls it first."
        )
    tarl = views["Tarl"]
    tarl.check("#sound-on")  # the fighter turns the sound on (and hears it once as a preview)
    expect(tarl.locator("body")).to_have_attribute("data-beeps", "1")
    assert web.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    first = web.get(f"/api/bouts/{bid}").json()["turn"]
    other = "Pa-Kur" if first == "Tarl" else "Tarl"
    mine, theirs = views[first], views[other]
    expect(mine).to_have_title("Your turn · Judged spar · fighter", timeout=WAIT_MS)
    expect(mine.locator("#title")).to_have_text("Your turn · Judged spar")
    expect(mine.locator("#turn-hint")).to_have_text("Your turn.")
    expect(mine.locator("#act-submit")).to_be_enabled()
    expect(mine.locator("#act-submit")).not_to_have_attribute("title", "")
    expect(theirs).to_have_title("Judged spar · fighter")
    expect(theirs.locator("#title")).to_have_text("Judged spar")
    expect(theirs.locator("#act-submit")).to_be_disabled()
    expect(theirs.locator("#act-submit")).to_have_attribute(
        "title", f"It is {first}'s turn, not yours."
    )
    if first == "Tarl":
        expect(tarl.locator("body")).to_have_attribute("data-beeps", "2")
    else:  # Tarl's turn comes after Pa-Kur's attack
        mine.click("#act-submit")
        expect(tarl).to_have_title("Your turn · Judged spar · fighter", timeout=WAIT_MS)
        expect(tarl.locator("body")).to_have_attribute("data-beeps", "2")

    referee = pages()
    referee.goto(link(web, "referee", bid, ref))
    referee.wait_for_selector("#log li.initiative")
    expect(referee.locator("#do-resume")).to_be_disabled()
    expect(referee.locator("#do-resume")).to_have_attribute(
        "title", "Only a paused bout can be resumed (it is running)."
    )
    expect(referee.locator("#do-pause")).to_be_enabled()
    referee.click("#do-pause")
    expect(referee.locator("#do-pause")).to_have_attribute(
        "title", "Only a running bout can be paused (it is paused).", timeout=WAIT_MS
    )
    expect(views[other].locator("#act-submit")).to_have_attribute("title", "The bout is paused.")
    referee.click("#do-resume")
    expect(referee.locator("#do-resume")).to_be_disabled(timeout=WAIT_MS)
    for page in (*views.values(), referee):
        clean(page)


def test_the_referee_closes_joining_from_the_console(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    """*Close joining* stores a `joining_closed` event: the join link goes, the button says why
    it cannot be pressed again, a join from the link is refused and the referee still adds."""
    bid, ref, _ = msv_bout(web)
    referee = pages()
    referee.goto(link(web, "referee", bid, ref))
    # The join link is written once the referee's buttons are wired: only then press one.
    expect(referee.locator("#join-url")).to_contain_text("join.html", timeout=WAIT_MS)
    expect(referee.locator("#join-box")).to_be_visible()
    expect(referee.locator("#do-close-joining")).to_be_enabled(timeout=WAIT_MS)
    referee.click("#do-close-joining")
    expect(referee.locator("#do-close-joining")).to_have_attribute(
        "title", "Joining is already closed.", timeout=WAIT_MS
    )
    expect(referee.locator("#do-close-joining")).to_be_disabled()
    expect(referee.locator("#join-box")).to_be_hidden()
    assert web.get(f"/api/bouts/{bid}").json()["joining_closed"] is True
    events = web.get(f"/api/bouts/{bid}/log").json()
    assert [e["type"] for e in events].count("joining_closed") == 1
    joined = web.post(f"/api/bouts/{bid}/join", json={"name": "Kamchak", "cs": 60})
    assert joined.status_code == 409 and "joining is closed" in joined.text, joined.text
    added = web.post(f"/api/bouts/{bid}/fighters", ref, json={"name": "Kamchak", "cs": 60})
    assert added.status_code == 201, added.text
    assert web.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    expect(referee.locator("#do-close-joining")).to_have_attribute(
        "title", "Joining closes before initiative (the bout is running).", timeout=WAIT_MS
    )
    clean(referee)


def test_log_lines_show_their_time_and_initiative_shows_who_rolled_what(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, ref, _ = msv_bout(web)
    assert web.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    events = web.get(f"/api/bouts/{bid}/log").json()
    page = pages()
    page.goto(link(web, "referee", bid, ref))
    page.wait_for_selector("#log li.initiative")
    items = page.locator("#log > li")
    expect(items).to_have_count(len(events))
    stamps = page.evaluate(
        """() => [...document.querySelectorAll('#log > li')].map((li) => {
             const t = li.querySelector(':scope > time');
             return t && [li.dataset.seq, t.getAttribute('datetime'), t.textContent, t.title,
               new Date(t.getAttribute('datetime')).toLocaleTimeString([],
                 {hour: '2-digit', minute: '2-digit', second: '2-digit'})];
           })"""
    )
    assert [s[:2] for s in stamps] == [[str(e["seq"]), e["at"]] for e in events]
    for _, at, shown, title, local in stamps:
        assert shown == local and title.endswith(f"({at})")
    settled = next(e for e in events if e["type"] == "initiative")
    rounds = settled["payload"]["detail"]["rounds"]
    expected = [
        f"{x['name']} rolled {x['roll']} (CS {x['cs']}) → effect {x['effect']}"
        for r in rounds
        for x in r["rolls"]
    ]
    shown = page.locator("#log li.initiative .init-roll").all_text_contents()
    assert shown == expected
    ties = [t for r in rounds for t in r["ties"]]
    expect(page.locator("#log li.initiative .tie")).to_have_count(len(ties))
    # Each initiative roll line names whose roll it was, in throw order.
    rollers = [x["name"] for r in rounds for x in r["rolls"]]
    labels = page.locator("#log li.roll .die").all_text_contents()
    assert labels[: len(rollers)] == [f"{n}'s initiative roll" for n in rollers]
    shoot(page, "referee-initiative")
    clean(page)


def test_copy_buttons_and_a_link_reissued_from_another_tab(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, ref, tokens = msv_bout(web)
    commitment = web.get(f"/api/bouts/{bid}").json()["commitment"]
    old = pages()
    old.goto(link(web, "fighter", bid, tokens["Tarl"]))
    old.wait_for_selector("#you:has-text('You are Tarl.')")
    referee = pages()  # a tab that did not create the bout: no invite links of its own
    referee.goto(link(web, "referee", bid, ref))
    referee.wait_for_selector(".fighter[data-name='Tarl']")
    expect(referee.locator("#invites li")).to_have_count(0)
    referee.click("button[aria-label='Copy the commitment']")
    expect(referee.locator("body")).to_have_attribute("data-copied", commitment)
    referee.click("button:has-text('New link for Tarl')")
    invite = referee.locator("#invites li[data-name='Tarl'] a.invite")
    expect(invite).to_have_count(1, timeout=WAIT_MS)
    url = invite.get_attribute("href")
    assert url and "token=" in url and tokens["Tarl"] not in url
    referee.click("#invites li[data-name='Tarl'] button.copy")
    expect(referee.locator("body")).to_have_attribute("data-copied", url)
    # The new link works; the old one is refused from now on.
    new = pages()
    new.goto(url)
    new.wait_for_selector("#you:has-text('You are Tarl.')")
    old.reload()
    expect(old.locator("#message")).to_have_text("unknown token", timeout=WAIT_MS)
    r = web.get(f"/api/bouts/{bid}", tokens["Tarl"])
    assert r.status_code == 401
    # Each log line copies as one chat line with its time.
    line = referee.locator("#log > li").first
    stamp = line.locator("time").text_content()
    line.locator("button.copy").click()
    # The copy is asynchronous: wait for the attribute to change from the link copied above.
    expect(referee.locator("body")).to_have_attribute(
        "data-copied", f'[{stamp}] #0 Bout "Judged spar" opened (msv)', timeout=WAIT_MS
    )
    old.js_errors.clear()  # the refused token's page reported it; nothing else went wrong
    for page in (referee, new):
        clean(page)


def test_after_the_close_nothing_can_change_the_bout(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, ref, tokens = msv_bout(web)
    assert web.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    referee, fighter = pages(), pages()
    referee.goto(link(web, "referee", bid, ref))
    fighter.goto(link(web, "fighter", bid, tokens["Tarl"]))
    referee.wait_for_selector("#log li.initiative")
    fighter.wait_for_selector("#log li.initiative")
    expect(referee.locator("#act-form")).to_be_visible()
    expect(referee.locator("button:has-text('Remove Tarl')")).to_be_visible()
    referee.click("#do-close")
    referee.click("dialog.confirm .confirm-yes")  # closing asks first
    for page in (referee, fighter):
        page.wait_for_selector("#log li.closed", timeout=WAIT_MS)
        expect(page.locator("body.bout-closed")).to_have_count(1, timeout=WAIT_MS)
    changing = [
        "#act-form",
        "#roll-form",
        "#powers",
        "#add-form",
        "#update-form",
        "button:has-text('Remove Tarl')",
        "button:has-text('New link for Tarl')",
    ]
    for selector in changing:
        expect(referee.locator(selector)).to_be_hidden()
    for selector in ("#act-form", "#roll-form", "#sound-on"):
        expect(fighter.locator(selector)).to_be_hidden()
    visible = referee.evaluate(
        """() => [...document.querySelectorAll('button, input, select, textarea')]
             .filter((n) => n.offsetParent !== null && !n.classList.contains('copy'))
             .map((n) => n.id || n.textContent)"""
    )
    assert visible == []
    shoot(referee, "referee-closed")
    for page in (referee, fighter):
        clean(page)
