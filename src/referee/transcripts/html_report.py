"""A judgement as one self-contained HTML page: the verdict at the top, the damage of both
fighters over the spar as an inline SVG chart, the annotated log with anomalies highlighted.

Nothing is loaded from anywhere: no script, no outside style, font or image.

>>> from referee.transcripts.judgement import judge_log
>>> page = html_page(judge_log("OnlineHost: A rolled 1 100-sided die: 90\\n"
...                            "OnlineHost: B rolled 1 100-sided die: 30", ["A=50", "B=50"]))
>>> page.startswith("<!doctype html>"), "<svg" in page, "http" in page, "src=" in page
(True, True, False, False)
"""

from __future__ import annotations

from collections.abc import Iterator
from html import escape
from itertools import accumulate, chain, compress, repeat
from operator import eq, mul, ne

from referee.sentences import order_text
from referee.transcripts.columns import Why, anomaly_columns, reading_columns
from referee.transcripts.judgement import Judgement
from referee.transcripts.parts import printf_parts
from referee.transcripts.render import fighters_line, notes_in_order, verdict_line
from referee.transcripts.verdict import Use, Verdict

#: The chart's size in SVG units, its margin, and one colour per fighter.
WIDTH, HEIGHT, MARGIN = 640, 240, 36
COLOURS = ("#1f5fbf", "#c0392b")

