"""The Discord bot speaks the chat grammar: the same parser, names, errors and service call as
the chat endpoint, typed with the channel's prefix (`~spar:attack Tarl`, `~attack Tarl`);
`~spar:close` closes joining, as OnlineHost's close did."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from referee.chat import NotACommand, Roster, parse_line
from referee.cli.main import cli
from referee.discord.messages import in_spar_words
from referee.errors import RefereeError
from referee.sentences import sentence
from referee.store import Store
from referee.vocabulary import EventType
from tests.discord_harness import Harness, attachment_bytes, fighter_to_act, play


def bout_id(store: Store, name: str) -> str:
    return next(b.id for b in store.list_bouts() if b.name == name)


def grammar_error(line: str, roster: Roster) -> str:
    """The chat grammar's own refusal of `line`, as the chat endpoint says it."""
    try:
        parse_line(line, roster)
    except RefereeError as err:
        return f"error: {err.public}"
    raise AssertionError(f"{line!r} parsed")


def test_typed_lines_are_the_chat_grammars_with_the_prefix() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Grammar")
        bout = bout_id(store, "Grammar")
        await h.text("Tarl", "~spar:join 65")
        # `add NAME CS [SIDE]` of the chat grammar: a name of several words, no quotes
        added = await h.text("Judge", "~spar:add Bob the Bold 50 raiders")
        assert added == "Bob the Bold joins the spar (CS 50), added by the proctor."
        assert await h.text("Judge", "~add Pa Kur 40 raiders") == (
            "Pa Kur joins the spar (CS 40), added by the proctor."
        )
        added_event = [e for e in store.events(bout) if e["type"] == EventType.FIGHTER_ADDED]
        assert [(e["payload"]["name"], e["payload"]["side"]) for e in added_event] == [
            ("Tarl_1_nick", "Tarl_1_nick"),
            ("Bob the Bold", "raiders"),
            ("Pa Kur", "raiders"),
        ]
        roster = Roster(("Tarl_1_nick", "Bob the Bold", "Pa Kur"), ("raiders",))
        # the grammar's errors, word for word, and nothing stored
        count = len(store.events(bout))
        for typed, line in (
            ("~spar:attack Nobody", "attack Nobody"),
            ("~spar:cancel", "cancel"),
            ("~update Tarl_1_nick", "update Tarl_1_nick"),
            ("~spar:add 50", "add 50"),
        ):
            answer = await h.text("Judge", typed)
            said = in_spar_words(grammar_error(line, roster))  # the bot calls a bout a spar
            assert answer == said.replace("`", "\\`"), (typed, answer)
        assert len(store.events(bout)) == count
        begun = await h.text("Judge", "~init")
        actor = fighter_to_act(begun)
        assert actor is not None
        status = await h.text("Tarl", "~status")
        assert status.startswith(f"Grammar: running, round 1, {actor} to act. ")
        assert "Tarl_1_nick 0/" in await h.text("Tarl", "~spar:score")
        # the proctor acts for a non-player fighter: `attack TARGET` names it as the attacker
        if actor != "Tarl_1_nick":
            struck = await h.text("Judge", "~attack tarl_1_nick")  # any letter case
            assert f"{actor} attacks Tarl_1_nick" in struck
        else:
            struck = await h.text("Tarl", "~attack pa kur")
            assert "Tarl_1_nick attacks Pa Kur" in struck
        assert await h.text("Tarl", "~pause") == "error: only the proctor (Judge_0_nick) can pause"

    play(store, ["Judge", "Tarl"], script)


