"""What a member aims, throws and adds: `~spar:target` takes only a standing foe (oneself or a
fighter of one's own side is refused at once, with nothing stored; the attack it would aim was
refused only later, at the roll), a roll that throws no dice says so, an NPC on no side is
refused."""

from __future__ import annotations

from referee.store import Store
from tests.discord_harness import Harness, play


def test_the_target_of_ones_rolls_is_a_foe() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Sides")
        await h.text("Tarl", "~spar:join 50 on red")
        await h.text("Pa-Kur", "~spar:join 50 on red")
        await h.text("Judge", "~spar:npc Orc cs=40 on blue")
        await h.text("Judge", "~spar:npc Wolf cs=40 on blue")
        bout = next(b.id for b in store.list_bouts() if b.name == "Sides")
        tarl = h.members["Tarl"].id
        for named, fighter in ((h.mention("Tarl"), "Tarl_1_nick"),
                               (h.mention("Pa-Kur"), "Pa-Kur_2_nick"),
                               ("pa-kur_2_nick", "Pa-Kur_2_nick")):  # fmt: skip
            assert await h.text("Tarl", f"~spar:target {named}") == (
                f"error: {fighter} is no standing foe of Tarl_1_nick (foes: Orc, Wolf)"
            ), named
            member = h.bot.desk.links.member(bout, tarl)
            assert member is not None and member.target is None  # nothing stored
        assert await h.text("Tarl", "~spar:target wolf") == "Tarl_1_nick's rolls now attack Wolf."

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


def test_a_roll_that_throws_no_dice_says_so() -> None:
    """`~roll 5` throws nothing: it said `(nonce )`, a receipt naming no throw."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        assert await h.text("Tarl", "~roll 5") == "Tarl_0_nick rolls 5 = 5 = 5 (no dice thrown)"
        assert await h.text("Tarl", "~roll 2+3 a note") == (
            "Tarl_0_nick rolls 2+3 = 2 + 3 = 5 (no dice thrown) - a note"
        )
        assert (
            await h.text("Tarl", "~roll 1d1+1") == "Tarl_0_nick rolls 1d1+1 = [1] + 1 = 2 (nonce 0)"
        )

    play(store, ["Tarl"], script)


def test_an_npc_on_no_side_is_refused() -> None:
    """`~spar:npc Orc on` (the side left out) joined Orc on a side of its own, as if `on` had
    not been said; `~spar:join 65 on` was refused, and so is this now, with nothing stored."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Sides")
        bout = next(b.id for b in store.list_bouts() if b.name == "Sides")
        before = len(store.events(bout))
        for typed in ("~spar:npc Orc cs=40 on", "~spar:npc Orc cs=40 on hidden"):
            assert await h.text("Judge", typed) == (
                "error: say ~spar:npc NAME cs=70 [on SIDE] [hidden] (a side after on)"
            ), typed
        assert len(store.events(bout)) == before
        assert await h.text("Judge", "~spar:npc Orc cs=40 on raiders") == (
            "Orc joins the spar (CS 40), added by the proctor."
        )

    play(store, ["Judge"], script)


def test_a_tables_modifier_out_of_range_is_named() -> None:
    """`~choose weather +12345` said there was no table called 'weather +12345'."""
    import discord.ext.test as dpytest

    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        role = dpytest.backend.make_role("admins", h.guild, permissions=0x20)  # Manage Server
        h.grant("Judge", role)
        await h.text("Judge", "~table new weather")
        await h.text("Judge", "~table add weather sun, rain")
        for typed in ("+12345", "-99999999999999999999"):
            assert await h.text("Judge", f"~choose weather {typed}") == (
                f"error: a modifier of a roll table is -9999 to +9999, got {typed}"
            )
        assert (await h.text("Judge", "~choose weather +9999")).endswith(" +9999 = 2 - rain")

    play(store, ["Judge"], script)
