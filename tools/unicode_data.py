"""Writes the Unicode data the names rule reads (`referee.bout.names`): `confusables.txt`, the
characters drawn like others (UTS #39), and `scripts.txt`, the names of Unicode's scripts.

Both come from ICU, UTS #39's reference implementation, through PyICU as built by the
`pyicu-wheels` package on PyPI (wheels with ICU inside: no compiler, no system ICU). None of
it is needed to run the referee, only to make these files, in an environment of their own:

    python3 -m venv /tmp/icu && /tmp/icu/bin/pip install pyicu-wheels
    /tmp/icu/bin/python tools/unicode_data.py

`confusables.txt` holds the prototype of every character ICU's skeleton maps to something else,
in the layout of Unicode's own confusables.txt. Left out are the characters NFD changes (the
skeleton decomposes a name before it maps it, so only decomposed characters are looked up) and
the default-ignorable ones (the skeleton drops those, through `regex`). `scripts.txt` holds
each script's ISO 15924 code and Unicode name, for every script with characters.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import icu  # type: ignore[import-not-found]

OUT = Path(__file__).resolve().parent.parent / "src" / "referee" / "bout"
SURROGATES = range(0xD800, 0xE000)
#: Scripts that are not one: shared characters, marks that take their letter's, unassigned.
NOT_A_SCRIPT = {"Zyyy", "Zinh", "Zzzz"}


def header(*what: str) -> str:
    """The comment lines every file starts with: what it is, where it came from, its license."""
    source = (
        f"Made by tools/unicode_data.py from ICU {icu.ICU_VERSION} (Unicode {icu.UNICODE_VERSION}),"
        f" through PyICU {icu.VERSION} (pyicu-wheels on PyPI)."
    )
    notice = "Unicode data: Copyright (c) Unicode, Inc., distributed under the Unicode License v3."
    return "".join(f"# {line}\n" for line in (*what, source, notice))


def code(text: str) -> str:
    """Code points in hex, as Unicode's data files write them (`0041 0301`)."""
    return " ".join(f"{ord(ch):04X}" for ch in text)


def shows(text: str) -> bool:
    """Whether characters can stand in a comment as themselves (no spaces, nothing invisible)."""
    return text.isprintable() and " " not in text


def confusables() -> Iterator[str]:
    """One line a character that ICU's skeleton maps: `SOURCE ; PROTOTYPE ; MA`."""
    checker = icu.SpoofChecker()
    nfd = icu.Normalizer2.getNFDInstance()
    for point in range(sys.maxunicode + 1):
        char = chr(point)
        if point in SURROGATES or not nfd.isNormalized(char):
            continue
        prototype = checker.getSkeleton(0, char)
        if prototype in ("", char):  # drawn like nothing else, or default-ignorable
            continue
        line = f"{code(char)} ;\t{code(prototype)} ;\tMA"
        yield f"{line}\t# ( {char} → {prototype} )" if shows(char + prototype) else line


def scripts() -> Iterator[str]:
    """One line a script with characters: its code, a tab, its name (`Grek`, `Greek`)."""
    number = 0
    while True:
        try:
            script = icu.Script(number)
        except ValueError:  # past the last script code
            return
        short, name = script.getShortName(), script.getName()
        if short not in NOT_A_SCRIPT and len(icu.UnicodeSet(f"[:scx={short}:]")):
            yield f"{short}\t{name.replace('_', ' ')}"
        number += 1


def main() -> None:
    lines = list(confusables())
    (OUT / "confusables.txt").write_text(
        header(
            "Characters drawn like others: UTS #39's confusables, as referee.bout.names reads",
            "them. SOURCE ; PROTOTYPE ; MA, in code points, as in Unicode's confusables.txt. Left",
            "out: characters NFD changes (the skeleton decomposes first) and default-ignorable",
            "ones (the skeleton drops them).",
        )
        + "\n".join(lines)
        + "\n",
        encoding="utf-8",
    )
    names = list(scripts())
    (OUT / "scripts.txt").write_text(
        header(
            "Unicode's scripts, as referee.bout.names names them: each one's ISO 15924 code, a",
            "tab, its Unicode name (underscores as spaces).",
        )
        + "\n".join(names)
        + "\n",
        encoding="utf-8",
    )
    print(f"{len(lines)} confusables, {len(names)} scripts -> {OUT}")


if __name__ == "__main__":
    main()
