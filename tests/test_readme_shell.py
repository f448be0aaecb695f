"""The README as a new user meets it: in a fresh shell after `make run`, whose PATH lacks
`.venv/bin`, its console examples run as written once the README's own line puts `referee`
on PATH, and its curl to the service answers as it shows (the service on 127.0.0.1, a free
port); every `referee ...` it names in a sentence is a command line the CLI accepts; every HUD
command it gives (`/7 ...`) reads in the chat grammar against the README's fighters. Whatever
runs writes only into tmp_path."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from referee.chat import Roster, parse_line
from referee.cli.judge import judge_alone
from referee.cli.main import cli
from tests.test_readme import examples

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: The README's line that puts `referee` on PATH, in a `sh` block of its own.
ACTIVATE = re.compile(r"^(\. \.venv/bin/activate)\b", re.M)
#: `referee ...` in a sentence's inline code (it may wrap onto the next line).
INLINE = re.compile(r"`(referee(?:\s[^`]+)?)`")
FENCED = re.compile(r"^```.*?^```", re.M | re.S)
#: The venv the tests run from: `make test`'s is the clone's `.venv`.
VENV = Path(sys.prefix)
MARK = "@@@ example"


def activate_line() -> str:
    found = ACTIVATE.findall(README.read_text(encoding="utf-8"))
    assert len(found) == 1, "the README says once how to put referee on PATH"
    return str(found[0])


def fresh_path() -> str:
    """PATH without `.venv/bin` and without any directory that holds a `referee` command."""
    kept = []
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        where = Path(entry)
        in_a_venv = where.name == "bin" and where.parent.name.startswith(".venv")
        if not entry or in_a_venv or (where / "referee").exists():
            continue
        if where.resolve() != (VENV / "bin").resolve():
            kept.append(entry)
    return os.pathsep.join(kept)


def fresh_shell(script: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`script` in `sh` with a new user's environment, in `home`, bounded in time.

    PYTHONPATH names this checkout's `src`, so that `referee` runs the code under test
    whichever venv runs the tests (`make test`'s editable install points there anyway)."""
    return subprocess.run(
        ["sh", "-c", script], cwd=home, env=fresh_env(home), capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def fresh_env(home: Path) -> dict[str, str]:
    """A new user's environment, with `home` for their home (see `fresh_shell`)."""
    return {
        "PATH": fresh_path(),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "TMPDIR": str(home),
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": str(ROOT / "src"),
        "PYTHONUNBUFFERED": "1",  # stdout and stderr in the order a terminal shows them
    }


def clone_in(tmp_path: Path) -> Path:
    """A working directory that reads like the clone (the example files the README names)
    but where anything written lands in tmp_path."""
    home = tmp_path / "clone"
    home.mkdir()
    (home / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    (home / "docs").symlink_to(ROOT / "docs", target_is_directory=True)
    venv = home / ".venv"
    venv.symlink_to(VENV, target_is_directory=True)  # `make run` made it
    return home


def same(shown: str, expected: str) -> bool:
    if "..." in expected:
        pattern = ".*".join(re.escape(part) for part in expected.split("..."))
        return re.fullmatch(pattern, shown, re.S) is not None
    return shown == expected


def test_the_readme_examples_run_in_a_fresh_shell_after_its_own_line(tmp_path: Path) -> None:
    if not (VENV / "bin" / "activate").exists() or not (VENV / "bin" / "referee").exists():
        pytest.skip(f"the tests do not run from a venv with referee installed ({VENV})")
    home = clone_in(tmp_path)
    before = fresh_shell("referee --version", home)
    assert before.returncode == 127 and "referee" in before.stderr  # command not found
    listed = examples()
    assert len(listed) == 15
    script = "\n".join(
        [activate_line(), *(f'echo "{MARK} {i}"\n{command} 2>&1' for i, (command, _) in
                            enumerate(listed))]
    )  # fmt: skip
    done = fresh_shell(script, home)
    assert done.stderr == ""
    shown = done.stdout.split(f"{MARK} ")[1:]
    assert len(shown) == len(listed)
    for part, (command, expected) in zip(shown, listed, strict=True):
        output = part.split("\n", 1)[1].rstrip("\n")
        assert same(output, expected), (command, output)


def inline_commands() -> list[str]:
    text = FENCED.sub("", README.read_text(encoding="utf-8"))
    return sorted({" ".join(found.split()) for found in INLINE.findall(text)})


def test_the_readme_names_its_commands_in_sentences() -> None:
    assert "referee judge bout.log --export bout.json" in inline_commands()


@pytest.mark.parametrize("line", inline_commands())
def test_every_referee_command_in_a_readme_sentence_is_one_the_cli_takes(line: str) -> None:
    words = shlex.split(line)[1:]
    words = words[: next((i for i, w in enumerate(words) if w in (">", "|", "#")), len(words))]
    command: click.Command = judge_alone() if words[:1] == ["judge"] else cli
    name = "referee"
    while isinstance(command, click.Group) and words:
        found = command.get_command(click.Context(command), words[0])
        assert found is not None, (line, words[0])
        command, name, words = found, words[0], words[1:]
    if isinstance(command, click.Group) or not words:
        return  # a command named, not a command line (`referee judge`, `referee lab`)
    command.make_context(name, words)  # a missing argument or unknown option raises here


def test_every_hud_command_in_the_readme_reads_against_its_fighters() -> None:
    lines = re.findall(r"`/7 ([^`]+)`", README.read_text(encoding="utf-8"))
    assert "attack Pa-Kur" in lines
    for line in lines:
        parse_line(line, Roster(names=("Tarl", "Pa-Kur")))


#: The README's request to the service `make run` started, and what it says comes back.
CURL = re.compile(r"```sh\n(curl [^\n]*\\\n[^\n]*)\n# -> (\{[^\n]*\})\n```")


def test_the_readmes_request_to_the_service_answers_as_it_says(tmp_path: Path) -> None:
    """`make run` in one terminal (here `referee serve` on 127.0.0.1, any free port, a database
    in tmp_path), the README's curl in a fresh one: the answer has the keys the README shows,
    and the values it gives (`...`: any)."""
    if shutil.which("curl") is None:
        pytest.skip("no curl here")
    if not (VENV / "bin" / "activate").exists() or not (VENV / "bin" / "referee").exists():
        pytest.skip(f"the tests do not run from a venv with referee installed ({VENV})")
    found = CURL.search(README.read_text(encoding="utf-8"))
    assert found is not None
    request, shown = found.groups()
    assert "localhost:8000" in request
    home = clone_in(tmp_path)
    serve = f"{activate_line()}\nexec referee serve --host 127.0.0.1 --port 0 --db bouts.db"
    server = subprocess.Popen(
        ["sh", "-c", serve], cwd=home, env=fresh_env(home), stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        server.stdout.readline()  # referee database: ...
        serving = server.stdout.readline()
        port = re.search(r"http://127\.0\.0\.1:(\d+)/", serving)
        assert port is not None, serving
        asked = request.replace("localhost:8000", f"127.0.0.1:{port.group(1)}")
        done = fresh_shell(asked, home)
    finally:
        server.terminate()
        server.communicate(timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    answer, expected = json.loads(done.stdout), json.loads(shown)
    assert list(answer) == list(expected)  # the keys, in order
    assert {k: v for k, v in answer.items() if expected[k] != "..."} == {
        k: v for k, v in expected.items() if v != "..."
    }
