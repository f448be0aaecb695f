"""Dice notation in a bout, over a real server on 127.0.0.1 (SQLite): bad characters, fractions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests import coin_system  # noqa: F401  (registers the "coin-test" rule system)
from tests.service_fixtures import start_server


@pytest.fixture
def client(tmp_path: Path) -> Iterator[httpx.Client]:
    server, thread, store, url = start_server(str(tmp_path / "dice.db"))
    try:
        with httpx.Client(base_url=url, timeout=60) as http:
            yield http
    finally:
        server.stop()
        thread.join(10)
        store.close()


def open_bout(client: httpx.Client) -> tuple[str, dict[str, str]]:
    bout = client.post("/api/bouts", json={"system": "coin-test", "name": "Dice"}).json()
    return bout["id"], {"Authorization": f"Bearer {bout['referee_token']}"}


@pytest.mark.parametrize(
    ("dice", "named"),
    [("1d²", "U+00B2 SUPERSCRIPT TWO"), ("١d٦", "U+0661 ARABIC-INDIC DIGIT ONE")],
)
def test_a_roll_with_a_digit_that_is_not_ascii_is_a_400_naming_it(
    client: httpx.Client, dice: str, named: str
) -> None:
    bout, auth = open_bout(client)
    before = client.get(f"/api/bouts/{bout}/export").json()["events"]
    answer = client.post(f"/api/bouts/{bout}/rolls", json={"dice": dice}, headers=auth)
    assert answer.status_code == 400
    assert named in answer.text and "not an ASCII digit" in answer.text
    assert client.get(f"/api/bouts/{bout}/export").json()["events"] == before


@pytest.mark.parametrize("dice", ["1d20/2", "4d6!>5", "{1d20,1d20}kh1", "4dF", "2d6r1"])
def test_any_notation_rolls_in_a_bout_and_the_export_verifies(
    client: httpx.Client, dice: str
) -> None:
    from referee.ledger import verify_export

    bout, auth = open_bout(client)
    answer = client.post(f"/api/bouts/{bout}/rolls", json={"dice": dice}, headers=auth)
    assert answer.status_code == 200, answer.text
    client.post(f"/api/bouts/{bout}/close", headers=auth)
    export = client.get(f"/api/bouts/{bout}/export").json()
    assert verify_export(export).ok


def test_a_bout_reads_its_rolls_in_its_own_dialect_by_http_and_chat(client: httpx.Client) -> None:
    from referee.ledger import verify_export

    bout = client.post(
        "/api/bouts", json={"system": "coin-test", "name": "Avrae", "dialect": "d20"}
    ).json()
    bid, token = bout["id"], bout["referee_token"]
    auth = {"Authorization": f"Bearer {token}"}
    first = client.post(f"/api/bouts/{bid}/rolls", json={"dice": "4d6k3"}, headers=auth).json()
    assert first["expression"] == "4d6k3"  # keep the dice showing 3, as d20 reads it
    faces = [f for r in first["rolls"] for f in r["faces"]]
    assert first["total"] == 3 * faces.count(3)
    said = client.post(
        f"/api/bouts/{bid}/chat",
        content="roll 2d6>7",
        headers={**auth, "Content-Type": "text/plain"},
    )
    assert said.status_code == 200, said.text
    events = client.get(f"/api/bouts/{bid}/export").json()["events"]
    assert events[0]["payload"]["dialect"] == "d20"
    rolled = [e["payload"] for e in events if e["payload"].get("kind") == "roll"]
    assert [r["expression"] for r in rolled] == ["4d6k3", "2d6>7"]
    assert rolled[1]["total"] in (0, 1)  # d20 compares the total
    client.post(f"/api/bouts/{bid}/close", headers=auth)
    assert verify_export(client.get(f"/api/bouts/{bid}/export").json()).ok


def test_a_bout_in_an_unknown_dialect_is_refused(client: httpx.Client) -> None:
    answer = client.post(
        "/api/bouts", json={"system": "coin-test", "name": "X", "dialect": "avrae"}
    )
    assert answer.status_code == 400
    assert "expected one of d20, onlinehost, roll20" in answer.text


def test_a_default_bout_records_no_dialect(client: httpx.Client) -> None:
    bid, _ = open_bout(client)
    events = client.get(f"/api/bouts/{bid}/export").json()["events"]
    assert "dialect" not in events[0]["payload"]
