"""`referee judge`: the text report, --json, --html, stdin, and one clear line for bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli.main import cli

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "pakur-stun.log"


def run(*args: str, stdin: bytes | None = None) -> Any:
    return CliRunner().invoke(cli, ["judge", *args], input=stdin)


def test_the_text_report_of_the_stun_chain() -> None:
    result = run(str(EXAMPLE))
    # Exit 1: some roll lines do not count; the first one is the error line on stderr.
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        "error: line 8: forged: a host line typed after the speaker's name 'Pa-Kur' (+1 more)\n"
    )
    lines = result.stdout.splitlines()
    assert lines[:7] == [
        "Verdict: Tarl wins: Tarl dealt 16, Pa-Kur dealt 0; 6 attacks counted; 2 anomalies",
        "Fighters: Tarl (CS 65), Pa-Kur (CS 70) (announced on line 1)",
        "Read as: second-life (Second Life viewer chat log (local chat, objects, /me)); rolls by "
        "OnlineHost or Gorean Meter",
        "Initiative: Tarl > Pa-Kur",
        "  line 8: forged: a host line typed after the speaker's name 'Pa-Kur'",
        "  line 9: out-of-turn: it is Tarl's free attack (MSV-4)",
        "",
    ]
    assert (
        lines[7]
        == " 1  [2026/11/29 21:03]  Proctor Marcus: Spar between Tarl (CS 65) and Pa-Kur (CS 70)"
    )
    assert "      = initiative round 1: 80 vs CS 70, effect 0 - Tarl acts first" in lines
    assert "      ! out-of-turn: it is Tarl's free attack (MSV-4)" in lines
    assert sum(1 for line in lines if re.match(r"^\s*\d+  ", line)) == 15


def test_json_from_stdin_with_fighters_given() -> None:
    result = run(
        "-",
        "--fighter",
        "Tarl=2d23",
        "--fighter",
        "Pa-Kur=70",
        "--json",
        stdin=EXAMPLE.read_bytes(),
    )
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert list(doc) == ["winner", "damage_dealt", "attacks", "anomalies", "rolls"]
    assert (doc["winner"], doc["damage_dealt"], doc["attacks"]) == (
        "Tarl",
        {"Tarl": 16, "Pa-Kur": 0},
        6,
    )
    assert [a["kind"] for a in doc["anomalies"]] == ["forged", "out-of-turn"]


def test_a_rule_pack_changes_the_verdict(tmp_path: Path) -> None:
    pack = tmp_path / "pack.toml"
    pack.write_text('critical_effect = "none"\ndefeat_threshold = 10\n', encoding="utf-8")
    doc = json.loads(run(str(EXAMPLE), "--rules", str(pack), "--json").stdout)
    # No free attacks: 60 hits 4, then Pa-Kur's 55 is his turn (4); Tarl's 50 -> 8, then
    # Tarl's further rolls are out of turn.
    assert (doc["winner"], doc["damage_dealt"], doc["attacks"]) == (
        None,
        {"Tarl": 8, "Pa-Kur": 4},
        3,
    )


def test_html_is_one_self_contained_page(tmp_path: Path) -> None:
    out = tmp_path / "verdict.html"
    result = run(str(EXAMPLE), "--html", str(out))
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines() == [
        "Verdict: Tarl wins: Tarl dealt 16, Pa-Kur dealt 0; 6 attacks counted; 2 anomalies",
        f"wrote {out}",
    ]
    page = out.read_text(encoding="utf-8")
    assert page.index("Verdict: Tarl wins") < page.index("<svg") < page.index("The log")
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)
    assert "<script" not in page and "<link" not in page
    assert page.count("<li class=anomaly id=l") == 2
    assert '<polyline fill="none" stroke="#1f5fbf"' in page
    assert "Pa-Kur: 0 dealt" in page and "Tarl: 16 dealt" in page


def test_a_page_that_fails_halfway_leaves_the_older_page_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from collections.abc import Iterator

    from referee.errors import InternalError
    from referee.transcripts import html_report

    def broken(*_: Any) -> Iterator[str]:
        yield "<!doctype html><title>half"
        raise RuntimeError("a bug halfway through the page")

    out = tmp_path / "verdict.html"
    out.write_text("the page of the last run", encoding="utf-8")
    monkeypatch.setattr(html_report, "html_parts", broken)
    result = run(str(EXAMPLE), "--html", str(out))
    assert result.exit_code == InternalError.exit_code, result.output
    assert "a bug halfway through the page" in result.output
    assert out.read_text(encoding="utf-8") == "the page of the last run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["verdict.html"]
    fresh = tmp_path / "new.html"
    run(str(EXAMPLE), "--html", str(fresh))
    assert not fresh.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["verdict.html"]


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        (b"", (), "error: the log is empty"),
        (b"Tarl: hi\r\nPa-Kur: hey\r\n", (), "error: the log has no roll lines"),
        (b"\x7fELF\x02\x01\x01\x00\x00\x00", (), "error: the log is not text (it has NUL bytes)"),
        (EXAMPLE.read_bytes(), ("--fighter", "Tarl"), "error: bad fighter 'Tarl'"),
        (
            EXAMPLE.read_bytes(),
            ("--fighter", "Tarl=65", "--fighter", "Rask=70"),
            "error: fighter 'Rask' (given) never rolls in the log",
        ),
        (EXAMPLE.read_bytes(), ("--rules", "/nonexistent.toml"), "error: cannot read rule pack"),
        (
            EXAMPLE.read_bytes(),
            ("--export", "/nonexistent.json"),
            "error: cannot read '/nonexistent.json'",
        ),
    ],
    ids=lambda v: repr(v)[:24],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, content: bytes, extra: tuple[str, ...], message: str
) -> None:
    log = tmp_path / "spar.log"
    log.write_bytes(content)
    result = run(str(log), *extra)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith(message), result.output


def test_a_50_mb_file_and_a_missing_one(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    with big.open("wb") as handle:
        line = b"OnlineHost: Tarl rolled 1 100-sided die: 47\r\n"
        handle.write(line * (50 * 1024 * 1024 // len(line)))
    result = run(str(big))
    assert (result.exit_code, result.output) == (
        2,
        "error: the log is larger than 16777216 bytes (at most 16 MiB)\n",
    )
    result = run(str(tmp_path / "nope.log"))
    assert result.exit_code == 2
    assert (
        result.output
        == f"error: cannot read '{tmp_path / 'nope.log'}': No such file or directory\n"
    )


def test_the_console_script_starts_the_judge_alone(tmp_path: Path) -> None:
    """`referee judge` loads neither the service nor the other commands (a quick start), and
    says the same as the full command group, errors included."""
    import subprocess
    import sys

    from referee.cli.judge import judge_alone

    # Judging a log loads neither the service nor the bout engine (the look-alike names need
    # `referee.bout.names` alone: `referee.bout` loads the rest when asked), nor
    # `importlib.resources` and `pathlib` (the built-in formats and rules are read with `open`).
    heavy = (
        "fastapi", "sqlalchemy", "rich", "numpy", "referee.service", "referee.store",
        "referee.cli.main", "referee.bout.engine", "referee.bout.fold", "referee.bout.runner",
        "importlib.resources", "pathlib",
    )  # fmt: skip
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print(sorted(m for m in {heavy!r} if m in sys.modules)))\n"
        f"from referee.cli import entry\nentry.main(['judge', {str(EXAMPLE)!r}])\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert loaded.stdout.strip().splitlines()[-1:] == ["[]"], (loaded.stdout, loaded.stderr)
    alone = CliRunner().invoke(judge_alone(), ["judge", str(EXAMPLE)])
    assert (alone.exit_code, alone.stdout, alone.stderr) == (
        run(str(EXAMPLE)).exit_code,
        run(str(EXAMPLE)).stdout,
        run(str(EXAMPLE)).stderr,
    )
    missing = CliRunner().invoke(judge_alone(), ["judge", str(tmp_path / "nope.log")])
    assert missing.exit_code == 2
    assert (
        missing.output
        == f"error: cannot read '{tmp_path / 'nope.log'}': No such file or directory\n"
    )


@pytest.mark.parametrize(
    ("raised", "code", "message"),
    [
        (
            IndexError("list index out of range"),
            3,
            "error: internal error: the judge failed (IndexError: list index out of range); "
            "this is a bug in referee, please report it with the log\n",
        ),
        (KeyboardInterrupt(), 130, "error: interrupted: nothing more was judged\n"),
        (BrokenPipeError(32, "Broken pipe"), 4, "error: cannot write the report: Broken pipe\n"),
    ],
    ids=["bug", "interrupted", "closed-pipe"],
)
def test_whatever_else_goes_wrong_is_one_line_with_its_own_code(
    monkeypatch: pytest.MonkeyPatch, raised: BaseException, code: int, message: str
) -> None:
    """Exit status 1 is only "some rolls do not count": a bug (3), a report that cannot be
    written (4) or an interruption (130) is one line on stderr, never a traceback."""
    from referee.cli.judge import judge_alone
    from referee.transcripts import judgement

    def fail(*args: object, **kwargs: object) -> None:
        raise raised

    monkeypatch.setattr(judgement, "judge_log", fail)
    for result in (run(str(EXAMPLE)), CliRunner().invoke(judge_alone(), ["judge", str(EXAMPLE)])):
        assert (result.exit_code, result.stdout, result.stderr) == (code, "", message)
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_terminal_styles_in_a_log_are_taken_out_of_a_report_not_on_a_terminal(
    tmp_path: Path,
) -> None:
    """Click takes ANSI styles out of what is not written to a terminal: the report of a log
    with some says its lines without them; a log with none is written as is."""
    from click import unstyle

    from referee.transcripts.judgement import judge_log
    from referee.transcripts.render import report_text

    styled = EXAMPLE.read_text(encoding="utf-8").replace("Tarl:", "\x1b[31mTarl\x1b[0m:", 1)
    for text in (styled, EXAMPLE.read_text(encoding="utf-8")):
        log = tmp_path / "spar.log"
        log.write_text(text, encoding="utf-8")
        report = report_text(judge_log(text))
        assert run(str(log)).stdout == unstyle(report) + "\n"
        assert ("\x1b[31m" in report) is (text == styled)
