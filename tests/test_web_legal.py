"""The console offers an SRP action only when the rules allow it (SRP-14..16): the page's
check (systems.js `srpRefusal`) is held to the engine's answer for every position on a grid,
every reach and every condition; in Chromium, Attack waits with the service's own words while
the target is out of reach, and a fighter dragged backwards keeps its face to the enemy; the
dice log says moves in metres and words (srpwords.js), not `path [[-50,0],...]`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from referee.bout import commands as c
from referee.bout.runner import BoutRunner
from referee.errors import RefereeError
from referee.rng import ScriptedRng
from referee.systems.srp.actions import FORBIDS, Condition, why_blocked
from tests.browser_fixtures import WAIT_MS, browser, clean, pages, web  # noqa: F401
from tests.service_fixtures import LiveServer
from tests.test_web_map import drag, ford, open_map, tarl

JS = Path(__file__).resolve().parent.parent / "src/referee/service/static/js"
SYSTEMS_JS = (JS / "systems.js").as_uri()
WORDS_JS = (JS / "srpwords.js").as_uri()
#: Offsets of the target from the attacker, in cm: on and off the 1.5 m squares.
OFFSETS = (-600, -450, -300, -225, -150, -75, 0, 75, 150, 225, 300, 450, 600)
REACHES = (150, 300, 450)
KINDS = ("attack", "shoot", "disarm", "entangle", "grapple", "unhorse", "break_free", "pick_up")
KINDS += ("release", "move", "step", "charge", "face", "spirit", "pass")


def stats(weapon: str, reach_cm: int, x_cm: int, y_cm: int, hands: int = 1) -> dict[str, Any]:
    return {
        "hits": 12,
        "weapons": [{"name": weapon, "damage": 3, "reach_cm": reach_cm, "hands": hands}],
        "skills": {weapon: 15},
        "defense": 10,
        "x_cm": x_cm,
        "y_cm": y_cm,
        "facing": 0,
    }


def run_node(body: str, data: Any) -> Any:
    """Run `body` under Node with `m` the module systems.js, `w` srpwords.js and `data` the
    JSON given; what it passes to `done` comes back."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("Node.js is needed to run the page's code (Debian: nodejs)")
        pytest.skip("no Node.js here")
    script = (
        f"Promise.all([import({json.dumps(SYSTEMS_JS)}), import({json.dumps(WORDS_JS)})])"
        ".then(([m, w]) => { let t = ''; process.stdin.on('data', (d) => t += d);"
        "process.stdin.on('end', () => { const data = JSON.parse(t);"
        "const done = (x) => console.log(JSON.stringify(x));" + body + "});})"
    )
    out = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def node_answers(cases: list[list[Any]]) -> list[str | None]:
    """`srpRefusal(actor, kind, target)` of systems.js for each case, run by Node."""
    answers: list[str | None] = run_node("done(data.map((a) => m.srpRefusal(...a)));", cases)
    return answers


def engine_answer(
    weapon: str, reach: int, dx: int, dy: int, kind: str = "attack", **extra: Any
) -> str | None:
    """The engine's refusal of Tarl's `kind` on Pa-Kur at (dx, dy) cm, or None if it acts.
    `extra` goes into Tarl's weapon (codes, ranges) and `mounted` onto Pa-Kur."""
    bout = BoutRunner.open("srp", "reach", rng=ScriptedRng([20, 1] + [5] * 12))
    mine = stats(weapon, reach, 0, 0)
    mine["weapons"][0].update({k: v for k, v in extra.items() if k != "mounted"})
    theirs = stats("sword", 150, dx, dy) | {"mounted": extra.get("mounted", False)}
    bout.run(c.AddFighter("Tarl", mine, "Ko-ro-ba"))
    bout.run(c.AddFighter("Pa-Kur", theirs, "Assassins"))
    bout.run(c.RollInitiative())
    assert bout.state.current == "Tarl"
    try:
        bout.run(c.Act("Tarl", kind, {"target": "Pa-Kur"}), by="Tarl")
    except RefereeError as err:
        return str(err)
    return None


