"""Slash commands and buttons: Discord's interaction payloads dispatched through the bot's
command tree, the HTTP layer of the answers captured (no network)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from referee.store import Store
from tests.discord_harness import Harness, fighter_to_act
from tests.test_discord_spar import HOST, play

EPHEMERAL = 64


def test_a_spar_by_slash_commands_and_buttons(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        rolled = await h.slash("Tarl", "roll", {"name": "expression", "type": 3, "value": "2d20"})
        line, scored = rolled["content"].split("\n")
        faces = re.fullmatch(r"Tarl_1_nick rolls 2d20 = \[(\d+), (\d+)\] = \d+ \(nonce 0\)", line)
        assert faces is not None
        a, b = (max(0, (int(f) - 10) // 5) for f in faces.groups())  # Rhy'Din (MSV-9)
        assert scored == f"Rhy'Din score: {a} + {b} = {a + b}"
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
        duel = next(b.id for b in store.list_bouts() if b.name == "Slash duel")
        # the button carries the spar and the turn it is for (referee.discord.presses)
        assert re.fullmatch(rf"referee:@{re.escape(duel)}\.\d+:attack:{foe_fighter}",
                            buttons[0]["custom_id"])  # fmt: skip
        wrong = await h.press(foe, buttons[0]["custom_id"])
        assert wrong["content"] == f"error: out of turn: it is {actor}'s turn, not {foe_fighter}'s"
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
        assert paused["content"].startswith("The spar is paused")
        bout = {"name": "what", "type": 3, "value": "bout"}
        closed = await h.slash("Judge", "close", bout, group="spar")
        assert "The spar is closed. Server seed: " in closed["content"]
        assert closed["files"] == [
            f"spar-{next(b.id for b in store.list_bouts() if b.name == 'Slash duel')}.json"
        ]
        helped = await h.slash("Tarl", "help")
        assert helped["content"].startswith("referee: verifiable dice")

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


def test_slash_proctor_powers_and_a_link_by_direct_message(tmp_path: Path) -> None:
    import discord.ext.test as dpytest
    from discord.ext.test import runner

    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.slash(
            "Judge", "open", {"name": "name", "type": 3, "value": "Slashed"}, group="spar"
        )
        option, resolved = h.member_option("member", "Tarl")
        refused = await h.slash(
            "Tarl", "add", option, {"name": "cs", "type": 4, "value": 65}, group="spar",
            resolved=resolved,
        )  # fmt: skip
        assert refused["content"] == "error: only the proctor (Judge_0_nick) can add fighters"
        added = await h.slash(
            "Judge", "add", option, {"name": "cs", "type": 4, "value": 65}, group="spar",
            resolved=resolved,
        )  # fmt: skip
        assert added["content"] == "Tarl_1_nick joins the spar (CS 65), added by the proctor."
        clocked = await h.slash(
            "Judge", "clock", {"name": "time", "type": 3, "value": "2m"},
            {"name": "skip", "type": 5, "value": True}, group="spar",
        )  # fmt: skip
        assert clocked["content"] == "Turn clock: 2m a post; when it runs out the turn is skipped."
        await dpytest.empty_queue()
        linked = await h.slash("Tarl", "link", group="spar")
        assert linked["content"] == (
            "Sent you a fresh link by direct message; the old one stops working."
        )
        assert "token=" not in linked["content"]
        direct = [runner.sent_queue.get_nowait() for _ in range(runner.sent_queue.qsize())]
        assert len(direct) == 2 and "/static/fighter.html#bout=" in direct[1].content
        h.close_dms("Judge")
        closed = await h.slash("Judge", "link", group="spar")
        assert closed["flags"] == 64 and closed["content"].startswith(
            "error: I could not send you a direct message"
        )
        handed = await h.slash("Judge", "assign", option, group="spar", resolved=resolved)
        assert handed["content"] == "Tarl_1_nick is the proctor now."
        gone = await h.slash("Tarl", "remove", option, group="spar", resolved=resolved)
        assert gone["content"].startswith("Tarl_1_nick leaves the spar")

    play(store, ["Judge", "Tarl"], script)


def test_srp_buttons_shoot_and_pass(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Ann", "~char set Ann weapon=shortbow skill=15 defense=12 hits=12")
        await h.text("Bran", "~char set Bran weapon=mace skill=13 defense=11 hits=10")
        await h.text("Judge", "~spar:open srp Range")
        await h.text("Ann", "~spar:join")
        await h.text("Bran", "~spar:join")
        begun = await h.slash("Judge", "begin", group="spar")
        labels = [b["label"] for b in begun["components"][0]["components"]]
        assert labels == ["Shoot Bran", "Pass"]  # a shortbow shoots; it offers no melee attack
        ids = [b["custom_id"] for b in begun["components"][0]["components"]]
        bout = next(b.id for b in store.list_bouts() if b.name == "Range")
        turn = re.escape(f"referee:@{bout}.")
        assert [re.sub(rf"^{turn}\d+:", "", i) for i in ids] == ["shoot:Bran", "pass:"]
        shot = await h.press("Ann", "referee:shoot:Bran")
        assert shot["content"].startswith("Ann rolls d20 d20 d6: ")
        assert "Ann shoots Bran with the shortbow: " in shot["content"]
        buttons = [b["label"] for b in shot["components"][0]["components"]]
        assert buttons == ["Attack Ann", "Pass"]  # Bran has no missile weapon
        passed = await h.press("Bran", "referee:pass:")
        assert passed["content"].endswith("Next: Ann's turn (round 2)")

    play(store, ["Judge", "Ann", "Bran"], script)


def components(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for row in answer.get("components") or [] for c in row["components"]]


def test_srp_special_actions_by_select_menu_and_the_buttons_a_condition_brings() -> None:
    from dataclasses import replace

    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        # The whip has codes D and E, the unarmed fighter G (SRP-16).
        await h.text("Ann", "~char set Ann weapon=whip skill=15 defense=12 hits=12")
        await h.text("Bran", "~char set Bran weapon=unarmed skill=13 defense=11 hits=10")
        await h.text("Judge", "~spar:open srp Holds")
        await h.text("Ann", "~spar:join")
        await h.text("Bran", "~spar:join")
        begun = await h.slash("Judge", "begin", group="spar")
        actor = fighter_to_act(begun["content"])
        assert actor in ("Ann", "Bran")
        foe = "Bran" if actor == "Ann" else "Ann"
        items = components(begun)
        assert [b["label"] for b in items if b["type"] == 2] == [f"Attack {foe}", "Pass"]
        (menu,) = [m for m in items if m["type"] == 3]
        bout = next(b.id for b in store.list_bouts() if b.name == "Holds")
        assert re.fullmatch(rf"referee:@{re.escape(bout)}\.\d+:menu:Special action\.\.\.",
                            menu["custom_id"])  # fmt: skip
        assert menu["placeholder"] == "Special action..."
        # The rules decide (SRP-16): the whip's Entangle works only against Avoid, and Bran
        # defends with his weapon (bare hands) unless the referee rules otherwise: no Entangle.
        expected = {"Ann": ["Disarm"], "Bran": ["Grapple"]}[actor]
        assert [(o["label"], o["value"]) for o in menu["options"]] == [
            (f"{label} {foe}", f"{label.lower()}:{foe}") for label in expected
        ]  # no Unhorse: no weapon with code U, and the foe is not mounted
        kind = expected[0].lower()

        async def choose(who: str, value: str) -> dict[str, Any]:
            return await h.interact(
                who, 3, {"custom_id": menu["custom_id"], "component_type": 3, "values": [value]}
            )

        bout = next(b.id for b in store.list_bouts() if b.name == "Holds")
        count = len(store.events(bout))
        wrong = await choose(foe, f"{kind}:{actor}")
        assert wrong["content"] == f"error: out of turn: it is {actor}'s turn, not {foe}'s"
        assert wrong["flags"] == EPHEMERAL
        assert len(store.events(bout)) == count  # a refusal stores nothing
        tried = await choose(actor, f"{kind}:{foe}")
        assert re.search(rf"^{actor} tries to {kind} {foe}: (works|fails)$", tried["content"], re.M)
        assert fighter_to_act(tried["content"]) == foe
        action = [e for e in store.events(bout) if e.get("type") == "action"][-1]
        assert (action["actor"], action["payload"]["kind"]) == (actor, kind)
        assert action["payload"]["options"] == {"target": foe}  # what ~spar:act KIND @foe sends
        # The buttons a condition brings (SRP-16), and Unhorse against a mounted foe.
        state = h.bot.desk.service.state(bout)
        me = state.fighter(state.current or "")
        other = state.enemies_of(me.name)[0]
        halberd = [{**me.stats["weapons"][0], "name": "halberd", "codes": ["U", "D"]}]
        # grappled, and holding the other in a grapple of its own (the rules' Release needs
        # someone held: `holds`)
        held = replace(
            me, stats={**me.stats, "weapons": halberd, "holds": other.name},
            conditions={"grappled": None, "grappling": None},
        )  # fmt: skip
        riding = replace(other, stats={**other.stats, "mounted": True})
        buttons = h.bot.desk._buttons(state.with_fighter(held).with_fighter(riding))
        assert [(b.label, b.action, b.menu) for b in buttons] == [
            (f"Attack {other.name}", "attack", None),
            ("Break free", "break_free", None),
            ("Release", "release", None),
            ("Pass", "pass", None),
            (f"Disarm {other.name}", "disarm", "Special action..."),
            (f"Unhorse {other.name}", "unhorse", "Special action..."),
        ]
        # Only a shortbow: it shoots, it does not strike.
        bow = [{**me.stats["weapons"][0], "name": "shortbow", "codes": [],
                "effective_range_cm": 5000}]  # fmt: skip
        archer = replace(me, stats={**me.stats, "weapons": bow}, conditions={})
        buttons = h.bot.desk._buttons(state.with_fighter(archer))
        assert [b.label for b in buttons if b.menu is None] == [f"Shoot {other.name}", "Pass"]
        # Disarmed (SRP-16): no weapon in hand, so no Attack, Shoot or weapon special.
        empty = replace(held, stats={**held.stats, "holds": None}, conditions={"disarmed": None})
        buttons = h.bot.desk._buttons(state.with_fighter(empty).with_fighter(riding))
        assert [(b.label, b.action, b.menu) for b in buttons] == [
            ("Pick up", "pick_up", None),
            ("Pass", "pass", None),
        ]

    play(store, ["Judge", "Ann", "Bran"], script)
