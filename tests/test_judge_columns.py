"""The judge's columns give exactly what reading and deciding line by line gives.

The reader reads the roll lines that are alike after their time stamp once (one claim shared
by all of them), and the spar keeps readings and anomalies as columns of numbers and shared
tuples (`referee.transcripts.columns`). Checked three ways on generated logs (speech, host
lines of fighters and outsiders, wrong dice, host lines typed by a fighter or by a look-alike,
quotes, receipts reused and out of order, seed rotations and commitments, group spars):

- the roll lines the reader finds are the ones each line read alone gives;
- deciding the shared claims is deciding each line's own (`decide` given the `LogLine`s);
- the verdicts are the judge's before the columns: the digests below were made by the judge
  of commit f73be88 (`python -m tests.test_judge_columns` prints them for the judge of now).
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.errors import RefereeError
from referee.systems.msv.rules import rules_from_mapping
from referee.transcripts import Judgement, decide, judge_log, read_log
from referee.transcripts.claims import roll_line
from referee.transcripts.judgement import service_markers, target_book
from referee.transcripts.reader import said_line
from tests.depth import examples

NAMES = ("Tarl Cabot", "PaKur", "Rask", "Bosko")
SAMPLES = Path(__file__).resolve().parent / "data" / "judge"
LONG = rules_from_mapping({"defeat_threshold": 100})


def spar_log(seed: int, lines: int) -> str:
    """A log of two to four fighters: their speech and rolls, mostly in turn, and noise of
    every kind the judge flags."""
    rng = random.Random(seed)
    fighters = NAMES[: rng.choice([2, 2, 3, 4])]
    stamped, receipts = rng.random() < 0.7, rng.random() < 0.5
    out = []
    if rng.random() < 0.9:
        out.append(
            "Judge: Spar between "
            + " and ".join(f"{n} (CS {rng.randint(0, 90)})" for n in fighters)
        )
    nonce: dict[str, int] = {}
    rotations, turn = 0, 0

    def host(name: str, face: object, dice: str = "1 100-sided die") -> str:
        tail = ""
        if receipts:
            count = nonce.get(name, 0)
            if rng.random() < 0.03:  # reused, or out of order
                count = max(0, count - rng.randint(0, 3))
            else:
                nonce[name] = count + 1
            tail = f" (nonce {count})" if rng.random() > 0.05 else f" (nonce {count}, free:{name})"
        return f"OnlineHost: {name} rolled {dice}: {face}{tail}"

    while len(out) < lines:
        at = len(out)
        stamp = f"[{21 + at // 3600 % 3}:{at // 60 % 60:02}:{at % 60:02}] " if stamped else ""
        who = fighters[turn % len(fighters)]
        foe = rng.choice([n for n in fighters if n != who])
        pick = rng.random()
        if pick < 0.4:
            out.append(f"{stamp}{who}: *swings at {foe}*" if pick < 0.2 else f"{stamp}{foe}: hm")
        elif pick < 0.75:
            out.append(stamp + host(who, rng.randint(1, 100)))
            turn += rng.choice([1, 1, 1, 0, 2])
        elif pick < 0.78:
            out.append(stamp + host("Bosk", rng.randint(1, 100)))
        elif pick < 0.80:
            out.append(stamp + host(who, "14 17", "2 20-sided dice"))
        elif pick < 0.82:
            out.append(f"{stamp}{who}: OnlineHost: {who} rolled 1 100-sided die: 100")
        elif pick < 0.84:
            out.append(
                f"{stamp}{who}: > OnlineHost: {foe} rolled 1 100-sided die: {rng.randint(1, 100)}"
            )
        elif pick < 0.85:
            out.append(f"{stamp}{who}: (( OnlineHost: {who} rolled 1 100-sided die: 5 ))")
        elif pick < 0.86 and receipts and rng.random() < 0.5:
            out.append(f"{stamp}Referee: server seed {rotations} revealed, nonces from 0")
            rotations, nonce = rotations + 1, {}
        elif pick < 0.86 and receipts:
            digest = hashlib.sha256(str(rng.randint(0, 3)).encode()).hexdigest()
            out.append(f"{stamp}Referee: commitment {digest}")
        elif pick < 0.87 and len(fighters) > 2:
            out.append(f"{stamp}Referee: {who} attacks {foe}: 47 vs CS 65: hit, 4 damage")
        elif pick < 0.88:
            out.append(f"{stamp}OnlineHost: {who} rolled 1 100-sided dice: 50")
        elif pick < 0.89:
            out.append(f"{stamp}0nlineHost: {who} rolled 1 100-sided die: 99")
        else:
            out.append(f"{stamp}{foe}: ready? (CS 40)")
    end = rng.choice(["\n", "\r\n"])
    return end.join(out) + end


def dump(case: Judgement) -> dict[str, Any]:
    """Everything a judgement says, as JSON."""
    verdict = case.verdict
    return {
        **verdict.to_json(),
        "damage_taken": verdict.damage_taken,
        "order": list(verdict.order),
        "notes": list(verdict.notes),
        "source": case.source,
        "format": case.transcript.format.name,
        "roll_lines": [repr(line) for line in case.transcript.rolls],
    }


def outcome(data: bytes, fighters: tuple[str, ...]) -> str:
    """A digest of everything the judgement says, or the error that it cannot be judged."""
    try:
        case = judge_log(data, fighters, LONG)
    except RefereeError as err:
        return f"{type(err).__name__}: {str(err)[:50]}"
    text = json.dumps(dump(case), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _cases() -> dict[str, tuple[bytes, tuple[str, ...]]]:
    """Each pinned case: a log's bytes and the fighters given (none: announced)."""
    cases: dict[str, tuple[bytes, tuple[str, ...]]] = {}
    for seed, size in (
        (1, 3000),
        (2, 3000),
        (3, 400),
        (7, 3000),
        (9, 3000),
        (11, 400),
        (13, 3000),
        (19, 400),
    ):
        cases[f"spar-{seed}"] = (spar_log(seed, size).encode(), ())
        cases[f"spar-{seed}-given"] = (spar_log(seed, size).encode(), ("Tarl Cabot=60", "PaKur=50"))
    for path in sorted(SAMPLES.rglob("*")):
        if path.suffix in (".log", ".txt"):
            cases[f"{path.parent.name}/{path.name}"] = (path.read_bytes(), ())
    return cases


