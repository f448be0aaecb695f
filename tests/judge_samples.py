"""The sample logs of every chat format the judge reads, written from one spar script.

`python -m tests.judge_samples` (re)writes `tests/data/judge/formats/`: for each format a
clean log (`NAME.log`) and one with every anomaly kind (`NAME-anomalies.log`), and
`expected.json`: each log's format, verdict and anomalies (line, kind). The lines of the
anomalies come from where this writer put each line, not from the judge.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

FORMATS_DIR = Path(__file__).resolve().parent / "data" / "judge" / "formats"

#: The spar, by the MSV-1..MSV-7 rulings: A (CS 65) vs B (CS 70); A wins 16 to 8, 10 attacks.
FACES = [("A", 42), ("B", 20), ("A", 51), ("B", 84), ("A", 46), ("B", 70), ("B", 33)]
FACES += [("A", 64), ("B", 99), ("A", 15), ("B", 5), ("A", 31)]


@dataclass(frozen=True)
class Post:
    """One thing said: who, what, how (`say`, `emote`, `roll`), and the anomaly it is."""

    author: str
    text: str
    how: str = "say"
    anomaly: str | None = None


@dataclass(frozen=True)
class Style:
    """How a format names its fighters and its bot, and how the bot says a roll."""

    a: str
    b: str
    bot: str
    roll: Callable[[str, int], str]
    wrong: Callable[[str], str]
    emotes: bool = True


def onlinehost(name: str, face: int) -> str:
    return f"{name} rolled 1 100-sided die: {face}"


def maiden(name: str, face: int) -> str:
    return f"@{name} Request: `[1d100]` Roll: `[{face}]` Result: `{face}`"


def avrae(name: str, face: int) -> str:
    return f"@{name}  🎲\n**Result**: 1d100 ({face})\n**Total**: {face}"


def meter(name: str, face: int) -> str:
    return f"{name} rolled {face}"


STYLES = {
    "aol": Style(
        "Tarl Cabot",
        "Pa-Kur",
        "OnlineHost",
        onlinehost,
        lambda n: f"{n} rolled 2 20-sided dice: 14 17",
        emotes=False,
    ),
    "aim": Style(
        "TarlCabot",
        "PaKur",
        "OnlineHost",
        onlinehost,
        lambda n: f"{n} rolled 2 20-sided dice: 14 17",
        emotes=False,
    ),
    "pidgin": Style(
        "Tarl", "PaKur", "OnlineHost", onlinehost, lambda n: f"{n} rolled 2 20-sided dice: 14 17"
    ),
    "pidgin-html": Style(
        "Tarl", "PaKur", "OnlineHost", onlinehost, lambda n: f"{n} rolled 2 20-sided dice: 14 17"
    ),
    "weechat": Style(
        "Tarl", "PaKur", "OnlineHost", onlinehost, lambda n: f"{n} rolled 2 20-sided dice: 14 17"
    ),
    "hexchat": Style(
        "Tarl", "PaKur", "OnlineHost", onlinehost, lambda n: f"{n} rolled 2 20-sided dice: 14 17"
    ),
    "irssi": Style(
        "Tarl", "PaKur", "OnlineHost", onlinehost, lambda n: f"{n} rolled 2 20-sided dice: 14 17"
    ),
    "mirc": Style(
        "Tarl", "PaKur", "OnlineHost", onlinehost, lambda n: f"{n} rolled 2 20-sided dice: 14 17"
    ),
    "second-life": Style(
        "Tarl Cabot",
        "Pa-Kur",
        "Gorean Meter",
        meter,
        lambda n: f"{n} rolled 2 20-sided dice: 14 17",
    ),
    "discord-txt": Style(
        "Tarl",
        "Pa-Kur",
        "Avrae#6944",
        avrae,
        lambda n: f"@{n}  🎲\n**Result**: 2d20 (14, 17)\n**Total**: 31",
        emotes=False,
    ),
    "discord-csv": Style(
        "Tarl",
        "Pa-Kur",
        "Dice Maiden#5465",
        maiden,
        lambda n: f"@{n} Request: `[2d20]` Roll: `[14, 17]` Result: `31`",
        emotes=False,
    ),
    "discord-copy": Style(
        "Tarl",
        "Pa-Kur",
        "OnlineHost APP",
        onlinehost,
        lambda n: f"{n} rolled 2 20-sided dice: 14 17",
        emotes=False,
    ),
}


def script(style: Style, anomalies: bool) -> list[Post]:
    """The spar as posts; with `anomalies`, one post of each kind the format can show."""
    name = {"A": style.a, "B": style.b}
    posts = [
        Post("Marcus", f"Spar between {style.a} (CS 65) and {style.b} (CS 70)"),
        Post(style.b, "*bows* ready when you are"),
    ]
    for index, (who, face) in enumerate(FACES):
        if anomalies and index == 2:
            posts.append(Post(style.b, style.roll(style.b, 100), anomaly="forged"))
            posts.append(Post(style.bot, style.wrong(style.a), "roll", "wrong-dice"))
            posts.append(Post(style.bot, style.roll("Bosk", 12), "roll", "not-a-fighter"))
            if style.emotes:
                posts.append(Post("Bosk", style.roll(style.b, 90), "emote", "forged"))
            posts.append(Post(look_alike(style.bot), style.roll(style.b, 90), anomaly="forged"))
        posts.append(Post(style.bot, style.roll(name[who], face), "roll"))
        if anomalies and index == 4:
            posts.append(Post(style.bot, style.roll(name["A"], 77), "roll", "out-of-turn"))
        if index % 3 == 0:
            posts.append(
                Post(name[who], "*circles, blade low*", "emote" if style.emotes else "say")
            )
    posts.append(Post("Marcus", f"{style.b} is down. {style.a} wins."))
    return posts


#: Latin letters and the Cyrillic letters drawn like them.
_TWINS = {"O": "0", "o": "\u043e", "A": "\u0410", "a": "\u0430", "e": "\u0435", "i": "\u0456"}


def look_alike(name: str) -> str:
    """The name with its first letter that has a twin drawn alike swapped for the twin."""
    index = next(i for i, c in enumerate(name) if c in _TWINS)
    return name[:index] + _TWINS[name[index]] + name[index + 1 :]


def _clock(i: int) -> tuple[int, int, int]:
    seconds = 21 * 3600 + 3 * 60 + 7 * i
    return seconds // 3600, seconds // 60 % 60, seconds % 60


def _line_writer(
    shape: Callable[[int, Post], str], head: list[str], tail: list[str], below: int = 0
) -> Callable[[list[Post]], tuple[str, list[int]]]:
    """Posts line by line; `below` is 1 where the message is under its author's header."""

    def write(posts: list[Post]) -> tuple[str, list[int]]:
        lines, where = list(head), []
        for i, post in enumerate(posts):
            where.append(len(lines) + 1 + below)
            lines += shape(i, post).split("\n")
        return "\n".join([*lines, *tail]) + "\n", where

    return write


