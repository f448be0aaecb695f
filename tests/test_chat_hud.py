"""The Second Life HUD keeps everything off public chat: it listens on a private channel,
answers its wearer alone, offers a dialog menu, and sends only lines of its own channel."""

from __future__ import annotations

import re
from pathlib import Path

HUD = Path(__file__).resolve().parent.parent / "examples" / "referee-hud.lsl"


def code() -> str:
    """The script without its comments."""
    return "\n".join(
        line.split("//", 1)[0] if '"' not in line else line
        for line in HUD.read_text(encoding="utf-8").splitlines()
    )


def test_the_hud_says_nothing_in_public() -> None:
    text = code()
    assert not re.search(r"\bll(Say|Shout|Whisper|RegionSay|RegionSayTo)\s*\(", text)
    assert "llOwnerSay(body)" in text


def test_the_hud_never_listens_to_channel_0() -> None:
    listens = re.findall(r"llListen\(\s*([A-Za-z_0-9-]+)", code())
    assert listens == ["CHANNEL", "menu_channel"]
    assert re.search(r"integer CHANNEL = 7;", code())


def test_the_hud_has_a_dialog_menu() -> None:
    assert "llDialog(llGetOwner()" in code()
