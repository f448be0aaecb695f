"""`referee roll`: roll dice notation (three dialects) or an AOL chat `//roll`; exact odds."""

from __future__ import annotations

import sys
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import click

from referee.cli.output import emit_json
from referee.cli.typed import WholeRange
from referee.dice import (
    DIALECTS,
    HostLine,
    Number,
    Odds,
    RollResult,
    odds,
    parse,
    parse_chat,
    roll,
)
from referee.dice.render import number
from referee.errors import NotationError, RefereeError, ScriptError
from referee.numerals import is_whole
from referee.rng import Rng, ScriptedRng, SeededRng, SystemRng

MAX_FACES = 1000
"""Most faces `--faces` takes (as many as one roll may throw)."""


def result_record(result: RollResult) -> dict[str, Any]:
    """A rolled expression as JSON-ready data: expression, total, every die, rendered line.

    >>> from referee.dice import roll_text
    >>> from referee.rng import ScriptedRng
    >>> result_record(roll_text("1d100", rng=ScriptedRng([47])))["dice"]
    [{'sides': 100, 'face': 47, 'kept': True, 'exploded': False, 'rerolled': False, 'value': 47}]
    """
    record: dict[str, Any] = {
        "expression": str(result.expression),
        "total": json_number(result.total),
        "dice": [
            {
                "sides": d.sides,
                "face": d.face,
                "kept": d.kept,
                "exploded": d.exploded,
                "rerolled": d.rerolled,
                "value": d.worth,
            }
            for d in result.dice
        ],
        "rendered": str(result),
    }
    if isinstance(result.total, Fraction):
        record["exact"] = str(result.total)
    return record


def json_number(value: Number) -> int | float:
    """A whole value as an int, a fraction as the nearest float (`exact` keeps it as text)."""
    return value if isinstance(value, int) else float(value)


def host_record(line: HostLine) -> dict[str, Any]:
    """An OnlineHost answer as JSON-ready data.

    >>> host_record(HostLine("Tarl", 1, 100, (47,)))["line"]
    'OnlineHost: Tarl rolled 1 100-sided die: 47'
    """
    return {
        "name": line.name,
        "count": line.count,
        "sides": line.sides,
        "faces": list(line.faces),
        "line": str(line),
    }


def odds_record(answer: Odds, dialect: str) -> dict[str, Any]:
    """Exact odds as JSON-ready data; every probability as a fraction in text and a float.

    >>> from referee.dice import parse
    >>> odds_record(odds(parse("1d2")), "roll20")["distribution"][0]
    {'total': 1, 'p': '1/2', 'at_least': '1', 'p_float': 0.5, 'at_least_float': 1.0}
    """
    return {
        "expression": str(answer.expression),
        "dialect": dialect,
        "mean": str(answer.mean),
        "mean_float": float(answer.mean),
        "sd": answer.sd,
        "explode_depth": answer.depth,
        "capped": str(answer.capped),
        "distribution": [
            {
                "total": json_number(total),
                "p": str(p),
                "at_least": str(at_least),
                "p_float": float(p),
                "at_least_float": float(at_least),
            }
            for total, p, at_least in answer.table()
        ],
    }


def odds_lines(answer: Odds, dialect: str, fractions: bool) -> list[str]:
    """Exact odds as text: a header, the explosion cap where it applies, one row per total.

    >>> from referee.dice import parse
    >>> print("\\n".join(odds_lines(odds(parse("1d2")), "roll20", True)))
    1d2 (roll20, exact): mean 3/2, sd 0.5000
    total  P(=)  P(>=)
    1      1/2   1
    2      1/2   1/2
    """
    mean = str(answer.mean) if fractions else f"{float(answer.mean):.4f}"
    lines = [f"{answer.expression} ({dialect}, exact): mean {mean}, sd {answer.sd:.4f}"]
    if answer.chained:
        lines.append(
            f"explosions and rerolls stop at depth {answer.depth} (Limits.max_explode_depth); "
            f"P(an explosion chain reaches it) = {_show_p(answer.capped, fractions)}"
        )
    rows = [
        (number(total), _show_p(p, fractions), _show_p(at_least, fractions))
        for total, p, at_least in answer.table()
    ]
    widths = [max(len(r[i]) for r in [("total", "P(=)", "P(>=)"), *rows]) for i in range(3)]
    for row in [("total", "P(=)", "P(>=)"), *rows]:
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    return lines


