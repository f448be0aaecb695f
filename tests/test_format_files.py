"""Format files: the built-in formats read from TOML exactly as they were declared in code,
a community's format judged right, every mistake in a file a clear error, the worked examples
of docs/judge.md, `--format-file` and the route's `format_files`, and the writer's round trip."""

from __future__ import annotations

import json
import re
import shlex
import string
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cli.main import cli
from referee.errors import FormatFileError, NotationError
from referee.transcripts import judge_log
from referee.transcripts.format_files import (
    MAX_FORMAT_FILE,
    builtin_catalogue,
    load_format_file,
    with_format_files,
)
from referee.transcripts.format_writer import format_file_text
from referee.transcripts.formats import BY_NAME, FORMATS, STAMP_RE, STAMPS, builtin
from referee.transcripts.rolls import SHAPES, read_roll
from tests.browser_fixtures import web  # noqa: F401
from tests.service_fixtures import LiveServer

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
DATA = Path(__file__).resolve().parent / "data" / "judge"
#: Every built-in pattern as the code declared it before the formats moved to TOML (written
#: from commit 9371c61's `FORMATS`, `STAMPS`, `STAMP_RE` and `SHAPES`): text and flags.
BEFORE = json.loads((DATA / "builtin_formats.json").read_text(encoding="utf-8"))
GOBLIN = DATA.parent / "format_files" / "dice-goblin.toml"
GOBLIN_LOG = DATA.parent / "format_files" / "dice-goblin.log"


def _pattern(pattern: re.Pattern[str] | None) -> list[Any] | None:
    return None if pattern is None else [pattern.pattern, pattern.flags]


# -- the built-in formats: the same as before, read once and only when asked for


def test_every_built_in_format_reads_from_its_file_exactly_as_declared_before() -> None:
    assert [f.name for f in FORMATS] == [f["name"] for f in BEFORE["formats"]]
    for fmt, before in zip(FORMATS, BEFORE["formats"], strict=True):
        now = {
            "name": fmt.name,
            "title": fmt.title,
            "example": fmt.example,
            "hosts": list(fmt.hosts),
            "container": fmt.container,
            "speech_first": fmt.speech_first,
            **{k: _pattern(getattr(fmt, k)) for k in ("speech", "emote", "system", "header")},
            "prefix": _pattern(fmt.prefix),
        }
        assert now == before, fmt.name
    assert [[s.name, s.pattern, s.example] for s in STAMPS] == [
        [s["name"], s["pattern"], s["example"]] for s in BEFORE["stamps"]
    ]
    assert _pattern(STAMP_RE) == BEFORE["stamp_re"]
    assert [
        {
            "name": s.name,
            "title": s.title,
            "example": s.example,
            "loose": _pattern(s.loose),
            "strict": _pattern(s.strict),
        }
        for s in SHAPES
    ] == BEFORE["shapes"]
    assert [(s.name, s.words, s.sides, s.aol) for s in SHAPES] == [
        ("onlinehost", ("rolled",), 100, True),
        ("dice-maiden", ("Result", "Request:"), 100, False),
        ("dicebot", ("rolls",), 100, False),
        ("avrae", ("Result",), 100, False),
        ("meter", ("rolled",), 100, False),
    ]


