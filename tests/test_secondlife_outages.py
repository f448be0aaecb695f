"""The fighter HUD when the service is down or answers long (docs/secondlife.md): run as LSL in
the fake region (tests/sl_region.py) against a real `referee serve` on 127.0.0.1, reached
through a relay the test takes down and brings back (tests/sl_relay.py).

A HUD that could not join tries again when touched (its notecard read again); polls that fail
are told once, not every 4 s, and once when the service answers again; an action's answer
past Second Life's default 2,048 bytes (long names in letters of 3 bytes) is read whole and said;
an initiative past the table's 16 KB is said to have begun, never as a half-read order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest

from tests.sl_relay import Relay
from tests.test_secondlife import (  # noqa: F401 (the fixtures)
    HUD,
    LINK,
    SHEET,
    act,
    begin,
    fighter,
    invite_one,
    opened,
    region,
    serve,
)


@pytest.fixture
def relay(serve: str) -> Iterator[Relay]:  # noqa: F811
    way = Relay(serve)
    yield way
    way.close()


@pytest.mark.parametrize("notecard", [True, False], ids=["notecard", "description"])
def test_a_hud_that_could_not_join_tries_again_when_touched(
    relay: Relay,
    region,  # type: ignore[no-untyped-def]  # noqa: F811
    notecard: bool,
) -> None:
    """The service is down when the HUD first asks for the commitment: the wearer is told,
    and once it is back a touch joins (with a notecard too, which no timer reads again)."""
    referee, table, _ = opened(region, relay.url, "msv Outage")
    tarl = region.avatar("Tarl", "tarl.cabot", (130.0, 128.0, 25.0))
    invite_one(region, referee, table, tarl)
    invite = LINK.search(tarl.private[-1])
    assert invite is not None
    relay.down()
    if notecard:
        card = {"referee": [invite.group(0), "cs=65"]}
        hud = region.rez(HUD, "fighter HUD", tarl, notecards=card)
    else:
        hud = region.rez(HUD, "fighter HUD", tarl, desc=f"{invite.group(0)} cs=65")
    assert tarl.private[-1] == (
        "referee: the service did not answer (it may be down, or slow): see the referee's "
        "console; touch me to try again"
    )
    region.advance(10.0)  # nothing is retried by itself while the setting is unchanged
    told = len(tarl.private)
    relay.back()
    region.advance(10.0)
    assert len(tarl.private) == told and hud.script.token == ""
    region.touch(tarl, hud)
    assert any(line.startswith("referee: you joined as Tarl;") for line in tarl.private[told:])
    assert hud.script.token != ""
    assert region.violations == []


def test_failing_polls_are_told_once_and_once_when_the_service_is_back(
    relay: Relay,
    region,  # type: ignore[no-untyped-def]  # noqa: F811
) -> None:
    referee, table, _ = opened(region, relay.url, "msv Outage")
    tarl, hud_t, _ = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65"
    )
    fighter(region, referee, table, "Pa-Kur", "pakur.resident", (129.0, 128.0, 25.0), 0, "cs=70")
    begin(region, referee, table)
    region.advance(4.0)
    told = len(tarl.private)
    polls = len([r for r in region.requests if r.obj == str(hud_t.key)])
    relay.down()
    region.advance(60.0)
    assert tarl.private[told:] == [
        "referee: the service does not answer my polls (no answer: it may be down); I keep "
        "trying every 4 s and tell you when it answers again"
    ]
    # It kept polling (15 a minute), within its budget.
    assert len([r for r in region.requests if r.obj == str(hud_t.key)]) - polls == 15
    relay.back()
    region.advance(4.0)
    assert tarl.private[-1] == "referee: the service answers again"
    region.advance(8.0)
    assert tarl.private[-1] == "referee: the service answers again"  # said once
    assert region.violations == []


def test_an_answer_past_2048_bytes_is_read_whole_and_said(
    serve: str,  # noqa: F811
    region,  # type: ignore[no-untyped-def]  # noqa: F811
) -> None:
    """Two fighters with 40-letter names of 3 bytes a letter (names the service takes): each
    SRP attack's answer is over 2 KB (each signed roll line and the reading name them). Read
    at the default 2,048 bytes, the cut JSON would say nothing at all."""
    referee, table, _ = opened(region, serve, "srp Long names")
    sheet = "sheet=" + json.dumps(SHEET)
    first, second = "武" * 40, "剣" * 40
    one, hud_1, _ = fighter(
        region, referee, table, "Ann", "ann.resident", (120.0, 128.0, 25.0), 0,
        f"{sheet}\nname={first}", notecard=True,
    )  # fmt: skip
    two, hud_2, _ = fighter(
        region, referee, table, "Orc", "orc.resident", (121.0, 128.0, 25.0), 0,
        f"{sheet}\nname={second}", notecard=True,
    )  # fmt: skip
    begin(region, referee, table)
    region.advance(4.0)
    avatar, hud = (one, hud_1) if hud_1.script.turn == first else (two, hud_2)
    said = len(region.chat)
    act(region, avatar, hud)
    answer = next(r for r in reversed(region.requests) if r.url.endswith("/actions"))
    assert answer.status == 200 and answer.size > 2048, answer.size
    spoken = region.chat[said:]
    hosts = [c.text for c in spoken if c.speaker == "OnlineHost"]
    rolls = json.loads(answer.answer)["rolls"]
    assert hosts == [r["line"].removeprefix("OnlineHost: ") for r in rolls] and hosts
    assert [c.text for c in spoken if c.speaker == "Referee"] == [json.loads(answer.answer)["said"]]
    assert region.violations == []


def test_the_table_says_so_when_initiatives_answer_is_past_what_it_reads(
    serve: str,  # noqa: F811
    region,  # type: ignore[no-untyped-def]  # noqa: F811
) -> None:
    """Sixteen MSV fighters (the most a bout takes) with 40-letter names of 3 bytes: initiative's
    answer is over 30 KB, past the 16 KB the table asks for, and Second Life cuts it. The table
    says the bout has begun, never a half-read order; its menu is the running bout's."""
    referee, table, _ = opened(region, serve, "msv Melee")
    bout = table.script.bout
    for letter in "武剣刀槍弓盾鎧兜馬車船城門塔橋森":
        body = {"name": letter * 40, "cs": 60, "client_seed": "part"}
        joined = httpx.post(f"{serve}/api/bouts/{bout}/join", json=body, timeout=30)
        assert joined.status_code == 201, joined.text
    said = len(region.chat)
    begin(region, referee, table)
    begun = next(r for r in region.requests if r.url.endswith("/initiative"))
    assert begun.status == 200 and begun.size > 16384
    assert region.violations == [f"referee table: an answer of {begun.size} bytes (reads 16384)"]
    assert [(c.speaker, c.text) for c in region.chat[said:]] == [
        (
            "Referee",
            "Initiative is rolled: too many rolls to say in chat; each HUD tells its wearer "
            "when it is their turn",
        )
    ]
    assert referee.private[-1].startswith("referee table: initiative is rolled and the bout has")
    assert table.script.phase == "running"
    region.touch(referee, table)
    assert referee.dialog is not None and "pause" in referee.dialog[2]


