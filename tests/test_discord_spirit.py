"""Spirit combat (SRP-17) in a Discord spar: `~spar:act spirit @foe`, both sides' PM after
every round, and a hidden NPC's PM kept to the proctor (SRP-10)."""

from __future__ import annotations

import re

from referee.store import Store
from tests.discord_harness import Harness, play

PM_NOW = re.compile(r"PM now: (\S+) (-?\d+|\?) \| (\S+) (-?\d+|\?)$", re.M)


def spirit_dice(store: Store) -> list[list[list[int]]]:
    bout = store.list_bouts()[0].id
    return [e["payload"]["dice"] for e in store.events(bout) if e["type"] == "outcome"]


def test_spirit_rounds_show_both_sides_pm_from_the_recorded_dice() -> None:
    store = Store.open("sqlite://")
    said: list[tuple[str, str]] = []

    async def script(h: Harness) -> None:
        await h.text("Ann", "~char set Ann weapon=spear skill=15 defense=12 hits=12 spirit=12 pm=6")
        await h.text(
            "Bran", "~char set Bran weapon=mace skill=13 defense=11 hits=10 spirit=10 pm=5"
        )
        await h.text("Judge", "~spar:open srp Seance")
        await h.text("Ann", "~spar:join Ann")
        await h.text("Bran", "~spar:join Bran")
        await h.text("Judge", "~spar:begin")  # listed order: Ann, Bran
        for _ in range(2):
            said.append(("Ann", await h.text("Ann", f"~spar:act spirit {h.mention('Bran')}")))
            said.append(("Bran", await h.text("Bran", f"~spar:act spirit {h.mention('Ann')}")))

    play(store, ["Judge", "Ann", "Bran"], script)
    # SRP-17 by hand on the dice the ledger holds: 2d6 + Spirit each, the higher total takes
    # 1 PM from the other, a tie takes nothing.
    spirit, pm = {"Ann": 12, "Bran": 10}, {"Ann": 6, "Bran": 5}
    dice = spirit_dice(store)
    assert len(dice) == len(said) == 4
    for (actor, text), (ours, theirs) in zip(said, dice, strict=True):
        foe = "Bran" if actor == "Ann" else "Ann"
        mine, other = sum(ours) + spirit[actor], sum(theirs) + spirit[foe]
        if mine != other:
            pm[foe if mine > other else actor] -= 1
        assert f"{actor} vs {foe} in spirit combat: {mine} vs {other}" in text
        found = PM_NOW.search(text)
        assert found is not None, text
        assert found.groups() == (actor, str(pm[actor]), foe, str(pm[foe]))


def test_a_hidden_npcs_pm_is_shown_to_the_proctor_only() -> None:
    import discord

    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Ann", "~char set Ann weapon=spear skill=15 defense=12 hits=12 spirit=12 pm=6")
        await h.text("Judge", "~spar:open srp Haunting")
        await h.text("Ann", "~spar:join Ann")
        await h.text("Judge", "~char set Ghost weapon=mace skill=5 defense=5 hits=5 spirit=9 pm=7")
        added = await h.text("Judge", "~spar:npc Ghost hidden")
        assert added.startswith("Ghost joins the spar"), added
        await h.text("Judge", "~spar:begin")
        sent = await h.say("Ann", "~spar:act spirit target=Ghost")
        public = "\n".join(m.content for m in sent if not isinstance(m.channel, discord.DMChannel))
        direct = "\n".join(m.content for m in sent if isinstance(m.channel, discord.DMChannel))
        found = PM_NOW.search(public)
        assert found is not None, public
        assert found.group(3, 4) == ("Ghost", "?")
        assert "Spirit 9" not in public and "Ghost 7" not in public and "Ghost 6" not in public
        _ours, theirs = spirit_dice(store)[0]
        ghost_total = sum(theirs) + 9
        assert f"Ghost: 2d6 ({theirs[0]}+{theirs[1]}) + Spirit 9 = {ghost_total}" in direct
        revealed = await h.text("Judge", "~spar:reveal Ghost pm spirit")
        assert "error" not in revealed, revealed

    play(store, ["Judge", "Ann"], script)