def test_the_built_in_files_are_read_once_and_not_on_import() -> None:
    code = (
        "import referee.cli.judge, referee.transcripts, referee.transcripts.reader\n"
        "from referee.transcripts import format_files as f\n"
        "print(f._builtin_files.cache_info().misses)\n"
        "from referee.transcripts import judge_log, FORMATS\n"
        "judge_log('OnlineHost: A rolled 1 100-sided die: 4\\n"
        "OnlineHost: B rolled 1 100-sided die: 5', ['A=5', 'B=6'])\n"
        "judge_log('OnlineHost: A rolled 1 100-sided die: 4\\n"
        "OnlineHost: B rolled 1 100-sided die: 5', ['A=5', 'B=6'])\n"
        "print(f._builtin_files.cache_info().misses, len(FORMATS))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.split() == ["0", "1", "12"]
    assert builtin() is builtin() and builtin_catalogue() is builtin_catalogue()


def test_a_meter_roll_of_a_face_past_100_is_a_broken_host_line() -> None:
    # one change from the code: a meter's face is checked as Dice Maiden's simple output's was
    assert read_roll("Tarl Cabot rolled 42") == read_roll("Tarl Cabot Roll: [42] Result: 42")
    assert read_roll("Tarl Cabot rolled 147") == "face 147 on a 100-sided die"


# -- a community's format: a spar judged right


def _goblin_as_aol(text: str) -> str:
    """The Dice Goblin log as the AOL host would have written it (the oracle)."""
    out = []
    for line in text.splitlines():
        _, author, said = [*line.split(" | ", 2), "", ""][:3]
        roll = re.fullmatch(r"(?:.* \| )?(.+?) throws (\d*)d(\d+) → ([\d ]+)", said)
        if roll is None:
            out.append(f"{author or 'Room'}: {said}")
            continue
        name, count, sides, faces = roll.groups()
        count = count or "1"
        noun = "die" if count == "1" else "dice"
        host = "OnlineHost" if author == "Dice Goblin" else f"{author}: OnlineHost"
        out.append(f"{host}: {name} rolled {count} {sides}-sided {noun}: {faces}")
    return "\n".join(out)


def test_a_community_format_judges_a_spar_right() -> None:
    text = GOBLIN_LOG.read_text(encoding="utf-8")
    with pytest.raises(NotationError, match="in no format the judge knows"):
        judge_log(text)
    formats = with_format_files([(GOBLIN.read_text(encoding="utf-8"), GOBLIN.name)])
    case = judge_log(text, formats=formats)
    verdict = case.verdict
    assert (case.transcript.format.name, case.transcript.trust.hosts) == (
        "matrix-export",
        ("Dice Goblin",),
    )
    assert (verdict.winner, verdict.damage_dealt, verdict.attacks) == (
        "Tarl",
        {"Tarl": 18, "Pa-Kur": 5},
        9,
    )
    assert len(case.transcript.rolls) == 17
    assert [(a.line, a.kind.value) for a in verdict.anomalies] == [
        (5, "out-of-turn"),
        (6, "forged"),
        (8, "wrong-dice"),
        (9, "out-of-turn"),
        (12, "out-of-turn"),
        (19, "out-of-turn"),
    ]
    assert verdict.anomalies[1].reason == "posted by 'Tarl', not by Dice Goblin"
    assert case.transcript.rolls[0].stamp == "2026-11-29 21:02"
    # the oracle: the same spar written by AOL's host, judged by the built-in formats
    oracle = judge_log(_goblin_as_aol(text)).verdict
    assert (oracle.winner, oracle.damage_dealt, oracle.attacks) == (
        verdict.winner,
        verdict.damage_dealt,
        verdict.attacks,
    )
    counted = [
        [r for r in v.to_json()["rolls"] if r["use"] != "anomaly"] for v in (oracle, verdict)
    ]
    assert counted[0] == counted[1] and len(counted[1]) == 11
    assert [(a.line, a.kind) for a in oracle.anomalies] == [
        (a.line, a.kind) for a in verdict.anomalies
    ]


# -- every mistake in a file: one clear error naming the file, the key and what is wrong

GOOD = """[[format]]
name = "my-irc"
title = "my IRC logger"
example = "21:03 <DiceBot> Tarl rolls 1d100: [47] = 47"
hosts = ["DiceBot"]
stamp = '(?&hhmm)'
speech = '(?&stamp) <(?P<author>[^>]+)> (?P<text>.*)'
"""
ROLL = """[[roll]]
name = "my-bot"
title = "my bot"
example = "Tarl throws 47"
words = ["throws"]
find = ' throws \\d'
read = '(?P<name>\\S+) throws (?P<faces>\\d+)'
"""
F = "format file 'f.toml'"
IRC = f"{F}: [[format]] 1 'my-irc'"
BOT = f"{F}: [[roll]] 1 'my-bot'"

MISTAKES = [
    ("name = ", f"{F} is not valid TOML: Invalid value (at end of document)"),
    ("# " + "x" * MAX_FORMAT_FILE, f"{F} is over 64 KiB"),
    ("", f"{F}: it declares no [[format]] and no [[roll]]"),
    ("[[formats]]\nname='x'", f"{F}: unknown key 'formats' (known: format, fragments, roll)"),
    (
        "[[stamp]]\nname='x'",
        f"{F}: unknown table 'stamp': the AOL-style stamps are built in; give a format its own "
        "'stamp' key",
    ),
    (
        GOOD + "colour = 'red'\n",
        f"{IRC}: unknown key 'colour' (known: container, emote, example, flags, header, hosts, "
        "name, prefix, speech, speech_first, stamp, system, title)",
    ),
    (
        GOOD.replace('hosts = ["DiceBot"]', 'hosts = "DiceBot"'),
        f"{IRC}: key 'hosts': must be a list of strings, got 'DiceBot'",
    ),
    (
        GOOD + "speech_first = 'yes'\n",
        f"{IRC}: key 'speech_first': must be true or false, got 'yes'",
    ),
    (GOOD.replace('title = "my IRC logger"\n', ""), f"{IRC}: key 'title': missing"),
    (
        GOOD.replace('"my-irc"', '"My IRC"'),
        f"{F}: [[format]] 1 'My IRC': key 'name': 'My IRC' is not 1 to 40 of a-z, 0-9 and - "
        "(as 'my-bot')",
    ),
    (
        GOOD.replace("(?P<text>.*)'", "(?P<text>.*'"),
        f"{IRC}: key 'speech': not a regular expression: missing ), unterminated subpattern at "
        "position 56 in '(?P<stamp>\\\\d{1,2}:\\\\d{2}(?::\\\\d{2})?) <(?P<author>[^>]+)> "
        "(?P<text>.*'",
    ),
    (
        GOOD.replace("(?P<author>[^>]+)", "[^>]+"),
        f"{IRC}: key 'speech': the pattern has no group (?P<author>...) (the line's author)",
    ),
    (
        GOOD.replace("(?&hhmm)", "(?&hhmmss)"),
        f"{IRC}: key 'stamp': unknown fragment (?&hhmmss) (known: ampm, aol_stamps, date, "
        "dce_stamp, hhmm, host_prefix, host_roll, irc_mode, pidgin_stamp, roller, sl_stamp)",
    ),
    (
        "[fragments]\na = 'x(?&b)'\nb = '(?&a)'\n" + GOOD,
        f"{F}: key 'fragments.a': the fragments b > a > b make a loop",
    ),
    (
        "[fragments]\na = 1\n" + GOOD,
        f"{F}: key 'fragments.a': a fragment is a string (a piece of a pattern), got 1",
    ),
    (
        GOOD + "flags = ['ascii', 'verbose']\n",
        f"{IRC}: key 'flags': unknown flag 'verbose' (known: ascii, ignorecase, dotall)",
    ),
    (
        GOOD.replace("speech = '", "speech = { regex = '").replace(
            "(?P<text>.*)'", "(?P<text>.*)', flag = [] }"
        ),
        f"{IRC}: key 'speech': unknown key 'flag' in the pattern (known: flags, regex)",
    ),
    (GOOD + "container = 'csv'\n", f"{IRC}: key 'container': 'csv' is not one of lines, blocks"),
    (
        GOOD + "container = 'blocks'\n",
        f"{IRC}: key 'header': a format of blocks needs its header pattern",
    ),
    (
        GOOD.replace('example = "21:03', 'example = "9pm'),
        f"{IRC}: key 'example': its first line '9pm <DiceBot> Tarl rolls 1d100: [47] = 47' fits "
        "no speech, emote or system pattern",
    ),
    (
        GOOD.replace('"my-irc"', '"mirc"'),
        f"{F}: [[format]] 1 'mirc': the name 'mirc' is built in: give it another",
    ),
    (
        GOOD + GOOD,
        f"{F}: [[format]] 2 'my-irc': the name 'my-irc' is declared twice: give it another",
    ),
    (
        GOOD.replace('hosts = ["DiceBot"]', 'hosts = [""]'),
        f"{IRC}: key 'hosts': bad host name '' (1 to 80 characters)",
    ),
    (
        ROLL.replace('words = ["throws"]', "words = []"),
        f"{BOT}: key 'words': at least one word, none empty",
    ),
    (
        ROLL.replace("read = '(?P<name>\\S+) throws (?P<faces>\\d+)'\n", ""),
        f"{BOT}: key 'read': missing",
    ),
    (
        ROLL.replace("(?P<faces>\\d+)", "\\d+"),
        f"{BOT}: key 'read': the pattern has no group (?P<faces>...) (the faces rolled)",
    ),
    (
        ROLL.replace("find = ' throws \\d'", "find = ' hurls '"),
        f"{BOT}: key 'find': it does not find the example 'Tarl throws 47'",
    ),
    (
        ROLL.replace('"Tarl throws 47"', '"Tarl throws x47"').replace(
            "find = ' throws \\d'", "find = ' throws '"
        ),
        f"{BOT}: key 'read': the example 'Tarl throws x47' is not read as a roll: not in the shape "
        "'Tarl throws x47' (my bot)",
    ),
    (ROLL + "sides = 1\n", f"{BOT}: key 'sides': a die has 2 to 10000 sides, got 1"),
    (
        ROLL.replace("(?P<faces>\\d+)'", "(?P<faces>\\d+) (?P<count>\\d)'"),
        f"{BOT}: key 'read': the groups count and sides go together (and noun with them)",
    ),
]


@pytest.mark.parametrize(("text", "message"), MISTAKES, ids=lambda v: repr(v)[-40:])
def test_every_mistake_is_one_clear_error_and_changes_nothing(text: str, message: str) -> None:
    before = builtin()
    with pytest.raises(FormatFileError) as raised:
        with_format_files([(GOOD.replace("my-irc", "other-irc"), "ok.toml"), (text, "f.toml")])
    assert str(raised.value) == message
    assert (raised.value.exit_code, raised.value.http_status, raised.value.code) == (
        2,
        400,
        "bad_format_file",
    )
    assert builtin() is before and len(builtin().formats) == 12 and len(SHAPES) == 5


def test_good_files_load_and_a_name_in_two_files_is_an_error() -> None:
    catalogue = with_format_files([(GOOD, "a.toml"), (ROLL, "b.toml")])
    assert [f.name for f in catalogue.formats][:2] == ["my-irc", "discord-txt"]
    assert [s.name for s in catalogue.shapes][:2] == ["my-bot", "onlinehost"]
    assert (catalogue.files, catalogue.stamps) == (("a.toml", "b.toml"), builtin().stamps)
    assert catalogue.words[:2] == ("throws", "rolled")
    with pytest.raises(FormatFileError) as raised:
        with_format_files([(GOOD, "a.toml"), (GOOD, "b.toml")])
    assert str(raised.value) == (
        "format file 'b.toml': [[format]] 'my-irc': the name is declared in an earlier format "
        "file too: give it another"
    )
    assert with_format_files([]) is builtin()


# -- the worked examples of docs/judge.md


@pytest.mark.parametrize(
    ("name", "built_in", "roll"),
    [
        ("irc-dicebot", "mirc", "Kamchak rolls 1d100: [30] = 30"),
        ("gorean-meter", "second-life", "Ost rolled 47"),
    ],
)
def test_a_worked_example_reads_as_the_built_in_format_does(
    name: str, built_in: str, roll: str
) -> None:
    file = EXAMPLES / f"{name}.toml"
    formats = with_format_files([(file.read_text(encoding="utf-8"), file.name)])
    (fmt,), (shape,) = formats.formats[:1], formats.shapes[:1]
    assert (fmt.name, shape.name) == (name, name)
    assert read_roll(roll, shape) == read_roll(roll)
    log = (EXAMPLES / f"{name}.log").read_bytes()
    from_file = judge_log(log, formats=formats)
    alone = judge_log(log, formats=formats, format=name)
    assert from_file.transcript.format is fmt and alone.transcript.format is fmt
    built = judge_log(log)
    assert built.transcript.format is BY_NAME[built_in]
    assert from_file.verdict.to_json() == built.verdict.to_json()
    assert from_file.transcript.rolls == built.transcript.rolls
    assert [line.roll for line in from_file.lines] == [line.roll for line in built.lines]


def _section() -> str:
    text = (ROOT / "docs" / "judge.md").read_text(encoding="utf-8")
    start = text.index("## Format files")
    return text[start : text.index("\n## ", start + 1)]


def test_the_worked_examples_in_the_docs_are_the_example_files() -> None:
    blocks = re.findall(r"```toml\n(.*?)```", _section(), re.S)
    files = [
        (EXAMPLES / f"{n}.toml").read_text(encoding="utf-8")
        for n in ("irc-dicebot", "gorean-meter")
    ]
    assert blocks == [f[f.index("[[format]]") :] for f in files]


def _console() -> list[tuple[str, str]]:
    found = []
    for block in re.findall(r"```console\n(.*?)```", _section(), re.S):
        command, *output = block.rstrip("\n").split("\n")
        found.append((command.removeprefix("$ "), "\n".join(output)))
    return found


@pytest.mark.parametrize(("command", "expected"), _console(), ids=lambda v: v[:60])
def test_the_docs_commands_say_what_the_docs_say(command: str, expected: str) -> None:
    argv = shlex.split(command)
    assert argv[0] == "referee"
    result = CliRunner().invoke(cli, argv[1:], catch_exceptions=False)
    assert result.exit_code == 1
    head, rest = expected.split("\n...")
    assert result.stdout.startswith(head + "\n") and rest == ""


def test_the_worked_examples_verdicts() -> None:
    irc = judge_log((EXAMPLES / "irc-dicebot.log").read_bytes()).verdict
    assert (irc.winner, irc.damage_dealt, irc.attacks) == (None, {"Kamchak": 3, "Ost": 4}, 2)
    assert [(a.line, a.kind.value) for a in irc.anomalies] == [
        (5, "out-of-turn"),
        (6, "forged"),
        (9, "out-of-turn"),
    ]
    meter = judge_log((EXAMPLES / "gorean-meter.log").read_bytes()).verdict
    assert (meter.winner, meter.damage_dealt, meter.attacks) == (None, {"Ost": 7, "Rask": 1}, 3)
    assert [(a.line, a.kind.value) for a in meter.anomalies] == [(5, "out-of-turn")]


# -- the command line and the route


def test_the_format_file_option() -> None:
    run = CliRunner().invoke
    args = ["judge", str(GOBLIN_LOG), "--format-file", str(GOBLIN), "--json"]
    result = run(cli, args)
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert (doc["winner"], doc["damage_dealt"], doc["attacks"]) == (
        "Tarl",
        {"Tarl": 18, "Pa-Kur": 5},
        9,
    )
    assert result.stderr == "error: line 5: out-of-turn: it is Tarl's turn (+5 more)\n"
    again = run(cli, [*args, "--format-file", str(EXAMPLES / "gorean-meter.toml")])
    assert (again.exit_code, json.loads(again.stdout)) == (1, doc)


def test_a_bad_format_file_on_the_command_line_is_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD + "colour = 1\n", encoding="utf-8")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    for path, message in [
        (bad, f"format file {str(bad)!r}: [[format]] 1 'my-irc': unknown key 'colour' (known: "),
        (binary, f"format file {str(binary)!r} is not UTF-8 text (invalid start byte)"),
        (tmp_path / "none.toml", f"cannot read format file {str(tmp_path / 'none.toml')!r}: "),
    ]:
        result = CliRunner().invoke(cli, ["judge", str(GOBLIN_LOG), "--format-file", str(path)])
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"error: {message}"), result.stderr
        assert result.stdout == "" and result.stderr.count("\n") == 1