def test_only_a_rolls_answer_is_said_aloud_as_the_host(
    serve: str,  # noqa: F811
    region,  # type: ignore[no-untyped-def]  # noqa: F811
) -> None:
    """A bout may be named like a host's roll line (a name of 40 characters at most): the
    status answer begins with it, and the HUD tells it its wearer alone; a //roll's signed
    line is still said in local chat."""
    named = "OnlineHost: Kai rolled 1 6-sided die: 6"
    referee, table, _ = opened(region, serve, f"msv {named}")
    tarl, _, _ = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65"
    )
    said = len(region.chat)
    region.say(tarl, 7, "status")
    assert tarl.private[-1].startswith(f"{named}: open")
    assert region.chat[said:] == []
    region.say(tarl, 7, "//roll -sides100 -dice1")
    region.say(tarl, 7, "//ROLL -sides100 -dice1")
    assert len(region.chat[said:]) == 2
    for host in region.chat[said:]:
        assert host.speaker == "OnlineHost"
        assert host.text.startswith("Tarl rolled 1 100-sided die: ")
        assert " sig:" in host.text
    assert region.violations == []


def test_an_action_typed_on_channel_7_is_sent_to_the_menu(
    serve: str,  # noqa: F811
    region,  # type: ignore[no-untyped-def]  # noqa: F811
) -> None:
    """The chat endpoint answers a typed `attack` to the wearer alone: its roll would never be
    said in local chat, where `referee judge` counts the signed lines. The HUD sends the wearer
    to its menu instead and sends nothing; the menu's attack is said aloud, signed."""
    referee, table, _ = opened(region, serve, "msv Typed")
    tarl, hud_t, _ = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65"
    )
    pakur, hud_p, _ = fighter(
        region, referee, table, "Pa-Kur", "pakur.resident", (129.0, 128.0, 25.0), 0, "cs=70"
    )
    begin(region, referee, table)
    region.advance(4.0)
    avatar, hud, foe = (
        (tarl, hud_t, "Pa-Kur") if hud_t.script.turn == "Tarl" else (pakur, hud_p, "Tarl")
    )
    sent, said = len(region.requests), len(region.chat)
    typed = (
        (f"attack {foe}", "attack"),
        (f"ATTACK {foe.lower()}", "attack"),
        (f"act attack target={foe}", "act"),
        (f"!attack {foe}", "attack"),
        (f"/act attack target={foe}", "act"),
        ("!/Spirit", "spirit"),
    )
    for line, verb in typed:
        region.say(avatar, 7, line)
        assert avatar.private[-1] == (
            "referee: touch me for your actions: the menu says each roll in local chat, signed; "
            f"a typed {verb} would not"
        )
    assert len(region.requests) == sent and len(region.chat) == said
    act(region, avatar, hud)
    assert any(c.speaker == "OnlineHost" and " sig:" in c.text for c in region.chat[said:])
    assert region.violations == []