_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#1b1b1b}
h1{font-size:1.3rem;margin:.2rem 0}.verdict{font-size:1.1rem;font-weight:600;padding:.6rem .8rem;
border-radius:6px;background:#eef4ee;border:1px solid #7aa77a}.verdict.bad{background:#fbeeee;
border-color:#c0392b}ol.log{font:13px/1.4 ui-monospace,monospace;margin:0}
ol.log li{padding:.1rem .4rem;white-space:pre-wrap;word-break:break-word}
ol.log li::marker{color:#666}li.anomaly{background:#fde2e0}li.roll{font-weight:600}
ol.log p{margin:0;font-weight:400}p.note{color:#145214}p.bad{color:#a0241b;font-weight:600}
ul.anomalies li{margin:.15rem 0}svg{max-width:100%;height:auto;border:1px solid #ddd}
"""


#: The most attacks a fighter's line goes through after the first: one for each tenth of a unit
#: across the chart, the precision its coordinates are written at. A longer spar's line goes
#: through the totals after the attacks nearest each tenth, and climbs the steps between two
#: of them in one: they are closer to each other than a tenth of a unit (0.1 pixel on a chart
#: shown at its own size), and a total never falls.
POINTS = (WIDTH - 2 * MARGIN) * 10


def _chart(verdict: Verdict) -> str:
    """Each fighter's damage dealt after each counted attack, as two step lines."""
    names = [f.name for f in verdict.fighters]
    _, whos, whats = reading_columns(verdict.rolls)  # no `Reading` made
    attacks = (Use.ATTACK, Use.FREE_ATTACK)
    counts = [what[0] in attacks for what in whats]
    rollers = [who[0] for who in compress(whos, counts)]
    damages = [what[2] for what in compress(whats, counts)]
    # each fighter's running total (0 first): the damages of its own attacks, 0 for the others'
    totals: dict[str, list[int]] = {
        name: list(accumulate(map(mul, damages, map(eq, rollers, repeat(name))), initial=0))
        for name in names
    }
    steps = max(1, verdict.attacks)
    top = max([verdict.threshold, *(t[-1] for t in totals.values())])
    # the attacks the lines go through: every one, or the nearest to each tenth of a unit
    count = len(damages)
    shown = (
        range(count + 1) if count <= POINTS else [i * count // POINTS for i in range(POINTS + 1)]
    )

    def x(i: int) -> float:
        return MARGIN + (WIDTH - 2 * MARGIN) * i / steps

    def y(v: int) -> float:
        return HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * v / top

    parts = [
        f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        'aria-labelledby="chart-title"><title id="chart-title">Damage dealt by each fighter '
        "after each attack that counted</title>",
        f'<line x1="{MARGIN}" y1="{y(0):.1f}" x2="{WIDTH - MARGIN}" y2="{y(0):.1f}" '
        'stroke="#888"/>',
        f'<line x1="{MARGIN}" y1="{y(verdict.threshold):.1f}" x2="{WIDTH - MARGIN}" '
        f'y2="{y(verdict.threshold):.1f}" stroke="#888" stroke-dasharray="4 4"/>',
        f'<text x="{WIDTH - MARGIN}" y="{y(verdict.threshold) - 4:.1f}" font-size="11" '
        f'text-anchor="end" fill="#555">defeat at {verdict.threshold}</text>',
        f'<text x="{MARGIN}" y="{HEIGHT - 10}" font-size="11" fill="#555">attack 0</text>',
        f'<text x="{WIDTH - MARGIN}" y="{HEIGHT - 10}" font-size="11" text-anchor="end" '
        f'fill="#555">attack {verdict.attacks}</text>',
    ]
    for index, name in enumerate(names):
        drawn = [totals[name][i] for i in shown]
        # the line turns where the total grows: across at the height before, then up to the
        # new one (a step that adds nothing goes on across); it ends at the last attack
        grows = list(compress(range(1, len(drawn)), map(ne, drawn[1:], drawn)))
        corners = [(0, drawn[0])]
        for at in grows:
            corners += [(at, drawn[at - 1]), (at, drawn[at])]
        if corners[-1][0] != len(drawn) - 1:
            corners.append((len(drawn) - 1, drawn[-1]))
        points = " ".join(f"{x(shown[at]):.1f},{y(total):.1f}" for at, total in corners)
        colour = COLOURS[index % len(COLOURS)]
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2.5" '
            f'points="{points}"><title>{escape(name)}</title></polyline>'
        )
        parts.append(
            f'<text x="{MARGIN + 6}" y="{MARGIN - 16 + 14 * index}" font-size="12" '
            f'fill="{colour}">{escape(name)}: {totals[name][-1]} dealt</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


#: How many of the log's lines the page's list makes at once (some 1 MB of text).
PART_LINES = 4096
#: How each line's item starts, by what the line is, up to its number.
_STARTS = {"line": "<li id=l", "roll": "<li class=roll id=l", "anomaly": "<li class=anomaly id=l"}


def _note(note: str) -> str:
    """A note's paragraph in its line's item: a reading's (`note`) or an anomaly's (`bad`)."""
    return f"<p class={'bad' if note.startswith('!') else 'note'}>{escape(note, quote=False)}"


def _items(case: Judgement, lines: int) -> Iterator[str]:
    """The log as an ordered list, `lines` lines at a time: each line's item (an anomaly's,
    a roll's or a plain line's; the list numbers it, its id is `l` and its number), its text,
    then the judge's notes on it, a paragraph each. Made from the file's own lines, each
    part's escaped in one pass (an escaped line is the line escaped: escaping keeps line
    ends), no `LogLine` made; every part but the last ends in a line end. The items' and
    paragraphs' end tags are left out: HTML implies them (the next item ends both)."""
    raw = case.transcript.raw
    count = len(raw)
    # each line's start and the notes on it, by its number (the first, 0, is no line's)
    starts = [_STARTS["line"]] * (count + 1)
    roll, anomaly = _STARTS["roll"], _STARTS["anomaly"]
    for number in case.transcript.rolls.roll_numbers():
        starts[number] = roll
    for number in anomaly_columns(case.verdict.anomalies)[0]:
        if 0 < number <= count:
            starts[number] = anomaly
    under = [""] * (count + 1)  # in the order the text report says them
    for number, note in notes_in_order(case, say=_note):
        if 0 < number <= count:
            under[number] += note

    # each part in one printf-style format: the starts, numbers, texts and notes its values
    def values(start: int, stop: int) -> Iterator[object]:
        said = "\n".join(raw[start:stop])
        escaped = escape(said, quote=False)  # lines with nothing to escape are the file's own
        texts = raw[start:stop] if escaped == said else escaped.split("\n")
        first, end = start + 1, stop + 1
        items = zip(starts[first:end], range(first, end), texts, under[first:end], strict=True)
        return chain.from_iterable(items)

    yield from printf_parts("%s%d>%s%s", "\n", count, lines, values)


def _anomaly_list(verdict: Verdict) -> str:
    """The anomalies, one item for each reason (the first found first): its kind, its reason,
    how many lines, and a link to each of its lines, in order."""
    numbers, whys = anomaly_columns(verdict.anomalies)
    if not numbers:
        return "<p>No anomaly.</p>"
    # the columns share one tuple among the anomalies alike: grouped by it, then by value
    # (two alike that do not share one are one reason)
    shared: dict[int, tuple[Why, list[int]]] = {}
    for why, number in zip(whys, numbers, strict=True):
        group = shared.get(id(why))
        if group is None:
            group = shared[id(why)] = (why, [])
        group[1].append(number)
    reasons: dict[Why, list[int]] = {}
    for why, lines in shared.values():
        reasons.setdefault(why, []).extend(lines)
    items = []
    for (kind, reason), lines in reasons.items():
        lines.sort()
        count = f"{len(lines):,} lines: " if len(lines) > 1 else "line "
        links = " ".join(repeat("<a href=#l%d>%d</a>", len(lines))) % tuple(
            chain.from_iterable(zip(lines, lines, strict=True))
        )
        items.append(
            f"<li><strong>{escape(kind.value)}</strong>: {escape(reason)} ({count}{links})"
        )
    return f'<ul class="anomalies">{"".join(items)}</ul>'


def html_page(case: Judgement, title: str = "Judged spar") -> str:
    """The whole page as text (UTF-8; `html_parts`, joined)."""
    return "".join(html_parts(case, title))


def html_parts(
    case: Judgement, title: str = "Judged spar", lines: int = PART_LINES
) -> Iterator[str]:
    """The page in parts, in order (`referee judge --html` writes them one by one): its
    head, the verdict, the chart and the anomalies, then the log's list `lines` lines at a
    time, so that a long log's page is never held whole."""
    verdict = case.verdict
    anomalies = _anomaly_list(verdict)
    notes = "".join(f"<p>Note: {escape(n)}</p>" for n in verdict.notes)
    order = f"<p>{escape(order_text(verdict.order))}</p>" if verdict.order else ""
    state = "bad" if verdict.anomalies else ""
    digits = len(str(len(case.transcript.raw)))  # the widest line number, room made for it
    yield (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f'<p class="verdict {state}">{escape(verdict_line(verdict))}</p>'
        f"<p>{escape(fighters_line(case))}</p>{order}{notes}"
        f"<h2>Damage over the spar</h2>{_chart(verdict)}"
        f"<h2>Anomalies</h2>{anomalies}"
        f"<h2>The log</h2><ol class=log style=padding-left:{digits + 2}ch>"
    )
    yield from _items(case, lines)
    yield "</ol></body></html>\n"
