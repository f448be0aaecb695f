"""Safety rails of the web console, in Debian's Chromium: ending actions ask first and say what
they end and reveal; one press makes one bout; a new input clears the old verdict before it is
checked (verifier, judge)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import browser, clean, pages, web  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "pakur-stun.log"


def running_spar(server: LiveServer) -> tuple[str, str]:
    """An MSV bout with Tarl (side Ko-ro-ba) and Pa-Kur, initiative rolled."""
    r = server.post("/api/bouts", json={"system": "msv", "name": "Railed spar"})
    bid, ref = r.json()["id"], r.json()["referee_token"]
    for name, cs, side in (("Tarl", 65, "Ko-ro-ba"), ("Pa-Kur", 70, None)):
        body = {"name": name, "cs": cs, **({"side": side} if side else {})}
        assert server.post(f"/api/bouts/{bid}/fighters", ref, json=body).status_code == 201
    assert server.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    return bid, ref


def powers_sent(page: Any) -> list[str]:
    """The referee powers this page sends from now on (the last part of each POST's path)."""
    sent: list[str] = []
    page.on(
        "request",
        lambda r: sent.append(r.url.rsplit("/", 1)[1]) if r.method == "POST" else None,
    )
    return sent


def test_ending_actions_ask_first_and_say_what_they_end_and_reveal(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, ref = running_spar(web)
    commitment = web.get(f"/api/bouts/{bid}").json()["commitment"]
    page = pages()
    page.goto(f"{web.url}/static/referee.html#bout={bid}&token={ref}")
    page.wait_for_selector("#log li.initiative")
    turn = web.get(f"/api/bouts/{bid}").json()["turn"]
    sent = powers_sent(page)
    dialog = page.locator("dialog.confirm")

    # Cancel: says it ends the bout for good and that the seed stays secret; "Keep the bout".
    page.click("#do-cancel")
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text("Cancel the bout?")
    expect(dialog).to_contain_text(f"The bout is still running, {turn} to act.")
    expect(dialog).to_contain_text("The server seed stays secret until you close the bout.")
    expect(dialog.locator(".confirm-no")).to_be_focused()  # the safe answer has the focus
    dialog.locator(".confirm-no").click()
    expect(dialog).to_have_count(0)

    # Close: names the commitment whose seed it reveals; Escape is no.
    page.click("#do-close")
    expect(dialog.locator("h2")).to_have_text("Close the bout and reveal the server seed?")
    expect(dialog).to_contain_text(f"the commitment {commitment[:12]}… published at the start")
    expect(dialog).to_contain_text("Closing ends it now, with no winner.")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    assert sent == []
    assert web.get(f"/api/bouts/{bid}").json()["status"] == "running"

    # End: the winner is named by its fighter, then the bout is ended once confirmed.
    expect(page.locator("#end-winner option")).to_have_text(
        ["(no winner)", "Tarl (Ko-ro-ba)", "Pa-Kur"]
    )
    page.select_option("#end-winner", "Ko-ro-ba")
    page.fill("#end-reason", "Pa-Kur yields")
    page.click("#end-form button[type=submit]")
    expect(dialog.locator("h2")).to_have_text("End the bout with Tarl (Ko-ro-ba) as the winner?")
    expect(dialog).to_contain_text("Ending declares Tarl (Ko-ro-ba) the winner (“Pa-Kur yields”)")
    with page.expect_response(lambda r: r.url.endswith("/end")):
        dialog.locator(".confirm-yes").click()
    expect(page.locator("#message")).to_have_text("The bout is over: Tarl (Ko-ro-ba) won.")
    expect(page.locator("#log li.ended")).to_contain_text(
        "The bout is over: Tarl (Ko-ro-ba) won (Pa-Kur yields)"
    )
    expect(page.locator("#status")).to_contain_text("ended · round 1")
    expect(page.locator("#status")).to_contain_text("Tarl (Ko-ro-ba) won")
    expect(page.locator("#turn-hint")).to_have_text("The bout is over: Tarl (Ko-ro-ba) won.")
    assert sent == ["end"]

    # Close, confirmed this time: the seed is revealed.
    page.click("#do-close")
    expect(dialog).not_to_contain_text("Closing ends it now")  # it has ended already
    with page.expect_response(lambda r: r.url.endswith("/close")):
        dialog.locator(".confirm-yes").click()
    page.wait_for_selector("#log li.closed")
    assert sent == ["end", "close"]
    assert web.get(f"/api/bouts/{bid}").json()["closed"]
    clean(page)


def test_one_press_makes_one_bout_and_another_is_started_on_purpose(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    page = pages()
    page.goto(web.url + "/")
    made: list[str] = []
    new_bout = re.compile(r"/api/bouts$")
    page.on(
        "request",
        lambda r: made.append(r.url) if r.method == "POST" and new_bout.search(r.url) else None,
    )
    page.dblclick("#create")  # an impatient double press
    page.wait_for_selector("#created:not([hidden])")
    first = page.get_attribute("#referee-link", "href")
    start = page.locator("#create")
    expect(start).to_be_disabled()
    expect(start).to_have_attribute(
        "title",
        "This bout is started: its links are below. Press “Start another bout” for a new one.",
    )
    expect(page.locator("#create-hint")).to_be_visible()
    page.locator("#create").press("Enter")  # pressing again does nothing
    page.locator("#bout-name").press("Enter")  # nor does submitting the form from a field
    expect(page.locator("#referee-link")).to_have_attribute("href", first)
    assert len(made) == 1

    page.click("#start-another")
    expect(page.locator("#created")).to_be_hidden()
    expect(start).to_be_enabled()
    expect(page.locator("#bout-name")).to_be_focused()
    page.fill("#bout-name", "The rematch")
    page.click("#create")
    expect(page.locator("#referee-link")).not_to_have_attribute("href", first)
    expect(start).to_be_disabled()
    assert len(made) == 2
    clean(page)


def closed_spar_export(server: LiveServer) -> dict[str, Any]:
    bid, ref = running_spar(server)
    assert server.post(f"/api/bouts/{bid}/close", ref).status_code == 200
    return dict(server.get(f"/api/bouts/{bid}/export").json())


def test_a_new_input_clears_the_old_verdict_on_the_verifier(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    export = closed_spar_export(web)
    page = pages()
    page.goto(f"{web.url}/static/verify.html#bout={export['bout']['id']}")
    expect(page.locator("#verdict.ok")).to_contain_text("Verified:")
    expect(page.locator("#rolls tr.ok")).not_to_have_count(0)

    # A new input: the old verdict and its table go at once, before anything is checked.
    page.fill("#export-text", '{"not": "an export"}')
    expect(page.locator("#verdict")).to_have_text(
        "Not checked yet: the input changed. Press the button to check it."
    )
    expect(page.locator("#verdict")).to_have_class("verdict")
    expect(page.locator("#rolls tr")).to_have_count(0)
    page.click("#paste-form button[type=submit]")
    expect(page.locator("#message.error")).to_be_visible()
    expect(page.locator("#verdict")).to_have_class("verdict bad")
    expect(page.locator("#verdict")).to_have_text(re.compile(r"^Not verified: "))
    expect(page.locator("#rolls tr")).to_have_count(0)
    expect(page.locator("#facts dt")).to_have_count(0)

    # Verified again, then an unknown bout id fetched: no green beside the red.
    page.fill("#export-text", json.dumps(export))
    page.click("#paste-form button[type=submit]")
    expect(page.locator("#verdict.ok")).to_contain_text("Verified:")
    page.fill("#bout-id", "no-such-bout")
    page.click("#fetch-form button[type=submit]")
    expect(page.locator("#message.error")).to_contain_text("no-such-bout")
    expect(page.locator("#verdict")).to_have_class("verdict bad")
    expect(page.locator("#verdict")).to_have_text(re.compile(r"^Not verified: .*no-such-bout"))
    expect(page.locator("#rolls tr")).to_have_count(0)
    expect(page.locator(".verdict.ok")).to_have_count(0)
    clean(page)


def test_a_new_input_clears_the_old_verdict_on_the_judge(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    page = pages()
    page.goto(f"{web.url}/static/judge.html")
    page.fill("#log-text", EXAMPLE.read_text(encoding="utf-8"))
    page.click("#judge")
    expect(page.locator("#verdict")).to_have_text(re.compile(r"^Verdict: Tarl wins"))
    expect(page.locator("#judged-lines tr")).not_to_have_count(0)

    page.fill("#log-text", "Tarl: hello\nPa-Kur: hi")
    expect(page.locator("#verdict")).to_have_text("Not judged yet: the input changed. Press Judge.")
    expect(page.locator("#judged-lines tr")).to_have_count(0)
    expect(page.locator("#chart-box")).to_be_hidden()
    page.click("#judge")
    expect(page.locator("#message.error")).to_contain_text("the log has no roll lines")
    expect(page.locator("#verdict")).to_have_text(
        re.compile(r"^Not judged: .*the log has no roll lines")
    )
    expect(page.locator("#verdict")).to_have_class("verdict bad")
    expect(page.locator("#anomalies li")).to_have_count(0)
    expect(page.locator("#judged-lines tr")).to_have_count(0)
    clean(page)


def test_initiative_is_the_solid_button_and_msv_has_no_override_panel(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    r = web.post("/api/bouts", json={"system": "msv", "name": "Weights"})
    bid, ref = r.json()["id"], r.json()["referee_token"]
    for name, cs in (("Tarl", 65), ("Pa-Kur", 70)):
        web.post(f"/api/bouts/{bid}/fighters", ref, json={"name": name, "cs": cs})
    page = pages()
    page.goto(f"{web.url}/static/referee.html#bout={bid}&token={ref}")
    initiative = page.locator("#do-initiative")
    expect(initiative).to_be_visible()
    background = "el => getComputedStyle(el).backgroundColor"
    accent = "rgb(138, 45, 28)"
    assert initiative.evaluate(background) == accent  # solid: the one thing to do now
    assert page.locator("#roll-form button").evaluate(background) != accent  # an outline
    # MSV has no overrides (SRP-20 is SRP's): no panel, no Override beside an outcome.
    expect(page.locator("#override-panel")).to_be_hidden()
    initiative.click()
    page.wait_for_selector("#act-form.your-turn, #turn-hint:has-text('turn')")
    page.click("#act-submit")
    page.wait_for_selector("#log li.outcome")
    expect(page.locator("#log button", has_text="Override")).to_have_count(0)
    expect(page.locator("#override-panel")).to_be_hidden()
    clean(page)
