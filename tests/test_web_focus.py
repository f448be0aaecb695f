"""The keyboard's focus in Debian's Chromium: it stays on the action form through a bout.

After an action the action button is disabled until the fighter's next turn, and a refresh
redraws the map: either used to drop the focus to the page, so that getting back to *Attack*
took a walk of Tab presses from the top, longer with every line of the dice log (8 on the
first turn, 73 by the twelfth). These count the presses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import WAIT_MS, browser, clean, pages, web  # noqa: F401
from tests.service_fixtures import LiveServer
from tests.test_web_console import msv_bout
from tests.test_web_map import ford, open_map

pytestmark = pytest.mark.browser

#: Tarl's turns the spar is followed for.
TURNS = 12
#: Most Tab presses tried before giving up (the page has far fewer stops).
MOST_TABS = 400


def tabs_to(page: Any, element_id: str) -> int:
    """Tab presses until the focus is on `element_id` (0: it is there already)."""
    for presses in range(MOST_TABS):
        if page.evaluate("() => document.activeElement && document.activeElement.id") == element_id:
            return presses
        page.keyboard.press("Tab")
    pytest.fail(f"{MOST_TABS} Tab presses never reached #{element_id}")


def focused_on(page: Any) -> str:
    """Where the focus is: the page itself, the action form, the map, or which element."""
    return str(
        page.evaluate(
            """() => {
              const a = document.activeElement;
              if (!a || a === document.body) return "the page";
              if (a.closest('#act-form')) return "the action form";
              if (a.closest('#map')) return "the map";
              return a.id || a.tagName;
            }"""
        )
    )


def caught_up(page: Any, server: LiveServer, bid: str, token: str) -> None:
    """Wait until the page has been shown the bout's newest event (its newest hash)."""
    last = server.get(f"/api/bouts/{bid}/log", token).json()[-1]
    expect(page.locator("#kept-hash")).to_have_text(
        f"{last['seq']}:{last['hash']}", timeout=WAIT_MS
    )


def test_the_focus_stays_on_attack_from_turn_to_turn(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, ref, tokens = msv_bout(web, rules={"defeat_threshold": 100})  # a long spar
    assert web.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    page = pages()
    page.goto(f"{web.url}/static/fighter.html#bout={bid}&token={tokens['Tarl']}")
    submit = page.locator("#act-submit")
    presses: list[int] = []
    while len(presses) < TURNS:
        turn = web.get(f"/api/bouts/{bid}").json()["turn"]
        if turn != "Tarl":  # Pa-Kur's attack, from another door
            body = {"attacker": "Pa-Kur", "target": "Tarl"}
            assert web.post(f"/api/bouts/{bid}/attacks", tokens["Pa-Kur"], json=body).is_success
            continue
        caught_up(page, web, bid, tokens["Tarl"])
        expect(submit).to_be_enabled(timeout=WAIT_MS)
        presses.append(tabs_to(page, "act-submit"))
        # the attack's own answer waited for (the message box may still hold the last one's)
        with page.expect_response(
            lambda r: r.url.endswith("/attacks") and r.request.method == "POST", timeout=WAIT_MS
        ) as answer:
            page.keyboard.press("Enter")
        assert answer.value.ok
        caught_up(page, web, bid, tokens["Tarl"])
    # The first turn walks from the top of the page; every later one starts on the button.
    assert presses[0] > 0
    assert presses[1:] == [0] * (TURNS - 1), presses
    clean(page)


def test_a_keyboard_move_on_the_map_keeps_the_focus_on_the_action_form(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, ref, token = ford(web)
    page = pages()
    open_map(page, web, bid, token)
    page.select_option("#map-mode", "step")
    page.focus("#map .token[data-name='Tarl'] .body")
    page.keyboard.press("ArrowLeft")  # one square back, away from the pike
    with page.expect_response(lambda r: r.url.endswith("/actions")) as answer:
        page.keyboard.press("Enter")
    assert answer.value.ok
    caught_up(page, web, bid, token)
    assert focused_on(page) in ("the action form", "the map")
    # Pa-Kur acts; on Tarl's next turn the focus is still on the action form or the map.
    assert web.get(f"/api/bouts/{bid}").json()["turn"] == "Pa-Kur"
    body = {"actor": "Pa-Kur", "kind": "pass", "options": {}}
    assert web.post(f"/api/bouts/{bid}/actions", ref, json=body).is_success
    caught_up(page, web, bid, token)
    assert web.get(f"/api/bouts/{bid}").json()["turn"] == "Tarl"
    assert focused_on(page) in ("the action form", "the map")
    clean(page)
