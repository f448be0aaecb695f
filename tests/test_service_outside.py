"""What an outside tester of the service found, each pinned over a real server on 127.0.0.1
(SQLite, PostgreSQL): the answer the route gives, and that a refused request changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.service_fixtures import LiveServer
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
