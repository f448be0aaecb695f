"""benchmarks/bench_instructions.py's own parts, without valgrind (which CI does not install):
the count read from a callgrind output file, a file without one refused, and a machine without
valgrind told so (exit 0, since `make bench` runs every benchmark)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_instructions.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_instructions", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_count_is_the_totals_line_not_the_summary_written_while_off(
    bench: ModuleType, tmp_path: Path
) -> None:
    out = tmp_path / "side.callgrind"
    out.write_text(
        "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 0\n\nfn=(1) main\n"
        "16 42\n\ntotals: 893446068\n",
        encoding="utf-8",
    )
    assert bench.instructions(out) == 893_446_068


def test_a_file_that_counted_nothing_is_refused(bench: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "side.callgrind"
    out.write_text("events: Ir\nsummary: 0\ntotals: 0\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="no instructions counted in"):
        bench.instructions(out)


def test_without_valgrind_it_says_so_and_counts_nothing(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bench.shutil, "which", lambda name: None)
    monkeypatch.setattr(sys, "argv", ["bench_instructions.py", "--requests", "5"])
    bench.main()  # returns: exit status 0
    assert capsys.readouterr().out == (
        "bench_instructions: valgrind is not installed (Debian: apt-get install valgrind); "
        "nothing counted\n"
    )


def test_the_seeded_entropy_is_the_same_stream_on_every_run(bench: ModuleType) -> None:
    first, second = bench.Seeded(), bench.Seeded()
    assert [first(32) for _ in range(3)] == [second(32) for _ in range(3)]
    assert len({bench.Seeded()(32), first(32)}) == 2  # each draw is another
