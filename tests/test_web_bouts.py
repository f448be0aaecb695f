""" "My bouts" and QR codes of invite links, in Debian's Chromium: the bouts one browser opened
or joined are listed on its home page with its role and their state, kept in its localStorage
only (a token goes nowhere but to the service, in a header); invite and join links have a QR
code made in the browser (vendored qrcode-generator), which a phone's reader decodes to the
very link (zxing-cpp reads it here)."""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zxingcpp
from PIL import Image
from playwright.sync_api import expect

from tests.browser_fixtures import PHONE, another_tab, browser, clean, pages, web  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser

VENDOR = Path(__file__).resolve().parent.parent / "src/referee/service/static/js/vendor"


def requests_of(context: Any) -> list[tuple[str, dict[str, str]]]:
    """Every request the browser context sends from now on: (URL, headers)."""
    sent: list[tuple[str, dict[str, str]]] = []
    context.on("request", lambda r: sent.append((r.url, r.headers)))
    return sent


def create_on_home(page: Any, name: str) -> dict[str, str]:
    page.fill("#bout-name", name)
    page.click("#create")
    page.wait_for_selector("#created:not([hidden])")
    links = {"referee": page.get_attribute("#referee-link", "href")}
    for a in page.query_selector_all("#invite-links a.invite"):
        links[a.get_attribute("data-name")] = a.get_attribute("href")
    return links


def token_of(link: str) -> str:
    return link.split("token=")[1]


def mine(page: Any) -> Any:
    return page.locator("#my-bouts li.my-bout")


