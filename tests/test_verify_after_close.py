"""Where a fighter is told to verify, it is told that the referee must close the bout first:
nobody can verify a bout before its server seed is revealed (the close)."""

from __future__ import annotations

from pathlib import Path

from referee.discord.desk import Desk
from referee.discord.replies import Person, Place
from referee.store import Store

STATIC = Path(__file__).resolve().parent.parent / "src/referee/service/static"


def test_the_home_pages_verify_link_says_the_bout_must_be_closed_first() -> None:
    page = (STATIC / "index.html").read_text("utf-8")
    assert (
        '<li><a id="verify-link" href="#">Verify</a>, once you close the bout (nobody can '
        "verify it before)</li>"
    ) in page


def test_the_fighter_pages_verify_link_says_the_referee_closes_first() -> None:
    page = (STATIC / "fighter.html").read_text("utf-8")
    assert (
        '<a data-link="/static/verify.html" href="/static/verify.html">Verify (once the referee '
        "closes the bout)</a>"
    ) in page


def test_the_bots_verify_link_says_the_proctor_must_close_the_spar_first() -> None:
    desk = Desk(Store.open("sqlite://"), "https://referee.example.org")
    bout_line = desk.open(Place(100, 7, "hall"), Person(1, "Judge"), "msv Told").lines[-1]
    assert bout_line.startswith(
        "Verify, once the proctor closes the spar (~spar:close bout; nobody can verify it "
        "before): https://referee.example.org/static/verify.html#bout="
    )
