"""Every parser that reads untrusted text, given anything: it answers, or raises one of the
project's own errors (`RefereeError`, which the CLI and the service turn into one line or a
4xx). Never any other exception. Dice notation, chat lines (the service's grammar and AOL
`//roll` lines), rule packs (MSV TOML files, SRP rules, gear packs, fight files), exports (what
`referee verify` reads) and chat logs (what `referee judge` reads).

Text is drawn from the parser's own vocabulary mixed with anything at all, so that it reaches
past the first character."""

from __future__ import annotations

import contextlib
import json
import secrets
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.chat.grammar import Roster, parse_line
from referee.cli.ledger import read_export
from referee.dice.chat import parse_chat, parse_host_line
from referee.dice.parser import parse
from referee.errors import RefereeError
from referee.ledger import verify_export
from referee.systems.msv.rules import load_rules as load_msv_rules
from referee.systems.srp.fightfile import read_fight
from referee.systems.srp.gear import load_pack, parse_toml
from referee.systems.srp.rules import load_rules as load_srp_rules
from referee.transcripts.reader import decode_log, read_lines

CASES = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))


def words(*vocabulary: str) -> st.SearchStrategy[str]:
    """Text made of the parser's own words and symbols, and of anything at all."""
    piece = st.one_of(st.sampled_from(vocabulary), st.text(max_size=6))
    joiner = st.sampled_from(["", " ", "  ", "\t", "\n"])
    return st.lists(st.tuples(piece, joiner), max_size=12).map(
        lambda parts: "".join(p + j for p, j in parts)
    )


def only_our_errors(read: Any, *args: Any) -> None:
    with contextlib.suppress(RefereeError):
        read(*args)


DICE = (
    "d",
    "D",
    "2d6",
    "d%",
    "d20",
    "+",
    "-",
    "*",
    "/",
    "(",
    ")",
    "kh",
    "kl",
    "dh",
    "dl",
    "!",
    "!!",
    ">",
    "<",
    "=",
    "1",
    "0",
    "99999999999",
    "k",
    "r",
    "e",
    "f",
    ",",
    "{",
    "}",
    "²",
    "٦",
)


@CASES
@given(text=words(*DICE), dialect=st.sampled_from(["roll20", "onlinehost", "d20"]))
def test_dice_notation(text: str, dialect: str) -> None:
    only_our_errors(lambda: parse(text, dialect=dialect))


CHAT_DICE = (
    "//roll",
    "-sides",
    "-dice",
    "100",
    "6",
    "0",
    "-1",
    "OnlineHost:",
    "rolled",
    "die",
    "dice",
    ":",
    "(nonce",
    ")",
    "1",
    "100-sided",
)


@CASES
@given(text=words(*CHAT_DICE))
def test_aol_roll_lines(text: str) -> None:
    only_our_errors(parse_chat, text)
    only_our_errors(parse_host_line, text)


CHAT = (
    "attack",
    "act",
    "status",
    "score",
    "init",
    "add",
    "update",
    "remove",
    "quit",
    "pause",
    "resume",
    "skip",
    "void",
    "cancel",
    "end",
    "close",
    "bout",
    "help",
    "roll",
    "//roll",
    "Tarl",
    "Pa-Kur",
    "pa kur",
    "Bob the Bold",
    "cs=70",
    "wounds=3",
    "key=",
    "=",
    "50",
    "Ko-ro-ba",
    "\u202e",
    "\u200b",
    "1d20+1d6",
    "NaN",
    "1e308",
)


@CASES
@given(text=words(*CHAT))
def test_chat_lines(text: str) -> None:
    roster = Roster(names=("Tarl", "Pa-Kur", "Bob the Bold"), sides=("Ko-ro-ba",))
    only_our_errors(parse_line, text, roster)


TOML = (
    "[",
    "]",
    "[[",
    "]]",
    "=",
    '"',
    "'",
    "\n",
    "critical",
    "cs",
    "damage",
    "table",
    "true",
    "1e308",
    "-1",
    "0",
    "inf",
    "nan",
    "{",
    "}",
    ",",
    "rules",
    "fight",
    "gear",
    "position",
    "[1e308, 0]",
    "name",
    "fighters",
    "shield",
    "weapon",
    "#",
    "\\u0000",
    "\x00",
)


#: Where the file-reading parsers' inputs are written (outside the repository).
SCRATCH = Path(tempfile.mkdtemp(prefix="referee-untrusted-"))


def toml_file(text: str) -> Path:
    path = SCRATCH / f"input-{secrets.token_hex(6)}.toml"
    path.write_text(text, encoding="utf-8")
    return path


@CASES
@given(text=words(*TOML))
def test_rule_packs_and_fight_files(text: str) -> None:
    if "\x00" in text or any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        text = text.replace("\x00", "")
        text = "".join(c for c in text if not 0xD800 <= ord(c) <= 0xDFFF)
    path = toml_file(text)
    try:
        only_our_errors(load_msv_rules, path)
        only_our_errors(read_fight, path)
        try:
            data = parse_toml(text, "pack")
        except RefereeError:
            return
        only_our_errors(load_pack, data)
        only_our_errors(load_srp_rules, data)
    finally:
        path.unlink()


def json_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=20,
    )


EXPORT_KEYS = (
    "bout",
    "events",
    "fairness",
    "seeds",
    "seq",
    "type",
    "prev",
    "hash",
    "payload",
    "at",
    "actor",
    "roll",
    "nonce",
    "dice",
    "faces",
    "commitment",
    "server_seed",
)


@CASES
@given(
    doc=st.one_of(
        json_values(),
        st.dictionaries(st.sampled_from(EXPORT_KEYS), json_values(), max_size=6),
    ),
    partial=st.booleans(),
)
def test_exports(doc: Any, partial: bool) -> None:
    only_our_errors(lambda: verify_export(doc, partial=partial))


@CASES
@given(data=st.binary(max_size=200) | words("{", "}", "[", "]", '"', ":", ",", "1e999", "[[[[[[[["))
def test_export_files(data: bytes | str) -> None:
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    path = toml_file("")
    try:
        path.write_bytes(raw)
        try:
            doc = read_export(str(path))
        except RefereeError:
            return
        only_our_errors(lambda: verify_export(doc))
    finally:
        path.unlink()


def test_a_deeply_nested_export_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    only_our_errors(read_export, str(path))
    path.write_text(json.dumps({"events": [{"seq": 10**400}]}))
    only_our_errors(lambda: verify_export(read_export(str(path))))


LOG = (
    "OnlineHost:",
    "Tarl:",
    "Pa-Kur:",
    "(10:42:01 PM)",
    "[22:40]",
    "//roll",
    "-sides100",
    "-dice1",
    "rolled",
    "1",
    "100-sided",
    "die:",
    "47",
    "\r\n",
    "\n",
    "referee:",
    "\ufeff",
)


@CASES
@given(text=words(*LOG), raw=st.binary(max_size=100))
def test_chat_logs(text: str, raw: bytes) -> None:
    only_our_errors(lambda: list(read_lines(text)))
    only_our_errors(decode_log, raw)
    only_our_errors(decode_log, text.encode("utf-8", "surrogatepass"))
