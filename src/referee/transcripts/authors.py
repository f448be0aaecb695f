"""Who posted a line, and whether the judge trusts it to roll.

A log names a line's author its own way: a speaker prefix (`Tarl:`), an IRC nick (`<@Tarl>`),
a Discord author header (`Avrae#6944`), a Second Life object or avatar (`Gorean Meter`,
`Tarl (tarl.cabot)`: the display name, then the user name of an avatar). A roll line counts
only when its author is one of the log's hosts (the dice bots and objects of its format, and
any `--host`), compared by name as AOL compared screen names (case and spaces do not count);
a name that only looks like a host's (`ОnlineHost` with a Cyrillic `О`, `0nlineHost`,
`Online_Host`) is a look-alike, by the confusable skeleton of `referee.bout.names`.

>>> trust = Trust.of(["OnlineHost"])
>>> trust.doubt("OnlineHost") is None, trust.doubt("onlinehost") is None
(True, True)
>>> trust.doubt("\\u041enlineHost")
"'ОnlineHost' only looks like OnlineHost (other letters drawn alike)"
>>> trust.doubt("OnlineHost (bosk.trader)")
"an avatar 'OnlineHost (bosk.trader)' shows the name OnlineHost (user name 'bosk.trader')"
>>> trust.doubt("Pa-Kur")
"posted by 'Pa-Kur', not by OnlineHost"
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from referee.errors import NotationError
from referee.systems.msv.notation import name_key as name_key

#: A Second Life avatar shown with its user name, a Discord user with its tag.
_USER = re.compile(r"(?P<name>.+?)\s*(?:\((?P<user>[\w.\-]{1,40})\)|(?P<tag>#\d{4}))")
_SEPARATORS = re.compile(r"[\s_.\-·•]+")

#: The service's own voice in its transcripts: consequences and seed rotations.
SERVICE = "Referee"


def look(name: str) -> str:
    """What a name looks like with separators and look-alike letters folded.

    >>> look("0nline_Host") == look("OnlineHost")
    True
    """
    from referee.bout.names import skeleton  # loaded only for a name that is not a host's

    return _SEPARATORS.sub("", skeleton(name))


@dataclass(frozen=True, slots=True)
class Author:
    """An author as a log shows it: the name, and the user name or tag that goes with it."""

    name: str
    user: str | None = None

    @classmethod
    def parse(cls, shown: str) -> Author:
        """`Tarl (tarl.cabot)` (Second Life) or `Avrae#6944` (Discord) or a plain name.

        >>> Author.parse("OnlineHost (bosk.trader)"), Author.parse("Avrae#6944")
        (Author(name='OnlineHost', user='bosk.trader'), Author(name='Avrae', user='#6944'))
        """
        match = _USER.fullmatch(shown.strip())
        if match is None:
            return cls(shown.strip())
        return cls(match["name"], match["user"] or match["tag"])


@dataclass(frozen=True, slots=True)
class Trust:
    """The hosts whose roll lines count in one log."""

    hosts: tuple[str, ...]

    @classmethod
    def of(cls, hosts: Iterable[str]) -> Trust:
        """The given host names (each 1..80 characters), without repeats."""
        out: list[str] = []
        for host in hosts:
            text = host.strip()
            if not 1 <= len(text) <= 80 or "\n" in text:
                raise NotationError(f"bad host name {host[:80]!r} (1 to 80 characters)")
            if name_key(text) not in {name_key(h) for h in out}:
                out.append(text)
        return cls(tuple(out))

    def add(self, hosts: Iterable[str]) -> Trust:
        """These hosts and more."""
        return Trust.of([*self.hosts, *hosts])

    @property
    def named(self) -> str:
        """The hosts for a message: `OnlineHost` or `OnlineHost or Avrae`."""
        return " or ".join(self.hosts)

    def doubt(self, shown: str, why: bool = True) -> str | None:
        """None when the author `shown` is a trusted host; else why its roll does not count
        (with `why=False`, only that it does not: "", no look-alike letters compared)."""
        author = Author.parse(shown)
        for host in self.hosts:
            wanted = Author.parse(host)
            if name_key(author.name) != name_key(wanted.name):
                continue
            if wanted.user is None or name_key(wanted.user) == name_key(author.user or ""):
                if author.user is None or author.user.startswith("#") or wanted.user:
                    return None
                return (
                    f"an avatar {shown!r} shows the name {wanted.name} (user name {author.user!r})"
                )
        return self._impostor(shown, author) if why else ""

    def _impostor(self, shown: str, author: Author) -> str:
        seen = look(author.name)
        for host in self.hosts:
            wanted = look(Author.parse(host).name)
            if seen == wanted:
                return f"{shown!r} only looks like {host} (other letters drawn alike)"
            if seen.endswith(wanted) and len(seen) > len(wanted):
                return f"an emote (/me) or a name {shown!r} made to read as {host}"
        return f"posted by {shown!r}, not by {self.named}"

    def is_service(self, shown: str | None) -> bool:
        """Whether an author speaks for the service: a trusted host, or `Referee` where the
        service's transcripts are read."""
        if shown is None:
            return False
        return self.doubt(shown, why=False) is None or name_key(shown) == name_key(SERVICE)
