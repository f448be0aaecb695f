"""The fighter HUD with saved characters (examples/secondlife/fighter-hud.lsl, run by the fake
region against a real `referee serve`): `character=NAME` makes the wearer's character and key
on first use and joins as it; the key stays with the HUD (its linkset data, under the wearer)
across a script reset, so the next bout needs no stats; a key moved from another door
(`key=ck_...`) plays the same character; the key is said to nobody but the wearer, and a key in
the description leaves it. Each bout's export names the character and its version."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.test_secondlife import HUD, export, region, serve  # noqa: F401  (the fixtures)

KEY = re.compile(r"ck_[A-Za-z0-9_-]{32}")


def new_bout(url: str, name: str) -> tuple[str, str]:
    """A bout made through the API: (its invite link, its referee token)."""
    made = httpx.post(f"{url}/api/bouts", json={"system": "msv", "name": name}, timeout=30).json()
    return f"{url}/static/join.html#bout={made['id']}", str(made["referee_token"])


def joined_as(url: str, invite: str, name: str) -> dict[str, Any]:
    """The payload of `name`'s join in the bout of `invite`."""
    doc = export(url, invite.rsplit("=", 1)[-1])
    return next(
        e["payload"]
        for e in doc["events"]
        if e["type"] == "fighter_added" and e["payload"]["name"] == name
    )


def test_the_hud_makes_keeps_and_fights_with_its_wearers_character(serve: str, region) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    tarl = region.avatar("Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180)
    first, _ = new_bout(serve, "First")
    hud = region.rez(
        HUD, "fighter HUD", tarl, notecards={"referee": [first, "character=Tarl Cabot", "cs=65"]}
    )
    assert any("you joined as Tarl Cabot" in line for line in tarl.private), tarl.private
    assert any("I keep your new character key" in line for line in tarl.private)
    held = hud.linkset[f"character key {tarl.key}"]
    assert KEY.fullmatch(held)
    added = joined_as(serve, first, "Tarl Cabot")
    character = added["character"]
    assert (added["character_version"], added["stats"]) == (1, {"cs": 65})

    # /7 key: the key's link, to the wearer alone.
    region.say(tarl, 7, "key")
    assert tarl.private[-1].endswith(f"{serve}/static/characters.html#key={held}")

    # The next bout: the notecard names the character only; the HUD still holds the key.
    second, _ = new_bout(serve, "Second")
    region.edit_notecard(hud, "referee", [second, "character=tarl cabot"])
    assert any("you joined as Tarl Cabot" in line for line in tarl.private[-3:]), tarl.private[-3:]
    again = joined_as(serve, second, "Tarl Cabot")
    assert (again["character"], again["character_version"]) == (character, 1)

    # The key moved to another wearer's HUD (from the console, say), in its description: it
    # leaves the description at once, and the same character fights there.
    third, _ = new_bout(serve, "Third")
    alt = region.avatar("Tarl Alt", "tarl.alt", (131.0, 128.0, 25.0), 180)
    other = region.rez(HUD, "fighter HUD", alt, desc=f"{third} key={held}")
    assert other.desc == ""
    assert any("took your character key out of my description" in x for x in alt.private)
    region.edit_notecard(other, "referee", [third, "character=Tarl Cabot"])
    moved = joined_as(serve, third, "Tarl Cabot")
    assert (moved["character"], moved["character_version"]) == (character, 1)

    # Nobody but the wearers heard the key; no request carried it in its address.
    assert not any(held in text for _, _, text in region.said)
    assert not any(held in line.text for line in region.chat)
    assert not any(held in r.url for r in region.requests)
    assert region.violations == []