def test_the_route_takes_format_files(web: LiveServer) -> None:  # noqa: F811
    body = {
        "log": GOBLIN_LOG.read_text(encoding="utf-8"),
        "format_files": [{"name": "dice-goblin.toml", "text": GOBLIN.read_text(encoding="utf-8")}],
    }
    r = web.post("/api/judge", json=body)
    assert r.status_code == 200, r.text
    doc = r.json()
    assert (doc["winner"], doc["damage_dealt"], doc["attacks"], len(doc["anomalies"])) == (
        "Tarl",
        {"Tarl": 18, "Pa-Kur": 5},
        9,
        6,
    )
    assert sum(1 for line in doc["lines"] if line["roll"]) == 17
    r = web.post("/api/judge", json={"log": body["log"]})
    assert (r.status_code, r.json()["error"]) == (400, "bad_notation")


@pytest.mark.parametrize(
    ("files", "status", "code", "message"),
    [
        (
            [{"text": GOOD + "colour = 1\n"}],
            400,
            "bad_format_file",
            "format file 'pasted': [[format]] 1 'my-irc': unknown key 'colour'",
        ),
        (
            [{"name": "a.toml", "text": GOOD}, {"name": "b.toml", "text": GOOD}],
            400,
            "bad_format_file",
            "format file 'b.toml': [[format]] 'my-irc': the name is declared in an earlier",
        ),
        ([{"text": "x" * (MAX_FORMAT_FILE + 1)}], 422, "bad_request", "format_files"),
        ([{"text": GOOD}] * 5, 422, "bad_request", "format_files"),
        ([{"text": GOOD, "size": 1}], 422, "bad_request", "size"),
    ],
    ids=["bad key", "twice", "too long", "too many", "extra"],
)
def test_a_bad_format_file_is_a_clear_4xx(
    web: LiveServer,  # noqa: F811
    files: list[dict[str, Any]],
    status: int,
    code: str,
    message: str,
) -> None:
    r = web.post("/api/judge", json={"log": GOBLIN_LOG.read_text("utf-8"), "format_files": files})
    assert r.status_code == status, r.text
    assert r.json()["error"] == code
    assert message in r.json()["message"]


