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

from html import escape

from referee.sentences import order_text
from referee.transcripts.judge import Use, Verdict
from referee.transcripts.judgement import Judgement
from referee.transcripts.render import fighters_line, notes_by_line, verdict_line

#: The chart's size in SVG units, its margin, and one colour per fighter.
WIDTH, HEIGHT, MARGIN = 640, 240, 36
COLOURS = ("#1f5fbf", "#c0392b")

_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#1b1b1b}
h1{font-size:1.3rem;margin:.2rem 0}.verdict{font-size:1.1rem;font-weight:600;padding:.6rem .8rem;
border-radius:6px;background:#eef4ee;border:1px solid #7aa77a}.verdict.bad{background:#fbeeee;
border-color:#c0392b}table{border-collapse:collapse;width:100%;font:13px/1.4 ui-monospace,monospace}
td{padding:.1rem .4rem;vertical-align:top;white-space:pre-wrap;word-break:break-word}
td.n{color:#666;text-align:right;width:3.5rem}tr.anomaly{background:#fde2e0}
tr.roll td.t{font-weight:600}.note{color:#145214}.note.bad{color:#a0241b;font-weight:600}
ul.anomalies li{margin:.15rem 0}svg{max-width:100%;height:auto;border:1px solid #ddd}
"""


def _chart(verdict: Verdict) -> str:
    """Each fighter's damage dealt after each counted attack, as two step lines."""
    names = [f.name for f in verdict.fighters]
    totals = {name: [0] for name in names}
    for reading in verdict.rolls:
        if reading.use in (Use.ATTACK, Use.FREE_ATTACK):
            for name in names:
                totals[name].append(
                    totals[name][-1] + (reading.damage if reading.name == name else 0)
                )
    steps = max(1, verdict.attacks)
    top = max([verdict.threshold, *(t[-1] for t in totals.values())])

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
        points = []
        for i, value in enumerate(totals[name]):
            if i:
                points.append(f"{x(i):.1f},{y(totals[name][i - 1]):.1f}")
            points.append(f"{x(i):.1f},{y(value):.1f}")
        colour = COLOURS[index % len(COLOURS)]
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2.5" '
            f'points="{" ".join(points)}"><title>{escape(name)}</title></polyline>'
        )
        parts.append(
            f'<text x="{MARGIN + 6}" y="{MARGIN - 16 + 14 * index}" font-size="12" '
            f'fill="{colour}">{escape(name)}: {totals[name][-1]} dealt</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _rows(case: Judgement) -> str:
    notes = notes_by_line(case)
    bad = {a.line for a in case.verdict.anomalies}
    rows = []
    for line in case.lines:
        said = notes.get(line.number, [])
        kind = "anomaly" if line.number in bad else "roll" if line.is_roll else "line"
        rows.append(
            f'<tr class="{kind}" id="l{line.number}"><td class="n">{line.number}</td>'
            f'<td class="t">{escape(line.text)}</td></tr>'
        )
        for note in said:
            cls = "note bad" if note.startswith("!") else "note"
            rows.append(f'<tr class="{kind}"><td></td><td class="{cls}">{escape(note)}</td></tr>')
    return "\n".join(rows)


def html_page(case: Judgement, title: str = "Judged spar") -> str:
    """The whole page as text (UTF-8)."""
    verdict = case.verdict
    items = "".join(
        f'<li><a href="#l{a.line}">line {a.line}</a>: <strong>{escape(a.kind.value)}</strong>: '
        f"{escape(a.reason)}</li>"
        for a in verdict.anomalies
    )
    anomalies = f'<ul class="anomalies">{items}</ul>' if items else "<p>No anomaly.</p>"
    notes = "".join(f"<p>Note: {escape(n)}</p>" for n in verdict.notes)
    order = f"<p>{escape(order_text(verdict.order))}</p>" if verdict.order else ""
    state = "bad" if verdict.anomalies else ""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f'<p class="verdict {state}">{escape(verdict_line(verdict))}</p>'
        f"<p>{escape(fighters_line(case))}</p>{order}{notes}"
        f"<h2>Damage over the spar</h2>{_chart(verdict)}"
        f"<h2>Anomalies</h2>{anomalies}"
        f"<h2>The log</h2><table>{_rows(case)}</table>"
        "</body></html>\n"
    )
