"""What an outside tester of the service found, each pinned over a real server on 127.0.0.1
(SQLite, PostgreSQL): the answer the route gives, and that a refused request changes nothing."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.service_fixtures import LiveServer
from tests.test_judge_api import EXAMPLE
from tests.test_service_trust import chain, srp_bout, whose_turn

# -- why-not says what the action itself would say ----------------------------------------------


@pytest.mark.parametrize(
    "terms", [{"rear": True}, {"modifier": 5}, {"defend": "none"}, {"range": 100}], ids=repr
)
def test_why_not_refuses_a_fighters_own_terms_as_the_action_does(
    shared_live: LiveServer, terms: dict[str, Any]
) -> None:
    """A fighter may not choose the terms of its own action (docs/api.md): `why-not` asked with
    them by its token says the 403's own words, never `null` (the console would enable a button
    whose action is refused); the referee may set them, so its `why-not` is `null`."""
    bid, ref, tokens = srp_bout(shared_live)
    me = whose_turn(shared_live, bid)
    foe = "Bran" if me == "Ann" else "Ann"
    before = chain(shared_live, bid)
    refused = shared_live.post(
        f"/api/bouts/{bid}/attacks", tokens[me], json={"attacker": me, "target": foe, **terms}
    )
    assert refused.status_code == 403, refused.text
    asked = {"actor": me, "kind": "attack", "target": foe, "options": json.dumps(terms)}
    said = shared_live.get(f"/api/bouts/{bid}/why-not", tokens[me], params=asked)
    assert said.status_code == 200, said.text
    assert said.json()["why_not"] == refused.json()["message"]
    (term,) = terms
    assert said.json()["why_not"].startswith(f"{term}: not {me}'s to choose")
    if term != "range":  # SRP's attack takes the others from the referee
        assert shared_live.get(f"/api/bouts/{bid}/why-not", ref, params=asked).json() == {
            "actor": me, "kind": "attack", "target": foe, "why_not": None,
        }  # fmt: skip
    assert chain(shared_live, bid) == before


# -- a character's name follows a fighter's rules -------------------------------------------------


def characters_of(live: LiveServer, key: str) -> list[dict[str, Any]]:
    listed = live.get("/api/characters", key)
    assert listed.status_code == 200, listed.text
    return list(listed.json()["characters"])


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Referee", "character name 'Referee' is reserved"),
        ("OnlineHost", "character name 'OnlineHost' is reserved"),
        ("0nlineHost", "character name '0nlineHost' is reserved (it looks like OnlineHost)"),
        ("Bob 6-sided", "character name 'Bob 6-sided' has '-sided' in it"),
    ],
)
def test_a_character_may_not_take_a_name_no_fighter_may(
    shared_live: LiveServer, name: str, why: str
) -> None:
    """A character's name is a fighter's (docs/api.md, "Bounds"): one no fighter may take (a
    reserved one, one drawn like it, one with the host's `-sided`) is 400 when it is saved or
    renamed, by the API or a chat line, and nothing is kept; never a character that no bout
    can take."""
    made = shared_live.post(
        "/api/characters", json={"name": "Rask", "system": "msv", "sheet": {"cs": 65}}
    )
    assert made.status_code == 201, made.text
    key, rask = made.json()["key"], made.json()["character"]
    body = {"name": name, "system": "msv", "sheet": {"cs": 65}}
    for refused in (
        shared_live.post("/api/characters", json=body),
        shared_live.post("/api/characters", key, json=body),
        shared_live.request("PATCH", f"/api/characters/{rask['id']}", key, json={"name": name}),
    ):
        assert refused.status_code == 400, refused.text
        assert refused.json()["message"].startswith(why)
    assert characters_of(shared_live, key) == [rask]
    bout = shared_live.post("/api/bouts", json={"system": "msv", "name": "Names"}).json()
    said = shared_live.post(
        f"/api/bouts/{bout['id']}/chat",
        content=f"char new {name} cs=50",
        headers={"content-type": "text/plain", "X-Character-Key": key},
    )
    assert said.status_code == 400 and said.text.startswith(f"error: {why}"), said.text
    assert characters_of(shared_live, key) == [rask]


def test_one_key_holds_one_character_of_a_name(shared_live: LiveServer) -> None:
    """The doors name a key's characters (`char set NAME`, `join NAME`, `~char set NAME`) in any
    letter case or width, so one key may not hold two of one name: a second is 409 when it is
    saved or renamed to it, by the API or a chat line, and nothing is kept. Another key's
    character of the same name is no conflict, nor a character renamed to its own name."""
    made = shared_live.post(
        "/api/characters", json={"name": "Tarl", "system": "msv", "sheet": {"cs": 65}}
    )
    key, tarl = made.json()["key"], made.json()["character"]
    other = shared_live.post(
        "/api/characters", key, json={"name": "Rask", "system": "msv", "sheet": {"cs": 60}}
    ).json()["character"]
    for name in ("Tarl", "tarl", "TARL", "Ｔａｒｌ"):
        body = {"name": name, "system": "msv", "sheet": {"cs": 50}}
        refused = shared_live.post("/api/characters", key, json=body)
        assert refused.status_code == 409, refused.text
        assert refused.json() == {
            "error": "conflict",
            "message": "this key already holds a character called 'Tarl'",
        }
        renamed = shared_live.request(
            "PATCH", f"/api/characters/{other['id']}", key, json={"name": name}
        )
        assert renamed.status_code == 409, renamed.text
    bout = shared_live.post("/api/bouts", json={"system": "msv", "name": "Twins"}).json()
    said = shared_live.post(
        f"/api/bouts/{bout['id']}/chat",
        content="char new tarl cs=50",
        headers={"content-type": "text/plain", "X-Character-Key": key},
    )
    assert said.status_code == 409, said.text
    assert said.text == "error: this key already holds a character called 'Tarl'"
    assert characters_of(shared_live, key) == [other, tarl]
    # Another key's Tarl is its own; a character may keep its own name in another case.
    body = {"name": "Tarl", "system": "msv", "sheet": {"cs": 50}}
    assert shared_live.post("/api/characters", json=body).status_code == 201
    again = shared_live.request(
        "PATCH", f"/api/characters/{tarl['id']}", key, json={"name": "TARL"}
    )
    assert again.status_code == 200 and again.json()["name"] == "TARL", again.text


# -- an evening never forks ----------------------------------------------------------------------


def listed_ids(live: LiveServer) -> list[str]:
    return [b["id"] for b in live.get("/api/bouts").json()]


@pytest.mark.parametrize("closed_first", [False, True], ids=["running", "closed"])
def test_a_fight_has_one_next_fight(live: LiveServer, closed_first: bool) -> None:
    """`POST .../next` makes a fight's next fight once (docs/srp.md, "An evening"): it revokes
    the fight's referee token with it, as a hand-over does, so asking again (the fight already
    closed) cannot open a second bout that follows the same one, carries the same fighters and
    passes `check_evening` as the first does: a referee could play both and keep the better.
    A retry with the request's Idempotency-Key still gets the first answer."""
    bid, ref, _ = srp_bout(live)
    if closed_first:  # the referee closes the fight, then starts the next one
        assert live.post(f"/api/bouts/{bid}/close", ref).status_code == 200
    key = {"Idempotency-Key": "next-1"}
    first = live.post(f"/api/bouts/{bid}/next", ref, json={"name": "Barrow"}, headers=key)
    assert first.status_code == 200, first.text
    after = (chain(live, bid), listed_ids(live))
    again = live.post(f"/api/bouts/{bid}/next", ref, json={"name": "Barrow"}, headers=key)
    assert again.status_code == 200 and again.content == first.content
    for headers in ({}, {"Idempotency-Key": "next-2"}):
        fork = live.post(f"/api/bouts/{bid}/next", ref, json={"name": "Fork"}, headers=headers)
        assert fork.status_code == 401, fork.text
        assert fork.json() == {"error": "unauthorized", "message": "unknown token"}
    assert (chain(live, bid), listed_ids(live)) == after
    assert first.json()["id"] in after[1]
    # The new fight's referee goes on as ever.
    new_ref = first.json()["referee_token"]
    assert live.post(f"/api/bouts/{first.json()['id']}/initiative", new_ref).status_code == 200


