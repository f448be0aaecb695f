"""The host's prefix is one rule: `OnlineHost:` and a space (MSV-1), for the service's reader of
host lines (`referee.dice.chat`) and the judge's (`referee.transcripts.rolls`) alike."""

from __future__ import annotations

import pytest

from referee.dice.chat import parse_host_line
from referee.errors import NotationError
from referee.transcripts.rolls import HostRoll, read_roll

LINES = [
    "OnlineHost: Tarl rolled 1 100-sided die: 47",
    "OnlineHost:\tTarl rolled 1 100-sided die: 47 (nonce 3)",
]


@pytest.mark.parametrize("line", LINES)
def test_a_host_line_with_its_space_reads_alike(line: str) -> None:
    host = parse_host_line(line)
    read = read_roll(line)
    assert isinstance(read, HostRoll)
    assert (read.name, read.count, read.sides, read.faces) == (
        host.name,
        host.count,
        host.sides,
        host.faces,
    )


def test_a_host_line_without_its_space_is_refused_by_both() -> None:
    line = "OnlineHost:Tarl rolled 1 100-sided die: 47"
    with pytest.raises(NotationError, match="is not an OnlineHost roll line"):
        parse_host_line(line)
    assert not isinstance(read_roll(line), HostRoll)
