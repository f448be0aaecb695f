"""A bot restart in the middle of a spar resumes it from the database with nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from referee.discord.desk import Desk
from referee.discord.replies import Person, Place
from referee.errors import ForbiddenError
from referee.store import Store
from tests.seeds import for_test

JUDGE, TARL, PAKUR = Person(1, "Judge"), Person(2, "Tarl"), Person(3, "Pa-Kur")
HALL = Place(100, 7, "hall")


def _turn(desk: Desk) -> Person:
    bout = desk.links.channel(HALL.channel)[0]
    assert bout is not None
    return TARL if desk.service.state(bout).current == "Tarl" else PAKUR


def test_restart_mid_spar_resumes_from_the_database(db_url: str, tmp_path: Path) -> None:
    if db_url.startswith("sqlite"):
        db_url = f"sqlite:///{tmp_path / 'bot.db'}"  # a file, so a second process could open it
    store = Store.open(db_url)
    desk = Desk(store, entropy=for_test())
    desk.open(HALL, JUDGE, "msv Restart duel")
    desk.join(HALL, TARL, "65")
    desk.join(HALL, PAKUR, "70")
    desk.begin(HALL, JUDGE)
    desk.attack(HALL, _turn(desk), None)
    bout = desk.links.channel(HALL.channel)[0]
    assert bout is not None
    before = store.events(bout)
    store.close()

    store = Store.open(db_url)  # the bot starts again
    desk = Desk(store, entropy=for_test("again"))
    assert desk.links.channel(HALL.channel)[0] == bout
    assert store.events(bout) == before
    board = desk.scoreboard(HALL).lines
    assert (
        board[0] == f"Scoreboard of Restart duel (running, round {desk.service.state(bout).round}):"
    )
    with pytest.raises(ForbiddenError, match=r"only the proctor \(Judge\) can pause"):
        desk.power(HALL, TARL, "pause")  # the proctor is still known after the restart
    for _ in range(200):
        if desk.service.state(bout).status.value != "running":
            break
        desk.roll(HALL, _turn(desk), "1d100")  # the roll is the attack
    assert desk.service.state(bout).status.value == "ended"
    closed = desk.end(HALL, JUDGE)
    assert closed.file is not None
    (tmp_path / "spar.json").write_bytes(closed.file[1])
    result = CliRunner().invoke(cli, ["verify", str(tmp_path / "spar.json")])
    assert result.exit_code == 0, result.stdout + result.stderr
    doc = json.loads(closed.file[1])
    assert [e["hash"] for e in doc["events"][: len(before)]] == [e["hash"] for e in before]
    assert len(doc["events"]) > len(before)


def test_public_url_links_the_board_and_the_verifier() -> None:
    desk = Desk(Store.open("sqlite://"), "https://referee.example.org/")
    lines = desk.open(HALL, JUDGE, "msv Linked").lines
    bout = desk.links.channel(HALL.channel)[0]
    assert lines[-2:] == [
        f"Scoreboard: https://referee.example.org/static/board.html#bout={bout}",
        "Verify, once the proctor closes the spar (~spar:close bout; nobody can verify it "
        f"before): https://referee.example.org/static/verify.html#bout={bout}",
    ]
