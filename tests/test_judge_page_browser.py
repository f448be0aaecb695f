"""`referee judge --html`'s page in a real Chromium: the log as a numbered list that lays out
as the text report reads, with nothing loaded from anywhere."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.transcripts import judge_log
from referee.transcripts.html_report import html_page
from tests.browser_fixtures import browser, new_page, shoot  # noqa: F401

pytestmark = pytest.mark.browser

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "pakur-stun.log"


@pytest.fixture
def judged(browser: Any, tmp_path: Path) -> Iterator[Any]:  # noqa: F811
    out = tmp_path / "verdict.html"
    out.write_text(html_page(judge_log(EXAMPLE.read_bytes()), "Judged spar"), encoding="utf-8")
    page = new_page(browser)
    page.goto(out.as_uri())
    yield page
    page.context.close()


def test_each_line_is_an_item_numbered_as_its_line_and_one_line_high(judged: Any) -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    items = judged.evaluate(
        """() => [...document.querySelectorAll('ol.log > li')].map((li, i) => ({
            id: li.id, number: i + 1, text: li.firstChild ? li.firstChild.textContent : '',
            notes: [...li.querySelectorAll('p')].map(p => p.className + ' ' + p.textContent),
            height: li.getBoundingClientRect().height}))"""
    )
    assert [item["id"] for item in items] == [f"l{n}" for n in range(1, len(lines) + 1)]
    assert all(item["id"] == f"l{item['number']}" for item in items)  # the list's own number
    assert [item["text"].rstrip("\n") for item in items] == lines
    # the page source's line ends (one after each item) make no line of their own: each item
    # is as high with them taken out
    trimmed = judged.evaluate(
        """() => [...document.querySelectorAll('ol.log > li')].map(li => {
            const walker = document.createTreeWalker(li, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode())
                node.textContent = node.textContent.replace(/\\n+$/, '');
            return li.getBoundingClientRect().height; })"""
    )
    assert trimmed == [item["height"] for item in items]
    assert all(height < 100 for height in trimmed)
    nine = items[8]
    assert [note.rstrip("\n") for note in nine["notes"]] == [
        "bad ! out-of-turn: it is Tarl's free attack (MSV-4)"
    ]
    assert judged.locator("li.anomaly").count() == 2
    assert judged.locator("#l8").get_attribute("class") == "anomaly"
    shoot(judged, "judge-page")
    assert judged.outside_requests == [judged.url]  # the page itself: no asset, no script
    assert judged.js_errors == [] and judged.missing == []


def test_a_link_of_the_anomalies_brings_its_line_into_view(judged: Any) -> None:
    judged.set_viewport_size({"width": 800, "height": 300})
    judged.locator("ul.anomalies a", has_text="9").click()
    assert judged.evaluate("location.hash") == "#l9"
    top = judged.evaluate("document.getElementById('l9').getBoundingClientRect().top")
    assert 0 <= top < 300


def test_an_empty_line_is_an_item_as_high_as_a_line_of_text(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    log = (
        "OnlineHost: A rolled 1 100-sided die: 90\n\nA: hi\n   \n"
        "OnlineHost: B rolled 1 100-sided die: 30\n"
    )
    out = tmp_path / "blank.html"
    out.write_text(html_page(judge_log(log, ["A=50", "B=50"])), encoding="utf-8")
    page = new_page(browser)
    page.goto(out.as_uri())
    heights = page.evaluate(
        "() => [...document.querySelectorAll('ol.log > li')]"
        ".slice(1).map(li => li.getBoundingClientRect().height)"
    )
    page.context.close()
    assert len(heights) == 4  # empty, text, blanks, then a roll and its note: two lines
    assert heights[0] == heights[1] == heights[2] and heights[3] > heights[0]
