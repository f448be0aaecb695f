"""`POST /api/lab/analyse` over a real server: odd but valid packs answer, never a 500."""

from __future__ import annotations

from tests.service_fixtures import LiveServer


def test_a_pack_whose_every_roll_is_a_free_attack_is_analysed(shared_live: LiveServer) -> None:
    """Every roll a success and a critical (MSV-4 free attack): each action goes on until the
    defeat, so the damage per action with free attacks is unbounded (null) and the rounds
    with free attacks are exactly 1 for every CS of the text's tables."""
    answer = shared_live.post(
        "/api/lab/analyse",
        json={"pack": {"success": "1", "critical": "1"}, "from": 50, "to": 60, "step": 5},
    )
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["ok"] and data["skills"] == [50, 55, 60]
    rows = {(r["table"], r["stat"]): r for r in data["compare"]}
    assert rows["new", "damage"]["pack"] == [3.1] * 6
    assert rows["new", "damage"]["pack_with_free_attacks"] == [None] * 6
    assert rows["ratio", "damage"]["pack_with_free_attacks"] == [None] * 6
    assert rows["new", "rounds"]["pack_with_free_attacks"] == [1.0] * 6
    # Whoever acts first deals 15 in its first action: P(row wins) is P(row acts first), 1/2.
    assert data["matrix"] == [[0.5] * 3] * 3


def test_a_pack_under_which_low_cs_never_hits_is_analysed(shared_live: LiveServer) -> None:
    """`success = "roll <= cs - 55"`: CS 50 and 55 never succeed. Their duels with each other
    never end (null), CS 60 always beats them, and in the text's tables they never reach 15
    damage (null) while CS 60 takes exactly 300 rounds (1 damage on 5 faces of 100)."""
    answer = shared_live.post(
        "/api/lab/analyse",
        json={"pack": {"success": "roll <= cs - 55"}, "from": 50, "to": 60, "step": 5},
    )
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["ok"] and data["matrix"] == [[None, None, 0.0], [None, None, 0.0], [1.0, 1.0, 0.5]]
    rows = {(r["table"], r["stat"]): r for r in data["compare"]}
    assert rows["new", "rounds"]["pack"][:3] == [None, None, 300.0]
    assert rows["new", "rounds"]["pack_exact"][:3] == [None, None, "300/1"]
    assert rows["new", "hit"]["pack"][:3] == [0.0, 0.0, 5.0]


def test_a_cs_above_100_is_refused_as_every_lab_door_refuses_it(shared_live: LiveServer) -> None:
    """The lab's CS are a fighter's, 0..100 (MSV-2: CS 100 always succeeds), as `referee lab
    duel`, `matrix`, `ladder` and `battle` take them: the schema says so, and a request past it
    is 422 naming the field."""
    for body, where in (
        ({"from": 95, "to": 105}, "to"),
        ({"from": 101, "to": 101}, "from"),
        ({"ladder": [50, 101]}, "ladder.1"),
    ):
        answer = shared_live.post("/api/lab/analyse", json={"pack": {}, **body})
        assert answer.status_code == 422, answer.text
        assert answer.json()["message"].startswith(
            f"body.{where}: Input should be less than or equal to 100"
        ), answer.text
    schema = shared_live.get("/openapi.json").json()["components"]["schemas"]["LabRequest"]
    assert schema["properties"]["to"]["maximum"] == 100
    assert schema["properties"]["ladder"]["items"]["maximum"] == 100