def test_close_closes_joining_and_end_ends() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Doors")
        bout = bout_id(store, "Doors")
        await h.text("Tarl", "~spar:join 65")
        assert await h.text("Tarl", "~spar:close") == (
            "error: only the proctor (Judge_0_nick) can close the spar"
        )
        closed = await h.text("Judge", "~spar:close")
        assert closed == "Joining is closed: no more fighters may join"
        assert store.get_bout(bout).status != "closed"  # the spar goes on
        count = len(store.events(bout))
        assert await h.text("Pa-Kur", "~spar:join 70") == (
            "error: joining is closed: Pa-Kur_2_nick cannot join (the referee may add them)"
        )
        assert await h.text("Judge", "~spar:close") == "error: joining is already closed"
        assert len(store.events(bout)) == count
        assert await h.text("Judge", "~spar:add Orc 40") == (
            "Orc joins the spar (CS 40), added by the proctor."
        )
        await h.text("Judge", "~spar:begin")
        assert await h.text("Judge", "~spar:close") == (
            "error: joining ends when the spar begins (it is running): nothing to close (to end "
            "the spar: end bout)"
        )
        asked = await h.text("Judge", "~spar:end")
        assert asked == "End the spar? The proctor's press on the button ends it."
        ended = (await h.press("Judge", "referee:end:"))["content"]
        assert "Spar ended: no winner (ended by the referee)" in ended
        assert "The spar is closed. Server seed: " in ended
        assert store.get_bout(bout).status == "closed"

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


def test_the_chat_grammar_reads_close_joining() -> None:
    assert str(parse_line("close joining")) == "close joining"
    assert str(parse_line("CLOSE Bout")) == "close bout"
    try:
        parse_line("close the door")
    except NotACommand as err:
        assert str(err) == "not a command; did you mean `close bout`? (or `close joining`)"
    else:
        raise AssertionError("parsed")


def test_a_rolls_note_is_its_label_and_many_dice_are_one_roll(tmp_path: Path) -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        noted = await h.text("Tarl", "~roll 1d20+5 to hit")
        assert re.fullmatch(
            r"Tarl_0_nick rolls 1d20\+5 = \[\d+\] \+ 5 = \d+ \(nonce 0\) - to hit", noted
        )
        host = await h.text("Tarl", "~roll //roll -sides6 -dice2 for damage")
        assert re.fullmatch(
            r"OnlineHost: Tarl_0_nick rolled 2 6-sided dice: \d \d \(nonce 1, free:Tarl_0_nick\)"
            r" sig:\S+"
            r" - for damage",
            host,
        )
        many = await h.text("Tarl", "~roll 150d6")
        assert re.fullmatch(r"Tarl_0_nick rolls 150d6 = \[[0-9, ]+\] = \d+ \(nonce 2\)", many)
        assert await h.text("Tarl", "~roll //roll -sides6 -dice150") == (
            "error: AOL rolled 1..15 dice, got 150 in '//roll -sides6 -dice150' (MSV-1)"
        )
        assert (await h.text("Tarl", "~roll 1001d6")).startswith("error: ")
        assert (await h.text("Tarl", "~roll 1d6 " + "x" * 101)) == (
            "error: a roll's label has 101 characters (at most 100)"
        )
        messages = await h.say("Tarl", "~fair reveal")
        (tmp_path / "table.json").write_bytes(attachment_bytes(messages[-1]))

    play(store, ["Tarl"], script)
    doc = json.loads((tmp_path / "table.json").read_text("utf-8"))
    actions = [e["payload"] for e in doc["events"] if e["type"] == "action"]
    assert [(a.get("label"), a.get("expression"), len(a["dice"])) for a in actions] == [
        ("to hit", "1d20+5", 1),
        ("for damage", None, 2),
        (None, "150d6", 150),
    ]
    rolls = [e["payload"]["faces"] for e in doc["events"] if e["type"] == "roll"]
    assert [len(f) for f in rolls] == [1, 2, 150]  # 150 dice, one roll event
    result = CliRunner().invoke(cli, ["verify", str(tmp_path / "table.json")])
    assert result.exit_code == 0, result.output
    said = [sentence(e, "msv") for e in doc["events"] if e["type"] == "action"]
    assert said[0].endswith("(free roll) - to hit") and said[1].endswith("(free roll) - for damage")


