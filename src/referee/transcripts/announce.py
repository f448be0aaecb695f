"""A spar's announcement in chat: the fighters, their skills and sides, in the words people use.

A line announces a spar when it names two fighters or more, each with a skill in brackets:
`(CS 65)`, `(CS65)`, `(cs: 65)`, `[CS 65]` or old dice `(2d23)` (MSV-8). Fighters are
separated by `,`, `&`, `and`, `+`, or `vs`, `vs.`, `versus`, `v`, `against`; when some `vs`
is there, it separates the sides (`A (CS 65) & B (CS 60) vs C (CS 70)` is a team spar, and a
side may be named: `Team Ar: A (CS 65) & B (CS 60) vs Team Cos: C (CS 70)`); otherwise each
fighter is its own side. Words before the first fighter (`Practice spar between`, `Title
fight:`) are not part of a name.

>>> announced("Judge: Spar between Tarl Cabot (CS 65) & PaKur (CS70)")
(Fighter(name='Tarl Cabot', cs=65, side=None), Fighter(name='PaKur', cs=70, side=None))
>>> [(f.name, f.cs, f.team) for f in announced("A (2d23) and B (CS 60) vs C (cs: 70)")]
[('A', 65, 'A & B'), ('B', 60, 'A & B'), ('C', 70, 'C')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import NamedTuple

from referee.errors import RefereeError
from referee.systems.msv.notation import read_skill
from referee.transcripts.fighters import MAX_FIGHTERS, Fighter, name_key
from referee.transcripts.targets import called

#: A skill in brackets after a fighter's name.
SKILL_RE = re.compile(
    r"[(\[]\s*(?:CS\s*[:=]?\s*(?P<cs>\d{1,3})|(?P<dice>2d\d{1,3}))\s*[)\]]", re.I | re.ASCII
)
_SEPARATOR = re.compile(
    r"^\s*(?P<sep>,|&|\+|/|\band\b|-?vs\.?-?|\bversus\b|\bv\.?(?=\s)|\bagainst\b)\s*", re.I
)
_SIDE_CHANGE = re.compile(r"vs|versus|^v|against", re.I)
_INTRO = re.compile(
    r".*(?:\bbetween\b|\bspar\b|\bmatch\b|\bbout\b|\bduel\b|\bfight\b|\bchallenge\b|[:—–]|\s-\s)",
    re.I | re.S,
)
_FIRST_TEAM = re.compile(r"\b(?:team|side)\s+[^:]{1,40}:[^:]*$", re.I)
_TEAM = re.compile(r"^\s*(?:team|side)\s+(?P<side>[^:]{1,40}?)\s*:\s*(?P<rest>.*)$", re.I | re.S)
_WORDS = re.compile(r"\bspar|\bvs\b|\bversus\b|\bmatch\b|\bduel\b|\bCS\b", re.I)


class Announcement(NamedTuple):
    """The fighters a line announces, and its number."""

    line: int
    fighters: tuple[Fighter, ...]


def announced(text: str) -> tuple[Fighter, ...] | None:
    """The fighters a line announces (see the module text), or None.

    >>> announced("Tarl: nice spar") is None
    True
    """
    marks = list(SKILL_RE.finditer(text))
    if len(marks) < 2 or len(marks) > MAX_FIGHTERS:
        return None
    parts: list[tuple[str, str, str]] = []  # (separator, name, skill)
    start = 0
    for index, mark in enumerate(marks):
        segment = text[start : mark.start()]
        start = mark.end()
        sep, name = _split(segment, first=index == 0)
        if sep is None:
            return None
        parts.append((sep, name, mark["cs"] or mark["dice"]))
    try:
        return _sides(parts)
    except RefereeError:
        return None


def _split(segment: str, first: bool) -> tuple[str | None, str]:
    """The separator a segment starts with ('' for the first) and the name after it."""
    if first:
        team = _FIRST_TEAM.search(segment)
        if team is not None:
            return "", segment[team.start() :]
        intro = _INTRO.match(segment)
        return "", segment[intro.end() :] if intro else segment
    sep = _SEPARATOR.match(segment)
    if sep is None:
        return None, ""
    return sep["sep"], segment[sep.end() :]


def _sides(parts: list[tuple[str, str, str]]) -> tuple[Fighter, ...] | None:
    teams = any(_SIDE_CHANGE.search(sep) for sep, _, _ in parts[1:])
    groups: list[list[Fighter]] = []
    labels: list[str | None] = []
    for sep, shown, value in parts:
        label = None
        team = _TEAM.match(shown)
        if team is not None:
            label, shown = team["side"].strip(), team["rest"]
        name = shown.strip(" \t*\"'`,;.-")
        if not name or len(name) > 64 or len(name.split()) > 8 or "\n" in name:
            return None
        if not groups or not teams or _SIDE_CHANGE.search(sep):
            groups.append([])
            labels.append(label)
        groups[-1].append(Fighter(name, read_skill(value, f"{name}={value}")))
    if not teams:
        return tuple(f for group in groups for f in group)
    out: list[Fighter] = []
    for group, label in zip(groups, labels, strict=True):
        if label is None and len(group) == 1:
            out += group  # a side of one is its own
            continue
        side = label or " & ".join(f.name for f in group)
        out += [replace(f, side=side) for f in group]
    return tuple(out)


_SIDES_APART = re.compile(r"\s+(?:vs\.?|versus|against|v\.)\s+", re.I)
_SIDE_TOGETHER = re.compile(r"\s*(?:,|&|\+|\band\b)\s*", re.I)
_INTRO_END = re.compile(r".*[:—–]")


def sides_said(text: str, fighters: Sequence[Fighter]) -> tuple[Fighter, ...] | None:
    """The fighters on the sides a sentence gives them (`Tarl and Kamchak against Pa-Kur`),
    each named once by a name it is called by (`referee.transcripts.targets.called`), or None
    when the sentence is not one such.

    >>> fighters = announced("Tarl Cabot (CS 65), Kamchak (CS 60), Pa-Kur (CS 70)")
    >>> [f.team for f in sides_said("Teams: Tarl and Kamchak against Pa-Kur.", fighters)]
    ['Tarl Cabot & Kamchak', 'Tarl Cabot & Kamchak', 'Pa-Kur']
    """
    parts = _SIDES_APART.split(_INTRO_END.sub("", text).strip().rstrip(".!"))
    if len(parts) < 2:
        return None
    who = called([f.name for f in fighters])
    groups: list[list[str]] = []
    for index, part in enumerate(parts):
        items = [item.strip(" \t*\"'`;") for item in _SIDE_TOGETHER.split(part)]
        if index == 0 and items:
            items[0] = _last_name(items[0], who)
        names = [who.get(name_key(item)) for item in items]
        if not names or None in names:
            return None
        groups.append([name for name in names if name is not None])
    named = [name for group in groups for name in group]
    if len(named) != len(fighters) or set(named) != {f.name for f in fighters}:
        return None
    side = {
        name: " & ".join(group) if len(group) > 1 else None for group in groups for name in group
    }
    return tuple(replace(f, side=side[f.name]) for f in fighters)


def _last_name(words: str, who: dict[str, str]) -> str:
    """The longest end of `words` that is a fighter's name (words before it are not)."""
    split = words.split()
    for start in range(len(split)):
        if name_key(" ".join(split[start:])) in who:
            return " ".join(split[start:])
    return words


def find_announcement(lines: Iterable[tuple[int, str]]) -> Announcement | None:
    """The first announcement in (number, text) lines.

    >>> find_announcement([(1, "hi"), (2, "Judge: Spar between A (CS 50) and B (CS 55)")])
    Announcement(line=2, fighters=(Fighter(name='A', cs=50, side=None), \
Fighter(name='B', cs=55, side=None)))
    """
    for number, text in lines:
        found = announced(text)
        if found is not None:
            return Announcement(number, found)
    return None


def nearest_line(lines: Iterable[tuple[int, str]]) -> tuple[int, str] | None:
    """The line that comes nearest to an announcement (the most of its words), for a message."""
    best: tuple[int, int, str] | None = None
    for number, text in lines:
        score = len(_WORDS.findall(text)) + 2 * len(SKILL_RE.findall(text))
        if score >= 2 and (best is None or score > best[0]):
            best = (score, number, text)
    return (best[1], best[2][:120]) if best else None