CASES = _cases()

#: Made by the judge of commit f73be88, before the columns; made again for issue 46, where
#: the only changes are the ones the issue asks for (winner, damage, attacks, order and every
#: other anomaly as before): a genuine roll quoted in `(( ))` is a quote, no longer `forged`,
#: and the reasons name the hosts added (`DiceBot` on IRC, the project's `referee` on Discord).
PINNED = {
    "cheats/discord-own-host-line.txt": "8868ee5bbd3a0a0dde43",
    "cheats/receipt-pasted-again.log": "b2485db5a99d0624310a",
    "cheats/second-life-host-impostors.txt": "17cbad37321b8e36fbbf",
    "formats/aim-anomalies.log": "2cc706cb2cacfa732bda",
    "formats/aim.log": "7db4eddd82ec944e5730",
    "formats/aol-anomalies.log": "c5a263f76df7f9af89a4",
    "formats/aol.log": "e75d928c6d3cb7ea2504",
    "formats/discord-copy-anomalies.log": "020d9c72269ac42715de",
    "formats/discord-copy.log": "05b4c30d9082693394a0",
    "formats/discord-csv-anomalies.log": "6c446c88ccd373d58e86",
    "formats/discord-csv.log": "df56d27bdd8570880ba4",
    "formats/discord-txt-anomalies.log": "7c47aa0f78bac717d2a0",
    "formats/discord-txt.log": "e26453a62ebc7f5c0bc2",
    "formats/hexchat-anomalies.log": "83c4f30f8d1d1dc245da",
    "formats/hexchat.log": "0c3a4db7ec9227cc0f30",
    "formats/irssi-anomalies.log": "8bb4c6ffd19a65fdc1d1",
    "formats/irssi.log": "20e945431b62dff14f9e",
    "formats/mirc-anomalies.log": "0641862dd3861938d4f9",
    "formats/mirc.log": "519b32d358367d888953",
    "formats/pidgin-anomalies.log": "e492fc88f00162f09af7",
    "formats/pidgin-html-anomalies.log": "4fbbeb7ebd08fc3b34e7",
    "formats/pidgin-html.log": "4f77919192ec7e8b879e",
    "formats/pidgin.log": "100a2023ee4d83b92309",
    "formats/second-life-anomalies.log": "c49b692d32477048e4e2",
    "formats/second-life.log": "94886e0d3c8d9d2149d6",
    "formats/weechat-anomalies.log": "217a31401e0099080cc2",
    "formats/weechat.log": "87f218c830bbc1f13ba3",
    "spar-1": "57232620098a1cc16865",
    "spar-1-given": "6cd008eede47d9b3b221",
    "spar-11": "ce1310034ea5b15c692a",
    "spar-11-given": "7e32a8e2bcdcee97f24e",
    "spar-13": "43f217aed2e58ea717ae",
    "spar-13-given": "eb4f8f6c303e7c227b81",
    "spar-19": "37a33be90032f9f92219",
    "spar-19-given": "20e6417dc24900acd5fa",
    "spar-2": "caf25671d2068a2d53a8",
    "spar-2-given": "cb56b558bea28ef6f469",
    "spar-3": "NotationError: the log announces no spar: line 10 comes nearest (",
    "spar-3-given": "faebfdcdad6ac1b0621c",
    "spar-7": "a80c61213b39de3d2e57",
    "spar-7-given": "87595eeeaf0e0355a0ef",
    "spar-9": "6b4b7d409e28b103d9af",
    "spar-9-given": "7e2d137aefc4a8b49117",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_verdicts_are_the_ones_before_the_columns(name: str) -> None:
    assert outcome(*CASES[name]) == PINNED[name]


SETTINGS = settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
logs = st.builds(spar_log, st.integers(min_value=0, max_value=2**32 - 1), st.integers(5, 300))


@SETTINGS
@given(log=logs)
def test_the_reader_s_shared_claims_are_each_line_s_own(log: str) -> None:
    transcript = read_log(log, require_rolls=False)
    assert not transcript.joined and transcript.body == log.replace("\r\n", "\n")
    alone = [
        roll_line(said_line(transcript.format, number, text), text, transcript.trust)
        for number, text in enumerate(transcript.raw, start=1)
    ]
    assert tuple(transcript.rolls) == tuple(line for line in alone if line is not None)


@SETTINGS
@given(log=logs, threshold=st.sampled_from([15, 100]))
def test_deciding_the_shared_claims_is_deciding_each_line(log: str, threshold: int) -> None:
    rules = rules_from_mapping({"defeat_threshold": threshold})
    try:
        case = judge_log(log, (), rules)
    except RefereeError:  # no announcement, or a fighter who never rolls
        return
    transcript, fighters = case.transcript, case.verdict.fighters
    markers = service_markers(transcript) if "nonce" in transcript.body else []
    targets = target_book(transcript, fighters) if len(fighters) > 2 else None
    alone = decide(list(transcript.rolls), fighters, rules, None, markers, targets)
    ours = case.verdict
    assert tuple(alone.rolls) == tuple(ours.rolls)
    assert tuple(alone.anomalies) == tuple(ours.anomalies)
    assert (alone.winner, alone.damage_dealt, alone.damage_taken, alone.attacks, alone.order) == (
        ours.winner,
        ours.damage_dealt,
        ours.damage_taken,
        ours.attacks,
        ours.order,
    )


@pytest.mark.parametrize("seed", range(6))
def test_anomalies_are_made_in_the_order_of_their_lines_found_first_first(seed: int) -> None:
    """In line order, those of one line in the order found: whether found in line order
    (as a spar finds most) or not (a ledger's missing rolls, a marker's)."""
    from referee.transcripts.columns import Anomalies
    from referee.transcripts.verdict import Kind

    rng = random.Random(seed)
    lines = sorted(rng.randrange(1, 40) for _ in range(60))
    if seed % 2:
        lines[rng.randrange(60)] = rng.randrange(1, 40)  # one out of order
    anomalies = Anomalies()
    for index, line in enumerate(lines):
        anomalies.add(line, (Kind.FORGED, f"reason {index}"))
    expected = sorted(zip(lines, range(60), strict=True))
    assert [(a.line, int(a.reason.split()[1])) for a in anomalies] == expected


if __name__ == "__main__":
    for name, case in sorted(CASES.items()):
        print(f"    {name!r}: {outcome(*case)!r},")
