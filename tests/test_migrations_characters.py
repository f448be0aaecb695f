"""Version 9 (`character_bouts`) on a database of version 8: the characters that had already
fought keep their bouts. A version-8 referee fielded saved characters (their `fighter_added`
events name them) but kept no table of their joins; upgrading fills it from those events, so a
character's record and luck (`bouts_of_character`) still count every bout it fought."""

from __future__ import annotations

from sqlalchemy import text

from referee.ledger import verify_export
from referee.store import Store
from referee.store.engine import make_engine
from tests.service_fixtures import LiveServer
from tests.test_character_luck import TARL, fight


def test_a_version_8_database_keeps_its_characters_bouts(live: LiveServer, db_url: str) -> None:
    made = live.post("/api/characters", json=TARL).json()
    key, cid = made["key"], made["character"]["id"]

    def join(bout_id: str) -> str:
        r = live.post(
            f"/api/bouts/{bout_id}/characters",
            json={"character": cid},
            headers={"X-Character-Key": key},
        )
        assert r.status_code == 201, r.text
        return str(r.json()["name"])

    one, _ = fight(live, join, "Orc")
    two, _ = fight(live, join, "Rask")
    assert live.store.bouts_of_character(cid) == [one, two]
    # The same database as a version-8 referee left it: no table of joins, no version 9.
    engine = make_engine(db_url)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE character_bouts"))
        conn.execute(text("DELETE FROM schema_version WHERE version = 9"))
    engine.dispose()
    with Store.open(db_url) as upgraded:
        assert upgraded.bouts_of_character(cid) == [one, two]
        for bout_id in (one, two):
            assert verify_export(upgraded.export(bout_id)).ok
    with Store.open(db_url) as again:  # opening again adds nothing twice
        assert again.bouts_of_character(cid) == [one, two]