def _aol(i: int, p: Post) -> str:
    return f"{p.author}: {p.text}"


def _aim(i: int, p: Post) -> str:
    h, m, s = _clock(i)
    return f"{p.author} ({h - 12}:{m:02}:{s:02} PM): {p.text}"


def _pidgin(i: int, p: Post) -> str:
    h, m, s = _clock(i)
    if p.how == "emote":
        return f"({h}:{m:02}:{s:02}) ***{p.author} {p.text}"
    return f"({h}:{m:02}:{s:02}) {p.author}: {p.text}"


def _pidgin_html(i: int, p: Post) -> str:
    h, m, s = _clock(i)
    who = f"***{p.author}" if p.how == "emote" else f"{p.author}:"
    colour = "#062585" if p.how == "emote" else "#A82F2F"
    return (
        f'<font color="{colour}"><font size="2">({h}:{m:02}:{s:02})</font> <b>{html.escape(who)}'
        f"</b></font> {html.escape(p.text)}<br/>"
    )


def _weechat(i: int, p: Post) -> str:
    h, m, s = _clock(i)
    stamp = f"2026-11-29 {h:02}:{m:02}:{s:02}"
    if p.how == "emote":
        return f"{stamp}\t *\t{p.author} {p.text}"
    mode = "@" if p.author == "OnlineHost" else ""
    return f"{stamp}\t{mode}{p.author}\t{p.text}"


def _hexchat(i: int, p: Post) -> str:
    h, m, s = _clock(i)
    stamp = f"Nov 29 {h:02}:{m:02}:{s:02}"
    if p.how == "emote":
        return f"{stamp} *\t{p.author} {p.text}"
    return f"{stamp} <{p.author}>\t{p.text}"


def _irssi(i: int, p: Post) -> str:
    h, m, _ = _clock(i)
    if p.how == "emote":
        return f"{h:02}:{m:02}  * {p.author} {p.text}"
    mode = "@" if p.author == "OnlineHost" else " "
    return f"{h:02}:{m:02} <{mode}{p.author}> {p.text}"


def _mirc(i: int, p: Post) -> str:
    h, m, _ = _clock(i)
    if p.how == "emote":
        return f"[{h:02}:{m:02}] * {p.author} {p.text}"
    return f"[{h:02}:{m:02}] <{p.author}> {p.text}"


