"""The console from the keyboard and under failure, in Debian's Chromium, page by page.

The skip link moves the focus and keeps the address: it once put `#main` in place of the
fragment that holds a bout page's bout and token.

A control pressed from the keyboard that is then disabled, hidden or drawn again (Pause once
paused, Roll initiative once rolled, a fighter's card after Reveal or Remove, the fairness
line's copy button after any event, Start once the bout exists, a Forget) keeps the focus on
the page's controls: it once fell to the page itself, and the next Tab began from the top; it
is never handed to a fighter's Remove (it asks nothing: a second Enter removed a fighter). A
second press while the first is still being answered sends nothing: a double click on *Skip
turn* once skipped two turns, a second Enter on *Attack* sent a second attack (refused, its
red error put over the green answer), and on the characters page it made a second character
under a second key. An answer without the service's message (a proxy's error page) is said in
words, not shown as its HTML; bad input is refused before anything is sent.

Each press that could go twice is held in a route while the second press is made: nothing
here waits for time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import WAIT_MS, browser, clean, pages, web  # noqa: F401
from tests.service_fixtures import LiveServer
from tests.test_web_console import msv_bout
from tests.test_web_focus import caught_up

pytestmark = pytest.mark.browser

#: A proxy's answer when the service behind it is down: HTML, no message of the service's.
PROXY_PAGE = (
    "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway"
    "</h1></center><hr><center>nginx</center></body></html>"
)


class Held:
    """Every request of `method` to `path` (a regex) counted; the first ones held unanswered
    until `release()`, so that a second press is made while the first is still on its way."""

    def __init__(self, page: Any, method: str, path: str) -> None:
        self.page, self.method, self.path = page, method, re.compile(path)
        self.sent: list[str] = []
        self.waiting: list[Any] = []
        page.on("request", self._count)
        page.route(self.path, self._hold)

    def _count(self, request: Any) -> None:
        if request.method == self.method and self.path.search(request.url):
            self.sent.append(request.url)

    def _hold(self, route: Any) -> None:
        if route.request.method == self.method:
            self.waiting.append(route)
        else:
            route.fallback()

    def release(self) -> None:
        """Answer what was held; later requests go straight through (and are still counted)."""
        self.page.unroute(self.path, self._hold)
        for route in self.waiting:
            route.fallback()


def proxy_error(route: Any) -> None:
    route.fulfill(status=502, content_type="text/html", body=PROXY_PAGE)


def test_the_referees_controls_keep_the_focus_and_take_one_press_at_a_time(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, ref, _ = msv_bout(web)
    body = {"name": "Rask", "cs": 50, "hidden": ["cs"]}
    assert web.post(f"/api/bouts/{bid}/fighters", ref, json=body).status_code == 201
    page = pages()
    page.goto(f"{web.url}/static/referee.html#bout={bid}&token={ref}")
    expect(page.locator("#add-submit")).to_be_enabled()
    focused = page.locator("*:focus")

    # Roll initiative is hidden once rolled: the focus goes to the action form's button.
    page.focus("#do-initiative")
    page.keyboard.press("Enter")
    expect(page.locator("#act-submit")).to_be_focused()
    # Pause and Resume hand the focus to each other.
    page.focus("#do-pause")
    page.keyboard.press("Enter")
    expect(page.locator("#do-resume")).to_be_focused()
    page.keyboard.press("Space")
    expect(page.locator("#do-pause")).to_be_focused()

    # A double click on Skip turn skips one turn; a second Enter on Roll rolls once.
    turn = web.get(f"/api/bouts/{bid}").json()["turn"]
    skips = Held(page, "POST", r"/skip$")
    page.dblclick("#do-skip")
    skips.release()
    expect(page.locator("#message")).to_have_text("Turn skipped.")
    caught_up(page, web, bid, ref)
    assert len(skips.sent) == 1
    assert web.get(f"/api/bouts/{bid}").json()["turn"] != turn
    expect(page.locator("#do-skip")).to_be_focused()
    rolls = Held(page, "POST", r"/rolls$")
    page.focus("#roll-dice")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    rolls.release()
    expect(page.locator("#message")).to_contain_text("referee rolled 1d100")
    caught_up(page, web, bid, ref)
    assert len(rolls.sent) == 1
    page.fill("#roll-dice", "")  # nothing to roll: refused by the form, nothing sent
    page.keyboard.press("Enter")
    assert page.eval_on_selector("#roll-dice", "n => n.validity.valueMissing")
    assert len(rolls.sent) == 1

    # Stats that are not JSON: said so, naming the field, and nothing is sent.
    updates = Held(page, "PATCH", r"/fighters/[^/]+$")
    page.click("summary:has-text('Update a fighter')")
    page.fill("#update-stats", '{"cs": 70')
    page.click("#update-submit")
    expect(page.locator("#message")).to_contain_text("Stats to change: not valid JSON (")
    assert updates.sent == []
    updates.release()

    # The fairness line is drawn again on every event: its copy button keeps the focus.
    page.focus("#fairness button[aria-label='Copy the commitment']")
    assert web.post(f"/api/bouts/{bid}/rolls", ref, json={"dice": "1d6"}).status_code == 200
    caught_up(page, web, bid, ref)
    expect(focused).to_have_attribute("aria-label", "Copy the commitment")
    # A fighter's card drawn again after Reveal or Remove: the focus stays on the cards, and
    # never on a Remove, which asks nothing (it once went to the Remove where Reveal was, and
    # after a Remove to the next card's Remove: a second Enter removed a fighter).
    fighters = len(web.get(f"/api/bouts/{bid}").json()["fighters"])
    page.focus("#fighters button:has-text('Reveal Rask')")
    page.keyboard.press("Enter")
    expect(page.locator("#fighters button:has-text('Reveal Rask')")).to_have_count(0)
    expect(page.locator("#fighters article[data-name='Rask'] button:focus")).to_have_text(
        "New link for Rask"
    )
    page.focus("#fighters button:has-text('Remove Rask')")
    page.keyboard.press("Enter")
    expect(page.locator("#fighters article[data-name='Rask']")).to_have_count(0)
    next_card = page.locator("#fighters article button:focus")
    expect(next_card).to_have_text(re.compile("^New link for "))
    assert len(web.get(f"/api/bouts/{bid}").json()["fighters"]) == fighters - 1

    # Cancel asks first; Escape is no and gives the focus back; once cancelled, the focus is
    # on the next power that applies.
    page.focus("#do-cancel")
    page.keyboard.press("Enter")
    expect(page.locator("dialog.confirm .confirm-no")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("dialog.confirm")).to_have_count(0)
    expect(page.locator("#do-cancel")).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page.locator("#do-cancel")).to_be_disabled()
    expect(page.locator("#do-close")).to_be_focused()
    # Handing over spends this page's token: the new link has the focus, and the page follows
    # the bout on as anyone may (its reading with the spent token was refused: no more events
    # were shown, and the refusal was put over the answer as an error).
    page.focus("#do-handover")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    new_link = page.locator("#handover-link a")
    expect(new_link).to_be_focused()
    token = str(new_link.get_attribute("href")).rsplit("token=", 1)[1]
    assert web.get(f"/api/bouts/{bid}", ref).status_code == 401
    caught_up(page, web, bid, token)
    expect(page.locator("#message")).to_have_class("message ok")
    expect(page.locator("#fighters dd.hidden-stat")).to_have_count(0)
    expect(new_link).to_be_focused()
    clean(page)

    # The new referee closes the bout: every power goes, and the focus goes on to the log.
    address = str(new_link.get_attribute("href"))
    page.goto("about:blank")  # another fragment alone would not load the page again
    page.goto(address)
    expect(page.locator("#add-submit")).to_be_enabled()
    page.focus("#do-close")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector("#log li.closed")
    expect(page.locator("#powers")).to_be_hidden()
    expect(page.locator("#copy-chat")).to_be_focused()
    clean(page)


def test_the_fighter_sends_one_attack_a_press_and_a_proxys_error_is_said_in_words(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, ref, tokens = msv_bout(web)
    assert web.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    first = web.get(f"/api/bouts/{bid}").json()["turn"]
    page = pages()
    address = f"{web.url}/static/fighter.html#bout={bid}&token={tokens[first]}"
    page.goto(address)
    submit = page.locator("#act-submit")
    expect(submit).to_be_enabled()
    # The skip link moves the focus to the bout, and leaves the address (and its token) as it
    # was: it put #main in its place, and a reload then knew neither bout nor fighter.
    page.keyboard.press("Tab")
    expect(page.locator("a.skip-link")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#main")).to_be_focused(timeout=WAIT_MS)
    assert page.url == address
    # The page draws itself again on the next event (the other fighter's free roll): the focus
    # stays where the skip link put it (the bout's part, out of the Tab order, taken for a
    # focus lost to the page, went on to the first control after it).
    other = next(name for name in tokens if name != first)
    roll = {"dice": "1d6", "actor": other}
    assert web.post(f"/api/bouts/{bid}/rolls", tokens[other], json=roll).status_code == 200
    caught_up(page, web, bid, tokens[first])
    expect(page.locator("#main")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#sound-on")).to_be_focused()
    # The message box, the page's live region, is there before any message (hidden, it came
    # into the page with its text: not announced by every screen reader).
    message = page.locator("#message")
    expect(page.get_by_role("status").and_(message)).to_have_count(1)
    expect(message).to_be_empty()
    attacks = Held(page, "POST", r"/attacks$")
    submit.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    attacks.release()
    expect(message).to_have_class("message ok")
    caught_up(page, web, bid, tokens[first])
    expect(submit).to_be_disabled()  # the other fighter's turn now
    assert len(attacks.sent) == 1
    expect(message).to_have_class("message ok")  # no "out of turn" over the answer
    expect(message).to_contain_text(f"{first} attacks")

    # The service behind a proxy is down: the proxy's page is not shown as the message.
    page.route(re.compile(r"/rolls$"), proxy_error)
    page.focus("#roll-dice")
    page.keyboard.press("Enter")
    expect(message).to_have_text(
        "the service answered HTTP 502 Bad Gateway with no message of its own (it may be down"
        " or restarting): reload the page in a moment to see where things stand"
    )
    expect(message).to_have_attribute("aria-live", "assertive")  # an error: at once
    expect(message).to_have_attribute("role", "status")  # the same region (not made anew)
    expect(page.locator("#roll-dice")).to_be_focused()
    # The form is still there to use once the service is back.
    page.unroute(re.compile(r"/rolls$"), proxy_error)
    page.keyboard.press("Enter")
    expect(message).to_have_class("message ok")
    expect(message).to_contain_text(f"{first} rolled 1d100")
    expect(message).to_have_attribute("aria-live", "polite")
    clean(page)


def test_the_home_and_join_pages_keep_the_focus_through_their_answers(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    page = pages()
    page.goto(f"{web.url}/")
    expect(page.locator("#f2-name")).to_be_visible()
    # A row added is ready to type in; a row removed leaves the focus beside it.
    page.focus("#add-row")
    page.keyboard.press("Enter")
    expect(page.locator("#f3-name")).to_be_focused()
    page.focus("button:has-text('Remove fighter 3')")
    page.keyboard.press("Enter")
    expect(page.locator("#add-row")).to_be_focused()
    # The proxy's error page while starting: said in words, Start usable and focused again.
    made = re.compile(r"/api/bouts$")
    page.route(made, proxy_error)
    page.focus("#create")
    page.keyboard.press("Enter")
    expect(page.locator("#message")).to_contain_text("HTTP 502 Bad Gateway with no message")
    expect(page.locator("#message")).not_to_contain_text("<")
    expect(page.locator("#create")).to_be_focused()
    page.unroute(made, proxy_error)
    # Started: Start stays disabled, and the focus is on the bout's links.
    page.keyboard.press("Enter")
    expect(page.locator("#created-h")).to_be_focused()
    # My bouts is drawn again once the page has asked where each bout stands: a Forget button
    # the keyboard reached before that keeps the focus.
    bout = str(page.locator("#my-bouts li").get_attribute("data-id"))
    token = str(page.get_attribute("#referee-link", "href")).rsplit("token=", 1)[1]
    assert web.post(f"/api/bouts/{bout}/initiative", token).status_code == 200
    states = Held(page, "GET", rf"/api/bouts/{re.escape(bout)}$")
    page.goto("about:blank")
    page.goto(f"{web.url}/")
    forget = page.locator("#my-bouts button:has-text('Forget')")
    forget.focus()
    states.release()
    expect(page.locator("#my-bouts .my-state")).to_contain_text("running: round 1")
    expect(forget).to_be_focused()
    # Forget, from the keyboard: the list is gone, the focus is on the form.
    page.focus("#my-bouts button:has-text('Forget')")
    page.keyboard.press("Enter")
    expect(page.locator("#mine")).to_be_hidden()
    expect(page.locator("#system")).to_be_focused()
    clean(page)

    # The join page: Join is disabled while it is sent; a failure gives the focus back to it.
    open_ = web.post("/api/bouts", json={"system": "msv", "name": "Open"}).json()
    joiner = pages()
    joiner.goto(f"{web.url}/static/join.html#bout={open_['id']}")
    expect(joiner.locator("#join-form")).to_be_visible()
    joiner.fill("#join-name", "Rask")
    joiner.route(re.compile(r"/join$"), lambda route: route.abort())
    joiner.focus("#join-submit")
    joiner.keyboard.press("Enter")
    expect(joiner.locator("#message")).to_contain_text("the service cannot be reached")
    expect(joiner.locator("#join-submit")).to_be_focused()
    clean(joiner)


def test_the_characters_page_saves_once_and_refuses_bad_input_before_sending(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    page = pages()
    page.goto(f"{web.url}/static/characters.html")
    expect(page.locator("#status")).to_contain_text("No key yet")
    # Two Enters on the first character: one character, under one key (this browser's).
    saves = Held(page, "POST", r"/api/characters$")
    page.fill("#char-name", "Tarl")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    saves.release()
    expect(page.locator("#message")).to_have_text(
        "Saved Tarl, version 1. This browser keeps your new key."
    )
    expect(page.locator("#status")).to_have_text("Your key holds 1 character(s).")
    expect(page.locator("#characters li")).to_have_count(1)
    assert len(saves.sent) == 1

    # A Combat Skill left empty is refused here (it was saved as CS 0).
    page.fill("#char-name", "Rask")
    page.fill("#char-cs", "")
    page.click("#char-submit")
    expect(page.locator("#message")).to_have_text(
        "Combat Skill: give a whole number from 0 to 100."
    )
    expect(page.locator("#char-cs")).to_be_focused()
    assert len(saves.sent) == 1

    # *change* when the character cannot be read: said (it was an uncaught error).
    reading = re.compile(r"/api/characters/[^/]+$")
    page.route(reading, lambda route: route.abort())
    page.click("#characters button:has-text('change')")
    expect(page.locator("#message")).to_have_text(
        "Tarl could not be read to change it: the service cannot be reached (Failed to fetch)"
    )
    page.unroute(reading)
    # and when it can: the form holds it, and the focus is in the form.
    page.focus("#characters button:has-text('change')")
    page.keyboard.press("Enter")
    expect(page.locator("#form-h")).to_have_text("Change Tarl (its next version)")
    expect(page.locator("#char-name")).to_be_focused()

    # A link that names no bout is refused before anything is sent.
    joins = Held(page, "POST", r"/characters$")
    page.fill("#join-link", "http://example.invalid/static/join.html#bout=../../x")
    page.click("#join-submit")
    expect(page.locator("#message")).to_have_text(
        "That is not a bout's join link (…/join.html#bout=ID) nor a bout's id."
    )
    assert joins.sent == []
    clean(page)
