"""The console's message line in Debian's Chromium: green is for what worked.

An action taken that did not work (a failed disarm) is not shown green, one that failed after
its dice were thrown is shown as an error, and an action's message is taken down once the
bout has ended after it (the page says the end instead).
"""

from __future__ import annotations

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
