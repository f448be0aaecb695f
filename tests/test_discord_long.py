"""Answers near and past Discord's 2,000-character limit on one message: a refusal that quotes
a very long argument is cut to one message Discord accepts (it would refuse a longer one, and
the member would read nothing), and a slash command's long answer is split, as a message
command's is, never cut short."""

from __future__ import annotations

import discord.ext.test as dpytest

from referee.discord.messages import MAX_MESSAGE
from referee.store import Store
from tests.discord_harness import Harness, play

#: 1,500 stars: each is escaped (`\*`) in the answer, so a reason quoting them passes 2,000.
STARS = "*" * 1500


def test_a_refusal_is_cut_to_one_message() -> None:
    from referee.discord.messages import refusal

    cut = refusal("no character called '" + STARS + "'")
    assert len(cut) in (MAX_MESSAGE - 1, MAX_MESSAGE)  # a cut escape is left out whole
    assert cut.startswith("error: no character called '\\*\\*") and cut.endswith("\\*…")
    assert refusal("x" * 1993) == "error: " + "x" * 1993  # 2,000 characters: as it is
    assert refusal("**" + "y" * 2000).endswith("y…")
    # an escape is never cut in half (a lone `\` would escape the ellipsis)
    for size in range(1980, 2000):
        said = refusal("a" * (size - 7) + "*" * 40)
        assert len(said) <= MAX_MESSAGE and not said.endswith("\\…"), size


def test_refusals_quoting_long_arguments_fit_one_message() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        for typed in (f"~char show {STARS}", f"~alias remove {STARS}", f"~dialect {STARS}",
                      f"~luck {STARS}", f"~spar:override {STARS}"):  # fmt: skip
            sent = await h.say("Tarl", typed)
            assert len(sent) == 1, typed
            assert sent[0].content.startswith("error: "), sent[0].content[:80]
            assert len(sent[0].content) <= MAX_MESSAGE, (typed[:20], len(sent[0].content))
        words = {"name": "words", "type": 3, "value": f"show {STARS}"}
        slashed = await h.slash("Tarl", "char", words)
        assert slashed["content"].startswith("error: you have no character called '\\*")
        assert len(slashed["content"]) in (MAX_MESSAGE - 1, MAX_MESSAGE) and slashed["flags"] == 64

    play(store, ["Tarl"], script)


def test_a_long_slash_answer_is_split_as_a_message_commands_is() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        role = dpytest.backend.make_role("admins", h.guild, permissions=0x20)  # Manage Server
        h.grant("Admin", role)
        await h.text("Admin", "~table new weather")
        for start in (1, 31, 61):  # 90 entries of 50 characters: 4,500 in all
            items = ", ".join(f"[{i},{i}]{'Rain ' * 8}{i}" for i in range(start, start + 30))
            assert (await h.text("Admin", f"~table add weather {items}")).startswith("Table ")
        typed = await h.say("Tarl", "~table info weather")
        assert len(typed) == 3 and all(len(m.content) <= MAX_MESSAGE for m in typed)
        named = {"name": "name", "type": 3, "value": "weather"}
        slashed = await h.slash("Tarl", "info", named, group="table")
        parts = [slashed["content"], *(f["content"] for f in h.responses.followups)]
        assert parts == [m.content for m in typed]
        assert parts[2].endswith(f"90: {'Rain ' * 8}90")

    play(store, ["Tarl", "Admin"], script)


def test_answers_to_slash_commands_and_buttons_ping_nobody() -> None:
    """Every interaction answer (and follow-up) carries the bot's `allowed_mentions` of none, so
    a name like `@everyone`, a role's or a member's mention in it notifies nobody."""
    store = Store.open("sqlite://")
    nobody = {"parse": []}

    async def script(h: Harness) -> None:
        h.rename("Tarl", "@everyone")
        named = {"name": "name", "type": 3, "value": f"@here <@&5> {h.mention('Judge')}"}
        await h.slash("Judge", "open", named, group="spar")
        await h.slash("Tarl", "join", {"name": "entry", "type": 3, "value": "65"}, group="spar")
        await h.slash("Judge", "begin", group="spar")  # one fighter: refused
        await h.press("Tarl", "referee:attack:@everyone")
        answers = [params.payload for params in h.responses.sent]
        assert "@everyone joins the spar (CS 65)." in [a["data"]["content"] for a in answers]
        assert [a["data"]["allowed_mentions"] for a in answers] == [nobody] * 4

    play(store, ["Judge", "Tarl"], script)


def test_a_roll_longer_than_a_message_is_cut_between_escapes() -> None:
    """`~roll 1000d6kh1` says one line of about 12,000 characters (each face left out struck
    through, its `~~` escaped): cut into messages Discord accepts, none ending in a `\\` whose
    letter went to the next (a stray backslash there, a bare `~` or `*` here)."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        sent = [m.content for m in await h.say("Tarl", "~roll 1000d6kh1")]
        assert len(sent) > 5 and all(len(part) <= MAX_MESSAGE for part in sent)
        for part in sent:
            assert (len(part) - len(part.rstrip("\\"))) % 2 == 0, part[-20:]
        assert "".join(sent).count("\\~\\~") == 2 * 999  # every struck face whole

    play(store, ["Tarl"], script)
