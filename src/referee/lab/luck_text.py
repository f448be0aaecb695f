"""A luck report in words, one line each: `referee luck` prints them, `~luck` says them.

>>> from referee.lab.luck_exports import luck_report
>>> report_lines(luck_report([], "Tarl"))[:2]
['luck of Tarl over 0 verified exports', 'verdict: no dice to read']
"""

from __future__ import annotations

from referee.lab.luck_exports import LuckReport, Record


def percent(chance: float) -> str:
    """A chance as people read it.

    >>> percent(0.0123), percent(0.5), percent(1e-7)
    ('1.23%', '50.0%', '0.00001%')
    """
    if chance >= 0.1:
        return f"{chance:.1%}"
    if chance >= 0.001:
        return f"{chance:.2%}"
    return f"{chance * 100:.5f}%"


def record_line(record: Record) -> str:
    """One fighter's record.

    >>> record_line(Record("Tarl", 3, 2, 1, 0))
    'Tarl: 3 bouts, 2 won, 1 lost, 0 undecided'
    """
    return (
        f"{record.name}: {record.fought} bout{'s' if record.fought != 1 else ''}, "
        f"{record.won} won, {record.lost} lost, {record.undecided} undecided"
    )


def report_lines(report: LuckReport) -> list[str]:
    """The report: whose, the records, the verdict and its false-alarm rate, each test."""
    whose = "every fighter" if report.fighter is None else report.fighter
    if report.fighter is not None and report.records:
        whose = report.records[0].name  # as the exports spell it
    found = report.luck
    lines = [
        f"luck of {whose} over {report.exports} verified export{'s' if report.exports != 1 else ''}"
    ]
    level = f"{found.alpha * 100:g}%"
    lines.append(f"verdict: {found.verdict}" + (f" (at {level})" if found.halves else ""))
    lines += [f"record: {record_line(r)}" for r in report.records]
    if found.halves is not None:
        halves = found.halves
        lines.append(
            f"primary: low halves {halves.observed} of {halves.trials} dice, expected "
            f"{halves.expected:.1f}: p = {halves.p_value:.4f}"
        )
    alarms = found.false_alarms
    if alarms is not None:
        lines.append(
            f"false alarms: fair dice, as many as these, are called unlikely {percent(alarms)} of "
            f"the time (exact; the verdict reads this one test at {level})"
        )
    if found.hits is not None:
        hits = found.hits
        lines.append(
            f"hits: {hits.observed} of {hits.trials} attacks, expected {hits.expected:.1f}: "
            f"p = {hits.p_value:.4f} (descriptive)"
        )
    if found.longest_misses is not None:
        run = found.longest_misses
        lines.append(
            f"longest run of misses: {run.longest}; a run that long or longer: "
            f"{percent(run.chance)} (descriptive)"
        )
    if found.damage is not None:
        damage = found.damage
        lines.append(
            f"damage: {damage.total}, expected {damage.expected:.1f}; this little or less: "
            f"{percent(damage.chance_at_most)}, p = {damage.p_value:.4f} (descriptive)"
        )
    if found.faces is not None:
        faces = found.faces
        lines.append(
            f"faces: chi-square {faces.statistic:.2f} over {faces.df} df "
            f"({len(faces.bins)} bins): p = {faces.p_value:.4f} (descriptive)"
        )
    elif found.dice:
        lines.append("faces: too few dice for a chi-square (each bin must expect 5)")
    if found.halves is not None:
        lines.append(
            f"descriptive p-values are not part of the verdict: each alone is below {level} for "
            f"{level} of fair tables, so reading four at once finds one about 4 times as often"
        )
    return lines
