"""`referee judge` from the shell: what a plain judge loads, and its writers.

The text report, `--json` and the page are written from the verdict's columns and the file's
own lines (`referee.transcripts.render`, `json_report`, `html_report`); each is held here to a
plain reference that makes every `LogLine`, `Reading` and `Anomaly` and writes them one by
one (the writers as they were), on every sample log and on verdicts kept as tuples. No timing:
`benchmarks/bench_judge.py` measures the speed.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from html import escape, unescape
from itertools import pairwise
from pathlib import Path

import pytest

from referee.sentences import order_text
from referee.systems.msv.rules import rules_from_mapping
from referee.transcripts import Judgement, Use, judge_log
from referee.transcripts.html_report import HEIGHT, MARGIN, POINTS, WIDTH, html_page, html_parts
from referee.transcripts.json_report import json_parts, json_text
from referee.transcripts.render import (
    fighters_line,
    format_line,
    report_parts,
    report_text,
    verdict_line,
)

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "tests" / "data" / "judge" / "formats").glob("*.log"))
EXAMPLE = ROOT / "docs" / "examples" / "pakur-stun.log"
THREE_LINES = (
    "[21:00] Judge: Spar between Tarl Cabot (CS 65) and PaKur (CS 70)\n"
    "[21:01] OnlineHost: Tarl Cabot rolled 1 100-sided die: 47\n"
    "[21:02] OnlineHost: PaKur rolled 1 100-sided die: 80\n"
)

#: What a plain `referee judge LOG` must not load: the ledger, the event payloads, the dice
#: grammar and sources, the bout engine, the service, the lab's numpy, rich; the formula
#: language of rule packs, the readers of CSV and HTML logs, exact fractions; nor the writers
#: of the options not given (and the standard library's `json` and `html` they use).
HEAVY = (
    "referee.ledger",
    "referee.payloads",
    "referee.dice",
    "referee.rng",
    "referee.bout.engine",
    "referee.systems.base",
    "referee.service",
    "referee.store",
    "referee.transcripts.html_report",
    "referee.transcripts.json_report",
    "referee.systems.formula",
    "csv",
    "html",
    "json",
    "fractions",
    "numpy",
    "rich",
    "rich.console",
    "fastapi",
    "sqlalchemy",
)


def loaded(code: str) -> list[str]:
    """The heavy modules loaded once `code` has run in a fresh interpreter."""
    probe = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
        f"{code}\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip(), done.stderr
    found: list[str] = json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))
    return found


def test_loading_the_judge_loads_nothing_heavy() -> None:
    assert loaded("import referee.cli.judge, referee.transcripts") == []


@pytest.mark.parametrize(
    ("options", "allowed"),
    [
        ((), ()),
        (("--json",), ("json", "referee.transcripts.json_report")),
        (("--html", "{out}"), ("html", "referee.transcripts.html_report")),
    ],
    ids=["text", "json", "html"],
)
def test_a_plain_judge_loads_only_what_its_options_need(
    tmp_path: Path, options: tuple[str, ...], allowed: tuple[str, ...]
) -> None:
    log = tmp_path / "three.log"
    log.write_text(THREE_LINES, encoding="utf-8")
    args = ["judge", str(log), *(o.format(out=tmp_path / "page.html") for o in options)]
    code = f"from referee.cli.entry import main\nmain({args!r})"
    assert loaded(code) == sorted(allowed)


def cases() -> list[Judgement]:
    """Judged logs of every sample format (clean and with every anomaly kind), the stun chain,
    and a long seeded spar with strangers, wrong dice, typed host lines and receipts."""
    judged = [judge_log(path.read_bytes()) for path in SAMPLES]
    judged.append(judge_log(EXAMPLE.read_bytes()))
    rng = random.Random(46)
    lines = ["[20:59] Judge: Spar between Tarl Cabot (CS 1) and Pa-Kür “the Assassin” (CS 1)"]
    names = ("Tarl Cabot", "Pa-Kür “the Assassin”")
    for number in range(1, 3000):
        stamp = f"[21:{number // 60 % 60:02}:{number % 60:02}] "
        pick = rng.random()
        if pick < 0.4:
            lines.append(f'{stamp}{rng.choice(names)}: *circles* <b>&amp;</b> "quoted" \\ tab\t')
        elif pick < 0.85:
            face = rng.randint(1, 100)
            nonce = f" (nonce {number})" if rng.random() < 0.2 else ""
            lines.append(
                f"{stamp}OnlineHost: {names[number % 2]} rolled 1 100-sided die: {face}{nonce}"
            )
        elif pick < 0.9:
            lines.append(f"{stamp}OnlineHost: Bosk rolled 1 100-sided die: {rng.randint(1, 100)}")
        elif pick < 0.95:
            lines.append(f"{stamp}OnlineHost: Pa-Kür “the Assassin” rolled 2 20-sided dice: 14 17")
        else:
            lines.append(f"{stamp}Tarl Cabot: OnlineHost: Tarl Cabot rolled 1 100-sided die: 100")
    judged.append(judge_log("\r\n".join(lines) + "\r\n"))
    # the same verdicts kept as tuples (as a caller may build one), not as columns
    judged += [
        replace(
            case,
            verdict=replace(
                case.verdict,
                rolls=tuple(case.verdict.rolls),
                anomalies=tuple(case.verdict.anomalies),
            ),
        )
        for case in judged[-2:]
    ]
    return judged


CASES = cases()


def reference_notes(case: Judgement) -> dict[int, list[str]]:
    notes: dict[int, list[str]] = defaultdict(list)
    for reading in case.verdict.rolls:
        if reading.use is Use.FREE_ATTACK:
            notes[reading.line].append(f"= free attack (MSV-4): {reading.text}")
        elif reading.use is not Use.ANOMALY:
            notes[reading.line].append(f"= {reading.text}")
    for anomaly in case.verdict.anomalies:
        notes[anomaly.line].append(f"! {anomaly.kind.value}: {anomaly.reason}")
    return notes


def reference_text(case: Judgement) -> str:
    verdict = case.verdict
    out = [verdict_line(verdict), fighters_line(case), format_line(case)]
    if verdict.order:
        out.append(order_text(verdict.order))
    out += [f"Note: {note}" for note in verdict.notes]
    out += [f"  line {a.line}: {a.kind.value}: {a.reason}" for a in verdict.anomalies]
    out.append("")
    notes = reference_notes(case)
    width = len(str(len(case.lines)))
    for line in case.lines:
        out.append(f"{line.number:>{width}}  {line.text}")
        out += [f"{'':>{width}}    {note}" for note in notes.get(line.number, ())]
    return "\n".join(out)


def reference_items(case: Judgement) -> str:
    notes = reference_notes(case)
    bad = {a.line for a in case.verdict.anomalies}
    items = []
    for line in case.lines:
        kind = "anomaly" if line.number in bad else "roll" if line.is_roll else ""
        start = f"<li class={kind} id=l{line.number}>" if kind else f"<li id=l{line.number}>"
        said = [escape(line.text, quote=False)]
        for note in notes.get(line.number, []):
            cls = "bad" if note.startswith("!") else "note"
            said.append(f"<p class={cls}>{escape(note, quote=False)}")
        items.append(start + "".join(said))
    return "\n".join(items)


def reference_anomaly_list(case: Judgement) -> str:
    """One item for each reason, the first found first, with a link to each of its lines."""
    lines: dict[tuple[str, str], list[int]] = {}
    for anomaly in sorted(case.verdict.anomalies, key=lambda a: a.line):
        lines.setdefault((anomaly.kind.value, anomaly.reason), []).append(anomaly.line)
    items = []
    for (kind, reason), numbers in lines.items():
        count = f"{len(numbers):,} lines: " if len(numbers) > 1 else "line "
        links = " ".join(f"<a href=#l{n}>{n}</a>" for n in numbers)
        items.append(f"<li><strong>{escape(kind)}</strong>: {escape(reason)} ({count}{links})")
    return f'<ul class="anomalies">{"".join(items)}</ul>' if items else "<p>No anomaly.</p>"


@pytest.mark.parametrize("case", CASES)
def test_the_text_report_is_the_log_annotated_line_by_line(case: Judgement) -> None:
    assert report_text(case) == reference_text(case)


@pytest.mark.parametrize("case", CASES)
def test_json_is_exactly_the_verdicts_document_indented(case: Judgement) -> None:
    expected = json.dumps(case.verdict.to_json(), indent=2, ensure_ascii=False)
    assert json_text(case.verdict) == expected


@pytest.mark.parametrize("case", CASES)
def test_the_page_shows_every_line_and_its_notes_in_its_item(case: Judgement) -> None:
    page = html_page(case, "Judged <spar>")
    assert f">{reference_items(case)}</ol>" in page
    assert f"<h2>Anomalies</h2>{reference_anomaly_list(case)}<h2>" in page


def test_the_pages_anomalies_are_one_item_for_each_reason_linked_to_every_line() -> None:
    case = judge_log(
        "OnlineHost: A rolled 1 100-sided die: 90\n"
        "OnlineHost: Bosk rolled 1 100-sided die: 5\n"
        "OnlineHost: B rolled 1 100-sided die: 30\n"
        "OnlineHost: Bosk rolled 1 100-sided die: 7\n"
        "B: OnlineHost: B rolled 1 100-sided die: 100\n"
        "OnlineHost: Bosk rolled 1 100-sided die: 9\n",
        ["A=50", "B=50"],
    )
    page = html_page(case)
    bosk = (
        "<li><strong>not-a-fighter</strong>: Bosk is not in the spar (A and B) "
        "(3 lines: <a href=#l2>2</a> <a href=#l4>4</a> <a href=#l6>6</a>)"
    )
    typed = (
        "<li><strong>forged</strong>: a host line typed after the speaker&#x27;s name "
        "&#x27;B&#x27; (line <a href=#l5>5</a>)"
    )
    assert f'<ul class="anomalies">{bosk}{typed}</ul>' in page
    for line in (2, 4, 5, 6):  # each link's target is its line's row
        assert f"<li class=anomaly id=l{line}>" in page


def test_a_verdict_with_no_roll_and_no_anomaly_is_indented_alike() -> None:
    verdict = replace(CASES[0].verdict, rolls=(), anomalies=())
    expected = json.dumps(verdict.to_json(), indent=2, ensure_ascii=False)
    assert json_text(verdict) == expected
    assert '"anomalies": [],\n  "rolls": []\n}' in expected


@pytest.mark.parametrize("case", [CASES[0], *CASES[-3:]])
def test_the_writers_parts_of_any_size_join_to_the_same_report(case: Judgement) -> None:
    """`referee judge` writes each report a part at a time: parts of any number of lines (or
    entries), one, a few, all the log's lines but one, all of them, join to the whole."""
    count = len(case.transcript.raw)
    expected = json.dumps(case.verdict.to_json(), indent=2, ensure_ascii=False)
    page = html_page(case, "Judged <spar>")
    for size in sorted({1, 7, max(1, count - 1), count, count + 1}):
        text = list(report_parts(case, size))
        assert "".join(text) == reference_text(case)
        assert len(text) == 1 + -(-count // size)  # the head, then the parts of the log
        assert all(part.endswith("\n") for part in text[:-1])
        assert "".join(json_parts(case.verdict, size)) == expected
        assert "".join(html_parts(case, "Judged <spar>", size)) == page


def exact_totals(case: Judgement) -> dict[str, list[int]]:
    """Each fighter's damage dealt after each counted attack (0 first), from its `Reading`s."""
    totals = {f.name: [0] for f in case.verdict.fighters}
    for reading in case.verdict.rolls:
        if reading.use in (Use.ATTACK, Use.FREE_ATTACK):
            for name, line in totals.items():
                line.append(line[-1] + (reading.damage if reading.name == name else 0))
    return totals


def chart_lines(page: str) -> dict[str, list[tuple[float, float]]]:
    """Each fighter's drawn points, read back from the page's SVG."""
    drawn = re.findall(r'<polyline [^>]*points="([^"]*)"><title>([^<]*)</title>', page)
    return {
        unescape(name): [(float(x), float(y)) for x, y in (p.split(",") for p in points.split())]
        for points, name in drawn
    }


def step_points(xs: list[float], heights: list[float]) -> list[tuple[float, float]]:
    """A step line through every total: across at the height before, then up; then without
    the points that lie on the segment between their neighbours (the same line drawn)."""
    points = [(xs[0], heights[0])]
    for x, before, after in zip(xs[1:], heights, heights[1:], strict=False):
        points += [(x, before), (x, after)]
    kept: list[tuple[float, float]] = []
    for point in points:
        if kept and kept[-1] == point:
            continue
        if len(kept) >= 2 and any(kept[-2][k] == kept[-1][k] == point[k] for k in (0, 1)):
            kept.pop()  # the one before is on the way from the one before it to this one
        kept.append(point)
    return kept


def height_at(points: list[tuple[float, float]], x: float) -> float:
    """The height a drawn step line reaches at `x` (after any climb there)."""
    return [py for px, py in points if px <= x][-1]


def chart_scale(case: Judgement) -> tuple[Callable[[float], float], Callable[[float], float]]:
    totals = exact_totals(case)
    steps = max(1, case.verdict.attacks)
    top = max([case.verdict.threshold, *(t[-1] for t in totals.values())])
    return (
        lambda i: round(MARGIN + (WIDTH - 2 * MARGIN) * i / steps, 1),
        lambda v: round(HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * v / top, 1),
    )


@pytest.mark.parametrize("case", CASES)
def test_the_chart_steps_through_every_attack_of_a_spar(case: Judgement) -> None:
    x, y = chart_scale(case)
    totals = exact_totals(case)
    assert chart_lines(html_page(case)) == {
        name: step_points([x(i) for i in range(len(line))], [y(v) for v in line])
        for name, line in totals.items()
    }


def test_a_long_spars_chart_is_the_exact_one_to_a_tenth_of_a_unit() -> None:
    """More attacks than tenths of a unit across: each line goes through the totals after the
    attack nearest each tenth, so it is nowhere more than a tenth from the exact step line."""
    rng = random.Random(7)
    lines = ["Judge: Spar between A (CS 1) and B (CS 1)"]
    lines += [
        f"OnlineHost: {'AB'[n % 2]} rolled 1 100-sided die: {rng.randint(1, 100)}"
        for n in range(3 * POINTS)
    ]
    case = judge_log("\n".join(lines), rules=rules_from_mapping({"defeat_threshold": 100}))
    assert case.verdict.attacks > POINTS and case.verdict.winner is None
    x, y = chart_scale(case)
    drawn = chart_lines(html_page(case))
    count = case.verdict.attacks
    shown = [i * count // POINTS for i in range(POINTS + 1)]
    for name, totals in exact_totals(case).items():
        points = drawn[name]
        assert points[0] == (x(0), y(0)) and points[-1] == (x(count), y(totals[-1]))
        # through the exact total after the attack nearest each tenth of a unit
        assert [height_at(points, x(i)) for i in shown] == [y(totals[i]) for i in shown]
        # and through no other: each corner an exact total, at an attack drawn
        at = {(x(i), y(totals[i])) for i in shown} | {
            (x(j), y(totals[i])) for i, j in pairwise(shown)
        }
        assert set(points) <= at
        assert len(points) <= 2 * len(set(totals)) + 1  # a climb for each total reached
