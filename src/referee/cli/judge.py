"""`referee judge LOG`: decide an MSV spar from its chat log and flag every roll that cheats."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable
from typing import Any

import click

from referee.cli.failures import Words, as_referee_errors
from referee.cli.files import write_whole
from referee.errors import (
    FormatFileError,
    NotFoundError,
    RefereeError,
    VerificationError,
)
from referee.transcripts.columns import anomaly_columns
from referee.transcripts.decoding import MAX_LOG_BYTES
from referee.transcripts.verdict import Anomaly


def read_log(path: str) -> bytes:
    """The bytes of a log file (`-`: stdin), at most MAX_LOG_BYTES + 1 of them.

    >>> read_log("/nonexistent/spar.log")
    Traceback (most recent call last):
    ...
    referee.errors.NotFoundError: cannot read '/nonexistent/spar.log': No such file or directory
    """
    try:
        if path == "-":
            return sys.stdin.buffer.read(MAX_LOG_BYTES + 1)
        with open(path, "rb") as handle:
            return handle.read(MAX_LOG_BYTES + 1)
    except OSError as err:
        raise NotFoundError(f"cannot read {path!r}: {err.strerror or err}") from None


def read_format_file(path: str) -> tuple[str, str]:
    """A format file's text and its name for messages (UTF-8, at most `MAX_FORMAT_FILE`)."""
    from referee.transcripts.format_files import MAX_FORMAT_FILE

    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FORMAT_FILE + 1)
    except OSError as err:
        raise NotFoundError(f"cannot read format file {path!r}: {err.strerror or err}") from None
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), path
    except UnicodeDecodeError as err:
        raise FormatFileError(f"format file {path!r} is not UTF-8 text ({err.reason})") from None


