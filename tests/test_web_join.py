"""The join page in a real browser: a referee's join link, a second person joining an open
MSV bout by itself with its own part of the client seed, landing on its fighter page; the
service's refusals shown with advice (bad name, bad seed part, 409 after initiative); an SRP
sheet entered on the same page. The token only ever travels in a fragment."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import PHONE, WAIT_MS, browser, clean, pages, shoot, web  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser

#: The referee's part of the client seed, and the joining fighter's own part.
REFEREE_PART = "table-7"
FIGHTER_PART = "my-own-42"


def open_bout(server: LiveServer, system: str = "msv") -> tuple[str, str]:
    """A bout made through the API with Tarl in it; returns (bout id, referee token)."""
    made = server.post(
        "/api/bouts",
        json={"system": system, "name": "Spar at the Tarn Cot", "client_seed": REFEREE_PART},
    )
    assert made.status_code == 201, made.text
    bout, token = made.json()["id"], made.json()["referee_token"]
    tarl = {"cs": 65} if system == "msv" else {"sheet": {"hits": 12}}
    added = server.post(f"/api/bouts/{bout}/fighters", token, json={"name": "Tarl", **tarl})
    assert added.status_code == 201, added.text
    return bout, token


def submit(page: Any) -> Any:
    """Press Join and return the service's answer to POST /join."""
    with page.expect_response(lambda r: r.url.endswith("/join")) as answer:
        page.click("#join-submit")
    return answer.value


def unlabelled(page: Any) -> list[str]:
    return list(
        page.evaluate(
            """() => [...document.querySelectorAll('input, select, textarea')]
                .filter((c) => !(c.id && document.querySelector(`label[for="${c.id}"]`)))
                .map((c) => c.outerHTML)"""
        )
    )


