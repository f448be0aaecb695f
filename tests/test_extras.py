"""Each extra of pyproject.toml brings what its command needs: `pip install 'referee[discord]'`
(README, docs/discord.md) is enough to start `referee discord`, and `referee[service]`
(docs/deploy.md) to start `referee serve`.

A fresh interpreter is given only the distributions the extra installs (its requirements and
theirs, read from the installed metadata): every other installed distribution's modules are
hidden from it, so an import the extra does not bring fails as it would after that install."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"

#: What each command imports before it starts serving (`referee.cli.serve`,
#: `referee.cli.discord`), done with a SQLite file in the test's directory.
STARTS = {
    "service": (
        "from referee.store import Store\n"
        "from referee.service.app import create_app\n"
        "import uvicorn, referee.service.connections\n"
        "create_app(Store.open(DB))\n"
    ),
    "discord": (
        "from referee.store import Store\n"
        "from referee.discord import build_bot\n"
        "from referee.discord.bot import check_prefix\n"
        "from referee.discord.proxy_owners import PluralKit\n"
        "import discord\n"
        "build_bot(Store.open(DB), prefix='~')\n"
    ),
}

#: Hides every top-level module of HIDDEN, as if its distribution were not installed.
HIDE = """
import importlib.abc, sys
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Hide())
"""


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def _project() -> dict[str, list[str]]:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    return {"": project["dependencies"], **project["optional-dependencies"]}


def installed_by(extra: str) -> set[str]:
    """The distributions `pip install 'referee[EXTRA]'` installs (normalized names)."""
    lists = _project()
    found = {"referee"}
    todo = [Requirement(text) for text in lists[""] + lists[extra]]
    while todo:
        req = todo.pop()
        if _name(req.name) == "referee":
            todo += [Requirement(text) for part in req.extras for text in lists[part]]
            continue
        if _name(req.name) in found:
            continue
        found.add(_name(req.name))
        for text in metadata.requires(req.name) or ():
            inner = Requirement(text)
            wanted = ["", *sorted(req.extras)]
            if inner.marker is None or any(inner.marker.evaluate({"extra": e}) for e in wanted):
                todo.append(inner)
    return found


def hidden_from(extra: str) -> set[str]:
    """The installed top-level modules that no distribution of the extra provides."""
    kept = installed_by(extra)
    return {
        module
        for module, dists in metadata.packages_distributions().items()
        if not any(_name(d) in kept for d in dists) and module not in sys.stdlib_module_names
    }


def test_the_extras_are_read_from_pyproject() -> None:
    service = installed_by("service")
    assert {"fastapi", "sqlalchemy", "psycopg", "psycopg-binary", "click"} <= service
    assert "discord-py" not in service and "fastapi" in hidden_from("plot")


@pytest.mark.parametrize("extra", sorted(STARTS))
def test_the_extra_brings_what_its_command_imports(extra: str, tmp_path: Path) -> None:
    code = f"HIDDEN = {sorted(hidden_from(extra))!r}\n{HIDE}DB = {str(tmp_path / 'x.db')!r}\n"
    started = subprocess.run(
        [sys.executable, "-c", code + STARTS[extra]], capture_output=True, text=True, timeout=120
    )
    assert started.returncode == 0, started.stderr[-2000:]