@click.command("judge")
@click.argument("log", metavar="LOG")
@click.option(
    "--fighter",
    "fighters",
    multiple=True,
    metavar="NAME=CS",
    help="A fighter and their CS (twice or more; NAME=2dN converts old dice). Default: the "
    "log's announcement 'Spar between A (CS 65) and B (CS 70)'.",
)
@click.option(
    "--side",
    "sides",
    multiple=True,
    metavar="NAME=SIDE",
    help="Put a fighter on a side (teams); default: the announcement's, else its own.",
)
@click.option(
    "--host",
    "hosts",
    multiple=True,
    metavar="NAME",
    help="Trust one more dice bot or object to roll (besides the format's own).",
)
@click.option(
    "--format",
    "log_format",
    metavar="FORMAT",
    help="Read the log in this format (default: the one its lines fit; see docs/judge.md).",
)
@click.option(
    "--format-file",
    "format_paths",
    multiple=True,
    metavar="FORMAT.toml",
    help="Read logs in the chat formats and dice bots' roll lines this file declares too "
    "(repeatable; tried before the built-in ones; see docs/judge.md, 'Format files').",
)
@click.option("--rules", "rules_path", metavar="PACK.toml", help="A rule pack (default MSV-1..10).")
@click.option(
    "--export",
    "export_path",
    metavar="BOUT.json",
    help="The bout's export: check every receipt against its ledger and report missing rolls.",
)
@click.option(
    "--key",
    "key_given",
    metavar="KEY",
    help="The service's public key (its text, or a file: the key, PEM, GET /api/signing-key's "
    "answer or an export): check every signed roll line by it (default: the export's).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
@click.option("--html", "html_path", metavar="OUT.html", help="Also write a self-contained page.")
def judge_command(**given: Any) -> None:
    """Decide an MSV spar from its chat log (LOG, or - for stdin), flagging every roll line
    that does not count: forged (posted by anyone but the dice bot, or a receipt reused),
    wrong-dice, not-a-fighter, out-of-turn, no-target (and with --export, where the verdict
    is the ledger's, receipts it does not hold and rolls the log is missing).

    Exit status: 0 when every roll line counts, 1 when some do not (after the report,
    with the first of them on stderr), 2 when the log (or a file given) cannot be judged,
    3 on a bug in the judge, 4 when the report cannot be written, 130 when interrupted;
    each but 0 with one line on stderr.

    \b
    Examples:
      referee judge spar.log
      referee judge spar.log --fighter "Tarl Cabot=65" --fighter PaKur=70 --json
      referee judge spar.log --export bout-b1.json --html verdict.html
      referee judge group.log --side Tarl=Ar --side Rask=Ar --host "Dice Bot"
      referee judge channel.log --format-file irc-dicebot.toml
      referee judge discord.txt --key A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg
    """
    as_referee_errors(lambda: _judge(**given), JUDGE_WORDS)  # the options, by name


#: How the judge says what went wrong (`referee.cli.failures`).
JUDGE_WORDS = Words(
    output="the report",
    interrupted="interrupted: nothing more was judged",
    failed="internal error: the judge failed",
    report_with="the log",
)


def _judge(
    log: str,
    fighters: tuple[str, ...],
    sides: tuple[str, ...],
    hosts: tuple[str, ...],
    log_format: str | None,
    format_paths: tuple[str, ...],
    rules_path: str | None,
    export_path: str | None,
    key_given: str | None,
    as_json: bool,
    html_path: str | None,
) -> None:
    # what each option needs is loaded when it is given (the rule pack's reader, the export's,
    # the page, the JSON writer): a plain judge loads only the reader, the judge and the text
    from referee.systems.msv.rules import load_rules
    from referee.transcripts.format_files import with_format_files
    from referee.transcripts.judgement import judge_log
    from referee.transcripts.render import report_parts, verdict_line

    if html_path:  # the page written over a file judged would lose it (the log, most often)
        _not_an_input(html_path, (log, *format_paths, rules_path, export_path, key_given))
    rules = load_rules(rules_path) if rules_path else None
    export = _export(export_path) if export_path else None
    key = _key(key_given) if key_given is not None else None
    formats = (
        with_format_files([read_format_file(p) for p in format_paths]) if format_paths else None
    )
    try:
        case = judge_log(
            read_log(log), fighters, rules, export, hosts, sides, log_format, formats, key
        )
    except VerificationError as err:  # an export that does not verify is bad input (2), not 1
        raise RefereeError(str(err)) from None
    if html_path:
        from referee.transcripts.html_report import html_parts

        write_whole(html_path, html_parts(case, f"Judged spar: {os.path.basename(log)}"))
    if as_json:
        from referee.transcripts.json_report import json_parts

        _echo(json_parts(case.verdict))
    elif html_path:
        click.echo(verdict_line(case.verdict))
        click.echo(f"wrote {html_path}")
    else:
        _echo(report_parts(case))
    lines, whys = anomaly_columns(case.verdict.anomalies)  # the first made alone
    if lines:
        more = f" (+{len(lines) - 1} more)" if len(lines) > 1 else ""
        raise VerificationError(f"{_described(Anomaly(lines[0], *whys[0]))}{more}")


def _echo(parts: Iterable[str]) -> None:
    """A report on stdout a part at a time (some 1 MB each), then the line end. Click takes
    ANSI styles out of what does not go to a terminal: a part with no escape character has
    none, and is written as it is (`color=True`) rather than searched for them."""
    for part in parts:
        click.echo(part, nl=False, color=None if "\x1b" in part else True)
    click.echo()


def _key(given: str) -> str:
    from referee.cli.fairness import read_key_option

    return read_key_option(given)


def _export(path: str) -> Any:
    from referee.cli.ledger import read_export

    return read_export(path)


class _Alone(click.Group):
    """`referee` with only the judge in it, errors as `referee.cli.main` words them."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except RefereeError as err:
            click.echo(f"error: {err}", err=True)
            ctx.exit(err.exit_code)


def judge_alone() -> click.Group:
    """The `referee` group with only `judge` (the console script's quick start)."""
    group = _Alone(name="referee", context_settings={"help_option_names": ["-h", "--help"]})
    group.add_command(judge_command)
    return group


def _described(anomaly: Anomaly) -> str:
    return f"line {anomaly.line}: {anomaly.kind.value}: {anomaly.reason}"


def _not_an_input(path: str, inputs: Iterable[str | None]) -> None:
    """Refuse an `--html` path that is a file the judge reads (its page would replace it)."""
    for given in inputs:
        if given is None or given == "-":
            continue
        with contextlib.suppress(OSError):  # (a key given as text is no file)
            if os.path.samefile(path, given):
                raise RefereeError(
                    f"--html {path!r} is {given!r}, a file the judge reads: give another path"
                )