# -- the writer: a format file written from formats reads back to the same formats


def test_every_built_in_format_and_shape_written_reads_back_the_same() -> None:
    formats = [replace(f, name=f"copy-{f.name}") for f in FORMATS if f.container == "lines"]
    formats += [replace(f, name=f"copy-{f.name}") for f in FORMATS if f.container == "blocks"]
    shapes = [replace(s, name=f"copy-{s.name}") for s in SHAPES]
    read = load_format_file(format_file_text(formats, shapes), "copy.toml")
    assert (read.formats, read.shapes) == (tuple(formats), tuple(shapes))


_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40
)
_NAME = st.from_regex(r"[a-z][a-z0-9-]{0,20}[a-z0-9]", fullmatch=True).filter(
    lambda n: n not in BY_NAME and "--" not in n
)
_HOST = st.text(string.ascii_letters + " #'\"\\é", min_size=1, max_size=20).filter(
    lambda h: h.strip() and h == h.strip()
)


@st.composite
def _declaration(draw: st.DrawFn) -> tuple[Any, Any]:
    """A format and a roll shape: names, words and texts of any characters, patterns with a
    literal piece of any characters, any flags."""
    name = draw(_NAME)
    host = draw(_HOST)
    mark = draw(st.text(string.printable.strip() + "é→", min_size=1, max_size=6))
    flags = draw(st.sampled_from([0, re.ASCII, re.IGNORECASE, re.ASCII | re.DOTALL]))
    speech = re.compile(re.escape(mark) + r"(?P<author>[^:]+?): (?P<text>.*)", flags)
    emote = draw(st.none() | st.just(re.compile(r"\* (?P<author>\S+) (?P<text>.*)", flags)))
    fmt = replace(
        BY_NAME["aol"],
        name=name,
        title=draw(_TEXT.filter(lambda t: t.strip())),
        example=f"{mark}{host}: {draw(_TEXT.filter(lambda t: chr(10) not in t))}",
        hosts=(host,),
        speech=speech,
        emote=emote,
        speech_first=draw(st.booleans()),
        prefix=draw(st.none() | st.just(re.compile(re.escape(mark), re.ASCII))),
    )
    word = draw(st.text(string.ascii_letters + "→é!", min_size=1, max_size=8))
    loose = re.compile(re.escape(word), flags)
    strict = re.compile(r"(?P<name>\w+) " + re.escape(word) + r" (?P<faces>\d+)", flags)
    shape = replace(
        SHAPES[4],
        name=name,
        title=draw(_TEXT.filter(lambda t: t.strip())),
        example=f"Tarl {word} {draw(st.integers(1, 6))}",
        loose=loose,
        strict=strict,
        words=(word,),
        sides=draw(st.integers(6, 10_000)),
        aol=draw(st.booleans()),
    )
    return fmt, shape


