"""The balance lab page in a real Chromium under the console's strict CSP, and its API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import browser, clean, pages, shoot, web  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser


def wait_version(page: Any, version: int) -> None:
    """Wait for the page's redraw number `version` (no eval: the page's CSP forbids it)."""
    expect(page.locator("#heat-map")).to_have_attribute("data-version", str(version))


def test_edit_a_formula_and_see_balance_move(pages: Callable[..., Any], web: LiveServer) -> None:  # noqa: F811
    page = pages()
    page.goto(f"{web.url}/static/lab.html")
    wait_version(page, 1)
    rows = page.locator("#ladder tr")
    expect(rows).to_have_count(5)
    expect(rows.first).to_have_text("CS 55 vs CS 50" + "0.638" + "2.76%")
    expect(page.locator("#compare table")).to_have_count(5)
    expect(page.locator("#compare table[data-stat='new-damage'] tbody tr").nth(2)).to_have_text(
        "this pack1.1001.3001.5001.7001.9002.100"
    )
    # It opens on who beats whom, with its axes and a colour scale (never a blank square).
    heat = page.locator("#heat-map svg")
    expect(heat.locator("rect title").first).to_have_text("CS 40 vs CS 40: 0.500")
    expect(heat.locator("text").filter(has_text="of the")).to_have_text(
        ["CS of the row's fighter", "CS of the column's fighter"]
    )
    legend = heat.locator("text").all_text_contents()[-2:]  # wrapped to the map's width
    assert " ".join(legend) == "colour: the row's fighter's chance to win the duel (0 to 1)"
    expect(page.locator("#heat-note")).to_contain_text("the chance that the fighter of the row")
    page.check("#show-change")
    expect(page.locator("#heat-note")).to_contain_text("No change yet: this is the text's own")
    page.fill("#f-damage", "min(5, ceil(roll / 12))")
    wait_version(page, 2)
    expect(page.locator("#heat-note")).to_contain_text("Blue: the row's fighter wins more often")
    expect(page.locator(".stale-note").first).to_be_hidden()
    expect(rows.first).to_have_text("CS 55 vs CS 50" + "0.632" + "2.64%")
    expect(page.locator("#compare table[data-stat='new-damage'] tbody tr").nth(2)).to_have_text(
        "this pack1.3001.5501.8002.0502.3002.550"
    )
    expect(page.locator("#heat-map svg rect title").first).to_have_text("CS 40 vs CS 40: 0.0000")
    shoot(page, "lab")
    page.fill("#f-damage", "min(5, ceil(rol / 12))")
    wait_version(page, 3)
    expect(page.locator("#e-damage")).to_have_text(
        "formula 'damage': unknown name 'rol' at column 13 in 'min(5, ceil(rol / 12))' "
        "(known: roll, cs, min, max, ceil, floor, abs)"
    )
    expect(page.locator("#f-damage").locator("xpath=..")).to_have_class("field bad")
    expect(rows.first).to_have_text("CS 55 vs CS 50" + "0.632" + "2.64%")  # the last good pack
    # ...marked as such: a note by each section and every figure framed as stale.
    expect(page.locator(".stale-note")).to_have_count(2)
    for note in page.locator(".stale-note").all():
        expect(note).to_be_visible()
    expect(page.locator(".figure[data-stale]")).to_have_count(3)
    shoot(page, "lab-stale")
    page.fill("#f-damage", "min(5, ceil(roll / 12))")
    wait_version(page, 4)
    expect(page.locator("#e-damage")).to_have_text("")
    expect(page.locator(".figure[data-stale]")).to_have_count(0)
    expect(page.locator(".stale-note").first).to_be_hidden()
    page.uncheck("#show-change")
    expect(page.locator("#heat-map svg rect title").first).to_have_text("CS 40 vs CS 40: 0.500")
    clean(page)


def test_the_lab_api_limits_work_per_request(web: LiveServer) -> None:  # noqa: F811
    long = web.post("/api/lab/analyse", json={"pack": {"damage": "1+" * 120 + "1"}})
    assert long.status_code == 413
    assert long.json() == {
        "error": "limit_exceeded",
        "message": "formula 'damage' is longer than 200 characters here",
    }
    wide = web.post("/api/lab/analyse", json={"pack": {}, "from": 0, "to": 100, "step": 1})
    assert (wide.status_code, wide.json()["message"]) == (
        413, "at most 41 CS values per request, got 101")  # fmt: skip
    bad = web.post("/api/lab/analyse", json={"pack": {"damage": "roll / 12"}})
    assert bad.status_code == 200
    assert bad.json() == {
        "ok": False,
        "errors": {
            "damage": "rule pack 'pack': formula 'damage' gave 1/12 at roll = 1, cs = 1: damage "
            "must be a whole number in 0..100 (round it with ceil or floor)"
        },
    }
    extra = web.post("/api/lab/analyse", json={"pack": {}, "oops": 1})
    assert extra.status_code == 422
    good = web.post("/api/lab/analyse", json={"pack": {"damage": "min(5, ceil(roll / 12))"},
                                              "from": 50, "to": 60, "step": 5})  # fmt: skip
    data = good.json()
    assert data["ok"] and data["skills"] == [50, 55, 60]
    assert data["change"][2][0] == -0.011333 or round(data["change"][2][0], 4) == -0.0113
    assert data["matrix_svg"].startswith("<svg") and "<script" not in data["matrix_svg"]


def test_a_pack_whose_duels_never_end_shows_dashes_not_a_broken_page(
    pages: Callable[..., Any],  # noqa: F811
    web: LiveServer,  # noqa: F811
) -> None:
    """`initiative = "0"`: every initiative roll ties, so no duel ever starts (MSV-5) and every
    ladder figure is null in the answer: the page shows "-" for each, throws nothing, and
    draws the next pack as usual."""
    page = pages()
    page.goto(f"{web.url}/static/lab.html")
    wait_version(page, 1)
    page.fill("#f-initiative", "0")
    wait_version(page, 2)
    rows = page.locator("#ladder tr")
    expect(rows).to_have_count(5)
    expect(rows.first).to_have_text("CS 55 vs CS 50" + "-" + "-")
    page.fill("#f-initiative", "")
    wait_version(page, 3)
    expect(rows.first).to_have_text("CS 55 vs CS 50" + "0.638" + "2.76%")
    clean(page)