def test_the_pages_reach_check_is_the_engines_on_every_square() -> None:  # SRP-15
    cases: list[list[Any]] = []
    expected: list[str | None] = []
    for reach in REACHES:
        weapon = {150: "broadsword", 300: "spear", 450: "pike"}[reach]
        for dx in OFFSETS:
            for dy in OFFSETS:
                actor = {"name": "Tarl", "stats": stats(weapon, reach, 0, 0), "conditions": {}}
                target = {"name": "Pa-Kur", "stats": stats("sword", 150, dx, dy)}
                cases.append([actor, "attack", target])
                expected.append(engine_answer(weapon, reach, dx, dy))
    answers = node_answers(cases)
    assert answers == expected
    # The grid holds both answers for every reach (a check that refuses all or none fails).
    # 1.5 m: the 5 x 5 offsets within 1.5 m but the fighter's own; 3 m and 4.5 m: within reach
    # but beyond 1.5 m (9 x 9 - 5 x 5 and 11 x 11 - 5 x 5).
    assert expected.count(None) == 24 + 56 + 96
    assert "Pa-Kur is 6 m from Tarl; the pike reaches beyond 1.5 m up to 4.5 m (SRP-15)" in answers
    assert (
        "Pa-Kur is 0.75 m from Tarl; the spear reaches beyond 1.5 m up to 3 m (SRP-15)" in answers
    )


#: Weapons beside the melee ones: codes for the special actions, a bow and a thrown spear.
GEAR: dict[str, dict[str, Any]] = {
    "whip": {"codes": ["D", "E"]},
    "hook": {"codes": ["G", "U"]},
    "bow": {"effective_range_cm": 1500, "long_range_cm": 3000},
    "javelin": {"effective_range_cm": 450, "thrown": True},
    "sling": {"effective_range_cm": 450},
}


def test_the_pages_weapon_checks_are_the_engines() -> None:  # SRP-13, SRP-16
    cases: list[list[Any]] = []
    expected: list[str | None] = []
    for weapon, extra in GEAR.items():
        for kind in ("attack", "shoot", "disarm", "grapple", "unhorse"):
            for mounted in (False, True):
                for dx in (0, 150, 300, 450, 1500, 2250, 3000, 4500):
                    mine = stats(weapon, 150, 0, 0)
                    mine["weapons"][0].update(extra)
                    actor = {"name": "Tarl", "stats": mine, "conditions": {}}
                    theirs = stats("sword", 150, dx, 0) | {"mounted": mounted}
                    cases.append([actor, kind, {"name": "Pa-Kur", "stats": theirs}])
                    got = engine_answer(weapon, 150, dx, 0, kind, mounted=mounted, **extra)
                    expected.append(got)
    answers = node_answers(cases)
    assert answers == expected
    for said in (
        "the bow is a missile weapon: use 'shoot'",
        "the whip is not a missile weapon (it has no range)",
        "Pa-Kur is 45 m away, beyond the bow's range",
        "grapple needs a weapon with code 'G'; 'whip' has D, E",
        "unhorse needs a mounted defender",
    ):
        assert said in answers
    # Every kind is allowed somewhere on the grid (a check that refuses all fails).
    allowed = {case[1] for case, said in zip(cases, answers, strict=True) if said is None}
    assert allowed == {"attack", "shoot", "disarm", "grapple", "unhorse"}


def test_the_pages_conditions_are_the_rules() -> None:  # SRP-16
    assert {c.value for c in FORBIDS} <= {c.value for c in Condition}
    cases: list[list[Any]] = []
    expected: list[str | None] = []
    for condition in Condition:
        for hands in (1, 2):
            for kind in KINDS:
                actor = {
                    "name": "Tarl",
                    "stats": stats("pike", 450, 0, 0, hands),
                    "conditions": {condition.value: None},
                }
                cases.append([actor, kind, None])
                reason = why_blocked([condition], kind, weapon_hands=hands)
                expected.append(None if reason is None else f"Tarl {reason}")
    answers = node_answers(cases)
    assert answers == expected
    assert "Tarl is grappled: only one-handed weapons" in answers
    assert answers.count(None) < len(answers) / 2 + len(KINDS) * 4


def added(seq: int, name: str, side: str, x_cm: int, y_cm: int, facing: int) -> dict[str, Any]:
    stats = {"x_cm": x_cm, "y_cm": y_cm, "facing": facing}
    payload = {"name": name, "side": side, "stats": stats}
    return {"seq": seq, "type": "fighter_added", "actor": "referee", "payload": payload}


def action(seq: int, actor: str, kind: str, **options: Any) -> dict[str, Any]:
    payload = {"kind": kind, "options": options}
    return {"seq": seq, "type": "action", "actor": actor, "payload": payload}


def stat(seq: int, target: str, key: str, value: Any) -> dict[str, Any]:
    payload = {"target": target, "key": key, "value": value}
    return {"seq": seq, "type": "stat", "actor": "system", "payload": payload}


