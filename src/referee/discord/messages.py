"""What the bot's messages and interactions are made of: who asks and where, mentions, answers
cut to Discord's size, buttons and menus, and sending a reply (message commands and slash
commands alike: `referee.discord.bot`, `referee.discord.slash`).
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import discord

from referee.discord.desk import Desk
from referee.discord.presses import BUTTON_PREFIX
from referee.discord.replies import Person, Place, Reply
from referee.errors import ConflictError, NotFoundError

log = logging.getLogger("referee.discord")

T = TypeVar("T")
MENTION = re.compile(r"<@!?([0-9]+)>")
#: Discord's limit on one message.
MAX_MESSAGE = 2000
#: Discord's limit on the files of one message.
MAX_FILES = 10


def person(user: discord.abc.User) -> Person:
    """Who asks; Manage Server counts as the proctor's powers."""
    admin = isinstance(user, discord.Member) and user.guild_permissions.manage_guild
    return Person(user.id, user.display_name, bool(admin))


def asker(interaction: discord.Interaction) -> Person:
    """Who gave a slash command or pressed a button; Manage Server (or Administrator) read from
    the permissions Discord sends with the interaction (in that channel, overwrites included),
    so no member cache and no privileged intent is needed."""
    granted = interaction.permissions
    admin = interaction.guild is not None and (granted.manage_guild or granted.administrator)
    return Person(interaction.user.id, interaction.user.display_name, admin)


def place(channel: Any, guild: discord.Guild | None) -> Place:
    """Where a command was given."""
    return Place(channel.id, guild.id if guild else None, str(getattr(channel, "name", "dm")))


def mentioned(text: str) -> list[int]:
    """User ids mentioned in `text`, in the order written.

    >>> mentioned("<@12> hits <@!34>")
    [12, 34]
    """
    return [int(m) for m in MENTION.findall(text)]


def without_mentions(text: str) -> str:
    """`text` with every mention taken out.

    >>> without_mentions("<@12> 65 red")
    '65 red'
    """
    return " ".join(MENTION.sub(" ", text).split())


#: Left whole: web addresses, and the bot's own code blocks (`~odds` sets its table in one).
_KEEP = re.compile(r"https?://\S+|^```\n.*?\n```$", re.M | re.S)
#: What Discord would format: every `*`, backtick and backslash; runs of two or more `~` or
#: `|`; an `_` not inside a word (`Tarl_1_nick` stays as it is, `_Tarl_` is italics); `#`, `>`
#: and `-#` opening a line (headings, quotes, small text).
_MARKDOWN = re.compile(r"[*`\\]|~{2,}|\|{2,}|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|^(?:#|>|-#)", re.M)


#: "the bout", "this bout", "a running bout", ... as the shared sentences and refusals say it
#: (not `close bout`, a command's word, nor `#bout=` in a link).
_BOUT = re.compile(
    r"\b((?:the|this|an?|no|any|The|This|An?|No|Any)"
    r"(?: (?:running|paused|open|ended|cancelled))?) bout(s?)\b(?![=_])"
)
#: A sentence that starts with the bout (`Bout ended: ...`, `Bout closed: ...`).
_BOUT_FIRST = re.compile(r"(?m)^(error: )?Bout (?=ended|cancelled|closed|opened)")


def in_spar_words(text: str) -> str:
    """`text` in the bot's word for a bout, "spar" (OnlineHost's: `~spar:open`), where the
    sentences and refusals the bot shares with the chat endpoint and the console say "bout";
    the chat grammar's command words (`close bout`, `end bout`) stay as they are typed.

    >>> in_spar_words("Tarl leaves the bout\\nBout ended: no winner (say `close bout`)")
    'Tarl leaves the spar\\nSpar ended: no winner (say `close bout`)'
    """
    text = _BOUT_FIRST.sub(lambda m: f"{m.group(1) or ''}Spar ", text)
    return _BOUT.sub(lambda m: f"{m.group(1)} spar{m.group(2)}", text)


def shown(text: str) -> str:
    """Any text the bot sends: in its words (`in_spar_words`), its markdown escaped."""
    return escape_markdown(in_spar_words(text))