def test_my_bouts_lists_what_this_browser_opened_or_joined(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    home = pages()
    context = home.context
    sent = requests_of(context)
    home.goto(web.url + "/")
    expect(home.locator("#mine")).to_be_hidden()  # a new browser has none
    links = create_on_home(home, "Spar at the Tarn Cot")
    bid = links["referee"].split("#bout=")[1].split("&")[0]
    # The client seed shown is the bout's, with both fighters' parts (not the referee's alone).
    view = web.get(f"/api/bouts/{bid}").json()
    assert view["client_seed"].count(":") == 2, view["client_seed"]
    expect(home.locator("#created-seed")).to_have_text(view["client_seed"])
    expect(mine(home)).to_have_count(1)
    expect(mine(home).first).to_contain_text("Spar at the Tarn Cot")
    expect(mine(home).first.locator(".badge")).to_have_text("referee")
    expect(mine(home).first.locator(".my-state")).to_have_text("open: waiting for initiative")

    # The same browser opens Tarl's invite link, and joins another bout by its join link.
    tarl = another_tab(home)
    tarl.goto(links["Tarl"])
    tarl.wait_for_selector("#you:has-text('You are Tarl.')")
    other = web.post("/api/bouts", json={"system": "msv", "name": "Ford duel"}).json()
    joining = another_tab(home)
    joining.goto(f"{web.url}/static/join.html#bout={other['id']}")
    joining.fill("#join-name", "Ann")
    joining.click("#join-submit")
    joining.wait_for_selector("#you:has-text('You are Ann.')")
    ann_token = token_of(joining.url)

    # Initiative in the first bout; the home page asks the service where each bout stands.
    assert web.post(f"/api/bouts/{bid}/initiative", token_of(links["referee"])).status_code == 200
    turn = web.get(f"/api/bouts/{bid}").json()["turn"]
    home.reload()
    expect(mine(home)).to_have_count(3)
    # The list is read in one go: the other tabs of this browser keep their entries up to date
    # (the one seen last moves to the top), so the rows may be drawn again in another order.
    shown = home.eval_on_selector_all(
        "#my-bouts li.my-bout",
        "rows => rows.map((r) => [r.querySelector('a').textContent,"
        " r.querySelector('.badge').textContent])",
    )
    assert sorted(map(tuple, shown)) == [
        ("Ford duel", "fighter Ann"),
        ("Spar at the Tarn Cot", "fighter Tarl"),
        ("Spar at the Tarn Cot", "referee"),
    ]
    ids = {"Spar at the Tarn Cot": bid, "Ford duel": other["id"]}
    rows = {
        (name, role): mine(home).and_(home.locator(f"[data-id='{ids[name]}'][data-role='{role}']"))
        for name, role in map(tuple, shown)
    }
    tarl_state = (
        "running: your turn (round 1)" if turn == "Tarl" else f"running: round 1, {turn} to act"
    )
    expect(rows[("Spar at the Tarn Cot", "fighter Tarl")].locator(".my-state")).to_have_text(
        tarl_state
    )
    expect(rows[("Ford duel", "fighter Ann")].locator(".my-state")).to_have_text(
        "open: waiting for initiative"
    )
    # Each entry opens its page with its own token, in the fragment only.
    assert (
        rows[("Spar at the Tarn Cot", "referee")].locator("a").get_attribute("href")
        == links["referee"]
    )
    assert (
        rows[("Ford duel", "fighter Ann")]
        .locator("a")
        .get_attribute("href")
        .endswith(f"#bout={other['id']}&token={ann_token}")
    )

    # A link reissued from elsewhere stops working: the list says so.
    web.post(f"/api/bouts/{bid}/fighters/Tarl/token", token_of(links["referee"]))
    home.reload()
    row = mine(home).filter(has_text="fighter Tarl")
    expect(row.locator(".my-state")).to_have_text(re.compile("this link no longer works"))

    # Forget one (its token leaves the browser's storage), then all (after a question).
    row.locator("button", has_text="Forget").click()
    expect(mine(home)).to_have_count(2)
    stored = home.evaluate("localStorage.getItem('referee-my-bouts')")
    assert token_of(links["Tarl"]) not in stored and ann_token in stored
    home.click("#forget-all")
    home.locator("dialog.confirm .confirm-yes").click()
    expect(home.locator("#mine")).to_be_hidden()
    assert home.evaluate("localStorage.getItem('referee-my-bouts')") is None

    # Tokens went nowhere but to the service, in the Authorization header, never in a URL.
    tokens = [token_of(links["referee"]), token_of(links["Tarl"]), ann_token]
    assert sent and all(url.startswith(web.url) for url, _ in sent)
    for url, _ in sent:
        assert not any(t in url for t in tokens), url
    carried = [h.get("authorization", "") for _, h in sent]
    assert {f"Bearer {t}" for t in tokens} <= set(carried)
    for page in (home, tarl, joining):
        clean(page)


def decode_qr(element: Any) -> list[str]:
    """What a QR reader sees in the element's picture (zxing-cpp)."""
    picture = Image.open(io.BytesIO(element.screenshot()))
    return [code.text for code in zxingcpp.read_barcodes(picture)]


def test_invite_links_have_a_qr_code_made_in_the_browser(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    page = pages(PHONE)
    page.goto(web.url + "/")
    links = create_on_home(page, "Spar by QR")
    sent = requests_of(page.context)
    item = page.locator("#invite-links li").filter(has_text="Pa-Kur")
    item.locator("summary", has_text="QR code").click()
    code = item.locator("svg.qr")
    expect(code).to_have_attribute("aria-label", "QR code of Pa-Kur's invite link")
    assert decode_qr(code) == [links["Pa-Kur"]]
    assert sent == []  # drawn here: the link and its token were sent nowhere
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    # The referee page: the join link and an invite link reissued there.
    page.goto(links["referee"])
    join = page.locator("#join-box")
    join.locator("summary", has_text="QR code").click()
    bid = links["referee"].split("#bout=")[1].split("&")[0]
    assert decode_qr(join.locator("svg.qr")) == [f"{web.url}/static/join.html#bout={bid}"]
    invite = page.locator("#invites li[data-name='Tarl']")
    expect(invite.locator("a.invite")).to_have_attribute("href", links["Tarl"])  # this tab's
    page.click("button:has-text('New link for Tarl')")
    expect(invite.locator("a.invite")).not_to_have_attribute("href", links["Tarl"])
    url = invite.locator("a.invite").get_attribute("href")
    invite.locator("summary", has_text="QR code").click()
    assert decode_qr(invite.locator("svg.qr")) == [url]
    clean(page)


def test_the_vendored_qr_library_is_the_one_its_note_names() -> None:
    """vendor/README.md names the version, source and SHA-256 of vendor/qrcode.js; the licence
    text ships beside it."""
    note = (VENDOR / "README.md").read_text(encoding="utf-8")
    digest = hashlib.sha256((VENDOR / "qrcode.js").read_bytes()).hexdigest()
    assert f"SHA-256 `{digest}`" in note and "qrcode-generator@2.0.4" in note
    assert "Kazuhiko Arase" in (VENDOR / "LICENSE-qrcode-generator.txt").read_text()
