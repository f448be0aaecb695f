"""Format files: chat formats and dice bots declared in TOML, read and checked whole.

A format file (docs/judge.md, "Format files") has up to four tables: `[fragments]` (named
pieces of patterns), `[[format]]` (a logger's lines), `[[roll]]` (a dice bot's roll lines)
and, in the built-in files only, `[[stamp]]` (the AOL-style time stamps). In any pattern
`(?&NAME)` is the fragment NAME, put in as written: the file's own, else a built-in one
(`hhmm`, `ampm`, `date`, `irc_mode`, `roller`, `aol_stamps`, `host_prefix`, `host_roll`);
in a format's patterns `(?&stamp)` is the format's own time stamp (its `stamp` key) as the
group `stamp`. Every mistake is a `FormatFileError` that names the file, the key and what is
wrong, and nothing is read from a file that has one.

>>> catalogue = load_format_file('''
... [[format]]
... name = "my-irc"
... title = "my IRC logger"
... example = "21:03 <DiceBot> Tarl rolls 1d100: [47] = 47"
... hosts = ["DiceBot"]
... stamp = '(?&hhmm)'
... speech = '(?&stamp) <(?P<author>[^>]+)> (?P<text>.*)'
... ''', "my-irc.toml")
>>> fmt = catalogue.formats[0]
>>> fmt.hosts, fmt.speech.fullmatch("21:03 <DiceBot> hi")["stamp"]
(('DiceBot',), '21:03')
>>> load_format_file('[[format]]\\nname = "x"\\nnmae = 1', "bad.toml")
Traceback (most recent call last):
...
referee.errors.FormatFileError: format file 'bad.toml': [[format]] 1 'x': unknown key 'nmae' \
(known: container, emote, example, flags, header, hosts, name, prefix, speech, speech_first, \
stamp, system, title)
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from referee.aol import HOST_PREFIX, HOST_ROLL
from referee.errors import FormatFileError, NotationError
from referee.transcripts.authors import Trust
from referee.transcripts.catalogue import Catalogue, Format, Stamp
from referee.transcripts.roll_shapes import HostRoll, Shape, read_shape

#: The largest format file read (a format file is a few lines; the service takes it in a body).
MAX_FORMAT_FILE = 64 * 1024
#: The built-in format files, in the order their formats and shapes are tried.
BUILTIN_FILES = ("common", "rolls", "discord", "pidgin", "irc", "second-life", "aol")
#: The flags a pattern may be compiled with; a pattern given as a string has the entry's
#: `flags` (default: ascii, `\d` being 0-9 as loggers write digits).
FLAGS = {"ascii": re.ASCII, "ignorecase": re.IGNORECASE, "dotall": re.DOTALL}
DEFAULT_FLAGS = ("ascii",)

_REFERENCE = re.compile(r"\(\?&([A-Za-z_][A-Za-z0-9_]*)\)")
_NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")
_FRAGMENT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")

_PATTERNS = ("speech", "emote", "system", "header", "prefix")
_FORMAT_KEYS = frozenset(
    {"name", "title", "example", "hosts", "container", "speech_first", "stamp", "flags"}
    | set(_PATTERNS)
)
_ROLL_KEYS = frozenset(
    {"name", "title", "example", "words", "find", "read", "sides", "aol", "flags"}
)
_STAMP_KEYS = frozenset({"name", "pattern", "example"})
#: The groups each pattern must have, and what they are.
_GROUPS = {
    "speech": {"author": "the line's author", "text": "what the author says"},
    "emote": {"author": "the line's author", "text": "what the author does"},
    "read": {"name": "the roller's name", "faces": "the faces rolled"},
}


def load_format_file(text: str, source: str) -> Catalogue:
    """The formats and roll shapes of one format file a user gives (see the module text)."""
    shared = _builtin_files().fragments
    return _File(source, _toml(text, source), shared, builtin=False).catalogue()


def builtin_catalogue() -> Catalogue:
    """The built-in formats, shapes and stamps, read from `builtin_formats/` on the first
    call (`referee.transcripts.formats.builtin()`)."""
    return _builtin_files().catalogue


class _Builtin:
    """The built-in files, read whole, and the fragments they share with every file."""

    def __init__(self) -> None:
        # the folder beside this module, read with `open` (as `msv.rules.default_rules` is)
        where = os.path.join(os.path.dirname(__file__), "builtin_formats")
        shared = {"host_prefix": HOST_PREFIX, "host_roll": HOST_ROLL}
        parts: list[Catalogue] = []
        for name in BUILTIN_FILES:
            source = f"{name}.toml"
            with open(os.path.join(where, source), encoding="utf-8") as handle:
                data = _toml(handle.read(), source)
            read = _File(source, data, shared, builtin=True)
            part = read.catalogue()
            if part.stamps:  # the AOL-style stamps, one fragment for the formats after them
                joined = "|".join(s.pattern for s in part.stamps)
                shared["aol_stamps"] = f"(?:{joined})"
            shared.update(read.fragments)
            parts.append(part)
        self.fragments = dict(shared)
        self.catalogue = Catalogue(
            tuple(f for p in parts for f in p.formats),
            tuple(s for p in parts for s in p.shapes),
            tuple(s for p in parts for s in p.stamps),
        )


@cache
def _builtin_files() -> _Builtin:
    """The built-in files, read on the first call only."""
    return _Builtin()


def _toml(text: str, source: str) -> dict[str, Any]:
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FORMAT_FILE:
        raise FormatFileError(f"format file {source!r} is over {MAX_FORMAT_FILE // 1024} KiB")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise FormatFileError(f"format file {source!r} is not valid TOML: {err}") from None


class _File:
    """One format file being read: its fragments, then its entries, each checked."""

    def __init__(
        self, source: str, data: Mapping[str, Any], shared: Mapping[str, str], builtin: bool
    ) -> None:
        self.source, self.data, self.shared, self.builtin = source, data, shared, builtin
        self.where = ""
        tables = {"fragments", "format", "roll"} | ({"stamp"} if builtin else set())
        if "stamp" in data and not builtin:
            what = "the AOL-style stamps are built in; give a format its own 'stamp' key"
            raise self.error(f"unknown table 'stamp': {what}")
        self._known(data, tables)
        raw = self._get(data, "fragments", dict, {})
        self.fragments: dict[str, str] = {}
        for name, value in raw.items():
            self.where = f"key 'fragments.{name}'"
            if not _FRAGMENT_NAME.fullmatch(name) or name == "stamp":
                raise self.error("a fragment's name is letters, digits and _ (not 'stamp')")
            if not isinstance(value, str):
                raise self.error(f"a fragment is a string (a piece of a pattern), got {value!r}")
            self.fragments[name] = value
        for name in self.fragments:  # each fragment must expand (no unknown name, no loop)
            self.where = f"key 'fragments.{name}'"
            self._expand(self.fragments[name], {})

    def error(self, what: str) -> FormatFileError:
        where = f": {self.where}" if self.where else ""
        return FormatFileError(f"format file {self.source!r}{where}: {what}")

    def catalogue(self) -> Catalogue:
        """Every entry of the file, checked; names unique in the file and the built-ins."""
        formats = tuple(self._each("format", self._format))
        shapes = tuple(self._each("roll", self._shape))
        stamps = tuple(self._each("stamp", self._stamp)) if self.builtin else ()
        self.where = ""
        if not (formats or shapes or stamps):
            raise self.error("it declares no [[format]] and no [[roll]]")
        ours = _builtin_files().catalogue if not self.builtin else Catalogue((), ())
        taken = {f.name for f in ours.formats}
        shapes_taken = {s.name for s in ours.shapes}
        for kind, names, known in (
            ("format", [f.name for f in formats], taken),
            ("roll", [s.name for s in shapes], shapes_taken),
        ):
            for index, name in enumerate(names, start=1):
                self.where = f"[[{kind}]] {index} {name!r}"
                if name in names[: index - 1] or name in known:
                    again = "is built in" if name in known else "is declared twice"
                    raise self.error(f"the name {name!r} {again}: give it another")
        return Catalogue(formats, shapes, stamps, (self.source,))

    def _each(self, table: str, read: Callable[[Mapping[str, Any]], Any]) -> list[Any]:
        self.where = ""
        entries = self._get(self.data, table, list, [])
        out = []
        for index, entry in enumerate(entries, start=1):
            self.where = f"[[{table}]] {index}"
            if not isinstance(entry, dict):
                raise self.error(f"each [[{table}]] is a table of keys, got {entry!r}")
            name = entry.get("name")
            if isinstance(name, str):
                self.where += f" {name!r}"
            out.append(read(entry))
        return out

    def _format(self, entry: Mapping[str, Any]) -> Format:
        self._known(entry, _FORMAT_KEYS)
        name = self._name(entry)
        hosts = self._strings(entry, "hosts", required=True)
        try:
            Trust.of(hosts)
        except NotationError as err:
            raise self._at("hosts", str(err)) from None
        containers = ("lines", "blocks", "csv", "html") if self.builtin else ("lines", "blocks")
        container = self._get(entry, "container", str, "lines")
        if container not in containers:
            raise self._at("container", f"{container!r} is not one of {', '.join(containers)}")
        flags = self._flags(entry.get("flags", list(DEFAULT_FLAGS)), "flags")
        stamp = self._stamp_forms(entry)
        local = {"stamp": f"(?P<stamp>{stamp})"} if stamp is not None else {}
        patterns = {
            key: self._pattern(entry, key, flags, local) for key in _PATTERNS if key in entry
        }
        if "prefix" not in patterns and stamp is not None:
            patterns["prefix"] = self._compile(f"(?:{stamp})", flags, "stamp")
        needed = "header" if container == "blocks" else "speech" if container == "lines" else ""
        if needed and needed not in patterns:
            raise self._at(needed, f"a format of {container} needs its {needed} pattern")
        if container == "blocks":
            wanted = {"author": "the message's author", "stamp": "the message's time stamp"}
            self._groups(patterns["header"], "header", wanted)
        fmt = Format(
            name,
            self._text(entry, "title"),
            self._text(entry, "example"),
            tuple(hosts),
            speech=patterns.get("speech"),
            emote=patterns.get("emote"),
            system=patterns.get("system"),
            header=patterns.get("header"),
            container=container,
            speech_first=self._get(entry, "speech_first", bool, False),
            prefix=patterns.get("prefix"),
        )
        self._check_example(fmt)
        return fmt

    def _stamp_forms(self, entry: Mapping[str, Any]) -> str | None:
        """A format's own time stamp: one pattern, or a list of forms (any of them)."""
        value = entry.get("stamp")
        if value is None:
            return None
        forms = [value] if isinstance(value, str) else value
        if not isinstance(forms, list) or not forms or not all(isinstance(f, str) for f in forms):
            raise self._at("stamp", f"a pattern or a list of patterns, got {value!r}")
        stamp = "|".join(self._expand(f, {}, "stamp") for f in forms)
        self._compile(stamp, 0, "stamp")
        return stamp

    def _check_example(self, fmt: Format) -> None:
        """A format's example: its first line is in one of the format's shapes."""
        if fmt.container not in ("lines", "blocks"):
            return
        first = fmt.example.split("\n", 1)[0]
        shapes = (fmt.header,) if fmt.blocks else (fmt.system, fmt.speech, fmt.emote)
        if not any(p is not None and p.fullmatch(first) for p in shapes):
            which = "header" if fmt.blocks else "speech, emote or system"
            raise self._at("example", f"its first line {first!r} fits no {which} pattern")

    def _shape(self, entry: Mapping[str, Any]) -> Shape:
        self._known(entry, _ROLL_KEYS)
        flags = self._flags(entry.get("flags", list(DEFAULT_FLAGS)), "flags")
        sides = self._get(entry, "sides", int, 100)
        if isinstance(sides, bool) or not 2 <= sides <= 10_000:
            raise self._at("sides", f"a die has 2 to 10000 sides, got {sides!r}")
        words = self._strings(entry, "words", required=True)
        if not words or not all(words):
            raise self._at("words", "at least one word, none empty")
        strict = self._pattern(entry, "read", flags, {}, required=True)
        said = strict.groupindex
        if ("count" in said) != ("sides" in said) or ("noun" in said and "count" not in said):
            raise self._at("read", "the groups count and sides go together (and noun with them)")
        shape = Shape(
            self._name(entry),
            self._text(entry, "title"),
            self._text(entry, "example"),
            self._pattern(entry, "find", flags, {}, required=True),
            strict,
            tuple(words),
            sides,
            self._get(entry, "aol", bool, False),
        )
        self._check_roll(shape)
        return shape

    def _check_roll(self, shape: Shape) -> None:
        """A roll shape's example: found by its words and `find`, read by `read`."""
        example = shape.example
        if not any(word in example for word in shape.words):
            raise self._at("words", f"the example {example!r} has none of them")
        if not shape.loose.search(example):
            raise self._at("find", f"it does not find the example {example!r}")
        read = read_shape(example, shape)
        if not isinstance(read, HostRoll):
            raise self._at("read", f"the example {example!r} is not read as a roll: {read}")

    def _stamp(self, entry: Mapping[str, Any]) -> Stamp:
        self._known(entry, _STAMP_KEYS)
        pattern = self._text(entry, "pattern")
        self._compile(pattern, re.ASCII, "pattern")
        return Stamp(self._text(entry, "name"), pattern, self._text(entry, "example"))

    # -- keys, values and patterns

    def _at(self, key: str, what: str) -> FormatFileError:
        return self.error(f"key {key!r}: {what}")

    def _known(self, table: Mapping[str, Any], known: frozenset[str] | set[str]) -> None:
        for key in table:
            if key not in known:
                names = ", ".join(sorted(known))
                raise self.error(f"unknown key {key!r} (known: {names})")

    def _get(self, table: Mapping[str, Any], key: str, kind: type, default: Any) -> Any:
        value = table.get(key, default)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            wanted = {str: "a string", bool: "true or false", int: "a whole number"}
            words = wanted.get(kind, "a table" if kind is dict else "a list")
            raise self._at(key, f"must be {words}, got {value!r}")
        return value

    def _text(self, entry: Mapping[str, Any], key: str) -> str:
        if key not in entry:
            raise self._at(key, "missing")
        value: str = self._get(entry, key, str, "")
        if not value.strip() or len(value) > 2000:
            raise self._at(key, "must be 1 to 2000 characters, not blank")
        return value

    def _name(self, entry: Mapping[str, Any]) -> str:
        name = self._text(entry, "name")
        if not _NAME.fullmatch(name):
            raise self._at("name", f"{name!r} is not 1 to 40 of a-z, 0-9 and - (as 'my-bot')")
        return name

    def _strings(self, entry: Mapping[str, Any], key: str, required: bool) -> list[str]:
        if required and key not in entry:
            raise self._at(key, "missing")
        value = entry.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._at(key, f"must be a list of strings, got {value!r}")
        return value

    def _flags(self, value: Any, key: str) -> int:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._at(key, f"must be a list of flags ({', '.join(FLAGS)}), got {value!r}")
        unknown = [v for v in value if v not in FLAGS]
        if unknown:
            raise self._at(key, f"unknown flag {unknown[0]!r} (known: {', '.join(FLAGS)})")
        flags = 0
        for name in value:
            flags |= FLAGS[name]
        return flags

    def _pattern(
        self,
        entry: Mapping[str, Any],
        key: str,
        flags: int,
        local: Mapping[str, str],
        required: bool = False,
    ) -> re.Pattern[str]:
        value = entry.get(key)
        if value is None and required:
            raise self._at(key, "missing")
        if isinstance(value, dict):
            self._known_pattern(value, key)
            flags = self._flags(value.get("flags", list(DEFAULT_FLAGS)), f"{key}.flags")
            value = value.get("regex")
        if not isinstance(value, str):
            what = "a pattern (a string, or { regex = ..., flags = [...] })"
            raise self._at(key, f"must be {what}, got {value!r}")
        pattern = self._compile(self._expand(value, local, key), flags, key)
        if key in _GROUPS:
            self._groups(pattern, key, _GROUPS[key])
        return pattern

    def _known_pattern(self, value: Mapping[str, Any], key: str) -> None:
        for name in value:
            if name not in ("regex", "flags"):
                raise self._at(key, f"unknown key {name!r} in the pattern (known: flags, regex)")
        if "regex" not in value:
            raise self._at(key, "the pattern's 'regex' is missing")

    def _groups(self, pattern: re.Pattern[str], key: str, wanted: Mapping[str, str]) -> None:
        for group, what in wanted.items():
            if group not in pattern.groupindex:
                raise self._at(key, f"the pattern has no group (?P<{group}>...) ({what})")

    def _compile(self, pattern: str, flags: int, key: str) -> re.Pattern[str]:
        if len(pattern) > 4000:
            raise self._at(key, "the pattern is over 4000 characters")
        try:
            return re.compile(pattern, flags)
        except re.error as err:
            raise self._at(key, f"not a regular expression: {err} in {pattern!r}") from None
        except (OverflowError, RecursionError):
            what = f"not a regular expression the judge can use: {pattern!r}"
            raise self._at(key, what) from None

    def _expand(
        self, pattern: str, local: Mapping[str, str], key: str = "", seen: tuple[str, ...] = ()
    ) -> str:
        """The pattern with each `(?&NAME)` replaced by its fragment (itself expanded)."""

        def fail(what: str) -> FormatFileError:
            return self._at(key, what) if key else self.error(what)

        def fragment(found: re.Match[str]) -> str:
            name = found[1]
            if name in seen:
                raise fail(f"the fragments {' > '.join(seen)} > {name} make a loop")
            text = local.get(name, self.fragments.get(name, self.shared.get(name)))
            if text is None:
                known = ", ".join(sorted({*local, *self.fragments, *self.shared}))
                raise fail(f"unknown fragment (?&{name}) (known: {known})")
            return self._expand(text, {}, key, (*seen, name)) if name not in local else text

        return _REFERENCE.sub(fragment, pattern)


def with_format_files(files: Sequence[tuple[str, str]]) -> Catalogue:
    """The built-in catalogue with these format files' formats and shapes tried first (in
    the files' order), each file given as (its text, its name for messages); a name declared
    in two files is an error."""
    formats: list[Format] = []
    shapes: list[Shape] = []
    sources: list[str] = []
    for text, source in files:
        read = load_format_file(text, source)
        for kind, earlier, names in (
            ("format", {f.name for f in formats}, [f.name for f in read.formats]),
            ("roll", {s.name for s in shapes}, [s.name for s in read.shapes]),
        ):
            again = next((name for name in names if name in earlier), None)
            if again is not None:
                raise FormatFileError(
                    f"format file {source!r}: [[{kind}]] {again!r}: the name is declared in an "
                    "earlier format file too: give it another"
                )
        formats += read.formats
        shapes += read.shapes
        sources.append(source)
    if not sources:
        return builtin_catalogue()
    return Catalogue(tuple(formats), tuple(shapes), (), tuple(sources)).before(builtin_catalogue())
