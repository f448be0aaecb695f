"""Spirit combat in a bout (SRP-17): the `spirit` action round by round, with scripted dice
pinning both sides' PM, through the engine, the rules replay, the redaction of hidden PM and
Spirit (SRP-10), the HTTP action route and the chat endpoint."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from referee.bout import commands as c
from referee.bout.events import Event
from referee.bout.replay import check_export, check_outcomes
from referee.bout.runner import BoutRunner
from referee.chat import Odds, Roster, Spirit, parse_line
from referee.errors import ConflictError, RuleError
from referee.ledger import verify_export
from referee.rng import ScriptedRng
from referee.service.redaction import redact_hidden
from tests.service_fixtures import LiveServer


def pm_oracle(
    ours: tuple[int, int, int], theirs: tuple[int, int], faces: list[int]
) -> tuple[int, int]:
    """SRP-17 by hand: (Spirit, PM, helpers) of the actor, (Spirit, PM) of the target, the
    four faces (actor's 2d6 first) -> both PM after the round."""
    (sa, pa, helpers), (sb, pb) = ours, theirs
    ta, tb = faces[0] + faces[1] + sa + helpers, faces[2] + faces[3] + sb
    if ta > tb:
        pb -= 1
    elif tb > ta:
        pa -= 1
    return max(pa, -1), max(pb, -1)


def spirit_bout(faces: list[int], ghost_hidden: tuple[str, ...] = ()) -> BoutRunner:
    bout = BoutRunner.open("srp", "Haunting", rng=ScriptedRng(faces))
    bout.run(c.AddFighter("Andrea", {"hits": 10, "spirit": 5, "pm": 5}))
    bout.run(c.AddFighter("Ghost", {"hits": 10, "spirit": 4, "pm": 2}, hidden=ghost_hidden))
    bout.run(c.RollInitiative())  # the listed order: Andrea, then Ghost
    return bout


def pms(bout: BoutRunner) -> dict[str, tuple[int, int]]:
    return {f.name: (f.stats["pm"], f.stats["spirit"]) for f in bout.state.fighters}


def outcome(events: list[Event]) -> dict[str, Any]:
    return next(e.payload for e in events if e.type == "outcome")


def test_three_rounds_pin_both_sides_pm_until_the_ghost_passes_out() -> None:
    # SRP-17: 2d6 + Spirit each; the higher total takes 1 PM; at -1 PM out, -1 Spirit for good.
    bout = spirit_bout([6, 5, 3, 4, 1, 1, 6, 6, 2, 2, 2, 2])
    first = bout.run(c.Act("Andrea", "spirit", {"target": "Ghost"}), by="Andrea")
    p = outcome(first)
    assert p["totals"] == [16, 11] and p["dice"] == [[6, 5], [3, 4]]
    assert p["lost_pm"] == ["Ghost"] and p["passed_out"] == []
    assert p["pm_after"] == [[{"name": "Andrea", "pm": 5}], [{"name": "Ghost", "pm": 1}]]
    assert p["summary"] == (
        "Andrea vs Ghost in spirit combat: 16 vs 11, Ghost loses 1 PM. PM now: Andrea 5 | Ghost 1"
    )
    assert [(e.type, e.payload) for e in first if e.type == "stat"] == [
        ("stat", {"target": "Ghost", "key": "pm", "value": 1})
    ]
    assert pms(bout) == {"Andrea": (5, 5), "Ghost": (1, 4)}

    second = outcome(bout.run(c.Act("Ghost", "spirit"), by="Ghost"))  # the only enemy
    assert second["totals"] == [6, 17] and second["lost_pm"] == ["Ghost"]
    assert second["bindable"] == []  # Andrea's side is not spent
    assert second["summary"].endswith("PM now: Ghost 0 | Andrea 5")
    assert pms(bout) == {"Andrea": (5, 5), "Ghost": (0, 4)}

    third = bout.run(c.Act("Andrea", "spirit", {"target": "Ghost"}), by="Andrea")
    p = outcome(third)
    assert p["totals"] == [9, 8] and p["passed_out"] == ["Ghost"]
    assert p["summary"] == (
        "Andrea vs Ghost in spirit combat: 9 vs 8, Ghost loses 1 PM. Ghost passes out and "
        "loses 1 Spirit for good. PM now: Andrea 5 | Ghost -1"
    )
    assert pms(bout) == {"Andrea": (5, 5), "Ghost": (-1, 3)}
    # Passed out: its turn is skipped, and no spirit combat is fought with it.
    skipped = [e.payload for e in third if e.type == "skipped"]
    assert skipped == [{"name": "Ghost", "reason": "Ghost has passed out (-1 PM, SRP-17)"}]
    assert bout.state.current == "Andrea"
    before = len(bout.events)
    with pytest.raises(RuleError, match="passed out"):
        bout.run(c.Act("Andrea", "spirit", {"target": "Ghost"}), by="Andrea")
    assert len(bout.events) == before
    assert check_outcomes(bout.events) == []  # the rules replay decides every round again


def test_a_ghost_at_zero_pm_may_be_bound_and_a_tie_takes_nothing() -> None:
    bout = spirit_bout([6, 6, 1, 1, 3, 3, 1, 4, 6, 6, 1, 1])
    bout.run(c.Act("Andrea", "spirit"), by="Andrea")  # 17 vs 6: Ghost 1
    tie = outcome(bout.run(c.Act("Ghost", "spirit"), by="Ghost"))  # 3+3+4 = 10 vs 1+4+5 = 10
    assert tie["totals"] == [10, 10] and tie["lost_pm"] == []
    assert "a tie, nobody loses PM" in tie["summary"]
    assert pms(bout)["Ghost"] == (1, 4)
    spent = outcome(bout.run(c.Act("Andrea", "spirit"), by="Andrea"))
    assert spent["bindable"] == ["Ghost"]
    assert spent["summary"].endswith(
        "PM now: Andrea 5 | Ghost 0 (Ghost at 0 PM: Andrea may end the spirit combat; "
        "command, bind and ally may be cast on it)"
    )


def test_each_helper_adds_one_to_the_actors_roll() -> None:
    bout = BoutRunner.open("srp", "Circle", rng=ScriptedRng([2, 2, 3, 3]))
    bout.run(c.AddFighter("Andrea", {"hits": 10, "spirit": 5, "pm": 5}, side="circle"))
    bout.run(c.AddFighter("Bo", {"hits": 10, "spirit": 1, "pm": 1}, side="circle"))
    bout.run(c.AddFighter("Cy", {"hits": 10, "spirit": 1, "pm": 1}, side="circle"))
    bout.run(c.AddFighter("Wraith", {"hits": 10, "spirit": 6, "pm": 6}))
    bout.run(c.RollInitiative())
    p = outcome(bout.run(c.Act("Andrea", "spirit", {"helpers": ["Bo", "Cy"]}), by="Andrea"))
    # 2+2 + Spirit 5 + 2 helpers = 11 vs 3+3 + 6 = 12: only the lead loses PM.
    assert p["totals"] == [11, 12] and p["lost_pm"] == ["Andrea"] and p["helpers"] == ["Bo", "Cy"]
    assert pm_oracle((5, 5, 2), (6, 6), [2, 2, 3, 3]) == (4, 6)
    assert [(f.name, f.stats["pm"]) for f in bout.state.fighters] == [
        ("Andrea", 4), ("Bo", 1), ("Cy", 1), ("Wraith", 6),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"target": "Bo"}, "not a standing enemy"),
        ({"helpers": ["Wraith"]}, "not a standing ally"),
        ({"helpers": ["Andrea"]}, "named twice"),
        ({"helpers": 3}, "not a list"),
        ({"aim": 2}, "unknown spirit options"),
    ],
)
def test_a_spirit_round_the_rules_refuse_changes_nothing(
    options: dict[str, Any], error: str
) -> None:
    bout = BoutRunner.open("srp", "Circle", rng=ScriptedRng([]))
    bout.run(c.AddFighter("Andrea", {"hits": 10, "spirit": 5}, side="circle"))
    bout.run(c.AddFighter("Bo", {"hits": 10, "spirit": 1}, side="circle"))
    bout.run(c.AddFighter("Wraith", {"hits": 10, "spirit": 6, "pm": 6}))
    bout.run(c.RollInitiative())
    before = list(bout.events)
    with pytest.raises((RuleError, ConflictError), match=error):
        bout.run(c.Act("Andrea", "spirit", options), by="Andrea")
    assert bout.events == before


