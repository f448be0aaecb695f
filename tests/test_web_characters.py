"""Characters in the console (characters.html), in Debian's Chromium: made with a new key kept
by the browser, listed, changed to a new version, joined to a bout; the key moved to another
browser by its link and its QR code (zxing-cpp reads it). And issue 45's "done when": a
character made in the console fights in Discord (dpytest) and in the chat endpoint under the
same record, the key moved to the bot's member and to a chat client, both bouts' exports naming
the same character id."""

from __future__ import annotations

import asyncio
import io
import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import zxingcpp
from PIL import Image
from playwright.sync_api import expect

from referee.bout.replay import check_export
from referee.ledger import verify_export
from tests.browser_fixtures import browser, clean, pages, web  # noqa: F401
from tests.discord_harness import Harness, attachment_bytes, fighter_to_act
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser

KEY = re.compile(r"ck_[A-Za-z0-9_-]{32}")


def make_tarl(page: Any, url: str) -> str:
    """Tarl (MSV, CS 65, a rope) made on the console's characters page; its id."""
    page.goto(f"{url}/static/characters.html")
    expect(page.locator("#status")).to_have_text(
        "No key yet: your first character makes one, kept by this browser."
    )
    page.fill("#char-name", "Tarl")
    page.fill("#char-cs", "65")
    page.fill("#char-gear", "rope, torch")
    page.click("#char-submit")
    expect(page.locator("#message")).to_have_text(
        "Saved Tarl, version 1. This browser keeps your new key."
    )
    expect(page.locator("#characters li")).to_have_text(
        "Tarl (MSV, version 1): CS 65; gear: rope, torch change record and luck"
    )
    return str(page.locator("#characters li").get_attribute("data-character"))


def key_link(page: Any) -> str:
    page.click("#key-show")
    link = str(page.locator("#key-link").text_content())
    page.locator("#key-tools summary").click()
    picture = Image.open(io.BytesIO(page.locator("#key-tools svg.qr").screenshot()))
    assert [code.text for code in zxingcpp.read_barcodes(picture)] == [link]
    return link


def test_a_character_is_made_changed_and_moved_by_its_link(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    page = pages()
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url))
    cid = make_tarl(page, web.url)
    page.locator("#characters li button").click()
    expect(page.locator("#form-h")).to_have_text("Change Tarl (its next version)")
    page.fill("#char-cs", "72")
    page.click("#char-submit")
    expect(page.locator("#message")).to_have_text("Saved Tarl, version 2.")
    expect(page.locator("#characters li")).to_have_text(
        "Tarl (MSV, version 2): CS 72; gear: rope, torch change record and luck"
    )
    link = key_link(page)
    key = KEY.search(link)
    assert link.startswith(f"{web.url}/static/characters.html#key=") and key is not None
    assert not any(key.group(0) in url for url in sent)  # in headers only, never an address
    # Another browser opens the link: it holds the key, the address bar no longer does.
    other = pages()
    other.goto(link)
    expect(other.locator("#status")).to_have_text("Your key holds 1 character(s).")
    assert "key=" not in other.url
    expect(other.locator("#characters li")).to_have_attribute("data-character", cid)
    # It joins a bout with the character, landing on its fighter page.
    bout = web.post("/api/bouts", json={"system": "msv", "name": "Spar"}).json()
    other.fill("#join-link", f"{web.url}/static/join.html#bout={bout['id']}")
    other.click("#join-submit")
    other.wait_for_url(re.compile(r".*/static/fighter\.html#bout=.*&token=.*"))
    export = web.get(f"/api/bouts/{bout['id']}/export", bout["referee_token"]).json()
    added = next(e for e in export["events"] if e["type"] == "fighter_added")
    assert (added["payload"]["character"], added["payload"]["character_version"]) == (cid, 2)
    # A link with no key in it is refused, and changes nothing.
    bad = pages()
    bad.goto(f"{web.url}/static/characters.html#key=nope")
    expect(bad.locator("#message")).to_contain_text("That link holds no character key")
    for each in (page, other, bad):
        clean(each)


