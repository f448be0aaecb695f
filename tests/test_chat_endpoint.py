"""The chat endpoint as a HUD drives it: whole lines only, names as people type them, one
plain-text `error: ...` line for everything that is wrong, rolls in the full notation."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee.bout.replay import check_export
from referee.chat import HELP
from referee.ledger import verify_export
from tests.service_fixtures import LiveServer


def msv_bout(live: LiveServer, *fighters: tuple[str, int]) -> tuple[str, str, dict[str, str]]:
    """An MSV bout with fighters added over chat; their links reissued as the console does."""
    bout = live.post("/api/bouts", json={"system": "msv", "name": "Chat", "client_seed": "hud"})
    bid, ref = bout.json()["id"], bout.json()["referee_token"]
    tokens = {}
    for name, cs in fighters:
        r = live.chat(bid, ref, f"add {name} {cs}")
        assert r.status_code == 200, r.text
        tokens[name] = reissue(live, bid, ref, name)
    return bid, ref, tokens


def reissue(live: LiveServer, bid: str, ref: str, name: str) -> str:
    r = live.post(f"/api/bouts/{bid}/fighters/{name}/token", ref)
    assert r.status_code == 200, r.text
    assert r.json()["name"] == name
    return str(r.json()["token"])


def events(live: LiveServer, bid: str) -> list[dict[str, Any]]:
    return list(live.get(f"/api/bouts/{bid}/log").json())


def raw(live: LiveServer, bid: str, token: str | None, body: bytes) -> Any:
    headers = {"content-type": "text/plain"}
    return live.post(f"/api/bouts/{bid}/chat", token, content=body, headers=headers)


def assert_plain_error(r: Any, status: int, text: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("text/plain")
    assert r.text == text
    assert "\n" not in r.text and len(r.content) <= 1024


NOT_COMMANDS = [
    ("close call!", 400, "error: not a command; did you mean `close bout`? (or `close joining`)"),
    ("pause for a moment please", 400, "error: not a command; did you mean `pause`?"),
    ("close", 400, "error: not a command; did you mean `close bout`? (or `close joining`)"),
    ("cancel the duel", 400, "error: not a command; did you mean `cancel bout`?"),
    ("skip ahead", 400, "error: not a command; did you mean `skip`?"),
    ("init!", 400, "error: not a command: 'init!' (say `help` for the list)"),
    (
        "end of the line",
        400,
        "error: not a command; did you mean `end bout`? (or `end bout SIDE` to name the winners)",
    ),
    (
        "attack the orc with my sword",
        404,
        "error: no fighter called 'the orc with my sword' (fighters: Tarl, Pa Kur)",
    ),
]


@pytest.mark.parametrize(("line", "status", "answer"), NOT_COMMANDS)
def test_a_line_that_is_not_all_a_command_changes_nothing(
    shared_live: LiveServer, line: str, status: int, answer: str
) -> None:
    bid, ref, _ = msv_bout(shared_live, ("Tarl", 65), ("Pa Kur", 60))
    assert shared_live.chat(bid, ref, "init").status_code == 200
    before = events(shared_live, bid)
    assert_plain_error(shared_live.chat(bid, ref, line), status, answer)
    assert events(shared_live, bid) == before
    view = shared_live.get(f"/api/bouts/{bid}").json()
    assert (view["closed"], view["status"]) == (False, "running")


def test_ending_and_revealing_need_their_whole_form(live: LiveServer) -> None:
    bid, ref, _ = msv_bout(live, ("Tarl", 65), ("Pa Kur", 60))
    assert live.chat(bid, ref, "init").status_code == 200
    r = live.chat(bid, ref, "PAUSE")
    assert r.status_code == 200 and r.text.startswith("pause: done. Chat: paused")
    assert live.chat(bid, ref, "resume").status_code == 200
    r = live.chat(bid, ref, "end bout tarl")
    assert r.status_code == 200 and r.text.startswith("Chat: ended, winner Tarl"), r.text
    r = live.chat(bid, ref, "close bout")
    assert r.status_code == 200 and re.fullmatch(
        r"Bout closed\. Server seed: [0-9a-f]{64} \(check it against the commitment\)", r.text
    )


def test_names_are_matched_without_quotes_or_capitals(live: LiveServer) -> None:
    bid, ref, tokens = msv_bout(live, ("Bob the Bold", 50), ("Pa Kur", 60), ("Pa-Kur", 55))
    names = [f["name"] for f in live.get(f"/api/bouts/{bid}").json()["fighters"]]
    assert names == ["Bob the Bold", "Pa Kur", "Pa-Kur"]
    assert live.chat(bid, ref, "update pa kur wounds=1").text.startswith("Pa Kur updated.")
    assert live.chat(bid, ref, "remove PA-KUR").text.startswith("Pa-Kur has left the bout.")
    assert live.chat(bid, ref, "init").status_code == 200
    first = live.get(f"/api/bouts/{bid}").json()["turn"]
    other = "pa kur" if first == "Bob the Bold" else "bob the bold"
    r = live.chat(bid, tokens[first], f"attack {other}")
    assert r.status_code == 200, r.text
    assert r.text.startswith(f"{first} attacks {'Pa Kur' if other == 'pa kur' else 'Bob the Bold'}")
    now = live.get(f"/api/bouts/{bid}").json()["turn"]
    if now is not None and now != first:
        foe = "Bob the Bold" if now == "Pa Kur" else "Pa Kur"
        r = live.chat(bid, ref, f"attack {now.lower()} {foe.upper()}")
        assert r.status_code == 200 and r.text.startswith(f"{now} attacks {foe}"), r.text


def test_a_referee_attack_names_both_fighters(live: LiveServer) -> None:
    bid, ref, _ = msv_bout(live, ("Tarl", 65), ("Pa Kur", 60))
    assert live.chat(bid, ref, "init").status_code == 200
    assert_plain_error(
        live.chat(bid, ref, "attack tarl"),
        400,
        "error: the referee names both: `attack ATTACKER Tarl`",
    )


def test_empty_oversized_and_non_utf8_bodies_are_one_plain_line(live: LiveServer) -> None:
    bid, ref, _ = msv_bout(live, ("Tarl", 65))
    before = events(live, bid)
    empty = "error: the chat line is empty (say `help` for the list)"
    assert_plain_error(raw(live, bid, ref, b""), 400, empty)
    assert_plain_error(raw(live, bid, ref, b"   "), 400, empty)
    assert_plain_error(
        raw(live, bid, ref, b"\xff\xfe"), 400, "error: the chat line is not UTF-8 text"
    )
    assert_plain_error(
        raw(live, bid, ref, b"status\nclose bout"),
        400,
        "error: a chat line is one line (no line breaks)",
    )
    # The limit counts bytes: 513 two-byte letters are 1,026 bytes though only 513 characters.
    assert_plain_error(
        raw(live, bid, ref, ("é" * 513).encode()),
        413,
        "error: the chat line is 1026 bytes (at most 1024)",
    )
    assert_plain_error(
        raw(live, bid, ref, b"a" * 1025), 413, "error: the chat line is 1025 bytes (at most 1024)"
    )
    r = raw(live, bid, ref, ("é" * 512).encode())  # exactly 1,024 bytes: read, and not a command
    assert r.status_code == 400 and r.text.startswith("error: not a command: 'ééé")
    assert_plain_error(
        raw(live, bid, ref, b"a" * 20_000), 413, "error: request body over 16384 bytes"
    )
    assert events(live, bid) == before


def test_what_needs_a_token_says_so(live: LiveServer) -> None:
    bid, _, _ = msv_bout(live, ("Tarl", 65))
    for line in ("status", "score", "//roll", "close bout"):
        assert_plain_error(
            live.chat(bid, None, line),
            401,
            f"error: `{line if line != '//roll' else '//roll -dice2 -sides6'}` needs a token "
            "of this bout (Authorization: Bearer TOKEN) or the character key of a fighter in it",
        )
    r = live.chat(bid, None, "help")
    assert r.status_code == 200 and r.text == HELP and len(r.content) <= 1024
    assert_plain_error(live.chat(bid, "not-a-token", "status"), 401, "error: unknown token")
    r = live.chat("no-such-bout", None, "help")
    assert r.status_code == 404 and r.text.startswith("error: ")


def test_the_add_answer_never_carries_a_token(live: LiveServer) -> None:
    bid, ref, _ = msv_bout(live)
    r = live.chat(bid, ref, "add Bob the Bold 50 Reds")
    assert r.status_code == 200
    assert r.text == (
        "Bob the Bold joins the bout. Its invite link is on the referee's console "
        "(tokens are never said in chat)."
    )
    fighter = live.get(f"/api/bouts/{bid}").json()["fighters"][0]
    assert (fighter["name"], fighter["side"]) == ("Bob the Bold", "Reds")


def test_a_reissued_link_works_and_the_old_one_is_refused(live: LiveServer) -> None:
    bid, ref, tokens = msv_bout(live, ("Tarl", 65), ("Pa Kur", 60))
    old = tokens["Tarl"]
    assert live.chat(bid, old, "status").status_code == 200
    new = reissue(live, bid, ref, "Tarl")
    assert new != old
    assert live.chat(bid, new, "status").status_code == 200
    assert live.get(f"/api/bouts/{bid}", new).json()["you"] == "Tarl"
    assert_plain_error(live.chat(bid, old, "status"), 401, "error: unknown token")
    assert live.chat(bid, tokens["Pa Kur"], "status").status_code == 200  # the others keep theirs
    r = live.post(f"/api/bouts/{bid}/fighters/Tarl/token", tokens["Pa Kur"])
    assert r.status_code == 403 and r.json()["error"] == "forbidden"
    r = live.post(f"/api/bouts/{bid}/fighters/Tarl/token")
    assert r.status_code == 401
    r = live.post(f"/api/bouts/{bid}/fighters/Zed/token", ref)
    assert r.status_code == 404


def test_rolls_take_the_full_notation_and_record_every_face(live: LiveServer) -> None:
    bid, ref, tokens = msv_bout(live, ("Tarl", 65), ("Pa Kur", 60))
    assert live.chat(bid, ref, "init").status_code == 200
    r = live.post(f"/api/bouts/{bid}/rolls", tokens["Tarl"], json={"dice": "2d20+1d6"})
    assert r.status_code == 200, r.text
    roll = r.json()
    assert (roll["actor"], roll["expression"]) == ("Tarl", "2d20+1d6")
    assert roll["dice"] == ["d20", "d20", "d6"] and len(roll["faces"]) == 3
    assert roll["total"] == sum(roll["faces"])
    assert [r["dice"] for r in roll["rolls"]] == [["d20", "d20"], ["d6"]]
    assert roll["rolls"][1]["nonce"] == roll["rolls"][0]["nonce"] + 1
    action = next(e for e in events(live, bid) if e["seq"] == roll["seq"])
    assert action["payload"] == {
        "kind": "roll",
        "expression": "2d20+1d6",
        "dice": ["d20", "d20", "d6"],
        "total": roll["total"],
        "by": "Tarl",
    }
    r = live.chat(bid, tokens["Pa Kur"], "roll 4d6kh3")
    said = re.fullmatch(
        r"Pa Kur rolled 4d6kh3 = \[([~\d]+), ([~\d]+), ([~\d]+), ([~\d]+)\] = (\d+) "
        r"\(nonce (\d+)\)",
        r.text,
    )
    assert said, r.text
    faces = sorted(int(f.strip("~")) for f in said.groups()[:4])
    assert int(said[5]) == sum(faces[1:])
    assert [f for f in said.groups()[:4] if f.startswith("~~")] == [f"~~{faces[0]}~~"]
    r = live.chat(bid, ref, "//roll 1d100+5")
    assert re.fullmatch(r"Referee rolled 1d100\+5 = \[\d+\] \+ 5 = \d+ \(nonce \d+\)", r.text), (
        r.text
    )
    r = live.chat(bid, tokens["Tarl"], "//roll -sides100 -dice1")
    # a free roll's receipt names its stream, as `referee export --chat` writes it, and the
    # service's signature follows it (tests/test_signed_lines.py checks it)
    assert re.fullmatch(
        r"OnlineHost: Tarl rolled 1 100-sided die: \d+ \(nonce \d+, free:Tarl\) sig:\S{112}", r.text
    ), r.text
    r = live.post(f"/api/bouts/{bid}/rolls", ref, json={"dice": "1001d6"})
    assert r.status_code == 413 and r.json()["error"] == "limit_exceeded"
    r = live.post(f"/api/bouts/{bid}/rolls", ref, json={"dice": "2d20x"})
    assert r.status_code == 400 and r.json()["error"] == "bad_notation"
    assert live.chat(bid, ref, "close bout").status_code == 200
    report = verify_export(live.get(f"/api/bouts/{bid}/export").json(), replay=check_export)
    assert report.ok, report
