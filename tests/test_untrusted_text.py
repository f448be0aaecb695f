"""Every parser that reads untrusted text, given anything: it answers, or raises one of the
project's own errors (`RefereeError`, which the CLI and the service turn into one line or a
4xx). Never any other exception. Dice notation, chat lines (the service's grammar and AOL
`//roll` lines), rule packs (MSV TOML files, SRP rules, gear packs, fight files), exports (what
`referee verify` reads, through the rules replay too, and what `referee judge --export` reads),
chat logs (what `referee judge` reads and judges) and the Discord bot's words (characters,
durations).

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

from referee.bout.replay import check_export
from referee.chat.grammar import Roster, parse_line
from referee.cli.ledger import read_export
from referee.dice.chat import parse_chat, parse_host_line
from referee.dice.parser import parse
from referee.discord.characters import parse_character
from referee.discord.clock import parse_duration
from referee.errors import RefereeError
from referee.ledger import event_hash, verify_export
from referee.systems.msv.rules import load_rules as load_msv_rules
from referee.systems.srp.fightfile import read_fight
from referee.systems.srp.gear import load_pack, parse_toml
from referee.systems.srp.rules import load_rules as load_srp_rules
from referee.transcripts.judgement import judge_log
from referee.transcripts.reader import decode_log, read_lines
from referee.transcripts.receipts import Ledger
from tests.depth import examples

CASES = settings(max_examples=examples(200), deadline=None, suppress_health_check=list(HealthCheck))


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
    only_our_errors(judge_log, text)
    only_our_errors(judge_log, text, ("Tarl=65", "Pa-Kur=70"))


def _played_export() -> dict[str, Any]:
    """A real MSV bout's export, played out and closed by the service on an in-memory store."""
    from referee.bout.commands import RollInitiative
    from referee.service.bouts import RefereeService
    from referee.store import Store
    from tests.seeds import SeededEntropy

    with Store.open("sqlite://") as store:
        service = RefereeService(store, entropy=SeededEntropy("untrusted-export"))
        made = service.create_bout("msv", "Fuzzed", "table")
        referee = service.caller(made["id"], made["referee_token"])
        for name, cs in (("Tarl", 65), ("Pa-Kur", 70)):
            service.add_fighter(made["id"], referee, name, {"cs": cs})
        service.command(made["id"], referee, RollInitiative())
        for _ in range(6):
            turn = service.state(made["id"]).current
            if turn is None:
                break
            target = "Pa-Kur" if turn == "Tarl" else "Tarl"
            service.act(made["id"], referee, turn, "attack", {"target": target})
        service.close(made["id"], referee)
        return service.export(made["id"], referee)


PLAYED = _played_export()


#: The events a forger would edit: outcomes, wounds, turns (not the rolls, whose faces the dice
#: check holds to the seed, nor the header event, which the header check holds to `bout`).
EDITABLE = [i for i, e in enumerate(PLAYED["events"]) if e["type"] not in ("roll", "bout_opened")]


@CASES
@given(
    where=st.sampled_from(EDITABLE),
    pick=st.integers(min_value=0, max_value=10**6),
    key=st.sampled_from(["payload", "payload", "payload", "actor", "type"]),
    field=st.text(max_size=12),
    value=st.one_of(st.integers(-3, 30), json_values()),
    status=st.one_of(st.none(), st.sampled_from(["open", "ended", "closed"]), json_values()),
)
def test_tampered_exports_through_the_rules_replay(
    where: int, pick: int, key: str, field: str, value: Any, status: Any
) -> None:
    """A real export with one value changed and the chain hashed again (as a careful forger
    would): the chain and the dice hold, so the rules replay reads it (and the judge's reader
    of exports after it)."""
    doc = json.loads(json.dumps(PLAYED))
    event = doc["events"][where]
    if key == "payload":
        fields = sorted(event["payload"])
        event["payload"][fields[pick % len(fields)] if fields and pick % 4 else field] = value
    else:
        event[key] = value
    if status is not None:
        doc["bout"]["status"] = status
    previous = "0" * 64
    for each in doc["events"]:
        each["prev"] = previous
        with contextlib.suppress(RefereeError, TypeError, ValueError):
            each["hash"] = event_hash(each)
        previous = each["hash"]
    only_our_errors(lambda: verify_export(doc, replay=check_export))
    only_our_errors(lambda: verify_export(doc, replay=check_export, partial=True))
    only_our_errors(Ledger.from_export, doc)


def test_the_untampered_export_verifies_with_the_rules_replay() -> None:
    report = verify_export(PLAYED, replay=check_export)
    assert report.ok and report.checks[-1] == "rules", report.problems


@CASES
@given(words_=st.lists(words("cs=", "=", "65", "hits=", "skill=", "Tarl", "10**9"), max_size=5))
def test_discord_characters(words_: list[str]) -> None:
    only_our_errors(parse_character, words_)


@CASES
@given(text=words("s", "m", "h", "90", "2", "0", "-", "1e9", "99999999999"))
def test_discord_durations(text: str) -> None:
    only_our_errors(parse_duration, text)


def _rehashed(doc: dict[str, Any]) -> dict[str, Any]:
    previous = "0" * 64
    for each in doc["events"]:
        each["prev"] = previous
        each["hash"] = previous = event_hash(each)
    return doc


def test_an_event_the_rules_never_write_is_a_rules_problem_not_a_crash() -> None:
    """Found by the test above: a re-hashed export whose fighter has `"stats": 5` made the
    replay raise TypeError (a traceback from `referee verify`) and the judge's reader
    AttributeError."""
    doc = json.loads(json.dumps(PLAYED))
    added = next(e for e in doc["events"] if e["type"] == "fighter_added")
    added["payload"]["stats"] = 5
    report = verify_export(_rehashed(doc), replay=check_export)
    assert report.first is not None and report.first.check == "rules"
    assert (report.first.seq, report.first.type) == (added["seq"], "fighter_added")
    assert report.first.message.startswith("the fighter_added event is not one the rules write")
    ledger = Ledger.from_export(doc)
    assert ledger.fighters == ()  # no CS to read: the fighters are given or announced instead
    assert ledger.notes == [f"the ledger's own outcomes: {report.first}"]