def _show_p(p: Fraction, fractions: bool) -> str:
    if fractions:
        return str(p)
    if p and p < Fraction(1, 10**6):
        return scientific(p)
    return f"{float(p) * 100:.4f}%"


def scientific(p: Fraction) -> str:
    """A small positive probability in scientific notation, to 4 figures, as a float prints it
    (`1.234e-07`), also past a float's range, where it would print a chance that is not 0 as 0.

    >>> scientific(Fraction(1, 3 * 10**7)), scientific(Fraction(1, 10**1000))
    ('3.333e-08', '1.000e-1000')
    """
    if float(p) >= sys.float_info.min:  # a normal float: its own 4 figures
        return f"{float(p):.3e}"
    with localcontext() as exact:
        exact.prec = 12
        digits, exponent = f"{Decimal(p.numerator) / Decimal(p.denominator):.3e}".split("e")
    return f"{digits}e-{-int(exponent):02d}"


def parse_faces(text: str) -> list[int]:
    """`--faces 3,2,5` as a list; one clear error for anything else.

    >>> parse_faces("3, 2,5")
    [3, 2, 5]
    """
    parts = [p.strip() for p in text.split(",")]
    for part in parts:
        if not is_whole(part):  # ASCII digits, and not more than any die's face has
            raise NotationError(
                f"--faces takes whole numbers separated by commas, got {part!r} in {text!r}"
            )
    if len(parts) > MAX_FACES:
        raise NotationError(f"--faces takes at most {MAX_FACES} faces, got {len(parts)}")
    return [int(p) for p in parts]


