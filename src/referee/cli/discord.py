"""`referee discord`: the referee as a Discord bot, on the same database as `referee serve`."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from urllib.parse import urlsplit

import click

from referee.errors import RefereeError

#: A bot token: three dot-separated base64url parts (the shape, not a check with Discord).
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}")


class TokenError(RefereeError):
    """DISCORD_TOKEN (or another start-up setting of the bot) that cannot work."""

    code = "bad_token"


class DiscordUnreachable(RefereeError):
    """Discord (or the proxy in front of it) cannot be reached or answers with an error at
    start-up: no network, a name that does not resolve, a refused connection, a 5xx (exit
    status 5, not the 2 of a setting that cannot work)."""

    code = "discord_unreachable"
    exit_code = 5
    http_status = 502


def read_token(environ: Mapping[str, str]) -> str:
    """The bot token from the environment; one clear error that never repeats it.

    >>> try:
    ...     read_token({"DISCORD_TOKEN": "x"})
    ... except TokenError as err:
    ...     str(err).startswith("DISCORD_TOKEN is not shaped like a Discord bot token")
    True
    """
    token = environ.get("DISCORD_TOKEN", "").strip()
    if not token:
        raise TokenError(
            "DISCORD_TOKEN is not set: put the bot's token in the environment (see docs/discord.md)"
        )
    if not TOKEN_SHAPE.fullmatch(token):
        raise TokenError(
            "DISCORD_TOKEN is not shaped like a Discord bot token (three dot-separated parts); "
            "copy it again from the Developer Portal"
        )
    return token


@click.command("discord")
@click.option(
    "--db",
    "db_url",
    default=None,
    help="Database: a SQLite file path, sqlite:///PATH or postgresql://... "
    "[default: the same as referee serve]",
)
@click.option("--prefix", default="~", show_default=True, help="Command prefix of the bot.")
@click.option("--public-url", help="The address of `referee serve`, to link scoreboards.")
@click.option(
    "--proxy",
    default=None,
    envvar="REFEREE_DISCORD_PROXY",
    help="An HTTP proxy to reach Discord through, like http://proxy.example:3128; or "
    "REFEREE_DISCORD_PROXY (a password on the command line shows in the process list) "
    "[default: none]",
)
@click.option(
    "--pluralkit-api",
    default=None,
    help="PluralKit's API, asked who sent a proxied message [default: PluralKit's own]",
)
def discord_command(
    db_url: str | None,
    prefix: str,
    public_url: str | None,
    proxy: str | None,
    pluralkit_api: str | None,
) -> None:
    """Run the referee as a Discord bot (token in DISCORD_TOKEN).

    \b
    Examples:
      DISCORD_TOKEN=... referee discord
      DISCORD_TOKEN=... referee discord --db postgresql:///referee --public-url https://ref.example
    """
    token = read_token(os.environ)
    if public_url is not None and not re.fullmatch(r"https?://[^\s/]+(/\S*)?", public_url):
        raise TokenError(
            f"--public-url {public_url!r} is not an http(s) address like https://referee.example.org"
        )
    if proxy is not None and not re.fullmatch(r"https?://[^\s/]+(/\S*)?", proxy):
        # not said back: a proxy's address may carry a user name and password
        raise TokenError("--proxy is not an http(s) address like http://proxy.example:3128")
    if pluralkit_api is not None and not re.fullmatch(r"https?://[^\s/]+(/\S*)?", pluralkit_api):
        raise TokenError(
            f"--pluralkit-api {pluralkit_api!r} is not an http(s) address like "
            "https://api.pluralkit.me/v2"
        )
    try:
        from referee.discord import build_bot
        from referee.discord.bot import check_prefix
        from referee.store import Store
    except ImportError as err:  # pragma: no cover - the discord extra is missing
        raise RefereeError(
            f"the bot needs its extra: pip install 'referee[discord]' ({err.name} is missing)"
        ) from None
    check_prefix(prefix)
    store = Store.open(db_url)
    bot = build_bot(store, prefix=prefix, public_url=public_url, proxy=proxy)
    if pluralkit_api is not None:
        from referee.discord.proxy_owners import PluralKit

        bot.proxies.pluralkit = PluralKit(pluralkit_api)
    click.echo(f"referee database: {store.url}")
    click.echo(f"referee bot starting with prefix {prefix!r} (Ctrl+C stops it)")
    import aiohttp
    import discord

    try:
        bot.run(token, log_handler=None)
    except discord.LoginFailure:
        raise TokenError(
            "Discord refused DISCORD_TOKEN: reset the bot's token in the Developer Portal"
        ) from None
    except discord.PrivilegedIntentsRequired:
        raise TokenError(
            "Discord refused the Message Content intent: turn it on for the bot in the "
            "Developer Portal (see docs/discord.md)"
        ) from None
    except (
        OSError,
        aiohttp.ClientError,
        discord.GatewayNotFound,
        discord.DiscordServerError,
    ) as err:
        # the proxy's URL is not said: it may carry a user name and password. A proxy's
        # answer is said by its status (aiohttp's text of it holds the whole URL); any other
        # error's text has the user and password taken out (it names the proxy's host)
        through = " through the proxy" if proxy else ""
        if isinstance(err, aiohttp.ClientResponseError):
            reason = f"{err.status} {err.message}"
        else:
            reason = " ".join(str(err).split()) or type(err).__name__
        userinfo = urlsplit(proxy).netloc.rpartition("@")[0] if proxy else ""
        if userinfo:
            reason = reason.replace(f"{userinfo}@", "")
        raise DiscordUnreachable(
            f"cannot reach Discord{through}: {reason}; check the network and try again"
        ) from None
