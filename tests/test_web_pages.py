"""Every page of the console, with content on it, at desktop and at phone width (390 px) in
Debian's Chromium: nothing spills sideways off a phone (tables scroll inside their box or
reflow), axe-core (through axe-playwright-python) finds no serious or critical
accessibility violation, and the keyboard alone reaches every control: each Tab stop is
visible, named and shows a focus ring."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser_fixtures import DESKTOP, PHONE, browser, clean, pages, web  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "pakur-stun.log"
#: The impacts that fail the test (axe's four: minor, moderate, serious, critical).
FAILING = {"serious", "critical"}

#: Elements wider than the screen that are not inside a box that scrolls them.
SPILLS = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = (n) => {
    for (let p = n.parentElement; p; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX;
      if (x === "auto" || x === "scroll" || x === "hidden") return true;
    }
    return false;
  };
  return [...document.body.querySelectorAll("*")]
    .filter((n) => n.getBoundingClientRect().right > width + 0.5 && !scrolls(n))
    .map((n) => n.tagName.toLowerCase() + (n.id ? "#" + n.id : "")
      + "." + (n.getAttribute("class") || ""))
    .slice(0, 12);
}"""


#: Where the focus is after a Tab: what it is, whether it shows, its name and its focus ring.
FOCUSED = """() => {
  const n = document.activeElement;
  if (!n || n === document.body) return null;
  const s = getComputedStyle(n);
  const r = n.getBoundingClientRect();
  const label = n.labels && n.labels.length ? n.labels[0].textContent : "";
  const name = n.getAttribute("aria-label") || label || n.textContent || n.title || n.value || "";
  // Chromium paints no outline on an SVG shape: the page draws a ring beside it instead.
  const drawn = n.nextElementSibling && n.nextElementSibling.classList.contains("focus-ring")
    && getComputedStyle(n.nextElementSibling).display !== "none";
  const ring = (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0)
    || s.boxShadow !== "none" || Boolean(drawn);
  const what = n.tagName.toLowerCase() + (n.id ? "#" + n.id : "");
  return { what, seen: r.width > 0 && r.height > 0, named: name.trim() !== "", ring };
}"""
#: Tab stops walked on each page (more than any page has before the focus comes round).
TABS = 80