def test_hidden_pm_and_spirit_stay_out_of_the_public_log() -> None:
    # SRP-10: the summary shows `?` for them; the redaction drops totals and PM after.
    bout = spirit_bout([6, 5, 3, 4], ghost_hidden=("pm", "spirit"))
    bout.run(c.Act("Andrea", "spirit", {"target": "Ghost"}), by="Andrea")
    records = [{"seq": i, **e.to_dict()} for i, e in enumerate(bout.events)]
    public = redact_hidden(records)
    added = next(
        e for e in public if e["type"] == "fighter_added" and e["payload"]["name"] == "Ghost"
    )
    assert (
        added["payload"]["stats"]["pm"] == "hidden"
        and added["payload"]["stats"]["spirit"] == "hidden"
    )
    stat = next(e for e in public if e["type"] == "stat")
    assert stat["payload"] == {"target": "Ghost", "key": "pm", "value": "hidden"}
    shown = next(e for e in public if e["type"] == "outcome")["payload"]
    assert set(shown) == {
        "kind", "actor", "target", "summary", "extra_action", "dice", "helpers", "leads",
        "lost_pm", "passed_out",
    }  # fmt: skip
    assert shown["summary"] == (
        "Andrea vs Ghost in spirit combat: 16 vs ?, Ghost loses 1 PM. PM now: Andrea 5 | Ghost ?"
    )
    text = repr(public)
    for secret in ("'pm': 1", "'totals'", "'pm_after'", "'spirit': 4"):
        assert secret not in text


