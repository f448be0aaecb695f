"""`referee lab report`: one self-contained page with the pack's figures."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from click.testing import CliRunner

from referee.cli.main import cli
from referee.lab.battle import exact_battle
from referee.systems.msv.rules import rules_from_mapping


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.refs += [v or "" for k, v in attrs if k in ("src", "href")]


def test_report_is_self_contained_and_exact(tmp_path: Path) -> None:
    pack = tmp_path / "d12.toml"
    pack.write_text('damage = "min(5, ceil(roll / 12))"\n', encoding="utf-8")
    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["lab", "report", str(pack), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"wrote {out} (")
    page = out.read_text("utf-8")
    tags = Tags()
    tags.feed(page)
    assert tags.refs == [] and "script" not in tags.tags and "link" not in tags.tags
    assert tags.tags.count("svg") == 2
    assert "<code>damage</code></td><td>min(5, ceil(roll / 12))</td><td>-</td>" in page
    rules = rules_from_mapping({"damage": "min(5, ceil(roll / 12))"})
    tarl = exact_battle([("Tarl", 65)], [("Orc", 50), ("Orc", 50)], rules)
    assert f"<td>{tarl.p_first_side:.4f}</td><td>0.0503</td>" in page
    assert "<td>printed in the text</td><td>1.1</td>" in page  # the text's damage table
    assert "<title>CS 60 vs CS 65: 0.0065</title>" in page  # the change, as `lab duel` says
    assert re.search(r"<title>CS 60 vs CS 65: 0\.\d{3}</title>", page)


def test_report_to_an_unwritable_place_is_one_line(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "r.html"
    result = CliRunner().invoke(cli, ["lab", "report", "text", "-o", str(target)])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: cannot write report {str(target)!r}: No such file or directory\n"
    )