def test_two_next_fights_asked_at_once_make_one(live: LiveServer) -> None:
    """Two requests for the next fight of one bout at once (threads against the server): one
    is answered with the new bout, the other refused, and one bout follows it (on SQLite and
    PostgreSQL alike, whichever the race)."""
    bid, ref, _ = srp_bout(live)
    before = listed_ids(live)
    start = threading.Barrier(2)

    def ask(name: str) -> httpx.Response:
        with httpx.Client(base_url=live.url, timeout=60) as client:
            start.wait(timeout=30)
            return client.post(
                f"/api/bouts/{bid}/next",
                headers={"Authorization": f"Bearer {ref}"},
                json={"name": name},
            )

    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(ask, ["One", "Two"]))
    # The one asked second is refused either way: its token already revoked (401), or read
    # while the first was running, and then the bout found closed by it (409).
    codes = sorted(a.status_code for a in answers)
    assert codes in ([200, 401], [200, 409]), [a.text for a in answers]
    made = [b for b in listed_ids(live) if b not in before]
    assert made == [next(a.json()["id"] for a in answers if a.status_code == 200)]


# -- the glance says nothing of a hidden stat ------------------------------------------------------

#: An SRP fighter with PM and Spirit (SRP-17), whose spirit combat the rules may refuse by its PM.
SPIRITED = {
    "hits": 12, "skills": {"sword": 14}, "defense": 12, "armor": 2,
    "weapons": [{"name": "sword", "damage": 3}], "pm": 5, "spirit": 5,
}  # fmt: skip


