"""The "Judge a log" page in a real Chromium under the console's strict CSP."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from referee.transcripts import bout_as_chat, judge_log
from tests.browser_fixtures import PHONE, browser, clean, pages, shoot, web  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "pakur-stun.log"


def open_judge(pages: Callable[..., Any], web: LiveServer, viewport: Any = None) -> Any:  # noqa: F811
    page = pages(viewport)
    page.goto(f"{web.url}/static/judge.html")
    return page


def test_paste_a_log_and_see_the_verdict(pages: Callable[..., Any], web: LiveServer) -> None:  # noqa: F811
    page = open_judge(pages, web)
    page.fill("#log-text", EXAMPLE.read_text(encoding="utf-8"))
    page.click("#judge")
    expect(page.locator("#verdict")).to_have_text(
        "Verdict: Tarl wins: Tarl dealt 16, Pa-Kur dealt 0; 6 attacks counted; 2 anomalies"
    )
    expect(page.locator("#verdict")).to_have_class("verdict flagged")
    expect(page.locator("#fighters-line")).to_have_text(
        "Fighters: Tarl (CS 65), Pa-Kur (CS 70) (announced on line 1) · Initiative: Tarl > Pa-Kur"
    )
    expect(page.locator("#anomalies li")).to_have_text(
        [
            "line 8: forged: a host line typed after the speaker's name 'Pa-Kur'",
            "line 9: out-of-turn: it is Tarl's free attack (MSV-4)",
        ]
    )
    expect(page.locator("#judged-lines tr")).to_have_count(15)
    expect(page.locator("#judged-lines tr.anomaly")).to_have_count(2)
    expect(page.locator("#line-9 .note.bad")).to_have_text(
        "! out-of-turn: it is Tarl's free attack (MSV-4)"
    )
    expect(page.locator("#line-14 .note")).to_contain_text("Pa-Kur is defeated: Tarl wins")
    expect(page.locator("#chart polyline")).to_have_count(2)
    expect(page.locator("#chart text.a")).to_have_text("Tarl: 16 dealt")
    expect(page.locator("#chart text.b")).to_have_text("Pa-Kur: 0 dealt")
    shoot(page, "judge")
    clean(page)


def test_open_a_cp1252_file_and_name_the_fighters(
    pages: Callable[..., Any],  # noqa: F811
    web: LiveServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    text = (
        EXAMPLE.read_text(encoding="utf-8")
        .replace("Tarl", "Séverine")
        .replace(" (CS 65)", "")
        .replace(" (CS 70)", "")
    )
    path = tmp_path / "old.log"
    path.write_bytes(text.encode("cp1252"))
    page = open_judge(pages, web, PHONE)
    page.set_input_files("#log-file", str(path))
    expect(page.locator("#log-text")).to_have_value(text.replace("\r\n", "\n"))
    page.click("#judge")
    expect(page.locator("#message")).to_contain_text("the log announces no spar")
    page.fill("#name-a", "Séverine")
    page.fill("#cs-a", "65")
    page.fill("#name-b", "Pa-Kur")
    page.fill("#cs-b", "70")
    page.click("#judge")
    expect(page.locator("#verdict")).to_contain_text("Verdict: Séverine wins: Séverine dealt 16")
    expect(page.locator("#fighters-line")).to_contain_text("(given)")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    clean(page)


def test_bad_input_shows_the_service_s_message(pages: Callable[..., Any], web: LiveServer) -> None:  # noqa: F811
    page = open_judge(pages, web)
    page.click("#judge")
    expect(page.locator("#message")).to_have_text("the log is empty")
    page.fill("#log-text", "Tarl: hello\nPa-Kur: hi")
    page.click("#judge")
    expect(page.locator("#message")).to_contain_text("the log has no roll lines")
    page.fill("#log-text", EXAMPLE.read_text(encoding="utf-8"))
    page.fill("#name-a", "Tarl")
    page.click("#judge")
    expect(page.locator("#message")).to_contain_text("bad fighter 'Tarl='")
    expect(page.locator("#verdict")).to_have_text(re.compile(r"^Not judged: .*bad fighter 'Tarl='"))
    expect(page.locator("#verdict")).to_have_class("verdict bad")
    clean(page)


def test_the_home_page_links_to_the_judge(pages: Callable[..., Any], web: LiveServer) -> None:  # noqa: F811
    page = pages()
    page.goto(web.url + "/")
    page.click("text=Judge a log")
    expect(page.locator("h1")).to_have_text("Judge a log")
    clean(page)


def _spar(web: LiveServer) -> tuple[str, str]:  # noqa: F811
    """A closed MSV spar on the service, with a free roll and a rotated seed."""
    bout = web.post("/api/bouts", json={"system": "msv", "name": "Copy me", "client_seed": "t"})
    bout_id, token = bout.json()["id"], bout.json()["referee_token"]
    for name, cs in (("Tarl Cabot", 65), ("Pa-Kur", 70)):
        assert (
            web.post(
                f"/api/bouts/{bout_id}/fighters", token, json={"name": name, "cs": cs}
            ).status_code
            == 201
        )
    assert web.post(f"/api/bouts/{bout_id}/initiative", token).status_code == 200
    for action in range(300):
        view = web.get(f"/api/bouts/{bout_id}").json()
        if view["status"] != "running":
            break
        if action == 2:
            assert web.post(f"/api/bouts/{bout_id}/rotate-seed", token).status_code == 200
            web.post(f"/api/bouts/{bout_id}/rolls", token, json={"dice": "3d6"})
        actor = view["turn"]
        target = next(f["name"] for f in view["fighters"] if f["name"] != actor)
        body = {"attacker": actor, "target": target}
        r = web.post(f"/api/bouts/{bout_id}/attacks", token, json=body)
        assert r.status_code == 200, r.text
    assert web.post(f"/api/bouts/{bout_id}/close", token).status_code == 200
    return bout_id, token


def test_copy_as_chat_is_judged_back_with_no_anomaly(
    pages: Callable[..., Any],  # noqa: F811
    web: LiveServer,  # noqa: F811
) -> None:
    bout_id, token = _spar(web)
    doc = web.get(f"/api/bouts/{bout_id}/export").json()
    page = pages()
    page.goto(f"{web.url}/static/referee.html#bout={bout_id}&token={token}")
    expect(page.locator("#log > li")).to_have_count(len(doc["events"]), timeout=15000)
    page.click("#copy-chat")
    expect(page.locator("#copy-chat")).to_have_text("copied")
    copied = page.evaluate("document.body.dataset.copied")
    assert copied == "".join(f"{line}\n" for line in bout_as_chat(doc))
    case = judge_log(copied, export=doc)
    state = web.get(f"/api/bouts/{bout_id}").json()
    assert case.verdict.anomalies == ()
    assert case.verdict.winner == state["winner"]
    clean(page)
