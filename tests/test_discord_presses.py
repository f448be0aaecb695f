"""A button acts only for the turn it was made for: it carries the spar and the moment the
fighter to act got the action (the turn, a resume, the outcome that gave a critical's free
attack, the void that gave a voided action back), so a double press, a press of an older
answer's button after the turn moved on or a void, or of a closed spar's button under a new
one, is refused to the presser with nothing stored, also when two presses are in flight at
once; the latest buttons keep working, after a restart too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from referee.discord.desk import Desk
from referee.discord.replies import Person, Place
from referee.errors import ConflictError
from referee.store import Store
from tests.discord_harness import Harness, fighter_to_act, play
from tests.seeds import for_test
from tests.test_store_write_lock import bout_is_free

EPHEMERAL = 64
STALE = (
    "error: this button is from an earlier turn (the spar moved on since); nothing changed: "
    "use the buttons of the latest answer"
)
NAMES = {"Tarl_1_nick": "Tarl", "Pa-Kur_2_nick": "Pa-Kur", "Rask_3_nick": "Rask"}


def first_button(answer: dict[str, Any]) -> str:
    return str(answer["components"][0]["components"][0]["custom_id"])


def events(store: Store) -> int:
    return sum(len(store.events(b.id)) for b in store.list_bouts())


def test_a_double_press_after_a_critical_is_one_attack() -> None:
    """A critical that stuns the foe gives the attacker a free attack (MSV); the same button
    pressed again was that free attack, unasked. Duels of CS 90 until one comes."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        for duel in range(20):
            await h.text("Judge", f"~spar:open msv Duel {duel}")
            await h.text("Tarl", "~spar:join 90")
            await h.text("Pa-Kur", "~spar:join 90")
            answer = await h.slash("Judge", "begin", group="spar")
            while (actor := fighter_to_act(answer["content"])) is not None:
                button = first_button(answer)
                pressed = await h.press(NAMES[actor], button)
                if "- a free attack" not in pressed["content"]:
                    answer = pressed
                    continue
                before = events(store)
                again = await h.press(NAMES[actor], button)
                assert (again["content"], again["flags"]) == (STALE, EPHEMERAL)
                assert events(store) == before
                free = await h.press(NAMES[actor], first_button(pressed))  # its own button
                assert f"{actor} attacks " in free["content"]
                return
            await h.text("Judge", "~spar:close bout")
        raise AssertionError("no critical with a free attack in 20 duels")

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


def test_an_older_answers_button_is_refused_once_the_turn_moved_on() -> None:
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Duel")
        await h.text("Tarl", "~spar:join 40")
        await h.text("Pa-Kur", "~spar:join 40")
        begun = await h.slash("Judge", "begin", group="spar")
        first = NAMES[str(fighter_to_act(begun["content"]))]
        struck = await h.press(first, first_button(begun))
        second = NAMES[str(fighter_to_act(struck["content"]))]
        back = await h.press(second, first_button(struck))
        assert NAMES[str(fighter_to_act(back["content"]))] == first  # round 2: first's turn
        before = events(store)
        stale = await h.press(first, first_button(begun))  # round 1's button
        assert (stale["content"], stale["flags"]) == (STALE, EPHEMERAL)
        assert events(store) == before
        fresh = await h.press(first, first_button(back))
        assert " attacks " in fresh["content"]
        # the spar closes and a new one opens in the channel, with the same fighters
        await h.text("Judge", "~spar:close bout")
        await h.text("Judge", "~spar:open msv Rematch")
        await h.text("Tarl", "~spar:join 40")
        await h.text("Pa-Kur", "~spar:join 40")
        rebegun = await h.slash("Judge", "begin", group="spar")
        actor = NAMES[str(fighter_to_act(rebegun["content"]))]
        old = first_button(fresh) if actor != first else first_button(back)
        before = events(store)
        refused = await h.press(actor, old)  # a button of the closed spar
        assert (refused["content"], refused["flags"]) == (STALE, EPHEMERAL)
        assert events(store) == before

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)


def test_a_button_made_before_a_restart_works_after_it(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'bot.db'}"
    hall, judge = Place(100, 7, "hall"), Person(1, "Judge")
    players = {"Tarl": Person(2, "Tarl"), "Pa-Kur": Person(3, "Pa-Kur")}
    store = Store.open(url)
    desk = Desk(store, entropy=for_test())
    desk.open(hall, judge, "msv Restart duel")
    desk.join(hall, players["Tarl"], "65")
    desk.join(hall, players["Pa-Kur"], "70")
    begun = desk.begin(hall, judge)
    assert begun.mark is not None and begun.buttons
    custom = f"referee:@{begun.mark}:attack:{begun.buttons[0].target}"
    store.close()

    store = Store.open(url)  # the bot starts again
    desk = Desk(store, entropy=for_test("again"))
    bout = desk.bout_of(hall)
    actor = players[str(desk.service.state(bout).current)]
    before = len(store.events(bout))
    struck = desk.press(hall, actor, custom, [])
    assert f"{actor.name} attacks " in struck.text and len(store.events(bout)) > before
    after = len(store.events(bout))
    try:
        desk.press(hall, players["Tarl"], custom, [])
    except ConflictError as err:
        assert f"error: {err.public}" == STALE
    else:
        raise AssertionError("a used button acted again")
    assert len(store.events(bout)) == after


