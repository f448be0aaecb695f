"""Slash commands and buttons: Discord's interaction payloads dispatched through the bot's
command tree, the HTTP layer of the answers captured (no network)."""

from __future__ import annotations

import re
from pathlib import Path

from referee.store import Store
from tests.discord_harness import Harness, fighter_to_act
from tests.test_discord_spar import HOST, play

EPHEMERAL = 64


def test_a_spar_by_slash_commands_and_buttons(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        rolled = await h.slash("Tarl", "roll", {"name": "expression", "type": 3, "value": "2d20"})
        assert re.fullmatch(r"Tarl_1_nick rolls 2d20 = \[\d+, \d+\] = \d+ \(nonce 0\)",
                            rolled["content"])  # fmt: skip
        fair = await h.slash("Tarl", "fair")
        assert "1 roll(s) so far" in fair["content"]
        opened = await h.slash(
            "Judge", "open", {"name": "name", "type": 3, "value": "Slash duel"}, group="spar"
        )
        assert opened["content"].startswith("Spar 'Slash duel' (MSV) is open")
        for name, cs in (("Tarl", "65"), ("Pa-Kur", "70")):
            joined = await h.slash(
                name, "join", {"name": "entry", "type": 3, "value": cs}, group="spar"
            )
            assert (
                joined["content"]
                == f"{name}_{1 if name == 'Tarl' else 2}_nick joins the spar (CS {cs})."
            )
        refused = await h.slash("Tarl", "begin", group="spar")
        assert refused["content"] == "error: only the proctor (Judge_0_nick) can begin the spar"
        assert refused["flags"] == EPHEMERAL
        begun = await h.slash("Judge", "begin", group="spar")
        actor = fighter_to_act(begun["content"])
        names = {"Tarl_1_nick": "Tarl", "Pa-Kur_2_nick": "Pa-Kur"}
        assert actor in names
        me = names[actor]
        foe = "Pa-Kur" if me == "Tarl" else "Tarl"
        foe_fighter = next(k for k, v in names.items() if v == foe)
        buttons = begun["components"][0]["components"]
        assert [b["label"] for b in buttons] == [f"Attack {foe_fighter}"]
        assert buttons[0]["custom_id"] == f"referee:attack:{foe_fighter}"
        wrong = await h.press(foe, buttons[0]["custom_id"])
        assert wrong["content"] == f"error: not your turn: {actor} acts now"
        assert wrong["flags"] == EPHEMERAL
        option, resolved = h.member_option("target", foe)
        struck = await h.slash(me, "attack", option, group="spar", resolved=resolved)
        host = HOST.search(struck["content"])
        assert host is not None and host.group(1) == actor
        following = fighter_to_act(struck["content"])
        assert following is not None
        pressed = await h.press(
            names[following], struck["components"][0]["components"][0]["custom_id"]
        )
        assert HOST.search(pressed["content"]).group(1) == following  # type: ignore[union-attr]
        board = await h.slash("Tarl", "scoreboard", group="spar")
        assert board["content"].startswith("Scoreboard of Slash duel")
        paused = await h.slash(
            "Judge", "power", {"name": "verb", "type": 3, "value": "pause"}, group="spar"
        )
        assert paused["content"].startswith("The spar is paused.")
        closed = await h.slash("Judge", "close", group="spar")
        assert "The spar is closed. Server seed: " in closed["content"]
        assert closed["files"] == [
            f"spar-{next(b.id for b in store.list_bouts() if b.name == 'Slash duel')}.json"
        ]
        helped = await h.slash("Tarl", "help")
        assert helped["content"].startswith("referee: verifiable dice")

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)