def discord_fight(server: LiveServer, key: str) -> dict[str, Any]:
    """Tarl's member takes the key (`/char key`, words the bot alone sees), joins a spar as
    Tarl and fights until Tarl has attacked; the export the close attaches."""
    found: dict[str, Any] = {}

    async def run() -> None:
        h = Harness(server.store)
        await h.start(["Judge", "Tarl", "Pa-Kur"])
        try:
            took = await h.slash(
                "Tarl", "char", {"name": "words", "type": 3, "value": f"key {key}"}
            )
            assert took["content"] == "Your characters are now the key's: 1 of them (~char list)."
            assert key not in took["content"]
            refused = await h.text("Pa-Kur", f"~char key {key}")  # said in a channel: not taken
            assert refused.startswith("error: a key is a secret") and key not in refused
            assert await h.text("Pa-Kur", "~char list") == (
                "You have no characters yet: ~char set NAME cs=65"
            )
            await h.text("Judge", "~spar:open msv Friday duel")
            assert await h.text("Tarl", "~spar:join Tarl") == "Tarl joins the spar (CS 65)."
            await h.text("Pa-Kur", "~spar:join 70")
            actor = fighter_to_act(await h.text("Judge", "~spar:begin"))
            names = {"Tarl": ("Tarl", "Pa-Kur"), "Pa-Kur_2_nick": ("Pa-Kur", "Tarl")}
            tarl_attacked = False
            while actor is not None and not tarl_attacked:
                member, foe = names[actor]
                answer = await h.text(member, f"~spar:attack {h.mention(foe)}")
                tarl_attacked = actor == "Tarl"
                actor = None if "Result: " in answer else fighter_to_act(answer)
            assert tarl_attacked
            closing = await h.say("Judge", "~spar:close bout")
            found["export"] = json.loads(attachment_bytes(closing[-1]))
        finally:
            await h.stop()

    # dpytest runs its own event loop: in a thread of its own, beside Playwright's.
    thread = threading.Thread(target=lambda: asyncio.run(run()))
    thread.start()
    thread.join(300)
    assert "export" in found
    return dict(found["export"])


def chat_fight(server: LiveServer, key: str) -> dict[str, Any]:
    """A chat client with the key joins a bout as Tarl and fights until Tarl has attacked
    (the key acts for Tarl; no token); the closed bout's export."""
    bout = server.post("/api/bouts", json={"system": "msv", "name": "Chat spar"}).json()
    bid = bout["id"]

    def say(line: str, token: str | None = None, with_key: bool = False) -> httpx.Response:
        headers = {"content-type": "text/plain", **({"X-Character-Key": key} if with_key else {})}
        return server.post(f"/api/bouts/{bid}/chat", token, content=line, headers=headers)

    joined = say("join Tarl", with_key=True)
    assert joined.status_code == 200 and joined.text.startswith("Tarl joins the bout")
    orc = server.post(f"/api/bouts/{bid}/join", json={"name": "Orc", "cs": 40}).json()["token"]
    server.post(f"/api/bouts/{bid}/initiative", bout["referee_token"])
    for _ in range(20):
        current = server.get(f"/api/bouts/{bid}").json()["turn"]
        if current is None:
            break
        answer = say("attack Orc", with_key=True) if current == "Tarl" else say("attack Tarl", orc)
        assert answer.status_code == 200, answer.text
        if current == "Tarl":
            break
    server.post(f"/api/bouts/{bid}/close", bout["referee_token"])
    return dict(server.get(f"/api/bouts/{bid}/export").json())


def test_a_character_made_in_the_console_fights_in_discord_and_in_chat_under_one_record(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # dpytest keeps attachments in files of the working directory
    page = pages()
    cid = make_tarl(page, web.url)
    match = KEY.search(key_link(page))
    assert match is not None
    key = match.group(0)
    exports = [discord_fight(web, key), chat_fight(web, key)]
    for export in exports:
        assert verify_export(export, replay=check_export).ok
        tarl = next(
            e["payload"] for e in export["events"]
            if e["type"] == "fighter_added" and e["payload"]["name"] == "Tarl"
        )  # fmt: skip
        assert (tarl["character"], tarl["character_version"], tarl["stats"]) == (
            cid, 1, {"cs": 65},
        )  # fmt: skip
        attacks = [
            e for e in export["events"]
            if e["type"] == "action" and e["payload"].get("kind") == "attack"
            and e["actor"] == "Tarl"
        ]  # fmt: skip
        assert attacks, "Tarl fought"
        assert key not in json.dumps(export)
    clean(page)