# -- over HTTP and chat ----------------------------------------------------------------------


def srp_bout(live: LiveServer, hidden: list[str] | None = None) -> tuple[str, str, dict[str, str]]:
    bout = live.post("/api/bouts", json={"system": "srp", "name": "Haunting", "client_seed": "t"})
    bid, ref = bout.json()["id"], bout.json()["referee_token"]
    tokens = {}
    for name, sheet, extra in (
        ("Andrea", {"hits": 10, "spirit": 5, "pm": 5}, {}),
        ("Ghost", {"hits": 10, "spirit": 4, "pm": 3}, {"hidden": hidden} if hidden else {}),
    ):
        r = live.post(
            f"/api/bouts/{bid}/fighters", ref, json={"name": name, "sheet": sheet, **extra}
        )
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["token"]
    assert live.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    return bid, ref, tokens


def faces_of(live: LiveServer, bid: str, seq_from: int) -> list[int]:
    log = live.get(f"/api/bouts/{bid}/log").json()
    return [
        f
        for e in log
        if e["seq"] >= seq_from and e["type"] == "roll"
        for f in e["payload"]["faces"]
    ]


def test_spirit_rounds_over_http_and_chat_pin_pm_from_the_recorded_dice(live: LiveServer) -> None:
    bid, ref, tokens = srp_bout(live)
    pm = {"Andrea": 5, "Ghost": 3}
    spirit = {"Andrea": 5, "Ghost": 4}
    for turn in range(4):
        actor, target = ("Andrea", "Ghost") if turn % 2 == 0 else ("Ghost", "Andrea")
        seq = len(live.get(f"/api/bouts/{bid}/log").json())
        if turn < 2:
            r = live.post(
                f"/api/bouts/{bid}/actions",
                tokens[actor],
                json={"actor": actor, "kind": "spirit", "options": {"target": target}},
            )
            assert r.status_code == 200, r.text
            said = r.json()["summary"]
        else:
            r = live.chat(bid, tokens[actor], f"spirit {target.lower()}")
            assert r.status_code == 200, r.text
            said = r.text
        faces = faces_of(live, bid, seq)
        assert len(faces) == 4
        pm[actor], pm[target] = pm_oracle(
            (spirit[actor], pm[actor], 0), (spirit[target], pm[target]), faces
        )
        order = (actor, target)
        assert f"PM now: {order[0]} {pm[order[0]]} | {order[1]} {pm[order[1]]}" in said, said
        view = live.get(f"/api/bouts/{bid}").json()
        assert {f["name"]: f["stats"]["pm"] for f in view["fighters"]} == pm
        if min(pm.values()) <= 0:
            break
    assert live.chat(bid, ref, "close bout").status_code == 200
    report = verify_export(live.get(f"/api/bouts/{bid}/export").json(), replay=check_export)
    assert report.ok, report