def _second_life(i: int, p: Post) -> str:
    h, m, _ = _clock(i)
    stamp = f"[2026/11/29 {h:02}:{m:02}]  "
    author = {"Tarl Cabot": "Tarl Cabot (tarl.cabot)", "Pa-Kur": "Pa-Kur (pakur.resident)"}.get(
        p.author, p.author
    )
    if p.how == "emote":
        return f"{stamp}{author} {p.text}"
    return f"{stamp}{author}: {p.text}"


def _discord_txt(i: int, p: Post) -> str:
    h, m, _ = _clock(i)
    author = p.author if "#" in p.author else f"{p.author}#{1000 + len(p.author)}"
    text = f"_{p.text.strip('*')}_" if p.how == "emote" else p.text
    return f"[11/29/2026 {h - 12}:{m:02} PM] {author}\n{text}\n"


def _discord_copy(i: int, p: Post) -> str:
    h, m, _ = _clock(i)
    text = f"_{p.text.strip('*')}_" if p.how == "emote" else p.text
    return f"{p.author} — 11/29/2026 {h - 12}:{m:02} PM\n{text}"


def _csv(posts: list[Post]) -> tuple[str, list[int]]:
    lines, where = ['"AuthorID","Author","Date","Content","Attachments","Reactions"'], []
    for i, p in enumerate(posts):
        h, m, _ = _clock(i)
        text = p.text.replace('"', '""')
        where.append(len(lines) + 1)
        row = f'"{400 + i}","{p.author}","11/29/2026 {h - 12}:{m:02} PM","{text}","",""'
        lines += row.split("\n")
    return "\n".join(lines) + "\n", where


_DCE_HEAD = ["=" * 62, "Guild: Gor", "Channel: Spars / tarn-cot", "=" * 62, ""]
_DCE_TAIL = ["=" * 62, "Exported 30 message(s)", "=" * 62]
_PIDGIN_HEAD = ["Conversation with #gor at 11/29/2026 09:00:00 PM on tarl@irc.example (irc)"]
_HTML_HEAD = [
    '<html><head><meta http-equiv="content-type" content="text/html; charset=UTF-8">'
    "<title>Conversation with #gor</title></head><body><h3>Conversation with #gor at "
    "11/29/2026 09:00:00 PM on tarl@irc.example (irc)</h3>"
]

WRITERS: dict[str, Callable[[list[Post]], tuple[str, list[int]]]] = {
    "aol": _line_writer(_aol, [], []),
    "aim": _line_writer(_aim, ["Session Start (TarlCabot:Gor): Sat Nov 29 21:00:00 2026"], []),
    "pidgin": _line_writer(_pidgin, _PIDGIN_HEAD, []),
    "pidgin-html": _line_writer(_pidgin_html, _HTML_HEAD, ["</body></html>"]),
    "weechat": _line_writer(
        _weechat, ["2026-11-29 21:00:00\t-->\tTarl (~t@gor) has joined #gor"], []
    ),
    "hexchat": _line_writer(_hexchat, ["**** BEGIN LOGGING AT Sat Nov 29 21:00:00 2026", ""], []),
    "irssi": _line_writer(
        _irssi,
        ["--- Log opened Sat Nov 29 21:00:00 2026"],
        ["--- Log closed Sat Nov 29 22:00:00 2026"],
    ),
    "mirc": _line_writer(_mirc, ["Session Start: Sat Nov 29 21:00:00 2026"], []),
    "second-life": _line_writer(_second_life, [], []),
    "discord-txt": _line_writer(_discord_txt, _DCE_HEAD, _DCE_TAIL, below=1),
    "discord-csv": _csv,
    "discord-copy": _line_writer(_discord_copy, [], [], below=1),
}


def sample(fmt: str, anomalies: bool) -> tuple[str, list[tuple[int, str]]]:
    """The log of one format and the (line, kind) of each anomaly in it."""
    posts = script(STYLES[fmt], anomalies)
    text, where = WRITERS[fmt](posts)
    return text, [(where[i], p.anomaly) for i, p in enumerate(posts) if p.anomaly]


def expected() -> dict[str, dict[str, object]]:
    """Each sample's format and anomalies."""
    out: dict[str, dict[str, object]] = {}
    for fmt in WRITERS:
        for anomalies in (False, True):
            name = f"{fmt}-anomalies.log" if anomalies else f"{fmt}.log"
            out[name] = {"format": fmt, "anomalies": [list(a) for a in sample(fmt, anomalies)[1]]}
    return out


def main() -> None:
    FORMATS_DIR.mkdir(parents=True, exist_ok=True)
    for fmt in WRITERS:
        for anomalies in (False, True):
            name = f"{fmt}-anomalies.log" if anomalies else f"{fmt}.log"
            (FORMATS_DIR / name).write_text(sample(fmt, anomalies)[0], encoding="utf-8")
    (FORMATS_DIR / "expected.json").write_text(json.dumps(expected(), indent=1) + "\n")


if __name__ == "__main__":
    main()
