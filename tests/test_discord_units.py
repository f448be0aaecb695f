"""Each bot command is one transaction through the service: a crash between two of its steps
stores all or nothing, concurrent commands in one channel never fork a ledger, and no module
of the bot opens a transaction of its own or reaches into the store."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

import referee.discord
from referee.discord.desk import Desk
from referee.discord.links import Links
from referee.discord.replies import Person, Place
from referee.ledger.chain import verify_chain
from referee.store import Store
from tests.discord_harness import Harness
from tests.seeds import for_test

JUDGE, TARL = Person(1, "Judge"), Person(2, "Tarl")
HALL = Place(100, 7, "hall")


class Crash(Exception):
    """The process dying between two steps of a command."""


def crash(*_args: object, **_kwargs: object) -> None:
    raise Crash


def test_a_crash_between_two_steps_stores_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'bot.db'}")
    desk = Desk(store, entropy=for_test())
    # ~spar:open: the bout is made, then the channel row written. The second step fails.
    with monkeypatch.context() as m:
        m.setattr(Links, "set_member", crash)
        with pytest.raises(Crash):
            desk.open(HALL, JUDGE, "msv Doomed")
    assert store.list_bouts() == []
    assert desk.links.channel(HALL.channel) == (None, None)
    # It goes through once nothing fails; then ~spar:join dies after adding the fighter.
    desk.open(HALL, JUDGE, "msv Kept")
    bout = desk.bout_of(HALL)
    before = store.events(bout)
    with monkeypatch.context() as m:
        m.setattr(Links, "set_member", crash)
        with pytest.raises(Crash):
            desk.join(HALL, TARL, "65")
    assert store.events(bout) == before
    assert desk.links.member(bout, TARL.id) is None
    assert desk.join(HALL, TARL, "65").lines == ["Tarl joins the spar (CS 65)."]


def test_fifty_concurrent_commands_in_one_channel_fork_nothing(db_url: str) -> None:
    """50 `~roll 1d6` arrive at once: one table ledger, 50 rolls in one unbroken chain."""
    store = Store.open(db_url)

    async def run() -> list[str]:
        h = Harness(store)
        await h.start(["Tarl"])
        try:
            chan = h.channels[0]
            for _ in range(50):  # all dispatched before any is answered
                payload = h.message_payload("Tarl", "~roll 1d6", chan)
                h.bot._connection.parse_message_create(payload)  # type: ignore[arg-type]
            from discord.ext.test import runner

            await runner.run_all_events()
            answers = []
            while not runner.sent_queue.empty():
                answers.append(runner.sent_queue.get_nowait().content)
            return answers
        finally:
            await h.stop()

    answers = asyncio.run(run())
    assert len(answers) == 50 and all(a.startswith("Tarl_0_nick rolls 1d6 = ") for a in answers)
    ledgers = [b for b in store.list_bouts() if b.name.startswith("table ledger")]
    assert len(ledgers) == 1  # no second ledger opened by a command racing the first
    events = store.events(ledgers[0].id)
    assert verify_chain(events) == []
    assert [e["seq"] for e in events] == list(range(len(events)))
    rolls = [e for e in events if e["type"] == "roll"]
    assert sorted(int(e["payload"]["nonce"]) for e in rolls) == list(range(50))


#: What would open a transaction or reach past the store's public interface: the store's own
#: helpers, and a connection's or an engine's transaction methods.
HELPERS = {"write_transaction", "unit_of_work", "_engine", "ambient"}
ON_CONNECTIONS = {"begin", "begin_nested", "connect", "commit", "execution_options"}


def test_no_discord_module_opens_a_transaction_or_imports_store_internals() -> None:
    root = Path(referee.discord.__file__).parent
    found = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "referee.store."
            ):
                found.append(f"{path.name}:{node.lineno} from {node.module}")
            if isinstance(node, ast.Import):
                found += [f"{path.name}:{node.lineno} import {a.name}" for a in node.names
                          if a.name.startswith("referee.store.")]  # fmt: skip
            if isinstance(node, ast.Attribute):
                owner = ast.unparse(node.value).lower()
                on_db = node.attr in ON_CONNECTIONS and ("engine" in owner or "conn" in owner)
                if node.attr in HELPERS or on_db:
                    found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
            if isinstance(node, ast.Name) and node.id in HELPERS:
                found.append(f"{path.name}:{node.lineno} {node.id}")
    assert found == []
