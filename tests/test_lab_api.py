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