def refusal(reason: str) -> str:
    """A refusal as the bot says it: `error: REASON`, shown (`shown`), cut to one message
    Discord accepts, since a reason may quote a long argument (escaping makes it longer yet)
    and Discord refuses a longer message, so the member would read nothing.

    >>> refusal("no table called '" + "x" * 3000 + "'")[-3:], len(refusal("x" * 3000))
    ('xx…', 2000)
    """
    text = shown(f"error: {reason}")
    if len(text) <= MAX_MESSAGE:
        return text
    # an escape cut in half would escape the ellipsis: the cut leaves out a lone `\`
    return cut_between_escapes(text, MAX_MESSAGE - 1) + "…"


def cut_between_escapes(text: str, size: int) -> str:
    """The first `size` characters of `text` (escaped markdown), one fewer when the last of them
    is an escape's `\\` whose letter is past the cut (a run of an odd number of `\\`).

    >>> cut_between_escapes("ab\\\\*c", 3), cut_between_escapes("ab\\\\*c", 4)
    ('ab', 'ab\\\\*')
    """
    piece = text[:size]
    lone = (len(piece) - len(piece.rstrip("\\"))) % 2
    return piece[:-1] if lone else piece


def escape_markdown(text: str) -> str:
    """`text` as Discord should show it, letter for letter: whatever Discord would format
    (names like `**Kamchak**`, a product `2d6*2`) escaped; web addresses and whole lines of
    code fences (the bot's tables) left whole.

    >>> escape_markdown("**Kamchak** hits _Tarl_1_nick_ (2d6*2) ~spar:join a|b")
    '\\\\*\\\\*Kamchak\\\\*\\\\* hits \\\\_Tarl_1_nick\\\\_ (2d6\\\\*2) ~spar:join a|b'
    >>> escape_markdown("# Big ~~x~~ https://a.org/x_y#bout=a*b")
    '\\\\# Big \\\\~\\\\~x\\\\~\\\\~ https://a.org/x_y#bout=a*b'
    """
    out, last = [], 0
    for url in _KEEP.finditer(text):
        out += [_escape(text[last : url.start()]), url.group()]
        last = url.end()
    return "".join([*out, _escape(text[last:])])


def _escape(text: str) -> str:
    return _MARKDOWN.sub(lambda m: "".join("\\" + ch for ch in m.group()), text)


def chunks(text: str, size: int = MAX_MESSAGE) -> list[str]:
    """A long answer cut at line ends into messages Discord accepts; a line longer than one
    message is cut where it must, never inside an escape (its `\\` and the letter it escapes).

    >>> [len(c) for c in chunks("a" * 10 + "\\n" + "b" * 10, 12)]
    [10, 10]
    >>> chunks("a" * 11 + "\\\\*b", 12)
    ['aaaaaaaaaaa', '\\\\*b']
    """
    out: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > size:
            piece = cut_between_escapes(line, size)
            out.append(piece)
            line = line[len(piece) :]
        if current and len(current) + 1 + len(line) > size:
            out.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        out.append(current)
    return out


def view_for(reply: Reply) -> discord.ui.View | None:
    """Buttons under the answer (Attack per foe; SRP: Shoot, what undoes the actor's own
    conditions, Pass) and the select menus (SRP: special actions per foe)."""
    if not reply.buttons:
        return None
    view = discord.ui.View(timeout=None)
    menus: dict[str, list[discord.SelectOption]] = {}
    # the turn the buttons are for (`referee.discord.presses`): a press after it is refused
    prefix = BUTTON_PREFIX if reply.mark is None else f"{BUTTON_PREFIX}@{reply.mark}:"
    for button in reply.buttons:
        value = f"{button.action}:{button.target}"[:100]
        if button.menu is not None:
            menus.setdefault(button.menu, []).append(
                discord.SelectOption(label=button.label[:100], value=value)
            )
        elif len(view.children) < 20:
            custom = f"{prefix}{value}"[:100]
            view.add_item(discord.ui.Button(label=button.label[:80], custom_id=custom))
    for placeholder, choices in menus.items():
        view.add_item(
            discord.ui.Select(
                custom_id=f"{prefix}menu:{placeholder}"[:100],
                placeholder=placeholder[:150],
                options=choices[:25],
            )
        )
    return view