def test_the_log_says_moves_in_metres_and_words() -> None:
    events = [
        added(1, "Tarl", "Ko-ro-ba", 0, 0, 0),
        added(2, "Pa-Kur", "Assassins", 600, 0, 180),
        action(3, "Tarl", "move", path=[[-50, 0], [-100, 0], [-150, 0], [-200, 0]], facing=0),
        stat(4, "Tarl", "x_cm", -200),
        stat(5, "Tarl", "y_cm", 0),
        stat(6, "Tarl", "facing", 0),
        action(7, "Pa-Kur", "charge", path=[[450, 0], [300, 0], [150, 0]]),
        stat(8, "Pa-Kur", "x_cm", 150),
        stat(9, "Pa-Kur", "facing", 180),
        action(10, "Tarl", "step", path=[[-200, 150]]),
        action(11, "Tarl", "face", facing=45),
        stat(12, "Pa-Kur", "extra_attack_round", 2),
        stat(13, "Pa-Kur", "holds", "Tarl"),
        stat(14, "Pa-Kur", "holds", None),
        {"seq": 15, "type": "voided", "actor": "referee", "payload": {"from": 7, "to": 9}},
        action(16, "Tarl", "step", path=[[-50, 0]], facing=100),
        {"seq": 17, "type": "defeated", "actor": "system", "payload": {"name": "Pa-Kur"}},
        action(18, "Tarl", "move", path=[[-200, 150], [-200, 300]]),
        stat(19, "Tarl", "pm", 4),
    ]
    said = run_node(
        "const g = new w.Ground(); done(data.map((e) => { const s = e.type === 'action'"
        " ? w.actionWords(e, g) : e.type === 'stat' ? w.statWords(e.payload, g) : null;"
        " g.see(e); return s; }));",
        events,
    )
    assert said == [
        None,
        None,
        "Tarl moves 2 m away from Pa-Kur, facing Pa-Kur",
        "Tarl now stands at x -2 m (east-west)",
        "Tarl now stands at y 0 m (north-south)",
        "Tarl now faces Pa-Kur, east (0°)",
        "Pa-Kur charges 4.5 m toward Tarl",
        "Pa-Kur now stands at x 1.5 m (east-west)",
        "Pa-Kur now faces Tarl, west (180°)",
        "Tarl steps 1.5 m away from Pa-Kur",  # (-2, 0) -> (-2, 1.5): 3.5 m -> 3.8 m from (1.5, 0)
        "Tarl turns to face north-east (45°)",
        "Pa-Kur has had its extra attack of round 2 (SRP-15)",
        "Pa-Kur holds Tarl",
        "Pa-Kur lets go",
        None,
        "Tarl steps 1.5 m toward Pa-Kur, facing 100°",  # the charge is voided: Pa-Kur at 6 m
        None,
        "Tarl moves 3 m north",  # no standing foe: a compass point
        "Tarl's PM is now 4",
    ]


