"""The buttons a channel reads say nothing of a hidden stat (SRP-10): which actions the bot
offers is asked of the fighters as anyone may know them, as the service's public glance asks
it (`referee.service.glance.as_known`), so two spars that differ only in a hidden stat show
the same buttons; the action itself is still refused by the real stats, to the presser only."""

from __future__ import annotations

from typing import Any

from referee.store import Store
from tests.discord_harness import Harness, fighter_to_act, play

EPHEMERAL = 64
SHEET = "defense=12 hits=12"


def labels(answer: dict[str, Any]) -> list[str]:
    """Every button label and select-menu choice of an interaction answer, in order."""
    out: list[str] = []
    for row in answer.get("components") or []:
        for part in row.get("components") or []:
            out += [part["label"]] if "label" in part else [o["label"] for o in part["options"]]
    return out


def test_a_hidden_npcs_pm_changes_no_button() -> None:
    """A hidden NPC set to -1 PM on its turn (passed out, SRP-17: the rules refuse it all but
    Pass) is offered what it is offered at 0 PM; pressing Attack is refused to the proctor."""
    seen: dict[int, list[str]] = {}
    for pm in (0, -1):
        store = Store.open("sqlite://")

        async def script(h: Harness, pm: int = pm) -> None:
            await h.text("Ann", f"~char set Ann weapon=spear skill=15 {SHEET} spirit=12 pm=6")
            await h.text("Judge", f"~char set Ghost weapon=mace skill=5 {SHEET} spirit=9 pm=7")
            await h.text("Judge", "~spar:open srp Haunting")
            await h.text("Ann", "~spar:join Ann")
            await h.text("Judge", "~spar:npc Ghost hidden")
            begun = await h.slash("Judge", "begin", group="spar")
            assert fighter_to_act(begun["content"]) == "Ann"  # the listed order: Ann, Ghost
            passed = await h.slash("Ann", "act", {"name": "kind", "type": 3, "value": "pass"},
                                   group="spar")  # fmt: skip
            assert labels(passed) == ["Attack Ann", "Pass"]
            changes = {"name": "changes", "type": 3, "value": f"pm={pm}"}
            ghost = {"name": "fighter", "type": 3, "value": "Ghost"}
            updated = await h.slash("Judge", "update", ghost, changes, group="spar")
            assert updated["content"].startswith("Ghost is updated: stats changed\n")
            seen[pm] = labels(updated)
            pressed = await h.press("Judge", "referee:attack:Ann")
            if pm == -1:
                assert pressed["content"] == (
                    "error: Ghost cannot attack: Ghost has passed out (-1 PM, SRP-17)"
                )
                assert pressed["flags"] == EPHEMERAL
            else:
                assert pressed["content"].startswith("Ghost rolls d20 d20 d6: ")

        play(store, ["Judge", "Ann"], script)
    assert seen[-1] == seen[0] == ["Attack Ann", "Pass"]