@pytest.mark.parametrize(
    ("hidden_one", "values", "legal"),
    [
        ("Ann", (0, 5), {"attack": ["Bran"], "pass": []}),
        ("Bran", (-1, 5), {"attack": ["Bran"], "spirit": ["Bran"], "pass": []}),
    ],
    ids=["the actor's PM", "the target's PM"],
)
def test_the_glance_lists_the_same_actions_whatever_a_hidden_stat_is(
    shared_live: LiveServer, hidden_one: str, values: tuple[int, int], legal: dict[str, Any]
) -> None:
    """The glance is anyone's (no token; docs/api.md): its legal actions must not follow from a
    hidden stat. Ann acts first; a spirit combat is refused before its dice when her side is at
    0 PM (SRP-17, `spirit_at_zero = end`) or when its target has passed out (-1 PM). With that
    PM hidden, two bouts that differ only in it glance alike, the hidden PM counted as an SRP
    sheet's default, 0 (so Ann's own spirit combat is not offered: the action decides); the
    referee's `why-not` still tells them apart, and the action itself is refused as ever."""
    seen = []
    for pm in values:
        listed = {"system": "srp", "name": "Ghosts", "rules": {"turn_order": "listed"}}
        made = shared_live.post("/api/bouts", json=listed)
        bid, ref = made.json()["id"], made.json()["referee_token"]
        for name in ("Ann", "Bran"):
            mine = name == hidden_one
            body = {"name": name, "sheet": {**SPIRITED, "pm": pm if mine else 5}}
            body["hidden"] = ["pm"] if mine else []
            assert shared_live.post(f"/api/bouts/{bid}/fighters", ref, json=body).status_code == 201
        assert shared_live.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
        glanced = shared_live.get(f"/api/bouts/{bid}/glance")
        assert glanced.status_code == 200, glanced.text
        seen.append(glanced.json()["actions"])
        asked = {"actor": "Ann", "kind": "spirit", "target": "Bran"}
        why = shared_live.get(f"/api/bouts/{bid}/why-not", ref, params=asked).json()["why_not"]
        assert (why is None) is (pm == 5)
    assert seen[0] == seen[1] == legal


# -- a rule pack's whole numbers may be written 15.0 ---------------------------------------------