@pytest.mark.browser
def test_attack_waits_while_the_target_is_out_of_reach(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, _, token = ford(web)  # Tarl (broadsword) at (0, 0) east, Pa-Kur (pike) at (6, 0) west
    page = pages()
    open_map(page, web, bid, token)
    said = "Pa-Kur is 6 m from Tarl; the broadsword reaches up to 1.5 m (SRP-15)"
    expect(page.locator("#act-submit")).to_be_disabled()
    expect(page.locator("#act-submit")).to_have_attribute("title", said)
    expect(page.locator("#act-why")).to_have_text(said)
    # The same words as the service's refusal, which the button no longer needs to meet.
    refused = web.post(
        f"/api/bouts/{bid}/attacks", token, json={"attacker": "Tarl", "target": "Pa-Kur"}
    )
    assert refused.status_code == 400 and said in refused.text
    # A move needs no target in reach: the button is back, with nothing said.
    page.select_option("#act-kind", "move")
    expect(page.locator("#act-submit")).to_be_enabled()
    expect(page.locator("#act-why")).to_have_text("")
    page.select_option("#act-kind", "attack")
    expect(page.locator("#act-submit")).to_be_disabled()

    # Dragged backwards (west to east would turn its back), Tarl still faces Pa-Kur.
    with page.expect_response(lambda r: r.url.endswith("/actions")) as answer:
        drag(page, (0, 0), (-3, 0))
    assert answer.value.status == 200, answer.value.text()
    assert answer.value.request.post_data_json["options"]["facing"] == 0
    assert (tarl(web, bid)["x_cm"], tarl(web, bid)["facing"]) == (-300, 0)
    expect(page.locator("#map svg")).to_have_attribute(
        "aria-label",
        "Map: Tarl at (-3, 0) m facing 0°; Pa-Kur at (6, 0) m facing 180°",
        timeout=WAIT_MS,
    )
    expect(page.locator("#act-why")).to_have_text("")  # Pa-Kur's turn: not Tarl's to act
    # The log says it in metres and words.
    seq = answer.value.json()["seq"]
    log = page.locator("#log")
    expect(log.locator(f"li.action[data-seq='{seq - 1}']")).to_contain_text(
        "Tarl moves 3 m away from Pa-Kur, facing Pa-Kur"
    )
    for words in ("Tarl now stands at x -3 m (east-west)", "Tarl now faces Pa-Kur, east (0°)"):
        expect(log.locator("li.stat", has_text=words)).to_have_count(1)
    assert "x_cm" not in log.inner_text() and "path" not in log.inner_text()
    clean(page)


def test_an_action_the_rules_refuse_waits_with_their_words(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    """What the page's own check cannot see, the rules say (`GET .../why-not`, the engine's
    `why_not`): *Do entangle* against a defender who defends with a shield is disabled with
    the rules' words (SRP-16: entangle only against Avoid), before anything is sent; against
    one who avoids it may be done. The route answers the actor's token or the referee's only."""
    r = web.post("/api/bouts", json={"system": "srp", "name": "Nets"})
    bid, ref = r.json()["id"], r.json()["referee_token"]
    net = {"name": "net", "damage": 0, "reach_cm": 150, "codes": ["E"]}
    sheets = {
        "Tarl": {"hits": 12, "weapons": [net], "skills": {"net": 15}, "defense": 10},
        "Pa-Kur": {"hits": 12, "defense": 10, "defend": "shield", "shield": "buckler"},
        "Ho-Tu": {"hits": 12, "defense": 10, "defend": "avoid"},
    }
    tokens = {}
    for name, sheet in sheets.items():
        r = web.post(
            f"/api/bouts/{bid}/fighters", ref, json={"name": name, "sheet": sheet, "side": name}
        )
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["token"]
    assert web.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    for _ in range(3):
        turn = web.get(f"/api/bouts/{bid}").json()["turn"]
        if turn == "Tarl":
            break
        body = {"actor": turn, "kind": "pass", "options": {}}
        assert web.post(f"/api/bouts/{bid}/actions", ref, json=body).status_code == 200
    assert web.get(f"/api/bouts/{bid}").json()["turn"] == "Tarl"

    asked = {"actor": "Tarl", "kind": "entangle", "target": "Pa-Kur"}
    said = web.get(f"/api/bouts/{bid}/why-not", tokens["Tarl"], params=asked).json()
    assert said["why_not"] == "entangle works only against Avoid, not a 'shield' defense"
    asked_avoid = {**asked, "target": "Ho-Tu"}
    assert web.get(f"/api/bouts/{bid}/why-not", ref, params=asked_avoid).json()["why_not"] is None
    # The action's options as the form has them (a JSON object), as the action would take them.
    with_net = {**asked_avoid, "options": '{"weapon": "net"}'}
    assert web.get(f"/api/bouts/{bid}/why-not", ref, params=with_net).json()["why_not"] is None
    with_sword = {**asked_avoid, "options": '{"weapon": "sword"}'}
    assert web.get(f"/api/bouts/{bid}/why-not", ref, params=with_sword).json()["why_not"]
    not_json = {**asked_avoid, "options": "weapon=net"}
    bad = web.get(f"/api/bouts/{bid}/why-not", ref, params=not_json)
    assert bad.status_code == 400 and "options must be a JSON object" in bad.text
    assert web.get(f"/api/bouts/{bid}/why-not", tokens["Pa-Kur"], params=asked).status_code == 403
    assert web.get(f"/api/bouts/{bid}/why-not", params=asked).status_code == 401
    unknown = {**asked, "target": "Nobody"}
    assert web.get(f"/api/bouts/{bid}/why-not", ref, params=unknown).status_code == 404
    events = len(web.get(f"/api/bouts/{bid}/log", ref).json())

    page = pages()
    page.goto(f"{web.url}/static/fighter.html#bout={bid}&token={tokens['Tarl']}")
    expect(page.locator("#act-kind option[value='entangle']")).to_have_count(1, timeout=WAIT_MS)
    page.select_option("#act-kind", "entangle")
    page.select_option("#act-target", "Pa-Kur")
    submit = page.locator("#act-submit")
    expect(submit).to_be_disabled(timeout=WAIT_MS)
    expect(page.locator("#act-why")).to_have_text(said["why_not"])
    page.select_option("#act-target", "Ho-Tu")
    expect(submit).to_be_enabled(timeout=WAIT_MS)
    assert len(web.get(f"/api/bouts/{bid}/log", ref).json()) == events  # nothing was sent
    clean(page)