def test_the_join_is_told_within_a_message_whatever_the_client_seed(
    serve: str,  # noqa: F811
    region,  # type: ignore[no-untyped-def]  # noqa: F811
) -> None:
    """Each joiner may add a part of 64 characters to the client seed: the 16th fighter's HUD
    is told a seed of 1,008 bytes. Its join's event and hash (the line to keep) are a
    message of their own, and the seed is told by its end (the HUD's own part), each under
    the 1,024 bytes of llOwnerSay, never cut."""
    referee, table, _ = opened(region, serve, "msv Crowd")
    bout = table.script.bout
    for n in range(15):
        body = {"name": f"Fighter {n}", "cs": 50, "client_seed": f"{n:02d}" + "x" * 62}
        joined = httpx.post(f"{serve}/api/bouts/{bout}/join", json=body, timeout=30)
        assert joined.status_code == 201, joined.text
    tarl, _, _ = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65"
    )
    seed = httpx.get(f"{serve}/api/bouts/{bout}/export", timeout=30).json()["fairness"]
    assert len(seed["client_seed"]) > 1000  # with the words around it, over 1,024 bytes
    joined_line = next(line for line in tarl.private if "your join is event" in line)
    held = re.search(r"your join is event (\d+), hash ([0-9a-f]{64}) \(keep it", joined_line)
    assert held is not None, joined_line
    told = next(line for line in tarl.private if "client seed is now" in line)
    assert told.endswith(seed["client_seed"][-200:] + " (it ends with your HUD's own part)")
    assert region.violations == []


#: A proxy's page for a service behind it that is down: HTML, longer than one chat message.
BAD_GATEWAY = "<html><head><title>502 Bad Gateway</title></head><body>" + "<p>retry</p>" * 120


def test_a_proxys_error_page_is_never_told_as_it_is(
    relay: Relay,
    region,  # type: ignore[no-untyped-def]  # noqa: F811
) -> None:
    """A proxy in front of the service answers 502 with its HTML page (1.5 KB): the wearer is
    told the status in a line, not the page (cut by Second Life past 1,024 bytes); polls that
    get it are told once; the referee's table says the status alone too."""
    referee, table, _ = opened(region, relay.url, "msv Gateway")
    tarl, hud_t, _ = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65"
    )
    pakur, hud_p, _ = fighter(
        region, referee, table, "Pa-Kur", "pakur.resident", (129.0, 128.0, 25.0), 0, "cs=70"
    )
    begin(region, referee, table)
    region.advance(4.0)
    avatar, hud = (tarl, hud_t) if hud_t.script.turn == "Tarl" else (pakur, hud_p)
    relay.fail(502, BAD_GATEWAY)
    assert len(BAD_GATEWAY) > 1024
    told = len(avatar.private)
    act(region, avatar, hud)
    region.say(avatar, 7, "status")
    region.advance(4.0)
    assert avatar.private[told:] == [
        "referee: the service answered status 502",
        "referee: the service answered status 502",
        "referee: the service does not answer my polls (status 502); I keep trying every 4 s "
        "and tell you when it answers again",
    ]
    region.touch(referee, table)
    region.click(referee, "pause")  # the table, too, says the status alone
    assert referee.private[-1] == "referee table: pause: the service answered status 502"
    assert table.script.phase == "running"
    assert region.violations == []


def test_a_begin_whose_answers_were_both_lost_leaves_the_table_running(
    serve: str,  # noqa: F811
    region,  # type: ignore[no-untyped-def]  # noqa: F811
) -> None:
    """The service rolls initiative, but its answer and its retry's are both lost (two 60 s
    timeouts): the table is told 499 and stays on "open". Touched again, *begin* finds the bout
    running from its glance and runs it (pause, skip, void) instead of asking for initiative
    again."""
    referee, table, _ = opened(region, serve, "msv Lost")
    for name, pos in (("Tarl", 130.0), ("Pa-Kur", 129.0)):
        fighter(region, referee, table, name, name.lower() + ".resident",
                (pos, 128.0, 25.0), 0, "cs=60")  # fmt: skip
    region.drop, region.drops = (lambda request: request.url.endswith("/initiative")), 2
    begin(region, referee, table)
    sent = [r for r in region.requests if r.url.endswith("/initiative")]
    assert [r.dropped for r in sent] == [True, True]
    assert referee.private[-1] == "referee table: the service did not answer in time"
    assert table.script.phase == "open"
    begin(region, referee, table)
    assert len([r for r in region.requests if r.url.endswith("/initiative")]) == 2
    assert table.script.phase == "running"
    assert referee.private[-1].startswith("referee table: the bout has begun already")
    region.touch(referee, table)
    assert referee.dialog is not None and referee.dialog[2] == ["pause", "skip", "void", "close"]
    assert region.violations == []
