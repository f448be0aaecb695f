"""The console's message line in Debian's Chromium: green is for what worked.

An action taken that did not work (a failed disarm) is not shown green, one that failed after
its dice were thrown is shown as an error, and an action's message is taken down once the
bout has ended after it (the page says the end instead). The act and add buttons wait for the
page to have read the bout.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import WAIT_MS, browser, clean, pages, web  # noqa: F401
from tests.service_fixtures import LiveServer
from tests.test_web_console import msv_bout

pytestmark = pytest.mark.browser


def test_an_action_that_did_not_work_is_not_green(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    page = pages()
    page.goto(f"{web.url}/static/verify.html")
    tones = page.evaluate(
        """async () => {
          const { answerTone } = await import('/static/js/ui.js');
          return [
            answerTone({ summary: 'Tarl hits', hit: true }),
            answerTone({ action: 'disarm', worked: true }),
            answerTone({ action: 'disarm', worked: false }),
            answerTone({ step: 2, freed: false }),
            answerTone({ failed: 'the rules could not settle it' }),
            answerTone(null),
          ];
        }"""
    )
    assert tones == ["ok", "ok", "info", "info", "error", "error"]
    clean(page)


def test_an_actions_message_is_taken_down_when_the_bout_ends_after_it(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, ref, tokens = msv_bout(web)
    assert web.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    first = web.get(f"/api/bouts/{bid}").json()["turn"]
    page = pages()
    page.goto(f"{web.url}/static/fighter.html#bout={bid}&token={tokens[first]}")
    expect(page.locator("#act-submit")).to_be_enabled(timeout=WAIT_MS)
    page.click("#act-submit")
    message = page.locator("#message")
    expect(message).to_have_class("message ok", timeout=WAIT_MS)
    expect(message).to_contain_text(first)
    # The referee ends the bout from another door: the action's message goes, the end is said.
    assert web.post(f"/api/bouts/{bid}/end", ref, json={"reason": "time"}).status_code == 200
    expect(message).to_be_hidden(timeout=WAIT_MS)
    expect(page.locator("#turn-hint")).not_to_contain_text("turn", timeout=WAIT_MS)
    clean(page)


def test_the_forms_wait_for_the_bouts_rule_system_before_they_can_be_sent(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    """Until the page has read the bout (and so its rule system and its forms' fields), the
    act, add and update buttons are disabled: a click on them then once threw "Cannot read
    properties of null" and sent nothing. Here the bout's reading is refused until an event
    comes after it is let through."""
    bid, ref, _ = msv_bout(web)
    assert web.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    page = pages()
    refused = re.compile(rf"/api/bouts/{re.escape(bid)}$")
    page.route(
        refused,
        lambda route: route.fulfill(
            status=503,
            content_type="application/json",
            body=json.dumps({"error": "unavailable", "message": "held back by the test"}),
        ),
    )
    page.goto(f"{web.url}/static/referee.html#bout={bid}&token={ref}")
    expect(page.locator("#message")).to_contain_text("held back by the test", timeout=WAIT_MS)
    expect(page.locator("#act-submit")).to_be_disabled()
    expect(page.locator("#add-submit")).to_be_disabled()
    expect(page.locator("#update-submit")).to_be_disabled()
    page.unroute(refused)
    # an event after it: the page reads the bout again, builds its forms and opens them
    assert web.post(f"/api/bouts/{bid}/rolls", ref, json={"dice": "1d6"}).status_code == 200
    expect(page.locator("#add-submit")).to_be_enabled(timeout=WAIT_MS)
    expect(page.locator("#update-submit")).to_be_enabled()
    expect(page.locator("#act-submit")).to_be_enabled(timeout=WAIT_MS)
    page.click("#act-submit")
    expect(page.locator("#message")).to_have_class("message ok", timeout=WAIT_MS)
