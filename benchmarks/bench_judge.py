"""Judging a 100,000-line chat log, against a bare pass over the same file.

Run: python benchmarks/bench_judge.py

- judge: `referee.transcripts.judge_log` on the bytes of the log: decode, split, read every
  line (stamp, host line, receipt, speaker), decide the spar, list every anomaly.
- bare: decode and split the same bytes into lines and run the same regular expressions on
  each line (stamp, then host line or speaker), building nothing and deciding nothing.

The log is made here from a seeded generator: time-stamped speech and roll lines of two
fighters in turn (a long spar: CS 1 each, defeat at 100), with outsiders' rolls, wrong dice,
typed host lines and receipts mixed in. Timing only, no asserts: prints lines per second and
the ratio judge / bare (the cost of judging over the cost of just reading; lower is better).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from referee.systems.msv.rules import rules_from_mapping
from referee.transcripts import judge_log
from referee.transcripts.formats import HOST_LIKE_RE, HOST_RE, SPEECH_RE, STAMP_RE, TYPED_HOST_RE
from referee.transcripts.reader import decode_log, split_lines

LINES = 100_000
RUNS = 5
FIGHTERS = ("Tarl Cabot=1", "PaKur=1")
RULES = rules_from_mapping({"defeat_threshold": 100})


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
    """Split into lines and run the same regular expressions on each; count the roll lines."""
    rolls = 0
    for line in split_lines(decode_log(data)):
        stamp = STAMP_RE.match(line)
        body = line[stamp.end() :] if stamp else line
        if HOST_LIKE_RE.match(body):
            rolls += HOST_RE.fullmatch(body.strip()) is not None
        else:
            speech = SPEECH_RE.match(body)
            if speech and TYPED_HOST_RE.search(speech["text"]):
                rolls += 1
    return rolls


def judge(data: bytes) -> int:
    """The judge on the same bytes; the number of anomalies."""
    return len(judge_log(data, FIGHTERS, RULES).verdict.anomalies)


def best(fns: list[Callable[[], object]]) -> list[float]:
    """Best seconds of each function over RUNS alternating runs (robust to a busy machine)."""
    times = [float("inf")] * len(fns)
    for _ in range(RUNS):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            times[i] = min(times[i], time.perf_counter() - start)
    return times


def main() -> None:
    data = make_log()
    verdict = judge_log(data, FIGHTERS, RULES).verdict
    print(
        f"log: {LINES} lines, {len(data) / 1e6:.1f} MB; {len(verdict.rolls)} roll lines, "
        f"{verdict.attacks} attacks counted, {len(verdict.anomalies)} anomalies, "
        f"winner {verdict.winner}"
    )
    judged, read = best([lambda: judge(data), lambda: bare(data)])
    print(f"judge: {LINES / judged:12,.0f} lines/s ({judged * 1e3:.0f} ms)")
    print(f"bare : {LINES / read:12,.0f} lines/s ({read * 1e3:.0f} ms)")
    print(f"ratio judge / bare: {judged / read:.2f}")


if __name__ == "__main__":
    main()