def test_a_fighter_joins_from_the_join_link_with_its_own_seed_part(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bout, referee_token = open_bout(web)
    referee = pages()
    referee.goto(f"{web.url}/static/referee.html#bout={bout}&token={referee_token}")
    join_url = f"{web.url}/static/join.html#bout={bout}"
    expect(referee.locator("#join-url")).to_have_text(join_url)
    assert referee.eval_on_selector("#join-link", "a => a.href") == join_url

    # A phone opens the link before initiative; it will try to join too late.
    late = pages(PHONE)
    late.goto(join_url)
    expect(late.locator("#status")).to_have_text("MSV · open")
    assert late.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    page = pages()
    page.goto(join_url)
    expect(page.locator("#title")).to_have_text("Join “Spar at the Tarn Cot”")
    expect(page.locator("#status")).to_have_text("MSV · open")
    expect(page.locator("#system-line")).to_have_text("Rule system: MSV (1d100 Combat Skill).")
    expect(page.locator("#already")).to_have_text("Already in: Tarl.")
    assert unlabelled(page) == []

    # The service's refusals, quoted, with what to do about them.
    page.fill("#join-name", "Tarl")
    assert submit(page).status == 409
    expect(page.locator("#message.error")).to_have_text(
        "there is already a fighter called 'Tarl'. Choose another name."
    )
    page.fill("#join-name", "system")
    assert submit(page).status == 400
    expect(page.locator("#message.error")).to_have_text("fighter name 'system' is reserved")
    page.fill("#join-name", "Pa-Kur")
    page.click("summary:has-text('Fairness')")
    page.fill("#join-seed", "a:b")
    assert submit(page).status == 400
    expect(page.locator("#message.error")).to_have_text(
        "client seed part 'a:b' must be 1 to 64 characters without ':'"
    )
    assert web.get(f"/api/bouts/{bout}").json()["client_seed"] == REFEREE_PART

    # By keyboard only: name, side, CS, the seed part, Enter.
    page.fill("#join-name", "")
    page.fill("#join-seed", "")
    page.focus("#join-name")
    page.keyboard.type("Pa-Kur")
    page.keyboard.press("Tab")
    page.keyboard.type("Assassins")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "join-cs"
    page.keyboard.press("Control+A")
    page.keyboard.type("70")
    page.focus("#join-seed")
    page.keyboard.type(FIGHTER_PART)
    expect(page.locator("#message")).to_be_hidden()  # editing cleared the last refusal
    expect(page.locator("#join-seed-now")).to_have_text(REFEREE_PART)
    shoot(page, "join")
    page.keyboard.press("Enter")

    page.wait_for_url(re.compile(rf"/static/fighter\.html#bout={bout}&token=[\w-]+$"))
    token = page.url.split("&token=")[1]
    expect(page.locator("#you")).to_have_text("You are Pa-Kur.")
    seed = f"{REFEREE_PART}:{FIGHTER_PART}"
    expect(page.locator("#fairness")).to_contain_text(f"client seed {seed}")
    view = web.get(f"/api/bouts/{bout}", token).json()
    assert view["client_seed"].endswith(f":{FIGHTER_PART}") and view["client_seed"] == seed
    assert view["you"] == "Pa-Kur"
    pakur = next(f for f in view["fighters"] if f["name"] == "Pa-Kur")
    assert (pakur["side"], pakur["stats"]) == ("Assassins", {"cs": 70})
    referee.wait_for_selector(".fighter[data-name='Pa-Kur']", timeout=WAIT_MS)

    # After initiative: the page opened earlier gets the service's 409, with advice...
    referee.click("#do-initiative")
    expect(referee.locator("#join-box")).to_be_hidden()
    late.fill("#join-name", "Latecomer")
    assert submit(late).status == 409
    expect(late.locator("#message.error")).to_have_text(
        "fighters may join only before initiative. The bout has begun: ask the referee to add "
        "you from the referee page."
    )
    expect(late.locator("#status")).to_have_text("MSV · running")
    expect(late.locator("#join-submit")).to_be_disabled()
    # ...and a page opened now says so at once.
    fresh = pages(PHONE)
    fresh.goto(join_url)
    expect(fresh.locator("#message.error")).to_have_text(
        "The bout is running: fighters may join only before initiative. Ask the referee to add "
        "you from the referee page."
    )
    expect(fresh.locator("#join-submit")).to_be_disabled()
    assert [f["name"] for f in web.get(f"/api/bouts/{bout}").json()["fighters"]] == [
        "Tarl",
        "Pa-Kur",
    ]
    for each in (referee, late, page, fresh):
        clean(each)


def test_the_join_page_takes_an_srp_sheet_and_explains_bad_links(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bout, _ = open_bout(web, "srp")
    page = pages(PHONE)
    page.goto(f"{web.url}/static/join.html#bout={bout}")
    expect(page.locator("#system-line")).to_have_text("Rule system: SRP (Simple Role Playing).")
    assert unlabelled(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.fill("#join-name", "Pa-Kur")
    page.fill("#join-codes", "Q")
    answer = submit(page)
    assert answer.status == 400, answer.text()
    expect(page.locator("#message.error")).to_have_text(
        "unknown weapon code 'Q' in stats of fighter.weapons[0].codes (expected D, E, G, S*, U)"
    )
    page.fill("#join-codes", "")
    page.fill("#join-hits", "14")
    page.fill("#join-weapon", "mace")
    page.select_option("#join-defend", "shield")
    page.fill("#join-shield", "medium")
    page.click("summary:has-text('Fairness')")
    page.click("#join-draw")  # drawn by the browser's own generator
    drawn = page.input_value("#join-seed")
    assert re.fullmatch(r"[0-9a-f]{16}", drawn), drawn
    page.click("#join-submit")
    page.wait_for_url(re.compile(r"/static/fighter\.html#bout=.+&token=[\w-]+$"))
    expect(page.locator("#you")).to_have_text("You are Pa-Kur.")
    stats = next(
        f["stats"]
        for f in web.get(f"/api/bouts/{bout}").json()["fighters"]
        if f["name"] == "Pa-Kur"
    )
    assert stats["hits"] == 14 and stats["shield"] == "(6)"  # SRP-11: a medium shield, 6 AP
    assert [w["name"] for w in stats["weapons"]] == ["mace"]
    assert web.get(f"/api/bouts/{bout}").json()["client_seed"] == f"{REFEREE_PART}:{drawn}"

    page.goto(f"{web.url}/static/join.html#bout=nope")
    expect(page.locator("#message.error")).to_have_text(
        "no bout 'nope'. The join link is wrong, or the bout was deleted: ask the referee for "
        "the link."
    )
    expect(page.locator("#join-form")).to_be_hidden()
    page.goto(f"{web.url}/static/join.html")
    expect(page.locator("#message.error")).to_contain_text("This page needs a bout")
    clean(page)