def keyboard_problems(page: Any, name: str) -> list[str]:
    """Tab through the page from its top: every stop must show, have a name and a ring."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    problems, stops = [], 0
    for _ in range(TABS):
        page.keyboard.press("Tab")
        now = page.evaluate(FOCUSED)
        if now is None:
            break  # round to the browser's own controls: every stop of the page was seen
        stops += 1
        for check in ("seen", "named", "ring"):
            if not now[check]:
                problems.append(f"{name}: Tab stop {stops} ({now['what']}) is not {check}")
    if stops == 0:
        problems.append(f"{name}: Tab reaches nothing")
    return problems


def msv_closed(server: LiveServer) -> dict[str, str]:
    r = server.post("/api/bouts", json={"system": "msv", "name": "Spar at the Tarn Cot"})
    bid, ref = r.json()["id"], r.json()["referee_token"]
    for name, cs, side in (("Tarl", 65, "Ko-ro-ba"), ("Pa-Kur", 70, "Assassins")):
        body = {"name": name, "cs": cs, "side": side}
        assert server.post(f"/api/bouts/{bid}/fighters", ref, json=body).status_code == 201
    assert server.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    for _ in range(200):
        view = server.get(f"/api/bouts/{bid}").json()
        if view["status"] != "running":
            break
        target = next(f["name"] for f in view["fighters"] if f["name"] != view["turn"])
        body = {"attacker": view["turn"], "target": target}
        assert server.post(f"/api/bouts/{bid}/attacks", ref, json=body).status_code == 200
    server.post(f"/api/bouts/{bid}/rolls", ref, json={"dice": "2d20+1d6"})
    assert server.post(f"/api/bouts/{bid}/close", ref).status_code == 200
    return {"id": bid, "ref": ref}


def srp_running(server: LiveServer) -> dict[str, str]:
    r = server.post("/api/bouts", json={"system": "srp", "name": "Skirmish at the ford"})
    bid, ref = r.json()["id"], r.json()["referee_token"]
    tokens = {}
    for name, x, facing, weapon, reach in (
        ("Tarl", 0, 0, "broadsword", 150),
        ("Pa-Kur", 300, 180, "pike", 450),
    ):
        sheet = {
            "hits": 12,
            "weapons": [{"name": weapon, "damage": 3, "reach_cm": reach}],
            "skills": {weapon: 15},
            "defense": 12,
            "shield": "(6)",
            "armor": 2,
            "x_cm": x,
            "y_cm": 0,
            "facing": facing,
        }
        body = {"name": name, "sheet": sheet, "hidden": ["armor"]}
        made = server.post(f"/api/bouts/{bid}/fighters", ref, json=body)
        assert made.status_code == 201, made.text
        tokens[name] = made.json()["token"]
    assert server.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    return {"id": bid, "ref": ref, "fighter": next(iter(tokens.values()))}


@pytest.fixture
def bouts(web: LiveServer) -> Iterator[dict[str, dict[str, str]]]:  # noqa: F811
    open_ = web.post("/api/bouts", json={"system": "srp", "name": "Open to all"}).json()
    yield {"msv": msv_closed(web), "srp": srp_running(web), "open": {"id": open_["id"]}}


def visit(page: Any, url: str, bouts: dict[str, dict[str, str]]) -> Iterator[str]:
    """Open every page with content on it; yield each page's name once it is drawn."""
    msv, srp = bouts["msv"], bouts["srp"]
    goto = page.goto

    def fresh(address: str) -> None:  # another fragment alone would not load the page again
        goto("about:blank")
        goto(address)

    page.goto = fresh
    page.goto(url + "/")
    page.click("#create")
    page.wait_for_selector("#created:not([hidden])")
    page.locator("#invite-links summary").first.click()
    expect(page.locator("#my-bouts li")).to_have_count(1)
    yield "home, a bout started"
    page.click("#start-another")
    page.click("summary:has-text('Fairness and rules')")
    yield "home, the form"
    page.goto(f"{url}/static/referee.html#bout={msv['id']}&token={msv['ref']}")
    page.wait_for_selector("#log li.closed")
    yield "referee, MSV closed"
    page.goto(f"{url}/static/referee.html#bout={srp['id']}&token={srp['ref']}")
    page.wait_for_selector("#map svg .token", state="attached")
    page.wait_for_selector("#log li.initiative")
    for summary in page.locator("#main details > summary:visible").all():
        summary.click()
    yield "referee, SRP running"
    page.click("#do-cancel")
    expect(page.locator("dialog.confirm")).to_be_visible()
    yield "referee, a question before cancelling"
    page.keyboard.press("Escape")
    page.goto(f"{url}/static/fighter.html#bout={srp['id']}&token={srp['fighter']}")
    page.wait_for_selector("#map svg .token", state="attached")
    page.wait_for_selector("#log li.initiative")
    yield "fighter, SRP"
    page.goto(f"{url}/static/board.html#bout={msv['id']}")
    page.wait_for_selector("#scoreboard tr.defeated")
    yield "scoreboard"
    page.goto(f"{url}/static/join.html#bout={bouts['open']['id']}")
    page.wait_for_selector("#join-form:not([hidden])")
    page.click("summary:has-text('Fairness')")
    yield "join"
    page.goto(f"{url}/static/verify.html#bout={msv['id']}")
    page.wait_for_selector("#verdict.ok")
    yield "verify"
    page.goto(f"{url}/static/judge.html")
    page.fill("#log-text", EXAMPLE.read_text(encoding="utf-8"))
    page.click("#judge")
    page.wait_for_selector("#verdict.flagged")
    yield "judge"
    page.goto(f"{url}/static/lab.html")
    expect(page.locator("#heat-map")).to_have_attribute("data-version", "1")
    page.fill("#f-damage", "min(5, ceil(roll / 12))")
    expect(page.locator("#heat-map")).to_have_attribute("data-version", "2")
    yield "lab"
    page.fill("#f-damage", "min(5, ceil(rol / 12))")
    expect(page.locator("#heat-map")).to_have_attribute("data-version", "3")
    yield "lab, a formula error"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_page_fits_the_screen_and_passes_axe(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
    bouts: dict[str, dict[str, str]],
    viewport: dict[str, int],
) -> None:
    page = pages(viewport)
    axe = Axe()
    problems: list[str] = []
    seen = []
    for name in visit(page, web.url, bouts):
        seen.append(name)
        if viewport == PHONE:
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > PHONE["width"]:
                problems.append(f"{name}: {width} px wide: {page.evaluate(SPILLS)}")
        problems += keyboard_problems(page, name)
        results = axe.run(page)
        for violation in results.response["violations"]:
            if violation["impact"] in FAILING:
                targets = [", ".join(map(str, n["target"])) for n in violation["nodes"]][:6]
                problems.append(
                    f"{name}: {violation['id']} ({violation['impact']}): "
                    f"{violation['help']}: {targets}"
                )
    assert len(seen) == 12
    assert problems == [], "\n".join(problems)
    clean(page)
