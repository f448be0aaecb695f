"""Judging a 100,000-line chat log, against a bare read of the same file, side by side.

Run: python benchmarks/bench_judge.py

- bare: decode the bytes, split them into lines and match one regular expression on each
  line (a time stamp, a speaker and the text), building nothing and deciding nothing: what
  any reader of the file must at least do.
- judge: `referee.transcripts.judge_log` on the same bytes: sniff the format, find every roll
  line and who posted it, check receipts, find the announcement, decide the spar, list every
  anomaly. The verdict keeps its readings and anomalies as columns and makes their objects
  when first looked at (`referee.transcripts.columns`); "judge, objects made" also makes every
  `Reading` and `Anomaly`, as the text report and `--json` do.

The log is made here from a seeded generator: time-stamped speech and roll lines of two
fighters in turn (a long spar: CS 1 each, defeat at 100), with outsiders' rolls, wrong dice and
host lines typed by a fighter mixed in. Timing only, no asserts: prints lines per second of
both, and the judge's rate as a share of the bare rate (issue 30 asks for at least a third),
the best of 7 alternating runs; and the same shares in this process's CPU time, which other
work on a shared machine moves less than the wall clock.

From the shell (`--shell`, also run by default): `referee judge FILE` (text, `--json`,
`--html`) in a fresh process each time, start-up included, against the bare pass run the same
way (a fresh `python -c` that reads, decodes, splits and matches the file, loading nothing of
referee's); and the judge's start-up alone, on a three-line log. Best of 5 alternating runs,
on the wall clock and in the CPU time of each process (which other work on a shared machine
moves less), twice: in the environment as it is, and with referee's bytecode compiled once
beforehand (into a temporary directory, `PYTHONPYCACHEPREFIX`), as a package installed by pip
runs (pip compiles it). The two differ where `PYTHONDONTWRITEBYTECODE` is set and the source
tree has no bytecode: every run then compiles every module it loads (some 0.1 s).

`--shell` runs only the part from the shell.
"""

from __future__ import annotations

import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from referee.systems.msv.rules import rules_from_mapping
from referee.transcripts import judge_log
from referee.transcripts.decoding import decode_log, split_lines

LINES = 100_000
RUNS = 7
SHELL_RUNS = 5
#: The judge as the console script runs it, and the bare pass, each in a fresh process.
JUDGE = [sys.executable, "-c", "import sys; from referee.cli.entry import main; main(sys.argv[1:])"]
BARE = [
    sys.executable,
    "-c",
    "import re, sys\n"
    "match = re.compile(r'(?:\\[[\\d:]+\\] )?([^:]{1,64}): (.*)').match\n"
    "text = open(sys.argv[1], 'rb').read().decode('utf-8')\n"
    "print(sum(1 for line in text.splitlines() if match(line)))",
]
THREE_LINES = (
    "[21:00] Judge: Spar between Tarl Cabot (CS 65) and PaKur (CS 70)\n"
    "[21:01] OnlineHost: Tarl Cabot rolled 1 100-sided die: 47\n"
    "[21:02] OnlineHost: PaKur rolled 1 100-sided die: 80\n"
)
RULES = rules_from_mapping({"defeat_threshold": 100})

#: The bare pass's one regular expression: a stamp, a speaker, the text.
LINE = re.compile(r"(?:\[[\d:]+\] )?([^:]{1,64}): (.*)")


def make_log(lines: int = LINES, seed: int = 7) -> bytes:
    """A log of `lines` lines: speech, the fighters' rolls in turn, and some noise."""
    rng = random.Random(seed)
    names = ("Tarl Cabot", "PaKur")
    out = ["[20:59:58] Judge: Spar between Tarl Cabot (CS 1) and PaKur (CS 1)"]
    turn = 0
    while len(out) < lines:
        second = len(out) % 60
        stamp = f"[{21 + len(out) // 3600 % 3}:{len(out) // 60 % 60:02}:{second:02}] "
        pick = rng.random()
        if pick < 0.55:
            out.append(f"{stamp}{names[rng.randrange(2)]}: *circles, blade low, waiting*")
        elif pick < 0.9:
            face = rng.randint(1, 100)
            out.append(f"{stamp}OnlineHost: {names[turn % 2]} rolled 1 100-sided die: {face}")
            turn += 1
        elif pick < 0.95:
            out.append(f"{stamp}OnlineHost: Bosk rolled 1 100-sided die: {rng.randint(1, 100)}")
        elif pick < 0.98:
            out.append(f"{stamp}OnlineHost: PaKur rolled 2 20-sided dice: 14 17")
        else:
            out.append(f"{stamp}PaKur: OnlineHost: PaKur rolled 1 100-sided die: 100")
    return ("\r\n".join(out[:lines]) + "\r\n").encode("utf-8")


def bare(data: bytes) -> int:
    """Decode, split into lines, one regular expression on each; count the lines it fits."""
    match = LINE.match
    return sum(1 for line in split_lines(decode_log(data)) if match(line))


def judge(data: bytes) -> int:
    """The judge on the same bytes; the number of anomalies."""
    return len(judge_log(data, rules=RULES).verdict.anomalies)


def judge_made(data: bytes) -> int:
    """The judge, and every reading and anomaly of its verdict made into its object."""
    verdict = judge_log(data, rules=RULES).verdict
    return len(tuple(verdict.rolls)) + len(tuple(verdict.anomalies))