def test_an_old_spars_end_button_does_not_end_the_next_spar(monkeypatch: Any) -> None:
    """`~spar:end` asks with a button; pressed after that spar was closed another way and a
    new one opened in the channel, it ended the new one."""
    from referee.discord import messages

    made: list[str] = []
    real = messages.view_for

    def recorded(reply: Any) -> Any:
        view = real(reply)
        made.extend(str(getattr(item, "custom_id", "")) for item in view.children) if view else None
        return view

    monkeypatch.setattr(messages, "view_for", recorded)
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv First")
        await h.text("Tarl", "~spar:join 50")
        asked = await h.text("Judge", "~spar:end")
        assert asked == "End the spar? The proctor's press on the button ends it."
        button = made[-1]
        assert button.endswith(":end:")
        await h.text("Judge", "~spar:close bout")
        await h.text("Judge", "~spar:open msv Second")
        second = next(b.id for b in store.list_bouts() if b.name == "Second")
        before = len(store.events(second))
        refused = await h.press("Judge", button)
        assert (refused["content"], refused["flags"]) == (STALE, EPHEMERAL)
        assert len(store.events(second)) == before and store.get_bout(second).status == "open"
        await h.text("Judge", "~spar:end")
        ended = await h.press("Judge", made[-1])  # the second spar's own button
        assert "The spar is closed. Server seed: " in ended["content"]

    play(store, ["Judge", "Tarl"], script)


def test_a_void_makes_every_button_made_before_it_stale() -> None:
    """The proctor voids an attack: the turn it took comes back with a mark of its own (the
    void's), so neither the voided turn's buttons nor those the voided attack's answer carried
    act again (the latter made the fighter to act attack, with the mark the voided turn event
    left behind); the void's answer's buttons work."""
    store = Store.open("sqlite://")

    async def script(h: Harness) -> None:
        await h.text("Judge", "~spar:open msv Three")
        for name in ("Tarl", "Pa-Kur", "Rask"):
            await h.text(name, "~spar:join 40")
        begun = await h.slash("Judge", "begin", group="spar")
        first = NAMES[str(fighter_to_act(begun["content"]))]
        struck = await h.press(first, first_button(begun))
        assert NAMES[str(fighter_to_act(struck["content"]))] != first
        verb = {"name": "verb", "type": 3, "value": "void"}
        voided = await h.slash("Judge", "power", verb, group="spar")
        assert " are voided (undone)" in voided["content"]
        assert NAMES[str(fighter_to_act(voided["content"]))] == first  # the turn is back
        before = events(store)
        for old in (begun, struck):  # the voided turn's button, the voided answer's
            refused = await h.press(first, first_button(old))
            assert (refused["content"], refused.get("flags")) == (STALE, EPHEMERAL)
        assert events(store) == before
        again = await h.press(first, first_button(voided))
        assert f"{h.members[first].nick} attacks " in again["content"]

    play(store, ["Judge", "Tarl", "Pa-Kur", "Rask"], script)


def test_a_second_press_in_flight_waits_for_the_first_and_is_refused(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proctor plays three NPCs and presses one Attack button twice at once. The second
    press comes in just after the first has checked the button's turn, before it attacks: it
    gets in now if nothing holds the bout (a probe from another connection, which does not
    wait), else after the first is stored. The first reads the turn with the bout locked, so
    the second waits and is refused; when the check ran before anything locked the bout, the
    second got in between, attacked, and the first then attacked as the next NPC."""
    store = Store.open(db_url)
    hall, judge = Place(100, 7, "hall"), Person(1, "Judge")
    desk = Desk(store, entropy=for_test())
    desk.open(hall, judge, "msv Three NPCs")
    for name in ("Orc", "Goblin", "Troll"):
        desk.npc(hall, judge, f"{name} cs=40")
    begun = desk.begin(hall, judge)
    bout = desk.bout_of(hall)
    state = desk.service.state(bout)
    assert state.turn is not None and begun.mark is not None
    after = state.order[(state.turn + 1) % len(state.order)]  # the NPC to act next
    target = next(b.target for b in begun.buttons if b.action == "attack" and b.target != after)
    button = f"referee:@{begun.mark}:attack:{target}"
    before = len(store.events(bout))
    pressed: list[str] = []  # the presses that reached their attack
    later: list[Callable[[], Any]] = []
    refused: list[str] = []

    def second() -> None:
        try:
            desk.press(hall, judge, button, [])
        except ConflictError as err:
            refused.append(f"error: {err.public}")

    attack = Desk.attack

    def in_flight(self: Desk, *args: Any, **kwargs: Any) -> Any:
        pressed.append(button)
        if len(pressed) == 1:  # the first press, checked, about to attack
            if bout_is_free(db_url, bout):
                second()
            else:
                later.append(second)
        return attack(self, *args, **kwargs)

    monkeypatch.setattr(Desk, "attack", in_flight)
    first = desk.press(hall, judge, button, [])
    for waited in later:
        waited()
    assert refused == [STALE]
    assert f"{state.current} attacks {target}" in first.text
    acted = [e for e in store.events(bout)[before:] if e["type"] == "action"]
    assert [(e["actor"], e["payload"]["kind"]) for e in acted] == [(state.current, "attack")]