@click.command("roll")
@click.argument("expression", required=False)
@click.option(
    "--dialect",
    type=click.Choice(sorted(DIALECTS), case_sensitive=False),
    default="roll20",
    show_default=True,
    help="Whose notation: roll20, onlinehost or d20 (docs/dice.md has the table).",
)
@click.option(
    "--chat", "chat_text", metavar="COMMAND", help="An AOL chat roll: //roll -dice1 -sides100"
)
@click.option("--name", default="You", show_default=True, help="Who rolls, in --chat mode.")
@click.option(
    "--seed",
    type=WholeRange(min=0),
    help="Roll reproducibly from this seed (printed to stderr as 'seed: N').",
)
@click.option(
    "--faces",
    "faces_text",
    metavar="F,F,...",
    help="Throw exactly these faces, in throw order (each die, then its rerolls and explosions).",
)
@click.option("--odds", "show_odds", is_flag=True, help="Print the exact distribution instead.")
@click.option("--fractions", is_flag=True, help="With --odds: probabilities as fractions.")
@click.option("--plot", "plot_path", metavar="FILE", help="With --odds: a bar chart (PNG).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def roll_command(
    expression: str | None,
    dialect: str,
    chat_text: str | None,
    name: str,
    seed: int | None,
    faces_text: str | None,
    show_odds: bool,
    fractions: bool,
    plot_path: str | None,
    as_json: bool,
) -> None:
    """Roll dice notation, answer an AOL chat roll as OnlineHost did, or show exact odds.

    Notation (roll20, the default): NdS, d%, dF, + - * / %, parentheses,
    floor() ceil() round() abs(), keep/drop (4d6kh3, k, kl, dh, d, dl),
    explode (6d6!, !>4, !! compounding, !p penetrating), rerolls (r1, r<2, ro1),
    successes (8d10>7, <3, =6, f1 failures), groups ({2d20}kh1), labels
    (1d20+5[fire]), cs/cf and sa/sd marks. --dialect onlinehost or d20 reads
    those dialects (4d6k3 keeps the dice showing 3 in d20).
    Dropped dice are shown ~~struck~~, exploded ones with '!', successes with '*'.
    Put '--' before an expression that starts with '-'.

    \b
    Examples:
      referee roll 2d20+1d6
      referee roll 4d6kh3 --seed 7
      referee roll "3d6!>5" --faces 6,5,1,2,3 --json
      referee roll 4d6k3 --dialect d20 --faces 3,1,3,6
      referee roll 4d6kh3 --odds
      referee roll -- -1d6+10
      referee roll --chat "//roll -sides100 -dice1" --name Tarl
    """
    if (expression is None) == (chat_text is None):
        raise click.UsageError("give either EXPRESSION or --chat, not both and not neither")
    if faces_text is not None and seed is not None:
        raise click.UsageError("give --faces or --seed, not both")
    if show_odds and (chat_text is not None or faces_text is not None or seed is not None):
        raise click.UsageError("--odds takes an EXPRESSION alone (no --chat, --faces or --seed)")
    if (fractions or plot_path) and not show_odds:
        raise click.UsageError("--fractions and --plot go with --odds")
    dialect = dialect.lower()
    if show_odds:
        assert expression is not None
        _odds(expression, dialect, fractions, plot_path, as_json)
        return
    scripted = None if faces_text is None else ScriptedRng(parse_faces(faces_text))
    rng: Rng = scripted or (SystemRng() if seed is None else SeededRng(seed))
    if chat_text is not None:
        line = _chat_roll(chat_text, name, rng)
        record, text = host_record(line), str(line)
    else:
        assert expression is not None
        result = roll(parse(expression, dialect=dialect), rng=rng)
        record, text = result_record(result), str(result)
    if scripted is not None and scripted.remaining:
        given = len(parse_faces(faces_text or ""))
        raise ScriptError(
            f"--faces gave {given} faces but the roll threw {given - scripted.remaining}"
        )
    if seed is not None:
        record["seed"] = seed
    if as_json:
        emit_json(record)
    else:
        click.echo(text)
    if seed is not None:  # after the roll, as a terminal shows it; a bad input stays one line
        click.echo(f"seed: {seed}", err=True)


def _odds(expression: str, dialect: str, fractions: bool, plot: str | None, as_json: bool) -> None:
    answer = odds(parse(expression, dialect=dialect))
    if plot:
        plot_odds(answer, plot)
    if as_json:
        emit_json(odds_record(answer, dialect))
        return
    for line in odds_lines(answer, dialect, fractions):
        click.echo(line)
    if plot:
        click.echo(f"plot written to {plot}")


def plot_odds(answer: Odds, path: str) -> None:
    """A bar chart of P(total) with P(at least) as a line, saved as PNG."""
    try:
        import matplotlib
    except ImportError:
        raise RefereeError("plotting needs matplotlib: install referee[plot]") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = answer.table()
    totals = [float(t) for t, _, _ in rows]
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.bar(totals, [float(p) for _, p, _ in rows], color="#4477aa", label="P(total)")
    twin = axes.twinx()
    twin.plot(totals, [float(a) for _, _, a in rows], color="#cc6677", label="P(at least)")
    twin.set_ylim(0, 1.05)
    axes.set_xlabel("total")
    axes.set_ylabel("P(total)")
    twin.set_ylabel("P(at least)")
    axes.set_title(f"{answer.expression}: mean {float(answer.mean):.3f}, sd {answer.sd:.3f}")
    try:
        figure.savefig(path, dpi=120, bbox_inches="tight")
    except (OSError, ValueError) as err:
        raise RefereeError(f"cannot write plot {path!r}: {err}") from None
    finally:
        plt.close(figure)


def _chat_roll(text: str, name: str, rng: Rng) -> HostLine:
    group = parse_chat(text)
    faces = rng.throw((group.sides,) * group.count).faces
    return HostLine(name, group.count, group.sides, faces)