def best(fns: list[Callable[[], object]]) -> tuple[list[float], list[float]]:
    """Best seconds of each function over RUNS alternating runs (robust to a busy machine):
    wall-clock seconds, and this process's CPU seconds (which other work on a shared machine
    moves less)."""
    times = [float("inf")] * len(fns)
    cpu = [float("inf")] * len(fns)
    for _ in range(RUNS):
        for i, fn in enumerate(fns):
            start, start_cpu = time.perf_counter(), time.process_time()
            fn()
            times[i] = min(times[i], time.perf_counter() - start)
            cpu[i] = min(cpu[i], time.process_time() - start_cpu)
    return times, cpu


def main() -> None:
    data = make_log()
    if "--shell" in sys.argv[1:]:
        shell(data)
        return
    verdict = judge_log(data, rules=RULES).verdict
    print(
        f"log: {LINES} lines, {len(data) / 1e6:.1f} MB; {len(verdict.rolls)} roll lines, "
        f"{verdict.attacks} attacks counted, {len(verdict.anomalies)} anomalies, "
        f"winner {verdict.winner}"
    )
    walls, cpus = best([lambda: judge(data), lambda: judge_made(data), lambda: bare(data)])
    judged, made, read = walls
    print(f"judge: {LINES / judged:12,.0f} lines/s ({judged * 1e3:.0f} ms)")
    print(f"judge, objects made: {LINES / made:12,.0f} lines/s ({made * 1e3:.0f} ms)")
    print(f"bare : {LINES / read:12,.0f} lines/s ({read * 1e3:.0f} ms)")
    print(
        f"in CPU time: judge {cpus[0] * 1e3:.0f} ms, objects made {cpus[1] * 1e3:.0f} ms, "
        f"bare {cpus[2] * 1e3:.0f} ms: ratios {cpus[2] / cpus[0]:.2f}, {cpus[2] / cpus[1]:.2f}"
    )
    print(f"judge, objects made / bare rate: {read / made:.2f}")
    print(f"judge rate / bare rate: {read / judged:.2f} (at least 0.33 asked)")
    shell(data)


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Seconds one run of `command` takes, start-up included (its output thrown away): on the
    wall clock, and in the CPU time of its process (which other work moves less). A run that
    fails (an exit status other than 0 or 1, the judge's two verdicts) stops the benchmark:
    its time would be of no judge."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False, env=env
    )
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 1: the log has anomalies; anything else is no judge
        error = done.stderr.decode(errors="replace").strip()
        raise SystemExit(f"{' '.join(command[-4:])}: exit {done.returncode}: {error}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def shell(data: bytes) -> None:
    """The judge from the shell, against the bare pass run the same way, and its start-up:
    in this environment as it is, and with the bytecode compiled (as an installed package
    runs: pip compiles it; see the module text)."""
    with tempfile.TemporaryDirectory() as where:
        log, small = Path(where, "long.log"), Path(where, "three.log")
        log.write_bytes(data)
        small.write_text(THREE_LINES, encoding="utf-8")
        rules = Path(where, "long.toml")  # the in-process run's rule pack: defeat at 100
        rules.write_text("defeat_threshold = 100\n", encoding="utf-8")
        judged = [*JUDGE, "judge", str(log), "--rules", str(rules)]
        runs = {
            "judge": judged,
            "judge --json": [*judged, "--json"],
            "judge --html": [*judged, "--html", str(Path(where, "report.html"))],
            "bare": [*BARE, str(log)],
            "start-up (3 lines)": [*JUDGE, "judge", str(small)],
        }
        compiled = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        compiled["PYTHONPYCACHEPREFIX"] = str(Path(where, "bytecode"))
        for command in runs.values():  # each compiles what it loads, once
            timed(command, compiled)
        ways = {"as this environment runs it": None, "with its bytecode compiled": compiled}
        for way, env in ways.items():
            if env is None and "PYTHONDONTWRITEBYTECODE" not in os.environ:
                way += " (bytecode written as usual)"
            elif env is None:
                way += " (PYTHONDONTWRITEBYTECODE: every module compiled on each run)"
            best_of = dict.fromkeys(runs, (float("inf"), float("inf")))
            for _ in range(SHELL_RUNS):
                for name, command in runs.items():
                    wall, cpu = timed(command, env)
                    best_of[name] = (min(best_of[name][0], wall), min(best_of[name][1], cpu))
            _shown(way, best_of)
    print("  (asked: start-up at most 150 ms; judge at least 1/4 of the bare pass)")


def _shown(way: str, best_of: dict[str, tuple[float, float]]) -> None:
    bare_wall, bare_cpu = best_of["bare"]
    print(f"from the shell, {way}; a fresh process each, start-up included, best of 5:")
    print(f"  {'':20} {'wall':>7}    {'CPU':>7}")
    for name, (wall, cpu) in best_of.items():
        ratio = ""
        if name.startswith("judge"):
            ratio = f"   bare / it {bare_wall / wall:.2f} (CPU {bare_cpu / cpu:.2f})"
        print(f"  {name:20} {wall * 1e3:7.0f} ms {cpu * 1e3:7.0f} ms{ratio}")


if __name__ == "__main__":
    main()
