"""`POST /api/luck` on a real server, and the console's luck page in a real Chromium."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from referee.lab.luck_exports import luck_report, reading, verified
from referee.lab.luck_text import report_lines
from referee.service.bouts import RefereeService
from tests.browser_fixtures import browser, clean, pages, shoot, web  # noqa: F401
from tests.service_fixtures import LiveServer, live  # noqa: F401
from tests.test_judge_export import REFEREE, play


def closed_export(server: LiveServer, skills: tuple[int, int] = (65, 70)) -> tuple[str, Any]:
    bout = play(server.store, skills)
    return bout, RefereeService(server.store).export(bout, REFEREE)


def test_luck_reads_closed_bouts_by_id_and_uploaded_exports(live: LiveServer) -> None:  # noqa: F811
    bout, doc = closed_export(live)
    _, other = closed_export(live, (40, 80))
    forged = json.loads(json.dumps(other))
    forged["events"][1]["payload"]["name"] = "Someone Else"
    still_open = RefereeService(live.store).create_bout("msv", "Open", "table")["id"]
    answer = live.post(
        "/api/luck",
        json={"bouts": [bout, still_open], "exports": [other, forged], "fighter": "pa-kur"},
    )
    assert answer.status_code == 200, answer.text
    found = answer.json()
    report = luck_report([reading(verified(d, "x")) for d in (other, doc)], "pa-kur")
    assert found["lines"] == report_lines(report)
    assert {k: found[k] for k in ("fighter", "exports", "records", "luck")} == json.loads(
        json.dumps({k: v for k, v in report.as_json().items() if k != "bouts"})
    )
    assert found["records"][0]["fought"] == 2
    assert [r["source"] for r in found["refused"]] == ["export 2", f"bout {still_open}"]
    assert found["refused"][0]["reason"].startswith("export 2 does not verify: event 1 ")
    assert found["refused"][1]["reason"] == (
        f"bout {still_open} is not closed: its seed is not revealed yet"
    )
    assert found["plots"]["halves"].startswith("<svg")
    assert found["plots"]["damage"].count('class="seen"') == 1
    nothing = live.post("/api/luck", json={"bouts": [still_open]})
    assert nothing.status_code == 200
    assert (nothing.json()["exports"], nothing.json()["luck"]["verdict"]) == (0, "no dice to read")
    assert len(nothing.json()["refused"]) == 1
    twice = live.post("/api/luck", json={"bouts": [bout], "exports": [doc], "fighter": "pa-kur"})
    assert twice.status_code == 200, twice.text
    assert twice.json()["exports"] == 1
    assert twice.json()["refused"] == [
        {
            "source": "bout " + bout,
            "reason": f"bout {bout} is of bout {bout!r}, read already from export 1: each "
            "bout counts once",
        }
    ]
    assert live.post("/api/luck", json={}).status_code == 400
    assert live.post("/api/luck", json={"exports": [{}] * 41}).status_code == 422


@pytest.mark.browser
def test_the_luck_page_verifies_uploads_and_draws_the_plots(
    pages: Callable[..., Any],  # noqa: F811
    web: LiveServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    bout, doc = closed_export(web)
    upload = tmp_path / "bout.json"
    upload.write_text(json.dumps(doc), "utf-8")
    page = pages()
    page.goto(f"{web.url}/static/luck.html")
    page.set_input_files("#files", [str(upload)])
    page.fill("#fighter", "Tarl Cabot")
    page.click("#read")
    expect(page.locator("#plots")).to_have_attribute("data-version", "1")
    report = luck_report([reading(verified(doc, "x"))], "Tarl Cabot")
    expect(page.locator("#lines li")).to_have_text(report_lines(report))
    expect(page.locator("#plots figure svg")).to_have_count(3)
    expect(page.locator("#plots figure[data-plot='halves'] rect.seen")).to_have_count(1)
    shoot(page, "luck")
    # the server's own closed bout by id, and a bout that is not one
    page.set_input_files("#files", [])
    page.fill("#bouts", f"{bout}, nosuchbout1")
    page.click("#read")
    expect(page.locator("#plots")).to_have_attribute("data-version", "2")
    expect(page.locator("#refused li")).to_have_text(
        ["bout nosuchbout1: refused: no bout 'nosuchbout1'"]
    )
    expect(page.locator("#lines li").first).to_have_text(
        "luck of Tarl Cabot over 1 verified export"
    )
    clean(page)


def test_a_characters_page_links_to_its_record_and_luck(
    pages: Callable[..., Any],  # noqa: F811
    web: LiveServer,  # noqa: F811
) -> None:
    from tests.test_character_luck import TARL, fight

    made = web.post("/api/characters", json=TARL).json()
    key, cid = made["key"], made["character"]["id"]

    def join(bid: str) -> str:
        held = {"X-Character-Key": key}
        r = web.post(f"/api/bouts/{bid}/characters", json={"character": cid}, headers=held)
        assert r.status_code == 201, r.text
        return "Tarl"

    _, export = fight(web, join, "Orc")
    page = pages()
    page.goto(f"{web.url}/static/characters.html#key={key}")
    page.locator(f"li[data-character='{cid}'] a.luck-link").click()
    expect(page.locator("#plots")).to_have_attribute("data-version", "1")
    report = luck_report([reading(verified(export, "x"))], "Tarl")
    expect(page.locator("#lines li")).to_have_text(report_lines(report))
    expect(page.locator("#character")).to_have_value(cid)
    clean(page)
