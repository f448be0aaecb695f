"""The Discord bot's roll lines carry the service's signature (through the real command tree,
dpytest): a spar's initiative and attack lines verify for the spar's bout, a member's `//roll`
and `~choose` for their table ledger, by the key kept in the bot's database; a changed line
does not; and the lines as the channel shows them are judged genuine whoever pastes them."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from referee.cli.main import cli
from referee.ledger.signatures import bout_tag, check_line
from referee.service.bouts import RefereeService
from referee.store import Store
from tests.discord_harness import Harness
from tests.test_discord_spar import play

#: A host line as the channel shows it, signed.
SIGNED = re.compile(r"^OnlineHost: .*? sig:\S+", re.M)


def shown(content: str) -> str:
    """A message as Discord shows it: the bot's markdown escapes (`\\_`) read."""
    return re.sub(r"\\(.)", r"\1", content)


def test_the_bots_roll_lines_are_signed_by_the_key_in_its_database(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'bot.db'}")
    said: dict[str, list[str]] = {}

    async def script(h: Harness) -> None:
        said["roll"] = [await h.text("Tarl", "~roll //roll -sides100 -dice1")]
        said["choose"] = [await h.text("Tarl", "~choose the tavern, the docks")]
        await h.text("Judge", "~spar:open msv Friday duel")
        await h.text("Tarl", "~spar:join 65")
        await h.text("Pa-Kur", "~spar:join 70")
        said["spar"] = [await h.text("Judge", "~spar:begin")]

    play(store, ["Judge", "Tarl", "Pa-Kur"], script)
    key = RefereeService(store).key.public  # the same key as the bot's: kept in the store
    tags = {bout_tag(b.id): b.id for b in store.list_bouts()}
    lines = [
        line for part in said.values() for text in part for line in SIGNED.findall(shown(text))
    ]
    assert len(lines) >= 4, said  # the roll, the choice, two initiative rolls
    for line in lines:
        checked = check_line(line.split(" - ")[0], key)
        assert checked.genuine, (line, checked)
        assert checked.tag in tags
        assert check_line(line.split(" - ")[0], key, tags[checked.tag]).genuine
    spar = [line for line in SIGNED.findall(shown(said["spar"][0]))]
    bout = tags[check_line(spar[0], key).tag]
    assert store.get_bout(bout).name == "Friday duel"
    # the line with a face changed is not genuine; `referee verify-roll` says which (exit 1)
    changed = re.sub(r"die: (\d+)", lambda m: f"die: {int(m[1]) % 100 + 1}", spar[0])
    assert not check_line(changed, key).genuine
    runner = CliRunner()
    good = runner.invoke(cli, ["verify-roll", "--key", key.text, "--bout", bout, *spar])
    assert good.exit_code == 0, good.output
    assert good.stdout.splitlines()[0].startswith("line 1: genuine: signed by key ")
    bad = runner.invoke(cli, ["verify-roll", "--key", key.text, spar[0], changed])
    assert bad.exit_code == 1
    assert "line 2: NOT genuine: its signature does not verify" in bad.stdout
    # a member's paste of the spar's lines, judged as a Discord copy: genuine, by the key
    copy = [
        "Judge — 11/29/2026 9:03 PM",
        "Spar between Tarl_1_nick (CS 65) and Pa-Kur_2_nick (CS 70)",
    ]
    for line in spar:
        copy += ["Bosk — 11/29/2026 9:04 PM", line.removeprefix("OnlineHost: ")]
    log = tmp_path / "copy.txt"
    log.write_text("\n".join(copy) + "\n", encoding="utf-8")
    judged = runner.invoke(cli, ["judge", str(log), "--key", key.text, "--json"])
    assert '"anomalies": []' in judged.stdout, judged.output
