"""A write that waits for a bout's lock while another transaction rotates its seed finds the
bout (and rolls with the new seed) once the rotation commits: it is not told "no bout"."""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
import pytest

from referee.ledger import roll_payload, verify_ledger
from referee.rng import VerifiableRng
from referee.store import Store
from tests.drafts import Draft

pytestmark = pytest.mark.postgres

WAIT = 60.0


def _roll(events: list[Any], rng: VerifiableRng) -> list[Any]:
    t = rng.throw((100,))
    return [Draft("roll", "Tarl", roll_payload(t.nonce or 0, t.dice, t.faces))]


def _waiting_for_a_lock(conninfo: str) -> bool:
    with psycopg.connect(conninfo, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database() AND query LIKE %s",
            ("%FOR UPDATE OF bouts%",),
        ).fetchone()
    return bool(row and row[0])


def test_a_write_waiting_out_a_rotation_rolls_with_the_new_seed(pg_url: str) -> None:
    with Store.open(pg_url) as rotating, Store.open(pg_url) as rolling:
        rotating.create_bout(system="msv", name="Spar", bout_id="r1", client_seed="t")
        rolling.extend("r1", _roll)
        conninfo = rotating.engine.url.set(drivername="postgresql").render_as_string(
            hide_password=False
        )
        outcome: list[Any] = []

        def roll() -> None:
            try:
                outcome.append(rolling.extend("r1", _roll))
            except Exception as err:  # the test reports it
                outcome.append(err)

        with rotating.unit():
            rotating.rotate_seed("r1", actor="system")
            thread = threading.Thread(target=roll)
            thread.start()
            deadline = time.monotonic() + WAIT
            while not _waiting_for_a_lock(conninfo):
                assert time.monotonic() < deadline, "the second write never waited"
                assert thread.is_alive(), f"the second write did not wait: {outcome}"
                time.sleep(0.02)
        thread.join(WAIT)
        assert len(outcome) == 1 and isinstance(outcome[0], list), outcome
        assert outcome[0][0]["payload"]["nonce"] == 0  # the new seed's first roll
        rotating.reveal_seed("r1")
        assert verify_ledger(rotating.export("r1")).ok