#: Said in the channel when a direct message cannot be delivered (Discord's code 50007: the
#: member accepts no direct messages from the server's members, or blocked the bot).
UNDELIVERED = (
    "<@{user}>, I could not send you a direct message (are direct messages from this "
    "server's members closed in your privacy settings?)."
)


async def send(target: discord.abc.Messageable, reply: Reply, client: discord.Client) -> None:
    """Send a reply: text in pieces Discord accepts, the file, buttons, direct messages; a
    direct message that cannot be delivered is said in the channel."""
    parts = chunks(shown(reply.text)) or ["done"]
    pings = discord.AllowedMentions(
        everyone=False, roles=False, users=[discord.Object(u) for u in reply.pings]
    )
    for number, part in enumerate(parts):
        view = view_for(reply) if number == len(parts) - 1 else None
        if view is not None:
            await target.send(part, view=view, allowed_mentions=pings)
        else:
            await target.send(part, allowed_mentions=pings)
    attached = files_of(reply)
    for start in range(0, len(attached), MAX_FILES):
        await target.send(files=attached[start : start + MAX_FILES])
    for user in await send_direct(reply, client):
        await target.send(UNDELIVERED.format(user=user))


def files_of(reply: Reply) -> list[discord.File]:
    """The reply's files as Discord sends them."""
    return [discord.File(io.BytesIO(data), filename=name) for name, data in reply.attachments]


async def send_direct(reply: Reply, client: discord.Client) -> list[int]:
    """The reply's direct messages (fresh links, what only the proctor may see); the ids of
    those it could not reach.

    The user comes from Discord (`fetch_user`), never from the bot's cache: without the
    Server Members intent the cache holds almost nobody."""
    failed: list[int] = []
    for user_id, text in reply.direct:
        if not await direct_message(client, user_id, text):
            failed.append(user_id)
    return failed


async def direct_message(client: discord.Client, user_id: int, text: str) -> bool:
    """Send `text` to `user_id` by direct message; False when Discord refuses it."""
    try:
        user = await client.fetch_user(user_id)
        for part in chunks(shown(text)):
            await user.send(part)
    except discord.HTTPException as err:  # DMs closed, or no such user
        log.warning("direct message not sent (%s)", type(err).__name__)
        return False
    return True


async def member_name(
    user_id: int, mentions: Sequence[discord.abc.User], guild: discord.Guild | None
) -> str:
    """The name a mentioned member shows: from the message's mentions (Discord sends each
    mention's member with the message), else asked of Discord (`fetch_member`)."""
    for user in mentions:
        if user.id == user_id:
            return user.display_name
    try:
        if guild is not None:
            return (await guild.fetch_member(user_id)).display_name
    except discord.HTTPException:
        pass
    raise NotFoundError("that member is not on this server")


async def off_loop(desk: Desk, work: Callable[[], T]) -> T:
    """Run one command's desk work on a worker thread, in one unit of work: one transaction
    for all it stores (bout events and the bot's rows), and the event loop never waits on
    the database."""

    def run() -> T:
        with desk.service.unit():
            return work()

    return await asyncio.to_thread(run)


async def fresh_link(client: discord.Client, desk: Desk, where: Place, who: Person) -> Reply:
    """`~spar:link`: first a direct message saying the link follows, and only once Discord
    has delivered it the new token (which revokes the old one), so a member whose direct
    messages are closed keeps the link they have."""
    page, spar = await off_loop(desk, lambda: desk.link_page(where, who))
    notice = f"Your fresh {page} link for {spar} follows; the old one stops working now."
    if not await direct_message(client, who.id, notice):
        raise ConflictError(
            "I could not send you a direct message (are direct messages from this server's "
            "members closed in your privacy settings?); nothing changed, your old link still works"
        )
    reply = await off_loop(desk, lambda: desk.link(where, who))
    sent = await send_direct(reply, client)
    if sent:  # delivered a moment ago, refused now: rare, and said
        return Reply(["The fresh link could not be sent by direct message and the old one "
                      "stops working: say ~spar:link again."])  # fmt: skip
    return Reply(reply.lines)