@settings(max_examples=60, deadline=None)
@given(_declaration())
def test_a_format_file_round_trips(declared: tuple[Any, Any]) -> None:
    fmt, shape = declared
    text = format_file_text([fmt], [shape])
    read = load_format_file(text, "written.toml")
    assert (read.formats, read.shapes) == ((fmt,), (shape,))


# -- anyone's patterns: the service judges with them in a worker process, stopped in time

BACKTRACKS = """[[format]]
name = "slow"
title = "a pattern that backtracks without end"
example = "ab: hi"
hosts = ["OnlineHost"]
speech = '(?P<author>(?:a|a)*b): (?P<text>.*)'
"""


def test_a_pattern_that_backtracks_without_end_is_stopped() -> None:
    from referee.service.judge_worker import in_worker, judged

    log = "a" * 60 + " rolled\nOnlineHost: A rolled 1 100-sided die: 4\n"
    with pytest.raises(FormatFileError) as raised:
        in_worker(judged, (log, ["A=5"], None, None, [(BACKTRACKS, "slow.toml")]), seconds=3)
    assert str(raised.value) == (
        "judging with the format files took over 3 s (a pattern that backtracks without end on "
        "a long line?): nothing was judged"
    )
    # the same worker answers as the service does, errors included
    goblin = [(GOBLIN.read_text(encoding="utf-8"), GOBLIN.name)]
    doc = in_worker(judged, (GOBLIN_LOG.read_text("utf-8"), [], None, None, goblin))
    assert doc == judged(GOBLIN_LOG.read_text("utf-8"), [], None, None, goblin)
    with pytest.raises(NotationError, match="bad fighter 'A'"):
        in_worker(judged, (log, ["A"], None, None, goblin))
