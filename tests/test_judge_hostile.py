"""`referee judge` against a hostile tester: the logs and command lines that broke it once."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.transcripts import judge_log
from referee.transcripts.sniff import ROLL_CUT, skill_cut
from tests.browser_fixtures import web  # noqa: F401
from tests.judge_samples import WRITERS, sample
from tests.service_fixtures import LiveServer
from tests.test_judge_wrappings import said, wrap

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "pakur-stun.log"
HEAD = (
    "Spar between Tarl (CS 65) and Rask (CS 60)\n"
    "OnlineHost: Tarl rolled 1 100-sided die: 47\n"
    "OnlineHost: Rask rolled 1 100-sided die: 12\n"
)


def test_python_m_referee_cli_entry_runs_the_console_script() -> None:
    """`python -m referee.cli.entry judge LOG` is the console script: it judged nothing and
    exited 0, silently, whatever the log said."""
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli.entry", "judge", str(EXAMPLE)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("Verdict: Tarl wins: Tarl dealt 16, Pa-Kur dealt 0;")
    assert done.stderr.startswith("error: line 8: forged:")


#: The old test for a roll cut before its faces: quadratic in the `rolled`s of one line.
_BACKTRACKING_ROLL_CUT = re.compile(r"\brolled\b(?!.*\d\)?[.!]?[ \t]*$)", re.I)


_PIECES = ["rolled", "ROLLED", "xrolled", "rolledx", " ", "\t", "4", "٤", ")", ".", "!", ":", "a"]


@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_the_cut_roll_test_says_what_the_backtracking_one_said(line: str) -> None:
    """A line (no line end) says `rolled` and stops before its faces, as it always did."""
    assert (ROLL_CUT.search(line) is None) is (_BACKTRACKING_ROLL_CUT.search(line) is None)


def anomalies_after(long: str) -> list[tuple[int, str]]:
    """The anomalies of the spar's head, the long line `long`, then a host line typed by a
    speaker (line 5, forged): the judge gets through the long line and on to the next."""
    typed = "Bosk: OnlineHost: Tarl rolled 1 100-sided die: 99"
    case = judge_log(f"{HEAD}{long}\n{typed}\n")
    return [(a.line, a.kind.value) for a in case.verdict.anomalies]


def test_a_long_line_of_rolled_words_is_judged_not_for_hours() -> None:
    """A line of 4 MB saying `rolled` 150,000 times (a player's paste) took the judge minutes
    (16 MiB of it: hours, in the service too), trying every `rolled` against the rest of the
    line; now one pass. (A line that long is only text: no chat message is.)"""
    long = "Bosk: " + "rolled 1 100-sided die: 4 " * 150_000
    assert anomalies_after(long) == [(5, "forged")]


#: The old test for an announcement cut between fighters (quadratic in the skills of a
#: line), and one cut inside its next skill (`(CS` then `70)`), as backtracking ones.
_BACKTRACKING_SKILL_CUT = re.compile(
    r"\([ \t]*(?:[Cc][Ss]|2d)[ \t]*\d[^\n]*\n[^\n]*\([ \t]*(?:[Cc][Ss]|2d)"
    r"|\([ \t]*(?:[Cc][Ss]|2d)[ \t]*\d[^\n]*[(\[][ \t]*(?:[Cc][Ss]:?|2d)?[ \t]*$",
    re.M,
)
_SKILL_PIECES = [
    "(CS 65)",
    "(cs",
    "(2d",
    "( \tCS",
    "(",
    "[",
    "CS",
    ":",
    " ",
    "6",
    "\n",
    "x",
    "Tarl",
]


@given(st.lists(st.sampled_from(_SKILL_PIECES), max_size=12).map("".join))
def test_the_cut_announcement_test_says_what_the_backtracking_one_said(text: str) -> None:
    """A line with a skill followed by one with another, as it always did."""
    assert skill_cut(text) is (_BACKTRACKING_SKILL_CUT.search(text) is not None)


def test_a_long_line_of_skills_is_judged_not_for_hours() -> None:
    """A line of 2.4 MB saying `(CS 65)` 300,000 times took the judge minutes (16 MiB of
    it: hours), trying each skill against the rest of the line and the next one."""
    long = "Bosk: " + "(CS 65) " * 300_000
    assert anomalies_after(long) == [(5, "forged")]


def test_a_long_run_of_blanks_after_a_bracket_is_judged_not_for_hours() -> None:
    """A skill, then a bracket and a million blanks: the test for a skill cut at the line's
    end split the run between its two blank runs every way (the time in the square of the
    run: a 16 MiB line, days); the blanks are now one run, tried once."""
    long = "Bosk: A (CS 65) (" + " " * 1_000_000 + "x"
    assert anomalies_after(long) == [(5, "forged")]


def _cli(*args: str) -> Any:
    from click.testing import CliRunner

    from referee.cli.main import cli

    return CliRunner().invoke(cli, ["judge", *args])


def test_a_page_over_the_log_itself_is_refused_and_the_log_kept(tmp_path: Path) -> None:
    """`--html` naming the log (or a format file) wrote the page over it: the evidence lost."""
    log = tmp_path / "spar.log"
    log.write_bytes(EXAMPLE.read_bytes())
    fmt = tmp_path / "irc.toml"
    fmt.write_bytes((ROOT / "docs" / "examples" / "irc-dicebot.toml").read_bytes())
    for page, named in ((log, log), (tmp_path / "." / "spar.log", log), (fmt, fmt)):
        result = _cli(str(log), "--format-file", str(fmt), "--html", str(page))
        assert (result.exit_code, result.stdout) == (2, ""), result.output
        assert result.stderr == (
            f"error: --html {str(page)!r} is {str(named)!r}, a file the judge reads: "
            "give another path\n"
        )
    assert log.read_bytes() == EXAMPLE.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["irc.toml", "spar.log"]


@pytest.mark.parametrize(
    ("page", "why"),
    [("/dev/full", "No space left on device"), ("no-such-folder/out.html", "No such file")],
)
def test_a_page_that_cannot_be_written_is_exit_4_as_the_report(
    tmp_path: Path, page: str, why: str
) -> None:
    """The docs' exit status 4 is "the report cannot be written (a full disk)": a page on a
    full disk was 2, the status of bad input."""
    target = page if page.startswith("/") else str(tmp_path / page)
    result = _cli(str(EXAMPLE), "--html", target)
    assert (result.exit_code, result.stdout) == (4, ""), result.output
    assert result.stderr.startswith(f"error: cannot write {target!r}: {why}")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(("rolls", "said"), [(0, "0 attacks"), (1, "1 attack"), (2, "2 attacks")])
def test_the_verdict_counts_one_attack_in_the_singular(rolls: int, said: str) -> None:
    from referee.transcripts.render import verdict_line

    log = HEAD + "OnlineHost: Tarl rolled 1 100-sided die: 90\n" * min(rolls, 1)
    log += "OnlineHost: Rask rolled 1 100-sided die: 90\n" * max(rolls - 1, 0)
    case = judge_log(log)
    assert case.verdict.attacks == rolls
    assert verdict_line(case.verdict).endswith(f"; {said} counted; no anomaly")


def test_a_log_that_is_no_csv_read_as_csv_names_its_first_line() -> None:
    """`--format discord-csv` on a log with no CSV header said "line 0 is not in its
    shape: ''" (there is no line 0)."""
    from referee.errors import NotationError

    log = "\n" + EXAMPLE.read_text(encoding="utf-8")
    with pytest.raises(NotationError) as raised:
        judge_log(log, format="discord-csv")
    first = log.split("\n")[1][:80]
    assert f"fits 0 of 1 lines (line 2 is not in its shape: {first!r})" in str(raised.value)


def test_a_roll_quoted_before_the_host_says_it_is_forged_and_says_so() -> None:
    """A quote of a roll the host says only later is forged; its reason said that no host
    line of the log said it, and line 5 does."""
    case = judge_log(
        HEAD + "Bosk: > OnlineHost: Tarl rolled 1 100-sided die: 40\n"
        "OnlineHost: Tarl rolled 1 100-sided die: 40\n"
    )
    assert [(a.line, a.kind.value, a.reason) for a in case.verdict.anomalies] == [
        (4, "forged", "a quoted roll by 'Bosk' that no host line before it says")
    ]
    assert case.verdict.attacks == 1


@pytest.mark.parametrize("given", [(), ("Tarl=65", "Rask=60")], ids=["announced", "given"])
def test_a_fighter_whose_every_roll_is_forged_is_judged_not_refused(
    given: tuple[str, ...],
) -> None:
    """Rask types every roll of his: the cheat the judge is for. It was refused as bad input
    (`fighter 'Rask' never rolls ... no roll line does; check the spelling`, exit 2)."""
    log = (
        "Marcus: Spar between Tarl (CS 65) and Rask (CS 60)\n"
        "OnlineHost: Tarl rolled 1 100-sided die: 47\n"
        "Rask: OnlineHost: Rask rolled 1 100-sided die: 12\n"
        "OnlineHost: Tarl rolled 1 100-sided die: 40\n"
        "Rask: OnlineHost: Rask rolled 1 100-sided die: 3\n"
    )
    verdict = judge_log(log, given).verdict
    assert (verdict.winner, verdict.attacks) == (None, 0)
    assert [(a.line, a.kind.value, a.reason) for a in verdict.anomalies] == [
        (3, "forged", "a host line typed after the speaker's name 'Rask'"),
        (4, "out-of-turn", "Tarl already rolled initiative (round 1, 47); the first roll counts"),
        (5, "forged", "a host line typed after the speaker's name 'Rask'"),
    ]


def test_a_log_where_no_roll_line_counts_is_refused_saying_why() -> None:
    """With the host's key, an unsigned host line is forged (docs/judge.md): a log that
    signs none has no roll that counts, as a log whose dice bot the judge does not know.
    Both were refused as a fighter who never rolls, 'check the spelling of the name'."""
    from referee.errors import NotationError
    from referee.ledger.signatures import PrivateKey

    key = PrivateKey.from_text("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8").public.text
    with pytest.raises(NotationError) as unsigned:
        judge_log(HEAD, key=key)
    assert str(unsigned.value).startswith(
        "no roll line of the log counts: the first, line 2, is forged (no signature, though "
        "this log's host signs every line), and so is every other;"
    )
    with pytest.raises(NotationError) as unknown:
        judge_log(HEAD.replace("OnlineHost", "Dice Bot"))
    assert "(posted by 'Dice Bot', not by OnlineHost)" in str(unknown.value)
    assert str(unknown.value).endswith(
        "a dice bot the judge does not know is named with --host NAME, a log format with "
        "--format NAME"
    )


def test_a_name_in_no_roll_line_is_still_refused_as_misspelt() -> None:
    from referee.errors import NotationError

    with pytest.raises(NotationError, match="fighter 'Rusk' \\(given\\) never rolls in the log"):
        judge_log(HEAD, ["Tarl=65", "Rusk=60"])


WRAPPED_FORMATS = sorted(set(WRITERS) - {"discord-csv", "pidgin-html"})


@pytest.mark.parametrize("fmt", WRAPPED_FORMATS)
def test_a_log_wrapped_at_any_width_from_60_to_80_is_judged_as_itself(fmt: str) -> None:
    """docs/judge.md: wrapped at 72 columns or any width up to 80. At 57 to 77, as the
    format's line lengths fell, the announcement was cut inside its last skill (`... and
    PaKur (CS` then `70)`) and never joined: the log announced no spar; at 56 to 61 a roll
    cut into a line under 55 characters was not joined (a wrong-dice roll lost)."""
    for anomalies in (False, True):
        text = sample(fmt, anomalies)[0]
        truth = said(judge_log(text))
        for width in range(60, 81):
            wrapped, where = wrap(text, width)
            assert said(judge_log(wrapped), where) == truth, (anomalies, width)


def test_a_long_line_saying_rolled_does_not_swallow_the_next_irssi_line() -> None:
    """irssi's lines start with their time (`21:02 <@OnlineHost> ...`), which was taken for
    the faces of a roll cut short: the host's roll below a long line saying `rolled` was
    joined to it, the speaker's line became a forged host line and the roll was lost."""
    log = (
        "21:00 < Marcus> Spar between Tarl (CS 65) and PaKur (CS 70)\n"
        "21:01 <@OnlineHost> Tarl rolled 1 100-sided die: 42\n"
        "21:01 <@OnlineHost> PaKur rolled 1 100-sided die: 20\n"
        "21:02 < Marcus> Tarl rolled well there, what a fine throw that was\n"
        "21:02 <@OnlineHost> Tarl rolled 1 100-sided die: 51\n"
        "21:03 <@OnlineHost> PaKur rolled 1 100-sided die: 84\n"
    )
    verdict = judge_log(log).verdict
    assert verdict.notes == ()
    assert [(r.line, r.use.value) for r in verdict.rolls] == [
        (2, "initiative"), (3, "initiative"), (5, "attack"), (6, "attack")
    ]  # fmt: skip
    assert (verdict.anomalies, verdict.damage_dealt) == ((), {"Tarl": 4, "PaKur": 0})


SL_SPAR = (
    "[2026/11/29 21:03]  Marcus: Spar between Tarl Cabot (CS 65) and Pa-Kur (CS 70)\n"
    "[2026/11/29 21:03]  Gorean Meter: Tarl Cabot rolled 42\n"
    "[2026/11/29 21:03]  Gorean Meter: Pa-Kur rolled 20\n"
    "[2026/11/29 21:04]  Gorean Meter: Tarl Cabot rolled 1 100-sided\n"
    "die: 51\n"
    "[2026/11/29 21:04]  Gorean Meter: Pa-Kur rolled 84\n"
)


def test_a_second_life_log_with_a_roll_cut_by_a_wrap_is_read_as_second_life() -> None:
    """The rest of the cut roll, `die: 51`, reads as AOL speech (by `die`): the log, without
    an emote, fitted AOL's format by one line more and was read as AOL's, where the Gorean
    Meter is no host: every roll of the spar was called forged."""
    case = judge_log(SL_SPAR)
    verdict = case.verdict
    assert case.transcript.format.name == "second-life"
    assert verdict.anomalies == ()
    assert [(r.line, r.use.value, r.faces) for r in verdict.rolls] == [
        (2, "initiative", (42,)), (3, "initiative", (20,)), (4, "attack", (51,)),
        (6, "attack", (84,)),
    ]  # fmt: skip


def test_a_roll_cut_after_its_count_of_dice_is_joined_not_read_as_a_meter_roll() -> None:
    """`... rolled 2` then `20-sided dice: 14 17`: the cut line is a meter's roll of 2 (one
    d100), and nothing else in the log was cut, so it was never joined: a wrong-dice roll
    counted as an attack."""
    log = SL_SPAR.replace("rolled 1 100-sided\ndie: 51", "rolled 2\n20-sided dice: 14 17")
    verdict = judge_log(log).verdict
    assert [(a.line, a.kind.value, a.reason) for a in verdict.anomalies] == [
        (4, "wrong-dice", "Tarl Cabot rolled 2d20; MSV rolls one 100-sided die (MSV-1)"),
        (6, "out-of-turn", "it is Tarl Cabot's turn"),
    ]
    assert verdict.attacks == 0


@pytest.mark.parametrize(
    ("line", "total"),
    [
        ("[21:02] <DiceBot> Tarl rolls 1d100: [47] = 99", "its total 99 is not 47"),
        ("[21:02] <DiceBot> Tarl rolls 1d100+5: [47] = 47", "its total 47 is not 52"),
        ("[21:02] <Rask> Tarl Roll: [47] Result: 74", "its total 74 is not 47"),
    ],
    ids=["dicebot", "dicebot-modifier", "maiden-simple"],
)
def test_a_bot_line_whose_total_is_not_its_faces_is_a_broken_host_line(
    line: str, total: str
) -> None:
    """A bot writes the sum of the faces it rolled: `[47] = 99` is no line of its (a roll
    changed by hand, an impostor's), and it was read as a genuine 47."""
    head = "[21:01] <Marcus> Spar between Tarl (CS 65) and Rask (CS 60)\n"
    host = line.replace("<Rask>", "<DiceBot>")
    log = f"{head}[21:02] <DiceBot> Tarl rolls 1d100: [12] = 12\n{host}\n"
    log += "[21:03] <DiceBot> Rask rolls 1d100: [30] = 30\n"
    verdict = judge_log(log, hosts=["DiceBot"]).verdict
    assert [(a.line, a.kind.value) for a in verdict.anomalies] == [(3, "forged")]
    assert verdict.anomalies[0].reason.startswith("a broken host line (")
    assert f"{total}, its faces' sum)" in verdict.anomalies[0].reason
    assert [(r.line, r.use.value) for r in verdict.rolls] == [(2, "initiative"), (4, "initiative")]


_OPTIONAL_AUTHOR = """[[format]]
name = "opt-author"
title = "an author that may be left out"
example = "Tarl: hi"
hosts = ["OnlineHost"]
speech = '(?:(?P<author>[A-Za-z]+): )?(?P<text>.*)'
"""
_OPTIONAL_HEADER = """[[format]]
name = "opt-header"
title = "a header whose author may be left out"
container = "blocks"
example = "== Tarl\\nhi"
hosts = ["OnlineHost"]
header = '== (?:(?P<author>[A-Za-z]+))?(?P<stamp>x)?'
"""
_OPTIONAL_NAME = """[[roll]]
name = "opt-name"
title = "a roller that may be left out"
example = "Tarl throws 47"
words = ["throws"]
find = 'throws \\d+'
read = '(?:(?P<name>[A-Za-z]+) )?throws (?P<faces>\\d+)'
"""


@pytest.mark.parametrize(
    ("toml", "log", "reason"),
    [
        (
            _OPTIONAL_AUTHOR,
            "Marcus: Spar between Tarl (CS 65) and Rask (CS 60)\n"
            "OnlineHost: Tarl rolled 1 100-sided die: 47\n"
            "OnlineHost: Rask rolled 1 100-sided die: 12\n"
            "Tarl rolled 1 100-sided die: 99\n",
            "a roll line with no author",
        ),
        (
            _OPTIONAL_HEADER,
            "== Marcus\nSpar between Tarl (CS 65) and Rask (CS 60)\n== OnlineHost\n"
            "Tarl rolled 1 100-sided die: 47\nRask rolled 1 100-sided die: 12\n"
            "== \nTarl rolled 1 100-sided die: 99\n",
            "a roll line with no author",
        ),
        (
            _OPTIONAL_NAME,
            "Marcus: Spar between Tarl (CS 65) and Rask (CS 60)\n"
            "OnlineHost: Tarl throws 47\nOnlineHost: Rask throws 12\nOnlineHost: throws 99\n",
            "a broken host line (no roller in it (a roller that may be left out))",
        ),
    ],
    ids=["speech-author", "header-author", "roll-name"],
)
def test_a_format_file_group_that_takes_no_part_is_no_crash(
    toml: str, log: str, reason: str
) -> None:
    """A format file's `author` or `name` group may be optional: a line that leaves it out
    was an AttributeError (exit 3, 'a bug in referee'), and the service's 500."""
    from referee.transcripts.format_files import with_format_files

    formats = with_format_files([(toml, "opt.toml")])
    verdict = judge_log(log, formats=formats).verdict
    last = len(log.splitlines())
    assert [(a.line, a.kind.value, a.reason) for a in verdict.anomalies] == [
        (last, "forged", reason)
    ]


_LOOSE_NUMBERS = (
    '[[roll]]\nname = "loose"\ntitle = "a bot whose numbers a loose pattern takes"\n'
    'example = "Tarl throws 1d100: [47] = 47 (nonce 3)"\nwords = ["throws"]\n'
    "find = 'throws \\S+: \\['\n"
    "read = '(?P<name>[A-Za-z]+) throws (?P<count>\\S+)d(?P<sides>\\S+): "
    "\\[(?P<faces>[^\\]]+)\\] = (?P<total>\\S+) \\(nonce (?P<nonce>\\S+)\\)'\n"
)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("Tarl throws 1d100: [47] = 47! (nonce 3)", "its total '47!' is not a whole number"),
        ("Tarl throws xd100: [47] = 47 (nonce 3)", "its count 'x' is not a whole number"),
        ("Tarl throws 1d1e2: [47] = 47 (nonce 3)", "its sides '1e2' is not a whole number"),
        ("Tarl throws 1d100: [47] = 47 (nonce 3rd)", "its nonce '3rd' is not a whole number"),
        ("Tarl throws 1d100: [\u0664\u0667] = 47 (nonce 3)", "its faces '\u0664\u0667'"),
    ],
    ids=["total", "count", "sides", "nonce", "not-ascii-face"],
)
def test_a_format_files_number_that_is_not_one_is_no_crash(line: str, reason: str) -> None:
    """A format file's numeric group that takes more than digits (`(?P<total>\\S+)`) was
    `int()`'s ValueError: exit 3, 'a bug in referee', and the service's 500. Such a line is
    no roll its bot wrote: a broken host line, which says why."""
    from referee.transcripts.format_files import with_format_files

    formats = with_format_files([(_LOOSE_NUMBERS, "loose.toml")])
    log = (
        "Marcus: Spar between Tarl (CS 65) and Rask (CS 60)\n"
        "OnlineHost: Tarl throws 1d100: [47] = 47 (nonce 1)\n"
        "OnlineHost: Rask throws 1d100: [12] = 12 (nonce 2)\n"
        f"OnlineHost: {line}\n"
    )
    verdict = judge_log(log, formats=formats).verdict
    [anomaly] = verdict.anomalies
    assert (anomaly.line, anomaly.kind.value) == (4, "forged")
    assert anomaly.reason.startswith(f"a broken host line ({reason}"), anomaly.reason


