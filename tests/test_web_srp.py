"""An SRP exchange in a real browser: sheets entered on the home page, an attack met by a
shield defense (SRP-7 shield column, SRP-11), its explanation on the other fighter's page,
the map (SRP-14, SRP-15), and the referee's override shown beside the original (SRP-20)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import WAIT_MS, browser, clean, pages, shoot, web  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser


def fill_srp_sheets(page: Any) -> None:
    page.select_option("#system", "srp")
    page.fill("#bout-name", "Skirmish at the ford")
    page.fill("#f1-skill", "16")
    page.fill("#f1-defense", "12")
    page.fill("#f2-weapon", "mace")
    page.fill("#f2-codes", "S*")
    page.fill("#f2-defense", "14")
    page.select_option("#f2-defend", "shield")
    page.fill("#f2-shield", "medium")
    page.fill("#f2-armor", "2")


def test_an_srp_exchange_with_a_shield_defense_and_a_referee_override(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    home = pages()
    home.goto(web.url + "/")
    fill_srp_sheets(home)
    home.click("#create")
    home.wait_for_selector("#created:not([hidden])")
    referee_link = home.get_attribute("#referee-link", "href")
    invites = {
        a.get_attribute("data-name"): a.get_attribute("href")
        for a in home.query_selector_all("#invite-links a.invite")
    }
    bout = referee_link.split("#bout=")[1].split("&")[0]
    pakur = web.get(f"/api/bouts/{bout}").json()["fighters"][1]
    assert pakur["stats"]["shield"] == "(6)"  # SRP-11: a medium shield, 6 AP
    assert pakur["stats"]["x_cm"] == 150 and pakur["stats"]["facing"] == 180

    referee = home
    referee.goto(referee_link)
    tarl, other = pages(), pages()
    tarl.goto(invites["Tarl"])
    other.goto(invites["Pa-Kur"])
    for page in (referee, tarl, other):
        expect(page.locator("#map svg g.token")).to_have_count(2)

    referee.click("#do-initiative")
    tarl.wait_for_selector("#act-form.your-turn", timeout=WAIT_MS)
    expect(tarl.locator("#act-kind option")).to_have_count(15)  # every SRP action
    expect(tarl.locator("#target-info")).to_have_text(
        "Pa-Kur defends with shield, shield (6), armor 2 AP."
    )
    # The defense and any modifier are not Tarl's to choose: Pa-Kur's sheet gives the shield,
    # and the fighter's page does not even offer the referee's terms; the referee's page does.
    for term in ("defend", "rear", "modifier"):
        expect(tarl.locator(f"#act-{term}")).to_have_count(0)
        expect(referee.locator(f"#act-{term}")).to_have_count(1)
    with tarl.expect_response(lambda r: r.url.endswith("/attacks")) as answer:
        tarl.click("#act-submit")
    result = answer.value.json()
    assert answer.value.status == 200, result
    assert result["defense"] == "shield" and result["effective_skill"] == 16
    seq = result["seq"]

    # The other fighter sees the outcome with every line of its explanation.
    line = other.locator(f"#log li.outcome[data-seq='{seq}']")
    expect(line).to_be_visible(timeout=WAIT_MS)
    expect(line.locator(".summary")).to_have_text(result["summary"])
    line.locator("summary").click()
    expect(line.locator(".explain li")).to_have_text(result["explanation"])

    # The referee overrides it: the original stays, the override shows beside it.
    referee.locator(f"#log li[data-seq='{seq}'] button:has-text('Override')").click()
    expect(referee.locator("#override-of")).to_have_value(str(seq))
    new_hits = result["hits"] + 2
    referee.fill("#override-w-Pa-Kur", str(new_hits))
    referee.fill("#override-note", "the shield strap broke")
    referee.click("#override-form button[type=submit]")
    for page in (referee, tarl, other):
        original = page.locator(f"#log li[data-seq='{seq}']")
        expect(original).to_have_class(re.compile(r"\boverridden\b"))
        expect(original.locator(".override-note")).to_have_text(
            re.compile(rf"overridden by #\d+: Pa-Kur {new_hits}$")
        )
        expect(page.locator("#log li.override")).to_contain_text(f"Event {seq} is overridden: ")
        expect(page.locator("#log li.override")).to_contain_text(
            f'→ Pa-Kur {new_hits} ("the shield strap broke")'
        )
        expect(page.locator(".fighter[data-name='Pa-Kur'] .bar-text")).to_have_text(
            f"{new_hits} / 12"
        )
    view = web.get(f"/api/bouts/{bout}").json()
    assert view["fighters"][1]["wounds"] == new_hits
    log = web.get(f"/api/bouts/{bout}/log").json()
    assert any(e["type"] == "outcome" and e["seq"] == seq for e in log)  # never replaced
    shoot(tarl, "srp")
    shoot(referee, "srp-referee")
    for page in (referee, tarl, other):
        clean(page)


def test_an_srp_error_from_the_service_is_shown_as_it_is(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    page = pages()
    page.goto(web.url + "/")
    fill_srp_sheets(page)
    page.fill("#f2-codes", "Q")
    page.click("#create")
    expect(page.locator("#message.error")).to_contain_text("'Q'")
    clean(page)
