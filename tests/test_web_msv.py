"""A whole MSV spar in a real browser: created on the home page, fought from three pages
(the referee and two fighters, each in its own browser context), watched live, closed and
verified in the browser. Rulings: MSV-4 (critical chains shown as free attacks), MSV-6/7."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from referee.bout import commands as c
from referee.bout.runner import BoutRunner
from referee.ledger.verify import verify_export
from referee.rng import Entropy, VerifiableStreams
from tests.browser_fixtures import PHONE, WAIT_MS, browser, clean, pages, shoot, web  # noqa: F401
from tests.seeds import fixed
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser

#: Bound on the actions of the spar (MSV-7: 15 damage ends it long before this).
MAX_ACTIONS = 80


#: The server seed the service draws in these tests, so that the spar is known in advance.
SERVER_SEED = "5e" * 32


@pytest.fixture
def entropy() -> Entropy:
    """The service of these tests draws SERVER_SEED (the client seeds are given)."""
    return fixed(SERVER_SEED)


#: A client seed whose spar has a critical chain of two free attacks in a row (found by
#: trying table-0, table-1, ... with `spar`).
CHAIN_SEED = "table-74"
#: What the console draws for each fighter's part of the client seed once the test has made
#: the browser's generator give bytes 1, 8, 15, ... (`BROWSER_DICE`): randomness passed in.
BROWSER_PART = bytes((i * 7 + 1) & 255 for i in range(8)).hex()
BROWSER_DICE = (
    "crypto.getRandomValues = (a) => { for (let i = 0; i < a.length; i++) a[i] = (i * 7 + 1) & 255;"
    " return a; };"
)


def spar(client_seed: str) -> BoutRunner:
    """Tarl (65) vs Pa-Kur (70) played out by the bout engine from SERVER_SEED and the seed."""
    dice = VerifiableStreams(SERVER_SEED, client_seed, lambda stream: 0)  # the service's scheme
    bout = BoutRunner.open("msv", "spar", rng=dice)
    bout.run(c.AddFighter("Tarl", {"cs": 65}, "Ko-ro-ba"))
    bout.run(c.AddFighter("Pa-Kur", {"cs": 70}, "Assassins"))
    bout.run(c.RollInitiative())
    bout.play_out()
    return bout


def chain_lengths(bout: BoutRunner) -> list[int]:
    """The free attacks in a row after each critical (MSV-4), per chain."""
    chains: list[int] = []
    run = 0
    for event in bout.events:
        if event.type == "outcome":
            if event.payload.get("free"):
                run += 1
            elif run:
                chains.append(run)
                run = 0
    return [*chains, run] if run else chains


def create_on_home(page: Any, url: str, client_seed: str) -> dict[str, Any]:
    page.goto(url + "/")
    page.select_option("#system", "msv")
    page.fill("#bout-name", "Spar at the Tarn Cot")
    page.click("summary:has-text('Fairness and rules')")
    page.fill("#client-seed", client_seed)
    assert page.input_value("#f1-name") == "Tarl"
    page.fill("#f2-cs", "70")
    shoot(page, "home")
    page.click("#create")
    page.wait_for_selector("#created:not([hidden])")
    invites = {
        a.get_attribute("data-name"): a.get_attribute("href")
        for a in page.query_selector_all("#invite-links a.invite")
    }
    return {
        "referee": page.get_attribute("#referee-link", "href"),
        "board": page.get_attribute("#board-link", "href"),
        "verify": page.get_attribute("#verify-link", "href"),
        "invites": invites,
        "commitment": page.text_content("#commitment"),
    }


def bout_id(link: str) -> str:
    return link.split("#bout=")[1].split("&")[0]


def act(page: Any, watcher: Any, keyboard: bool = False) -> dict[str, Any]:
    """Press Attack on `page`; the roll must then appear on `watcher` (an event wait: how fast
    it arrives is measured in benchmarks/, not asserted here)."""
    with page.expect_response(lambda r: r.url.endswith("/attacks")) as answer:
        if keyboard:
            page.focus("#act-submit")
            page.keyboard.press("Enter")
        else:
            page.click("#act-submit")
    body = answer.value.json()
    assert answer.value.status == 200, body
    roll = next(e["seq"] for e in body["events"] if e["type"] == "roll")
    watcher.wait_for_selector(f"#log li.roll[data-seq='{roll}']", timeout=WAIT_MS)
    return dict(body)


def test_a_whole_msv_spar_from_the_home_page_to_verification(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    # The referee's part, then each fighter's part, drawn by the console after the commitment.
    client_seed = f"{CHAIN_SEED}:{BROWSER_PART}:{BROWSER_PART}"
    expected = spar(client_seed)
    assert max(chain_lengths(expected)) >= 2
    home = pages()
    home.add_init_script(BROWSER_DICE)
    links = create_on_home(home, web.url, CHAIN_SEED)
    bout = bout_id(links["referee"])
    assert web.get(f"/api/bouts/{bout}").json()["client_seed"] == client_seed
    assert set(links["invites"]) == {"Tarl", "Pa-Kur"}
    assert "token=" in links["referee"].split("#")[1] and "?" not in links["referee"]
    assert web.get(f"/api/bouts/{bout}").json()["commitment"] == links["commitment"]

    referee = home  # the referee page opens in the tab that created the bout
    referee.goto(links["referee"])
    fighters: dict[str, Any] = {}
    for name in ("Tarl", "Pa-Kur"):
        fighters[name] = pages()
        fighters[name].goto(links["invites"][name])
        fighters[name].wait_for_selector(f"#you:has-text('You are {name}.')")
    # The invite links survive on the referee page (session storage of the creating tab).
    assert referee.locator("#invites a").count() == 2

    referee.click("#do-initiative")
    for page in (referee, *fighters.values()):
        page.wait_for_selector("#order li", timeout=WAIT_MS)

    answers: list[dict[str, Any]] = []
    for _ in range(MAX_ACTIONS):
        view = web.get(f"/api/bouts/{bout}").json()
        if view["status"] != "running":
            break
        actor = view["turn"]
        other = next(n for n in fighters if n != actor)
        fighters[actor].wait_for_selector("#act-form.your-turn")
        answers.append(act(fighters[actor], fighters[other], keyboard=not answers))
    view = web.get(f"/api/bouts/{bout}").json()
    # The same spar as the bout engine plays it from the same seeds.
    assert view["status"] == "ended" and view["winner"] == expected.state.winner
    assert [(f["name"], f["wounds"]) for f in view["fighters"]] == [
        (f.name, f.wounds) for f in expected.state.fighters
    ]
    loser = next(f for f in view["fighters"] if f["defeated"])
    assert loser["wounds"] >= 15  # MSV-7

    # Every page caught up: the ending is in each log, the bars show the damage.
    for page in (referee, *fighters.values()):
        page.wait_for_selector("#log li.ended", timeout=WAIT_MS)
        bar = page.locator(f".fighter[data-name='{loser['name']}'] .bar-text")
        expect(bar).to_have_text(f"{loser['wounds']} / 15", timeout=WAIT_MS)
    # MSV-4: each critical that did not end the bout is followed by a marked free attack.
    crits = [a for a in answers if a.get("extra_action")]
    assert len(crits) >= 2
    free = fighters["Tarl"].locator("#log li.free-attack")
    assert free.count() == len(crits)
    expect(
        fighters["Tarl"].locator("#log .badge.chain").filter(has_text="free attack 2")
    ).not_to_have_count(0)
    free.first.scroll_into_view_if_needed()
    shoot(fighters["Tarl"], "fighter")
    phone = pages(PHONE)
    phone.goto(links["invites"]["Pa-Kur"])
    phone.wait_for_selector("#log li.ended")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shoot(phone, "phone")

    board = pages()
    board.goto(links["board"])
    board.wait_for_selector(f"#scoreboard tr.defeated th:has-text('{loser['name']}')")
    shoot(board, "board")

    referee.click("#do-close")
    referee.click("dialog.confirm .confirm-yes")  # closing asks first
    referee.wait_for_selector("#log li.closed", timeout=WAIT_MS)
    shoot(referee, "referee")

    verify = pages()
    verify.goto(links["verify"])
    verify.wait_for_selector("#verdict.ok")
    doc = web.get(f"/api/bouts/{bout}/export").json()
    report = verify_export(doc)
    assert report.ok
    assert verify.locator("#rolls tr.ok").count() == report.rolls > len(answers)
    assert verify.text_content("#verdict").startswith(
        f"Verified: {report.events} events, {report.rolls} rolls, 1 seed(s)."
    )
    shoot(verify, "verify")
    # A fresh browser saw nothing of the bout, and says so; a fighter's browser kept the
    # commitment, the client seed and the last event it was shown, and its verifier checks the
    # export against them unasked.
    expect(verify.locator("#memory.hint")).to_contain_text("This browser kept nothing of this")
    expect(verify.locator("#checked")).to_have_text(
        f"Checked bout {bout} “Spar at the Tarn Cot” (MSV), the bout asked for."
    )
    seen = fighters["Tarl"]
    seen.goto(links["verify"])
    seen.wait_for_selector("#verdict.ok")
    expect(seen.locator("#memory.ok")).to_have_text(
        "Matches what this browser saw of this bout: the commitment is the one this browser "
        f"was shown ({links['commitment'][:12]}…); the client seed is the one this browser was "
        f"shown ({doc['fairness']['client_seed']}); event {report.last[0]}, the last this "
        "browser saw, is in it with the hash it had."
    )
    for page in (referee, board, verify, phone, *fighters.values()):
        clean(page)


def test_the_pages_fit_a_phone_and_name_every_control(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    page = pages(PHONE)
    page.goto(web.url + "/")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll('input, select, textarea')]
            .filter((c) => !(c.id && document.querySelector(`label[for="${c.id}"]`)))
            .map((c) => c.outerHTML)"""
    )
    assert unlabelled == []
    page.click("summary:has-text('Fairness and rules')")
    page.fill("#rules", '{"dmg_cap": 3}')
    page.click("#create")
    # The service's own message is shown, quoting the bad key.
    page.wait_for_selector("#message.error")
    message = page.text_content("#message")
    assert "'dmg_cap'" in message, message
    page.fill("#rules", "")
    page.fill("#f2-name", "Tarl")
    page.click("#create")
    expect(page.locator("#message.error")).to_contain_text(
        "fighter \"Tarl\" was refused: there is already a fighter called 'Tarl'"
    )
    expect(page.locator("#created")).to_be_visible()  # the bout exists: its links are shown
    clean(page)
