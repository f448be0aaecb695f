"""Spirit combat in the console, in Debian's Chromium (SRP-17): each fighter's page fights a
round with the `spirit` action, and after every round both pages show both sides' PM, in the
log line and on the fighter cards, exactly as the recorded dice give them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import WAIT_MS, browser, clean, pages, shoot, web  # noqa: F401
from tests.service_fixtures import LiveServer
from tests.test_srp_spirit_bout import pm_oracle

pytestmark = pytest.mark.browser


def test_a_spirit_exchange_shows_both_sides_pm_round_by_round(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    r = web.post("/api/bouts", json={"system": "srp", "name": "Haunting", "client_seed": "web"})
    bid, ref = r.json()["id"], r.json()["referee_token"]
    tokens = {}
    spirit = {"Andrea": 5, "Ghost": 4}
    pm = {"Andrea": 5, "Ghost": 3}
    for name in ("Andrea", "Ghost"):
        sheet = {"hits": 10, "spirit": spirit[name], "pm": pm[name]}
        r = web.post(f"/api/bouts/{bid}/fighters", ref, json={"name": name, "sheet": sheet})
        tokens[name] = r.json()["token"]
    views = {name: pages() for name in tokens}
    for name, page in views.items():
        page.goto(f"{web.url}/static/fighter.html#bout={bid}&token={tokens[name]}")
        page.wait_for_selector(f"#you:has-text('You are {name}.')")
        # A fighter with a Spirit shows its PM on its card from the start.
        for who in tokens:
            card = page.locator(f".fighter[data-name='{who}'] dd[data-stat='pm']")
            expect(card).to_have_text(str(pm[who]), timeout=WAIT_MS)
    assert web.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200

    rounds = 0
    while rounds < 6 and min(pm.values()) > 0:
        actor = web.get(f"/api/bouts/{bid}").json()["turn"]
        target = "Ghost" if actor == "Andrea" else "Andrea"
        page = views[actor]
        page.wait_for_selector("#act-form.your-turn", timeout=WAIT_MS)
        page.select_option("#act-kind", "spirit")
        expect(page.locator("#act-submit")).to_have_text("Do spirit")
        page.select_option("#act-target", target)
        with page.expect_response(lambda r: r.url.endswith("/actions")) as answer:
            page.click("#act-submit")
        body = answer.value.json()
        assert answer.value.status == 200, body
        faces = [f for roll in body["rolls"] for f in roll["faces"]]
        pm[actor], pm[target] = pm_oracle(
            (spirit[actor], pm[actor], 0), (spirit[target], pm[target]), faces
        )
        line = f"PM now: {actor} {pm[actor]} | {target} {pm[target]}"
        for view in views.values():
            summary = view.locator(f"#log li.outcome[data-seq='{body['seq']}'] .summary")
            expect(summary).to_contain_text(line, timeout=WAIT_MS)
            for who in tokens:
                card = view.locator(f".fighter[data-name='{who}'] dd[data-stat='pm']")
                expect(card).to_have_text(str(pm[who]), timeout=WAIT_MS)
        rounds += 1
    assert rounds >= 2
    final = web.get(f"/api/bouts/{bid}").json()
    assert {f["name"]: f["stats"]["pm"] for f in final["fighters"]} == pm
    shoot(views["Andrea"], "spirit")
