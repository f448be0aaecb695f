"""Signed roll lines judged in every log format the judge reads (`referee.transcripts.signatures`).

Each format's spar (tests/judge_samples.py's script) is written with the service's signed host
lines, then one line is added or changed: a face or a nonce changed under its signature, a
genuine line of another bout, a line signed by another key, a host line with no signature, a
genuine line pasted again; each is caught on its own line, and the spar's verdict is the clean
one's. A genuine line posted by anyone (a user, an avatar) counts.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.ledger.signatures import PrivateKey
from referee.transcripts import judge_log
from tests.judge_samples import FACES, STYLES, WRITERS, Post, Style

#: The service's key in these tests, and another one (both fixed: Ed25519 is deterministic).
KEY = PrivateKey.from_text("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
OTHER = PrivateKey.from_text("HyAhIiMkJSYnKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4")
BOUT = "AbCdEfGhIjKl"

#: The host each format's lines come from.
HOSTS = {fmt: "OnlineHost APP" if fmt == "discord-copy" else "OnlineHost" for fmt in WRITERS}


def host_text(
    name: str, face: int, nonce: int, bout: str = BOUT, key: PrivateKey = KEY, signed: bool = True
) -> str:
    """A roll line of the service's as the host says it after its name, signed."""
    roll = {"dice": ["d100"], "faces": [face], "nonce": nonce, "stream": f"act:{name}"}
    line = f"{name} rolled 1 100-sided die: {face} (nonce {nonce})"
    return f"{line} {key.sign_roll(bout, name, roll)}" if signed else line


def spar(fmt: str) -> list[Post]:
    """The script's spar with every roll the service's signed host line."""
    style: Style = STYLES[fmt]
    name = {"A": style.a, "B": style.b}
    nonces = {"A": 0, "B": 0}
    posts = [Post("Marcus", f"Spar between {style.a} (CS 65) and {style.b} (CS 70)")]
    for who, face in FACES:
        posts.append(Post(HOSTS[fmt], host_text(name[who], face, nonces[who]), "roll"))
        nonces[who] += 1
    return posts


def judged(fmt: str, posts: list[Post], key: str | None = KEY.public.text) -> tuple:
    text, where = WRITERS[fmt](posts)
    case = judge_log(text, format=fmt, key=key)
    verdict = case.verdict
    found = [(a.line, a.kind.value, a.reason) for a in verdict.anomalies]
    return (verdict.winner, dict(verdict.damage_dealt), verdict.attacks), found, where


#: The third roll of the spar (A's second: face 51, nonce 1), where the cases add theirs.
AT = 3


def cases(style: Style, fmt: str) -> dict[str, tuple[Post, str]]:
    """A line added before the third roll, and what its reason says."""
    a, host = style.a, HOSTS[fmt]
    return {
        "tampered face": (
            Post(host, host_text(a, 51, 1).replace(": 51 ", ": 99 "), "roll"),
            "does not verify",
        ),
        "tampered nonce": (
            Post(host, host_text(a, 51, 1).replace("(nonce 1)", "(nonce 9)"), "roll"),
            "does not verify",
        ),
        "another bout": (
            Post(host, host_text(a, 51, 1, bout="ZyXwVuTsRqPo"), "roll"),
            "another bout",
        ),
        "another key": (Post(host, host_text(a, 51, 1, key=OTHER), "roll"), "another key"),
        "no signature": (Post(host, host_text(a, 51, 1, signed=False), "roll"), "no signature"),
    }


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_a_log_of_signed_lines_is_judged_clean_by_its_key(fmt: str) -> None:
    verdict, found, _ = judged(fmt, spar(fmt))
    assert found == []
    assert verdict[0] == STYLES[fmt].a and verdict[2] == 10
    # without the key, the same (nothing can be checked, nothing is missing)
    assert judged(fmt, spar(fmt), key=None)[:2] == (verdict, [])


@pytest.mark.parametrize(
    "case", ["tampered face", "tampered nonce", "another bout", "another key", "no signature"]
)
@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_a_forged_signed_line_is_caught_in_every_format(fmt: str, case: str) -> None:
    clean, _, _ = judged(fmt, spar(fmt))
    posts = spar(fmt)
    added, reason = cases(STYLES[fmt], fmt)[case]
    posts.insert(AT, added)
    verdict, found, where = judged(fmt, posts)
    assert verdict == clean
    assert [(line, kind) for line, kind, _ in found] == [(where[AT], "forged")], found
    assert reason in found[0][2], found


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_without_the_key_a_host_line_unsigned_or_of_another_bout_is_still_caught(fmt: str) -> None:
    clean, _, _ = judged(fmt, spar(fmt), key=None)
    for case in ("no signature", "another bout"):
        posts = spar(fmt)
        added, reason = cases(STYLES[fmt], fmt)[case]
        posts.insert(AT, added)
        verdict, found, where = judged(fmt, posts, key=None)
        assert verdict == clean
        assert [(line, kind) for line, kind, _ in found] == [(where[AT], "forged")], found
        assert reason in found[0][2]


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_a_genuine_line_counts_whoever_posted_it(fmt: str) -> None:
    clean, _, _ = judged(fmt, spar(fmt))
    posts = spar(fmt)
    posts[AT] = replace(posts[AT], author="Bosk", how="say")  # a player pastes the host's line
    posts[AT + 1] = replace(posts[AT + 1], author=STYLES[fmt].b, how="say")  # a fighter does
    verdict, found, _ = judged(fmt, posts)
    assert (verdict, found) == (clean, [])
    # without the key nothing proves them: the authors' rules hold
    assert [kind for _, kind, _ in judged(fmt, posts, key=None)[1]] == ["forged", "forged"]


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_a_genuine_line_pasted_again_is_caught_as_reused(fmt: str) -> None:
    clean, _, _ = judged(fmt, spar(fmt))
    posts = spar(fmt)
    posts.insert(AT + 1, replace(posts[AT], author="Bosk", how="say"))
    verdict, found, where = judged(fmt, posts)
    assert verdict == clean
    assert [(line, kind) for line, kind, _ in found] == [(where[AT + 1], "forged")], found
    assert "reused" in found[0][2]