def test_the_console_judge_holds_a_log_to_its_own_key_only_when_the_log_signs(
    web: LiveServer,  # noqa: F811
) -> None:
    """`POST /api/judge` with no key checks a log's signed lines by the server's own key. It
    took `sig:` anywhere in the log for signed lines: a player's `my sig: ...` in chat held
    every host line to the key, each then forged for want of a signature."""
    from referee.ledger.signatures import PrivateKey

    text = EXAMPLE.read_text(encoding="utf-8")
    plain = web.post("/api/judge", json={"log": text}).json()
    chat = text + "[2026/11/29 21:09]  Bosk Trader: my forum sig: 'Tal!'\n"
    typed = web.post("/api/judge", json={"log": chat})
    assert typed.status_code == 200, typed.text
    assert (typed.json()["anomalies"], typed.json()["verdict"]) == (
        plain["anomalies"],
        plain["verdict"],
    )
    # a log that signs is still held to the server's own key (here: another key's lines)
    other = PrivateKey.from_text("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
    roll = {"dice": ["d100"], "faces": [47], "nonce": 0, "stream": "act:Tarl"}
    line = f"Tarl rolled 1 100-sided die: 47 (nonce 0) {other.sign_roll('b1', 'Tarl', roll)}"
    signed = HEAD.replace("OnlineHost: Tarl rolled 1 100-sided die: 47", f"OnlineHost: {line}")
    refused = web.post("/api/judge", json={"log": signed})  # so no roll line counts
    assert refused.status_code == 400, refused.text
    assert "line 2, is forged (signed by another key" in refused.json()["message"]


def test_an_aol_host_line_without_its_space_is_no_host_line_in_a_log() -> None:
    """docs/judge.md and `referee.aol.HOST_PREFIX`: `OnlineHost:Tarl rolled ...` is no host
    line. `read_roll` refused it alone, but in a log AOL's speech took `OnlineHost` for the
    speaker and the roll counted."""
    case = judge_log(HEAD + "OnlineHost:Tarl rolled 1 100-sided die: 90\n")
    assert [(a.line, a.kind.value) for a in case.verdict.anomalies] == [(4, "forged")]
    assert case.verdict.attacks == 0
    tab = judge_log(HEAD + "OnlineHost:\tTarl rolled 1 100-sided die: 90\n")  # AOL's own tab
    assert (tab.verdict.anomalies, tab.verdict.attacks) == ((), 1)


def test_one_line_joined_back_is_said_in_the_singular() -> None:
    notes = judge_log(SL_SPAR).verdict.notes
    assert notes == ("1 line hard-wrapped at 72 columns was joined to the line before",)