def test_a_rule_packs_whole_numbers_may_be_written_with_a_point(shared_live: LiveServer) -> None:
    """docs/api.md, "Bounds": a whole number may be written `62` or `62.0` (JSON Schema calls
    both integers), never `"62"`, `true` or `62.5`. So in a rule pack too (a bout's `rules`,
    the judge's, the lab's `pack`): `15.0` is read as 15, the same answer as `15`; `15.5` is
    refused as before, and nothing is made."""
    made = shared_live.post(
        "/api/bouts",
        json={"system": "msv", "name": "Points", "rules": {"band_width": 10.0, "damage_cap": 5.0}},
    )
    assert made.status_code == 201, made.text
    opened = shared_live.get(f"/api/bouts/{made.json()['id']}/log").json()[0]["payload"]["rules"]
    assert (opened["band_width"], opened["damage_cap"]) == (10, 5)
    assert type(opened["band_width"]) is int
    listed = shared_live.get("/api/bouts").json()
    for wrong in (10.5, "10", True):
        refused = shared_live.post(
            "/api/bouts", json={"system": "msv", "name": "Points", "rules": {"band_width": wrong}}
        )
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"] == "bad_rule_pack"
    assert shared_live.get("/api/bouts").json() == listed
    log = EXAMPLE.read_text(encoding="utf-8")
    judged = [
        shared_live.post("/api/judge", json={"log": log, "rules": {"band_width": width}})
        for width in (10, 10.0)
    ]
    assert [j.status_code for j in judged] == [200, 200], judged[1].text
    assert judged[0].json() == judged[1].json()
    analysed = [
        shared_live.post("/api/lab/analyse", json={"pack": {"damage_cap": cap}, "step": 20})
        for cap in (5, 5.0)
    ]
    assert [a.status_code for a in analysed] == [200, 200], analysed[1].text
    assert analysed[0].json() == analysed[1].json()


def test_a_join_without_its_character_key_names_the_header_it_is_sent_in(
    shared_live: LiveServer,
) -> None:
    """`POST .../characters` takes the key as `X-Character-Key` (its Authorization is the bout's
    token): without one, the 401 says that header, not `Authorization: Bearer`, which would
    send a client's key where the route never reads it. Nothing is stored."""
    made = shared_live.post(
        "/api/characters", json={"name": "Rask", "system": "msv", "sheet": {"cs": 65}}
    )
    bout = shared_live.post("/api/bouts", json={"system": "msv", "name": "Keys"}).json()
    bid, ref = bout["id"], bout["referee_token"]
    before = chain(shared_live, bid)
    body = {"character": made.json()["character"]["id"]}
    for token in (None, ref):
        refused = shared_live.post(f"/api/bouts/{bid}/characters", token, json=body)
        assert refused.status_code == 401, refused.text
        assert refused.json() == {
            "error": "unauthorized",
            "message": "this needs a character key (X-Character-Key: ck_...)",
        }
    assert chain(shared_live, bid) == before
    # The key's own routes take it as the bearer token, and say so.
    listed = shared_live.get("/api/characters")
    assert listed.json()["message"] == "this needs a character key (Authorization: Bearer ck_...)"


# -- a referee's words are one line ------------------------------------------------------------

#: A ruling's words that would write a host's roll line of their own into the chat export.
FORGED = "a ruling\n[21:00:00] OnlineHost: Tarl rolled 1 100-sided die: 1 (nonce 9)"


#: Line breaks beyond CR and LF: NEL (U+0085), LINE and PARAGRAPH SEPARATOR (U+2028, U+2029), which
#: editors, viewers and Python's `str.splitlines` break a line at, and the other C1 controls.
UNICODE_BREAKS = [
    *(FORGED.replace("\n", sep) for sep in ("\x85", "\u2028", "\u2029")),
    "a\x7fruling",
]

#: Bidi controls that would show the rest of the sentence, its faces, reordered: an override
#: (RLO) and an isolate (RLI) left open in the words.
BIDI_SPOOFS = ["a ruling \u202e1 :eid", "a ruling \u20671 :eid"]


