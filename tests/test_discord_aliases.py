"""Per-member dice aliases (`~alias`), as OnlineHost's regulars keep macros and Avrae's players
`!alias`: made, listed, rolled by `~NAME` or `~roll NAME` into the member's own verifiable
table ledger like any roll, removed; refused clearly when they cannot be (dpytest through the
real command tree)."""

from __future__ import annotations

import re

from referee.ledger.verify import verify_export
from referee.store import Store
from tests.discord_harness import Harness
from tests.test_discord_spar import play


def test_an_alias_is_made_listed_rolled_verifiably_and_removed() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        assert await h.text("Tarl", "~alias list") == (
            "You have no aliases yet (~alias add hit 1d20+5)."
        )
        assert await h.text("Tarl", "~alias add Hit 1d20+5") == (
            "~hit now rolls 1d20+5 (~hit or ~roll hit)."
        )
        await h.text("Tarl", "~alias add fire 3d6!")
        assert await h.text("Tarl", "~alias list") == "~fire: 3d6!\n~hit: 1d20+5"
        rolled = await h.text("Tarl", "~hit")
        assert re.fullmatch(r"Tarl_0_nick rolls 1d20\+5 = \[\d+\] \+ 5 = \d+ \(nonce 0\)", rolled)
        noted = await h.text("Tarl", "~roll hit the orc")
        assert re.fullmatch(
            r"Tarl_0_nick rolls 1d20\+5 = \[\d+\] \+ 5 = \d+ \(nonce 1\) - the orc", noted
        )
        # Another member has no such alias: `~hit` is role-play for them, left alone.
        assert await h.say("Rask", "~hit") == []
        # Every alias roll is in Tarl's own table ledger, as any roll; its export verifies.
        bouts = store.list_bouts()
        assert len(bouts) == 1
        events = store.events(bouts[0].id)
        actions = [e["payload"] for e in events if e["type"] == "action"]
        assert [(a["expression"], a.get("label")) for a in actions] == [
            ("1d20+5", None),
            ("1d20+5", "the orc"),
        ]
        assert await h.text("Tarl", "~alias remove hit") == "Alias ~hit is removed."
        assert await h.say("Tarl", "~hit") == []  # no alias now: role-play again
        assert await h.text("Tarl", "~alias list") == "~fire: 3d6!"
        await h.text("Tarl", "~fair reveal")
        doc = store.export(bouts[0].id)
        assert verify_export(doc).ok

    play(store, ["Tarl", "Rask"], script)


def test_an_alias_that_cannot_be_is_refused_and_nothing_is_stored() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        assert await h.text("Tarl", "~alias add roll 1d6") == (
            "error: ~roll is a command of the bot: pick another name"
        )
        assert await h.text("Tarl", "~alias add r 1d6") == (
            "error: ~r is a command of the bot: pick another name"
        )
        assert (await h.text("Tarl", "~alias add 2x 1d6")).startswith(
            "error: an alias's name is a letter, then up to 31 letters"
        )
        assert (await h.text("Tarl", "~alias add hit 1d")).startswith("error: ")
        assert await h.text("Tarl", "~alias add hit") == (
            "error: say what ~hit rolls: ~alias add hit 1d20+5"
        )
        assert await h.text("Tarl", "~alias remove hit") == "error: you have no alias hit"
        assert await h.text("Tarl", "~alias rename hit") == (
            "error: unknown ~alias command 'rename' (add, list, remove)"
        )
        for i in range(50):
            await h.text("Tarl", f"~alias add a{i} 1d{i + 2}")
        assert await h.text("Tarl", "~alias add one-more 1d6") == (
            "error: at most 50 aliases a member"
        )
        assert await h.text("Tarl", "~alias add a0 2d6") == "~a0 now rolls 2d6 (~a0 or ~roll a0)."
        assert store.list_bouts() == []  # making aliases rolls nothing

    play(store, ["Tarl"], script)
