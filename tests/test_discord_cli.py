"""`referee discord`: the token is read from the environment, checked, and never shown."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli.main import cli


@pytest.mark.parametrize(
    ("token", "err"),
    [
        (None, "error: DISCORD_TOKEN is not set: put the bot's token in the environment "
         "(see docs/discord.md)\n"),
        ("", "error: DISCORD_TOKEN is not set: put the bot's token in the environment "
         "(see docs/discord.md)\n"),
        ("not-a-token-secret-words", "error: DISCORD_TOKEN is not shaped like a Discord bot "
         "token (three dot-separated parts); copy it again from the Developer Portal\n"),
        ("abc.def.ghi-secret", "error: DISCORD_TOKEN is not shaped like a Discord bot "
         "token (three dot-separated parts); copy it again from the Developer Portal\n"),
    ],
)  # fmt: skip
def test_missing_or_malformed_token_is_one_line_exit_2(
    token: str | None, err: str, tmp_path: object
) -> None:
    env = {"DISCORD_TOKEN": token} if token is not None else {}
    runner = CliRunner(env=env)
    if token is None:
        runner = CliRunner(env={"DISCORD_TOKEN": None})  # type: ignore[dict-item]
    result = runner.invoke(cli, ["discord", "--db", f"sqlite:///{tmp_path}/x.db"])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", err)
    if token:
        assert token not in result.stderr


def test_bad_prefix_is_one_line() -> None:
    from referee.discord import build_bot
    from referee.errors import NotationError
    from referee.store import Store

    with pytest.raises(NotationError, match="prefix 'a b' must be 1 to 5 characters"):
        build_bot(Store.open("sqlite://"), prefix="a b")


def test_build_bot_is_a_commands_bot_with_the_spar_commands() -> None:
    from discord.ext import commands

    from referee.discord import build_bot
    from referee.store import Store

    bot = build_bot(Store.open("sqlite://"))
    assert isinstance(bot, commands.Bot)
    names = {c.name for c in bot.commands}
    assert {"roll", "fair", "help", "char", "spar:open", "spar:join", "spar:begin",
            "spar:attack", "spar:scoreboard", "spar:close", "spar:quit"} <= names  # fmt: skip
    assert bot.intents.message_content and not bot.intents.members and not bot.intents.presences


def test_the_bot_asks_for_no_intent_beyond_the_documented_ones() -> None:
    """Servers, their messages and direct messages, and the messages' text (prefix commands):
    nothing else, so that it runs as docs/discord.md tells an admin to set it up. The test
    harness builds the bot with these same intents (`tests.discord_harness`)."""
    import discord

    from referee.discord import build_bot
    from referee.discord.bot import intents
    from referee.store import Store
    from tests.discord_harness import Harness

    wanted = {name for name, on in intents() if on}
    assert wanted == {"guilds", "guild_messages", "dm_messages", "message_content"}
    assert build_bot(Store.open("sqlite://")).intents == intents()
    assert Harness(Store.open("sqlite://")).bot.intents == intents()
    privileged = discord.Intents.none()
    privileged.members = privileged.presences = True
    assert intents().value & privileged.value == 0


def test_no_discord_module_reads_the_member_cache() -> None:
    """Without the Server Members intent the cache holds almost nobody: members come from
    messages, mentions and interactions, or from Discord itself (`fetch_member`,
    `fetch_user`)."""
    import ast

    import referee.discord

    root = Path(referee.discord.__file__).parent
    cached = {"get_member", "get_user", "get_member_named", "chunk", "fetch_members"}

    def reads_cache(node: ast.AST) -> bool:
        if not isinstance(node, ast.Attribute):
            return False
        owner = ast.unparse(node.value)
        return node.attr in cached or (node.attr == "members" and owner.endswith("guild"))

    found = [
        f"{path.name}:{node.lineno} {ast.unparse(node)}"
        for path in sorted(root.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if reads_cache(node)
    ]
    assert found == []


def test_bad_public_url_and_prefix_stop_before_connecting(tmp_path: object) -> None:
    shaped = "A" * 24 + "." + "B" * 6 + "." + "C" * 27  # the shape of a token, not a real one
    runner = CliRunner(env={"DISCORD_TOKEN": shaped})
    db = f"sqlite:///{tmp_path}/x.db"
    result = runner.invoke(cli, ["discord", "--db", db, "--public-url", "referee.example.org"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: --public-url 'referee.example.org' is not an http(s) address like "
        "https://referee.example.org\n"
    )
    result = runner.invoke(cli, ["discord", "--db", db, "--prefix", "a b"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "error: prefix 'a b' must be 1 to 5 characters without spaces\n"
    assert shaped not in result.stderr
    assert not (Path(str(tmp_path)) / "x.db").exists()  # nothing was created


def test_help_names_every_command_and_answers_each() -> None:
    """`~help` is made from the command table: every command the bot answers is listed, and
    `~help NAME` (or an alias) answers with that command's own line."""
    from referee.discord import build_bot
    from referee.discord.help import COMMANDS, HELP, TOPICS, command_help
    from referee.store import Store

    bot = build_bot(Store.open("sqlite://"))
    names = {c.name for c in bot.commands}
    assert names == set(COMMANDS) - set(TOPICS)
    listed = set(HELP.replace("|", " ").replace("\n", " ").split())
    assert {f"~{n}" for n in names} <= listed
    for command in bot.commands:
        for said in (command.name, *command.aliases):
            assert command_help(said, bot.aliases()).startswith(f"~{command.name}"), said


TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.secret-part-never-shown-0123456789"


def _refused_port() -> int:
    """A port of 127.0.0.1 that nothing listens on: one just bound, then let go."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _RefusingProxy:
    """A real HTTP proxy on 127.0.0.1 that turns every request down (`502 Bad Gateway`,
    CONNECT included), counting them."""

    def __init__(self) -> None:
        import http.server
        import threading

        seen: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def _refuse(self) -> None:
                seen.append(f"{self.command} {self.path}")
                self.send_response(502)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_CONNECT = do_GET = do_POST = _refuse

            def log_message(self, *args: object) -> None:
                pass

        self.seen = seen
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> _RefusingProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_discord_out_of_reach_is_one_line_exit_5_without_the_token(tmp_path: Path) -> None:
    """No network (here: Discord reached through a proxy that is not there) is one error
    line and its own exit status, never a traceback or the 1 of a dispute."""
    proxy = f"http://user:hunter2@127.0.0.1:{_refused_port()}"
    result = CliRunner(env={"DISCORD_TOKEN": TOKEN}).invoke(
        cli, ["discord", "--db", str(tmp_path / "x.db"), "--proxy", proxy]
    )
    assert result.exit_code == 5, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: cannot reach Discord through the proxy: "
    )
    assert lines[0].endswith("; check the network and try again")
    assert "Traceback" not in result.output
    for secret in (TOKEN, "GabcDE", "hunter2"):
        assert secret not in result.output


def test_a_proxy_that_turns_discord_down_is_one_line_exit_5(tmp_path: Path) -> None:
    with _RefusingProxy() as proxy:
        with_password = proxy.url.replace("http://", "http://user:hunter2@")
        result = CliRunner(env={"DISCORD_TOKEN": TOKEN}).invoke(
            cli, ["discord", "--db", str(tmp_path / "x.db"), "--proxy", with_password]
        )
    assert proxy.seen == ["CONNECT discord.com:443"]  # the login, the first thing the bot asks
    assert result.exit_code == 5, result.output
    assert result.stderr == (
        "error: cannot reach Discord through the proxy: 502 Bad Gateway; check the network "
        "and try again\n"
    )
    assert TOKEN not in result.output and "hunter2" not in result.output


@pytest.mark.parametrize("proxy", ["proxy.example:3128", "socks5://127.0.0.1:1080", "http://"])
def test_a_proxy_that_is_no_http_address_is_refused_before_starting(
    proxy: str, tmp_path: Path
) -> None:
    result = CliRunner(env={"DISCORD_TOKEN": TOKEN}).invoke(
        cli, ["discord", "--db", str(tmp_path / "x.db"), "--proxy", proxy]
    )
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: --proxy is not an http(s) address like http://proxy.example:3128\n"
    )


def test_the_proxy_may_come_from_the_environment(tmp_path: Path) -> None:
    """REFEREE_DISCORD_PROXY stands for --proxy (a password on a command line shows in the
    process list): a malformed one is the option's exit-2 error, a good one is the proxy used."""
    db = ["discord", "--db", str(tmp_path / "x.db")]
    result = CliRunner(
        env={"DISCORD_TOKEN": TOKEN, "REFEREE_DISCORD_PROXY": "proxy.example:3128"}
    ).invoke(cli, db)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: --proxy is not an http(s) address like http://proxy.example:3128\n"
    )
    with _RefusingProxy() as proxy:
        result = CliRunner(env={"DISCORD_TOKEN": TOKEN, "REFEREE_DISCORD_PROXY": proxy.url}).invoke(
            cli, db
        )
    assert proxy.seen == ["CONNECT discord.com:443"]
    assert result.exit_code == 5, result.output
    assert result.stderr.startswith("error: cannot reach Discord through the proxy: 502")


def test_the_proxy_is_handed_to_discord_py() -> None:
    from referee.discord import build_bot
    from referee.store import Store

    bot = build_bot(Store.open("sqlite://"), proxy="http://127.0.0.1:3128")
    assert bot.http.proxy == "http://127.0.0.1:3128"
    assert build_bot(Store.open("sqlite://")).http.proxy is None
