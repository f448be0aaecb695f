"""SRP geometry: facing and the rear arc (SRP-14), zones of control and movement (SRP-15).

Diagrams: each character is one 1.5 m square; x grows to the right, y grows upward
(the top row has the largest y). Letters are combatants; digits mark a path in order.
"""

from __future__ import annotations

from referee.systems.srp.geometry import (
    Body,
    can_attack,
    in_rear_arc,
    in_zone,
    move,
    rear_attack,
)
from referee.systems.srp.rules import SrpRules

SQUARE = 1.5


def read(diagram: str) -> dict[str, tuple[float, float]]:
    """Every non-dot character's position, in metres."""
    rows = [r.strip() for r in diagram.strip().splitlines()]
    found = {}
    for row_index, row in enumerate(rows):
        y = (len(rows) - 1 - row_index) * SQUARE
        for col, char in enumerate(row):
            if char != ".":
                found[char] = (col * SQUARE, y)
    return found


def path_of(marks: dict[str, tuple[float, float]]) -> list[tuple[float, float]]:
    return [marks[d] for d in sorted(k for k in marks if k.isdigit())]


def test_rear_arc_east_facing() -> None:  # SRP-14: 90 degrees straight behind
    marks = read("""
        abc
        dXe
        fgh
    """)
    x = Body("X", *marks["X"], facing=0)  # facing +x (towards e)
    rear = {k for k in "abcdefgh" if in_rear_arc(x, marks[k])}
    assert rear == {"a", "d", "f"}  # behind, and the two diagonals on the arc's edges
    assert rear_attack(marks["d"], x) and not rear_attack(marks["e"], x)


def test_rear_arc_follows_facing() -> None:
    marks = read("""
        abc
        dXe
        fgh
    """)
    x = Body("X", *marks["X"], facing=90)  # facing +y (towards b)
    assert {k for k in "abcdefgh" if in_rear_arc(x, marks[k])} == {"f", "g", "h"}


def test_zone_of_control_normal_reach() -> None:  # SRP-15
    marks = read("""
        .....
        .abc.
        .dXe.
        .fgh.
        ....z
    """)
    x = Body("X", *marks["X"], facing=0)
    zone = {k for k in "abcdefghz" if in_zone(x, marks[k])}
    assert zone == {"b", "c", "e", "g", "h"}  # adjacent, not behind, not two squares away


def test_long_weapon_zone_and_attack_band() -> None:  # SRP-15
    marks = read("""
        P.ab.c
    """)
    pike = Body("P", *marks["P"], facing=0, reach=4.5)
    assert [in_zone(pike, marks[k]) for k in "abc"] == [True, True, False]
    adjacent = (SQUARE, 0.0)
    assert in_zone(pike, adjacent) and not can_attack(pike, adjacent)
    assert can_attack(pike, marks["a"]) and can_attack(pike, marks["b"])
    assert not can_attack(pike, marks["c"])


def test_move_stops_on_entering_a_zone() -> None:  # SRP-15
    marks = read("""
        ......
        .X321M
        ......
    """)
    x = Body("X", *marks["X"], facing=0)
    result = move(marks["M"], path_of(marks), [x])
    assert result.stopped_by == "X" and result.end == marks["3"]
    assert result.explanation[-1] == "(3, 1.5): enters the zone of X: movement stops"


def test_move_out_of_a_zone_and_on_is_free() -> None:  # SRP-15
    marks = read("""
        XM1234
    """)
    x = Body("X", *marks["X"], facing=0)
    result = move(marks["M"], path_of(marks), [x])
    assert result.stopped_by is None and result.end == marks["4"]


def test_move_from_zone_to_zone_stops_in_the_new_one() -> None:  # SRP-15
    marks = read("""
        XM12Y
    """)
    x = Body("X", *marks["X"], facing=0)
    y = Body("Y", *marks["Y"], facing=180)
    result = move(marks["M"], path_of(marks), [x, y])
    assert result.stopped_by == "Y" and result.end == marks["2"]


def test_moving_behind_a_foe_is_not_its_zone() -> None:  # SRP-14, 15: no zone in the rear arc
    marks = read("""
        1X...
        2....
    """)
    x = Body("X", *marks["X"], facing=0)
    start = (-SQUARE, 3.0)
    assert move(start, path_of(marks), [x]).stopped_by is None


def test_charge_through_a_long_weapons_zone() -> None:  # SRP-15
    marks = read("""
        P..321M
    """)
    pike = Body("P", *marks["P"], facing=0, reach=4.5)
    walked = move(marks["M"], path_of(marks), [pike])
    assert walked.stopped_by == "P" and walked.end == marks["3"]
    charged = move(marks["M"], [*path_of(marks), (SQUARE, 0.0)], [pike], charge=True)
    assert charged.stopped_by == "P" and charged.end == (SQUARE, 0.0)  # the inner zone stops
    assert charged.extra_attacks == ("P",)  # one extra attack, however many squares
    again = move(marks["M"], path_of(marks), [pike], charge=True, extra_used=["P"])
    assert again.extra_attacks == ()  # at most one per round


def test_charge_does_not_pass_a_normal_zone_unless_the_option() -> None:  # SRP-15 option
    marks = read("""
        X21M
    """)
    x = Body("X", *marks["X"], facing=0)
    assert move(marks["M"], path_of(marks), [x], charge=True).stopped_by == "X"
    free = move(marks["M"], path_of(marks), [x], charge=True, rules=SrpRules(charge_any_zone=True))
    assert free.stopped_by is None and free.extra_attacks == ("X",)
