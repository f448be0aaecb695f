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


def test_a_retry_sends_the_same_idempotency_key() -> None:
    text = code()
    # One POST builder carries the key; a fresh key per typed line; a timeout (499) posts again
    # with the key unchanged, so the service answers the first result instead of acting twice.
    assert text.count("llHTTPRequest(") == 1
    assert re.search(r'HTTP_CUSTOM_HEADER, "Idempotency-Key", pending_key', text)
    send = text[text.index("send(string line)") :]
    assert "pending_key = (string)llGenerateKey();" in send.split("}")[0]
    retry = text[text.index("status == 499 && retries_left > 0") :].split("}")[0]
    assert "post();" in retry and "pending_key =" not in retry