def test_choose_and_rhydin_scoring_as_onlinehost_does(tmp_path: Path) -> None:
    store = Store.open("sqlite://")
    items = ["the tavern", "the docks", "the gate"]

    async def script(h: Harness) -> None:
        chosen = await h.text("Tarl", "~choose the tavern,  the docks , the gate")
        found = re.fullmatch(
            r"OnlineHost: Tarl_0_nick rolled 1 3-sided die: ([1-3]) \(nonce 0, free:Tarl_0_nick\)"
            r" sig:\S+ - (.+)",
            chosen,
        )
        assert found is not None and found.group(2) == items[int(found.group(1)) - 1]
        for bad in ("~choose the tavern", "~choose a,,b", "~choose " + ",".join("x" * 101)):
            assert (await h.text("Tarl", bad)).startswith("error: ")
        many = ", ".join(f"place number {i}" for i in range(12))  # too long for a label
        assert (await h.text("Tarl", f"~choose {many}")).startswith("OnlineHost: Tarl_0_nick")
        scored = (await h.text("Tarl", "~roll 2d22")).split("\n")
        faces = re.fullmatch(
            r"Tarl_0_nick rolls 2d22 = \[(\d+), (\d+)\] = \d+ \(nonce 2\)", scored[0]
        )
        assert faces is not None
        a, b = (max(0, (int(f) - 10) // 5) for f in faces.groups())
        assert scored[1:] == [f"Rhy'Din score: {a} + {b} = {a + b}"]
        assert "\n" not in await h.text("Tarl", "~roll 2d6")  # d20 to d100 only
        assert "\n" not in await h.text("Tarl", "~roll 2d101")
        assert "\n" not in await h.text("Tarl", "~roll 2d22+1")  # a plain roll only
        messages = await h.say("Tarl", "~fair reveal")
        (tmp_path / "table.json").write_bytes(attachment_bytes(messages[-1]))

    play(store, ["Tarl"], script)
    doc = json.loads((tmp_path / "table.json").read_text("utf-8"))
    labels = [e["payload"].get("label") for e in doc["events"] if e["type"] == "action"]
    assert labels[:2] == ["choose: the tavern, the docks, the gate", "choose 1 of 12"]
    result = CliRunner().invoke(cli, ["verify", str(tmp_path / "table.json")])
    assert result.exit_code == 0, result.output


def test_typos_get_a_did_you_mean_and_role_play_verbs_stay_silent() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        assert await h.text("Tarl", "~atack Orc") == (
            "error: no command ~atack; did you mean ~attack?"
        )
        assert await h.text("Tarl", "~spar:ad Bob 50") == (
            "error: no command ~spar:ad; did you mean ~spar:add?"
        )
        for line in ("~attacks wildly", "~acts surprised", "~ends the song", "~sighs"):
            assert await h.say("Tarl", line) == [], line

    play(store, ["Tarl"], script)


def test_a_did_you_mean_shows_the_typed_word_letter_for_letter() -> None:
    """The mistyped word is said back escaped, as every name is (`~*attack*` is no italics)."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        assert await h.text("Tarl", "~*attack* Orc") == (
            "error: no command ~\\*attack\\*; did you mean ~attack?"
        )
        assert await h.text("Tarl", "~__attack Orc") == (
            "error: no command ~\\_\\_attack; did you mean ~attack?"
        )

    play(store, ["Tarl"], script)


def test_a_typo_followed_by_its_commands_arguments_gets_a_did_you_mean() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        assert await h.text("Tarl", "~rolll 1d6") == (
            "error: no command ~rolll; did you mean ~roll?"
        )
        assert await h.text("Tarl", "~rolls 4d6kh3") == (
            "error: no command ~rolls; did you mean ~roll?"
        )
        assert await h.text("Tarl", "~rolll //roll -sides100 -dice1") == (
            "error: no command ~rolll; did you mean ~roll?"
        )
        for line in ("~attacks wildly", "~rolls her eyes", "~rolls over", "~rolll", "~acts 1d6"):
            assert await h.say("Tarl", line) == [], line

    play(store, ["Tarl"], script)


def test_a_removed_member_no_longer_plays_and_may_join_again() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Benched")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Pa-Kur", "~spar:join 70")
        removed = await h.text("Judge", "~remove tarl_1_nick")
        assert removed.startswith("Tarl_1_nick leaves the spar")
        assert await h.text("Tarl", "~quit") == (
            "error: you are not fighting in this spar (~spar:join first)"
        )
        assert await h.text("Tarl", "~spar:join 60") == "Tarl_1_nick joins the spar (CS 60)."

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


FORMS = ("typed", "slash", "button")


def ledger_of(store: Store, name: str) -> list[tuple[str, str, object]]:
    """A spar's ledger as what happened: every event's type, actor and payload (the bout's
    id and the time stamps, which differ from one run to the next, left out)."""
    out: list[tuple[str, str, object]] = []
    for e in store.events(bout_id(store, name)):
        payload = {k: v for k, v in e["payload"].items() if k not in ("id", "created_at")}
        out.append((e["type"], e["actor"], payload))
    return out


def spar_in(form: str) -> list[tuple[str, str, object]]:
    """One spar, every command in one form (typed lines, slash commands, or buttons where
    there is one): open, two joins, close joining, begin, attacks, pause, resume, update."""
    store = Store.open("sqlite://")
    names = {"Tarl_1_nick": "Tarl", "Pa-Kur_2_nick": "Pa-Kur"}

    async def script(h: Harness) -> None:
        async def run(who: str, line: str, slash: tuple[str, list[dict[str, object]]]) -> str:
            if form == "typed":
                return await h.text(who, line)
            answer = await h.slash(who, slash[0], *slash[1], group="spar")
            return str(answer["content"])

        def text(name: str, value: str) -> dict[str, object]:
            return {"name": name, "type": 3, "value": value}

        await run("Judge", "~spar:open msv Forms", ("open", [text("name", "Forms")]))
        for who, cs in (("Tarl", "65"), ("Pa-Kur", "70")):
            await run(who, f"~spar:join {cs}", ("join", [text("entry", cs)]))
        await run("Judge", "~spar:close", ("close", [text("what", "joining")]))
        answer = await run("Judge", "~spar:begin", ("begin", []))
        for turn in range(4):
            actor = fighter_to_act(answer)
            if actor is None:  # the spar is over (a fighter down): whatever the seed salt
                break
            me = names[actor]
            foe = next(f for f in names if f != actor)
            if turn == 2:
                await run("Judge", "~spar:pause", ("power", [text("verb", "pause")]))
                await run("Judge", "~spar:resume", ("power", [text("verb", "resume")]))
            if form == "typed":
                answer = await h.text(me, f"~attack {foe.lower()}")
            elif form == "slash":
                option, resolved = h.member_option("target", names[foe])
                answer = str(
                    (await h.slash(me, "attack", option, group="spar", resolved=resolved))[
                        "content"
                    ]
                )
            else:
                answer = str((await h.press(me, f"referee:attack:{foe}"))["content"])
            assert f"{actor} attacks {foe}" in answer, answer
        await run(
            "Judge",
            "~spar:update tarl_1_nick wounds=1",
            ("update", [text("fighter", "tarl_1_nick"), text("changes", "wounds=1")]),
        )

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)
    return ledger_of(store, "Forms")


def test_typed_slash_and_button_forms_leave_the_same_commands() -> None:
    """The same spar typed, by slash commands, and by buttons leaves the same ledger, event
    for event, dice and all (the seeds from the test's deterministic source)."""
    typed = spar_in("typed")
    kinds = [t for t, _, _ in typed]
    assert kinds.count(EventType.ACTION) >= 3  # initiative and the attacks
    assert EventType.JOINING_CLOSED in kinds
    assert spar_in("slash") == typed
    assert spar_in("button") == typed


def test_roll_tables_and_choose_from_one(tmp_path: Path) -> None:
    import discord.ext.test as dpytest

    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        assert await h.text("Tarl", "~table new weather") == (
            "error: only members with Manage Server can change roll tables"
        )
        role = dpytest.backend.make_role("admins", h.guild, permissions=0x20)  # Manage Server
        h.grant("Admin", role)
        assert await h.text("Admin", "~table new Weather what the sky does") == (
            "Table Weather is made: ~table add Weather item 1, item 2"
        )
        assert await h.text("Admin", "~table new weather") == (
            "error: this server has a table called weather already"
        )
        added = await h.text("Admin", "~table add weather Rain, [2,5]Fog, [8,8]Storm")
        assert added.split("\n") == [
            "Table Weather: 1d8 - what the sky does",
            "  1: Rain",
            "  2-5: Fog",
            "  8: Storm",
            "Gaps (sides no entry holds): 6, 7",
        ]
        assert await h.text("Admin", "~table add weather [4,6]Sun") == (
            "error: sides 4-6 overlap 2-5 (Fog): ~table rewrite or ~table remove it first"
        )
        assert "  8: Hail" in await h.text("Admin", "~table rewrite weather 8 Hail")
        assert "  1: Rain" not in await h.text("Admin", "~table remove weather 1")
        assert await h.text("Tarl", "~table list") == "Weather (1d8) - what the sky does"
        for modifier in ("", " +3", " -9"):
            chosen = await h.text("Tarl", f"~choose WEATHER{modifier}")
            found = re.fullmatch(
                r"OnlineHost: Tarl_1_nick rolled 1 8-sided die: ([1-8])"
                r" \(nonce \d, free:Tarl_1_nick\)"
                r" sig:\S+"
                r"(?: [+-]\d = (\d))? - (.+)",
                chosen,
            )
            assert found is not None, chosen
            face = int(found.group(1))
            side = min(max(face + int(modifier or 0), 1), 8)
            assert int(found.group(2) or face) == side
            expected = {2: "Fog", 3: "Fog", 4: "Fog", 5: "Fog", 8: "Hail"}.get(side)
            assert found.group(3) == (expected or f"side {side} is a gap in table Weather")
        assert (await h.text("Tarl", "~choose nothing")).startswith(
            "error: no roll table called 'nothing' on this server"
        )
        assert await h.text("Admin", "~table delete weather") == "Table Weather is deleted."
        assert await h.text("Tarl", "~table list") == (
            "No roll tables on this server yet (~table new NAME)."
        )
        messages = await h.say("Tarl", "~fair reveal")
        (tmp_path / "table.json").write_bytes(attachment_bytes(messages[-1]))

    play(store, ["Admin", "Tarl"], script)
    doc = json.loads((tmp_path / "table.json").read_text("utf-8"))
    labels = [e["payload"].get("label") for e in doc["events"] if e["type"] == "action"]
    assert labels == [
        "choose from table Weather",
        "choose from table Weather +3",
        "choose from table Weather -9",
    ]


#: Where "bout" is a word typed (`~spar:close bout`, the chat grammar's `end bout`) or a link's.
TYPED_BOUT = re.compile(r"(close|end|cancel) bout|#bout=")


def test_the_bot_calls_a_bout_a_spar_in_every_answer() -> None:
    store = Store.open("sqlite://")
    said: list[str] = []

    async def script(h: Harness) -> None:
        for who, line in (
            ("Judge", "~spar:open msv Words"), ("Tarl", "~spar:join 65"),
            ("Pa-Kur", "~spar:join 70"), ("Rask", "~spar:join 60"), ("Judge", "~spar:begin"),
            ("Judge", "~spar:close"), ("Judge", "~spar:pause"), ("Tarl", "~attack"),
            ("Judge", "~spar:resume"), ("Judge", "~remove rask_3_nick"), ("Judge", "~cancel"),
            ("Judge", "~spar:status"), ("Judge", "~spar:cancel bout"),
        ):  # fmt: skip
            said.extend(m.content for m in await h.say(who, line))

    play(store, ["Judge", "Tarl", "Pa-Kur", "Rask"], script)
    lines = [line for message in said for line in message.split("\n")]
    assert "The spar is paused" in lines and "The spar is resumed" in lines
    assert (
        "error: joining ends when the spar begins (it is running): nothing to close (to end the "
        "spar: end bout)"
    ) in lines
    assert any(line.startswith("Rask_3_nick leaves the spar") for line in lines)
    assert any(line.startswith("Spar cancelled (") for line in lines)
    bouts = [line for line in lines if re.search(r"\bbouts?\b", TYPED_BOUT.sub("", line), re.I)]
    assert bouts == []


def test_a_spar_in_the_wrong_state_is_a_spar_too() -> None:
    """The service's refusals that name a bout with a word between ("a running bout", "an
    open bout") say "spar" in the bot as the others do."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Early")
        assert await h.text("Judge", "~spar:pause") == (
            "error: only a running spar can be paused (it is open)"
        )
        assert await h.text("Judge", "~spar:resume") == (
            "error: only a paused spar can be resumed (it is open)"
        )

    play(store, ["Judge"], script)
    assert in_spar_words("an open bout, a paused bout, no closed bout") == (
        "an open spar, a paused spar, no closed bout"  # a closed bout: any door's (~luck char)
    )
    assert in_spar_words("say `close bout`; the bout closes") == "say `close bout`; the spar closes"
