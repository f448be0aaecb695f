"""The "Judge a log" page with a format file beside the log, in a real Chromium."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import browser, clean, pages, web  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser

COMMUNITY = Path(__file__).resolve().parent / "data" / "format_files"


def test_open_a_format_file_beside_the_log(pages: Callable[..., Any], web: LiveServer) -> None:  # noqa: F811
    page = pages()
    page.goto(f"{web.url}/static/judge.html")
    page.fill("#log-text", (COMMUNITY / "dice-goblin.log").read_text(encoding="utf-8"))
    page.click("#judge")
    expect(page.locator("#message")).to_contain_text("the log is in no format the judge knows")
    page.click("#format-box summary")
    page.set_input_files("#format-file", str(COMMUNITY / "dice-goblin.toml"))
    expect(page.locator("#format-text")).to_have_value(
        (COMMUNITY / "dice-goblin.toml").read_text(encoding="utf-8")
    )
    expect(page.locator("#verdict")).to_have_text(
        "Not judged yet: the format file changed. Press Judge."
    )
    page.click("#judge")
    expect(page.locator("#verdict")).to_have_text(
        "Verdict: Tarl wins: Tarl dealt 18, Pa-Kur dealt 5; 9 attacks counted; 6 anomalies"
    )
    expect(page.locator("#judged-lines tr.anomaly")).to_have_count(6)
    expect(page.locator("#line-6 .note.bad")).to_have_text(
        "! forged: posted by 'Tarl', not by Dice Goblin"
    )
    # a mistake in the file: the service's message, naming the file and the key, no verdict
    page.fill("#format-text", page.input_value("#format-text").replace("words =", "word ="))
    page.click("#judge")
    expect(page.locator("#message")).to_contain_text(
        "format file 'pasted': [[roll]] 1 'dice-goblin': unknown key 'word'"
    )
    expect(page.locator("#verdict")).to_have_class("verdict bad")
    expect(page.locator("#judged-lines tr")).to_have_count(0)
    clean(page)