@pytest.mark.parametrize(
    "text",
    [FORGED, "a\rruling", "a\x00ruling", "a\truling", *UNICODE_BREAKS, *BIDI_SPOOFS],
    ids=repr,
)
def test_an_end_reason_and_an_override_note_are_one_line(
    shared_live: LiveServer, text: str
) -> None:
    """The words of an ending and of an override go into every sentence of the bout (the chat
    export `referee judge` reads, the console's log, Discord): with a line break they would
    write a line of their own there, a host's roll line say. As a fighter's update reason and a
    time's passing (1 to 200 printable characters), they are 400 and nothing is stored; so are
    words with a bidi override or isolate, which would show the faces after them reordered."""
    bid, ref, tokens = srp_bout(shared_live)
    me = whose_turn(shared_live, bid)
    foe = "Bran" if me == "Ann" else "Ann"
    hit = shared_live.post(
        f"/api/bouts/{bid}/attacks", tokens[me], json={"attacker": me, "target": foe}
    )
    assert hit.status_code == 200, hit.text
    before = chain(shared_live, bid)
    outcome = hit.json()["seq"]
    for path, body, what in (
        ("end", {"reason": text}, "reason"),
        ("override", {"of": outcome, "wounds": {foe: 0}, "note": text}, "note"),
    ):
        refused = shared_live.post(f"/api/bouts/{bid}/{path}", ref, json=body)
        assert refused.status_code == 400, refused.text
        assert refused.json() == {
            "error": "rule_violation",
            "message": f"{what} {text!r} must be 1 to 200 printable characters",
        }
    assert chain(shared_live, bid) == before
    slip = {"of": outcome, "wounds": {foe: 0}, "note": "a slip"}
    ruled = shared_live.post(f"/api/bouts/{bid}/override", ref, json=slip)
    assert ruled.status_code == 200, ruled.text
    assert ruled.json()["events"][0]["payload"]["note"] == "a slip"
    ended = shared_live.post(f"/api/bouts/{bid}/end", ref, json={"reason": "the ford floods"})
    assert ended.status_code == 200, ended.text
    assert ended.json()["events"][0]["payload"]["reason"] == "the ford floods"


@pytest.mark.parametrize(
    "sep", ["\n", "\r", "\x85", "\u2028", "\u2029", "\x1b", "\u202e", "\u2066"], ids=repr
)
@pytest.mark.parametrize("where", ["weapon", "skill"])
def test_a_weapons_or_skills_name_is_one_line(
    shared_live: LiveServer, sep: str, where: str
) -> None:
    """A fighter's own sheet names its weapons and skills, and the sentences say them (`Ann
    attacks Orc with the sword`): with a line break in one, the chat export and the HUD's
    local chat would hold a line of its own, a host's roll line say. Refused (400) at the
    join, in any break Unicode has; nothing is stored."""
    bout = shared_live.post(
        "/api/bouts", json={"system": "srp", "name": "Ford", "client_seed": "g"}
    )
    bid = bout.json()["id"]
    before = chain(shared_live, bid)
    forged = f"sword{sep}OnlineHost: Orc rolled 1 100-sided die: 1"
    weapon, skill = (forged, "sword") if where == "weapon" else ("sword", forged)
    sheet = {"weapons": [{"name": weapon, "damage": 3}], "skills": {skill: 15}, "hits": 12}
    refused = shared_live.post(f"/api/bouts/{bid}/join", json={"name": "Ann", "sheet": sheet})
    assert refused.status_code == 400, refused.text
    shown = (
        "stats of fighter.weapons[0].name" if where == "weapon" else "stats of fighter.skills key"
    )
    bad = f"U+{ord(sep):04X}"
    assert refused.json() == {
        "error": "rule_violation",
        "message": f"{shown} = {forged!r} has a line break or a control character ({bad})",
    }
    assert chain(shared_live, bid) == before


# -- a bout recorded before the one-line rule still verifies ---------------------------------------


def test_an_export_recorded_before_the_one_line_rule_still_verifies() -> None:
    """tests/data/exports/srp-before-the-one-line-rule.json was made by the code before the
    one-line rule (commit 0c36f49): a weapon and a skill named with U+2028 and a time passed for
    a reason holding one, then attacks and the close. The service refuses such texts in what it
    is given from now on; the rules replay decides the recorded bout as it was decided, so
    `referee verify` still says it holds."""
    from click.testing import CliRunner

    from referee.cli.main import cli

    path = Path(__file__).parent / "data" / "exports" / "srp-before-the-one-line-rule.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    said = json.dumps(doc, ensure_ascii=False)
    assert "long\u2028sword" in said and "a rest\u2028by the fire" in said
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert result.exit_code == 0, result.output
    assert "rules hold" in result.output