def test_the_chat_spirit_line_and_a_hidden_ghosts_pm(live: LiveServer) -> None:
    bid, ref, tokens = srp_bout(live, hidden=["pm", "spirit"])
    r = live.chat(bid, ref, "spirit Ghost")
    assert (
        r.status_code == 400 and r.text == "error: the referee names both: `spirit FIGHTER Ghost`"
    )
    r = live.chat(bid, tokens["Andrea"], "spirit ghost")
    assert r.status_code == 200, r.text
    assert r.text.startswith("Andrea vs Ghost in spirit combat: ") and "Ghost ?" in r.text
    public = live.get(f"/api/bouts/{bid}", tokens["Andrea"]).json()
    ghost = next(f for f in public["fighters"] if f["name"] == "Ghost")
    assert "pm" not in ghost["stats"] and "spirit" not in ghost["stats"]
    log = live.get(f"/api/bouts/{bid}/log", tokens["Andrea"]).json()
    assert "pm_after" not in repr(log) and "totals" not in repr(log)
    seen = live.get(f"/api/bouts/{bid}", ref).json()
    assert next(f for f in seen["fighters"] if f["name"] == "Ghost")["stats"]["pm"] in (2, 3)


def test_spirit_and_odds_lines_read_back() -> None:
    roster = Roster(("Andrea", "Ghost of Tor"), dialect="roll20")
    assert parse_line("spirit ghost of tor", roster) == Spirit("Ghost of Tor")
    assert parse_line("SPIRIT andrea ghost of tor", roster) == Spirit("Ghost of Tor", "Andrea")
    assert str(Spirit("Ghost of Tor", "Andrea")) == "spirit Andrea Ghost of Tor"
    assert parse_line("odds 2d6 + 3", roster) == Odds("2d6+3")
    assert parse_line(str(Odds("4d6kh3")), roster) == Odds("4d6kh3")


def test_odds_at_the_chat_endpoint_answers_exactly_and_records_nothing(live: LiveServer) -> None:
    bid, ref, tokens = srp_bout(live)
    before = live.get(f"/api/bouts/{bid}/log").json()
    r = live.chat(bid, tokens["Ghost"], "odds 2d6")
    assert r.status_code == 200, r.text
    assert r.text == (
        "odds 2d6 (roll20, exact): mean 7, sd 2.4152, 2..12; most likely 7 16.67%, 6 13.89%, "
        "8 13.89%; P(>=) 2 100%, 3 97.22%, 4 91.67%, 5 83.33%, 6 72.22%, 7 58.33%, "
        "8 41.67%, 9 27.78%, 10 16.67%, 11 8.33%, 12 2.78%"
    )
    r = live.chat(bid, ref, "odds 3d6+1d4")
    # Brute force over every throw: 104 of 864 make 13, the likeliest total.
    totals = [sum(t) for t in itertools.product(*[range(1, 7)] * 3, range(1, 5))]
    assert (
        len(totals) == 864 and totals.count(13) == 104 and max(set(totals), key=totals.count) == 13
    )
    assert r.status_code == 200 and r.text.startswith(
        "odds 3d6+1d4 (roll20, exact): mean 13, sd 3.1623, 4..22; most likely 13 12.04%"
    ), r.text
    assert r.text.count(",") < 40 and len(r.content) <= 1024
    r = live.chat(bid, ref, "odds 1d100")  # 100 totals: P(>=) at 12 spread out, ends at 100
    assert "P(>=) 1 100%, 10 91%" in r.text and r.text.endswith("100 1%"), r.text
    r = live.chat(bid, ref, "odds 1000d1000")
    assert r.status_code in (400, 413) and r.text.startswith("error: "), r.text
    assert "\n" not in r.text
    r = live.chat(bid, None, "odds 2d6")
    assert r.status_code == 401
    assert live.get(f"/api/bouts/{bid}/log").json() == before
