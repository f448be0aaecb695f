"""SRP in the bout engine: scripted fights asserting every event (SRP-9, 14..16)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.bout import check_outcomes
from referee.bout import commands as c
from referee.bout.runner import BoutRunner
from referee.cli.main import cli
from referee.errors import ConflictError, RuleError
from referee.rng import ScriptedRng
from referee.systems.base import find_system
from referee.systems.srp.gear import example_pack
from referee.systems.srp.sheet import sheet_from_table
from referee.systems.srp.stats import sheet_to_stats

EXAMPLE = Path(__file__).parents[1] / "examples" / "srp" / "fight.toml"
PACK = example_pack()


def bout_of(
    faces: list[int],
    *fighters: tuple[str, str, dict[str, Any]],
    rules: dict[str, Any] | None = None,
) -> BoutRunner:
    bout = BoutRunner.open("srp", "test", rng=ScriptedRng(faces), rules=rules)
    for name, side, sheet in fighters:
        bout.run(c.AddFighter(name, sheet_to_stats(sheet_from_table(name, sheet, PACK)), side))
    bout.run(c.RollInitiative())
    return bout


def brief(events: list[Any]) -> list[tuple[Any, ...]]:
    """Each event as (type, the few payload fields that say what happened)."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        p = e.payload
        if e.type == "roll":
            out.append(("roll", tuple(p["faces"])))
        elif e.type == "outcome":
            out.append(("outcome", p["summary"]))
        elif e.type == "wound":
            out.append(("wound", p["target"], p["amount"], p["total"]))
        elif e.type == "condition":
            out.append(("condition", p["target"], p["condition"], p["rounds"]))
        elif e.type == "stat":
            out.append(("stat", p["target"], p["key"], p["value"]))
        elif e.type == "turn":
            out.append(("turn", p["fighter"], p["round"]))
        elif e.type in ("skipped", "defeated"):
            out.append((e.type, p["name"]))
        elif e.type == "ended":
            out.append(("ended", p["winner"]))
        else:
            out.append((e.type, p.get("kind")))
    return out


def act(bout: BoutRunner, actor: str, kind: str, **options: Any) -> list[tuple[Any, ...]]:
    return brief(bout.run(c.Act(actor, kind, options), by=actor))


PIKE = {
    "weapon": ["pike", "dagger"],
    "skill": {"pike": 14, "dagger": 10},
    "armor": 4,
    "hits": 10,
    "position": [0, 0],
    "facing": 0,
}


def test_charge_through_a_long_weapons_zone() -> None:  # SRP-15
    bout = bout_of(
        [5, 15, 3],
        (
            "Bran",
            "raiders",
            {
                "weapon": "mace",
                "skill": 13,
                "hits": 8,
                "armor": 2,
                "position": [7.5, 0],
                "facing": 180,
            },
        ),
        ("Ann", "guards", PIKE),
    )
    assert act(bout, "Bran", "charge", path=[[600, 0], [450, 0], [300, 0], [150, 0]]) == [
        ("action", "charge"),
        ("roll", (5, 15, 3)),  # Ann's one extra attack: success, Bran's parry fails
        ("outcome", "Bran charges to (1.5, 0) m, stopped by Ann's zone"),
        ("wound", "Bran", 3, 3),  # d6 3 + pike 4 = 7 vs AP 2 -> 3
        ("stat", "Bran", "x_cm", 150),
        ("stat", "Bran", "y_cm", 0),
        ("stat", "Bran", "facing", 180),
        ("stat", "Ann", "extra_attack_round", 1),
        ("turn", "Ann", 1),
    ]
    with pytest.raises(RuleError, match=r"reaches beyond 1\.5 m"):
        act(bout, "Ann", "attack", target="Bran")  # a pike cannot strike an adjacent foe
    walked = bout_of(
        [],
        (
            "Bran",
            "raiders",
            {"weapon": "mace", "skill": 13, "hits": 8, "position": [7.5, 0], "facing": 180},
        ),
        ("Ann", "guards", PIKE),
    )
    assert act(walked, "Bran", "move", path=[[600, 0], [450, 0], [300, 0]])[1] == (
        "outcome",
        "Bran moves to (4.5, 0) m, stopped by Ann's zone",
    )


def test_a_mover_may_say_where_it_faces_when_it_stops() -> None:  # SRP-14
    def backing_off() -> BoutRunner:
        bran = {"weapon": "mace", "skill": 13, "hits": 8, "position": [7.5, 0], "facing": 180}
        return bout_of([], ("Bran", "raiders", bran), ("Ann", "guards", PIKE))

    # Walking backwards (east, away from Ann) turns the mover's back to her by default...
    assert ("stat", "Bran", "facing", 0) in act(backing_off(), "Bran", "move", path=[[900, 0]])
    # ...unless it says it keeps facing her (west, 180 degrees); any whole degrees, mod 360.
    kept = act(backing_off(), "Bran", "move", path=[[900, 0]], facing=180)
    assert kept[1:5] == [
        ("outcome", "Bran moves to (9, 0) m"),
        ("stat", "Bran", "x_cm", 900),
        ("stat", "Bran", "y_cm", 0),
        ("stat", "Bran", "facing", 180),
    ]
    assert ("stat", "Bran", "facing", 270) in act(
        backing_off(), "Bran", "step", path=[[750, 150]], facing=-90
    )
    for bad in ("west", 1.5, True):
        bout = backing_off()
        with pytest.raises(RuleError, match=r"whole (degrees|numbers)"):
            act(bout, "Bran", "move", path=[[900, 0]], facing=bad)
        assert bout.state.fighter("Bran").stats["x_cm"] == 750  # nothing changed
    with pytest.raises(RuleError, match=r"unknown move options \['turn'\]"):
        act(backing_off(), "Bran", "move", path=[[900, 0]], turn=180)


def test_rear_attack_gets_plus_4() -> None:  # SRP-14
    bout = bout_of(
        [15, 18, 2],
        ("Cara", "raiders", {"weapon": "dagger", "skill": 12, "hits": 9, "position": [-1.5, 0]}),
        ("Ann", "guards", PIKE),
    )
    events = bout.run(c.Act("Cara", "attack", {"target": "Ann"}), by="Cara")
    outcome = next(e for e in events if e.type == "outcome").payload
    assert outcome["rear"] is True and outcome["effective_skill"] == 16
    assert brief(events) == [
        ("action", "attack"),
        ("roll", (15, 18, 2)),  # 15 succeeds only thanks to the rear bonus
        ("outcome", "Cara attacks Ann with the dagger: success hit, 0 hits"),
        ("turn", "Ann", 1),
    ]


def test_grapple_automatic_hits_and_breaking_free() -> None:  # SRP-16
    bout = bout_of(
        [6, 17, 2, 2, 9, 6, 13, 12],
        ("Cara", "raiders", {"weapon": "unarmed", "skill": 12, "hits": 9, "armor": 2}),
        ("Ann", "guards", {"weapon": "pike", "skill": 14, "hits": 10, "armor": 5, "defense": 12}),
    )
    assert act(bout, "Cara", "grapple", target="Ann") == [
        ("action", "grapple"),
        ("roll", (6, 17, 2)),
        ("outcome", "Cara tries to grapple Ann: works"),
        ("condition", "Ann", "grappled", None),
        ("condition", "Cara", "grappling", None),
        ("stat", "Cara", "holds", "Ann"),
        ("turn", "Ann", 1),
    ]
    with pytest.raises(ConflictError, match="only one-handed weapons"):
        act(bout, "Ann", "attack", target="Cara")  # the pike takes two hands
    with pytest.raises(ConflictError, match="only minimum moves"):
        act(bout, "Ann", "move", path=[[150, 0]])
    assert act(bout, "Ann", "break_free") == [
        ("action", "break_free"),
        ("outcome", "Ann spends the first of two actions breaking free"),
        ("condition", "Ann", "breaking_free", None),
        ("turn", "Cara", 2),
    ]
    assert act(bout, "Cara", "attack", target="Ann") == [
        ("action", "attack"),
        ("roll", (2, 9, 6)),  # no defense roll counts: a 2 is a special, hits automatically
        ("outcome", "Cara attacks Ann bare-handed: special hit, 3 hits"),
        ("wound", "Ann", 3, 3),
        ("turn", "Ann", 2),
    ]
    assert act(bout, "Ann", "break_free") == [
        ("action", "break_free"),
        ("roll", (13,)),  # over defense 12: stays grappled, and must start again
        ("outcome", "Ann stays grappled"),
        ("condition", "Ann", "breaking_free", 0),
        ("turn", "Cara", 3),
    ]
    act(bout, "Cara", "pass")
    act(bout, "Ann", "break_free")
    assert act(bout, "Cara", "pass")[-1] == ("turn", "Ann", 4)
    assert act(bout, "Ann", "break_free") == [
        ("action", "break_free"),
        ("roll", (12,)),
        ("outcome", "Ann breaks free"),
        ("condition", "Ann", "breaking_free", 0),
        ("condition", "Ann", "grappled", 0),
        ("condition", "Cara", "grappling", 0),
        ("stat", "Cara", "holds", None),
        ("turn", "Cara", 5),
    ]
    assert check_outcomes(bout.events) == []


def test_disarm_blocks_attacks_until_picked_up() -> None:  # SRP-16
    bout = bout_of(
        [4, 16, 1],
        ("Dorn", "guards", {"weapon": "broadsword", "skill": 15, "hits": 12}),
        ("Bran", "raiders", {"weapon": "mace", "skill": 13, "hits": 10}),
    )
    assert act(bout, "Dorn", "disarm", target="Bran") == [
        ("action", "disarm"),
        ("roll", (4, 16, 1)),
        ("outcome", "Dorn tries to disarm Bran: works"),
        ("condition", "Bran", "disarmed", None),
        ("turn", "Bran", 1),
    ]
    with pytest.raises(ConflictError, match="disarmed: pick the weapon up first"):
        act(bout, "Bran", "attack", target="Dorn")
    assert act(bout, "Bran", "pick_up") == [
        ("action", "pick_up"),
        ("outcome", "Bran picks the weapon up"),
        ("condition", "Bran", "disarmed", 0),
        ("turn", "Dorn", 2),
    ]


def test_stun_skips_the_targets_next_turn() -> None:  # SRP-16 S*
    bout = bout_of(
        [3, 18, 6],
        ("Bran", "raiders", {"weapon": "mace", "skill": 13, "hits": 10}),
        ("Dorn", "guards", {"weapon": "broadsword", "skill": 15, "hits": 12}),
    )
    assert act(bout, "Bran", "attack") == [
        ("action", "attack"),
        ("roll", (3, 18, 6)),
        ("outcome", "Bran attacks Dorn with the mace: special hit, 7 hits, stunned"),
        ("wound", "Dorn", 7, 7),  # d6 6 + mace 3 + special 4 = 13 vs AP 0
        ("condition", "Dorn", "stunned", 1),
        ("skipped", "Dorn"),
        ("condition", "Dorn", "stunned", 0),
        ("turn", "Bran", 2),
    ]


def test_unhorse_costs_both_an_action() -> None:  # SRP-16
    bout = bout_of(
        [5, 15, 1],
        ("Hal", "raiders", {"weapon": "halberd", "skill": 14, "hits": 10}),
        ("Sir", "guards", {"weapon": "broadsword", "skill": 15, "hits": 12, "mounted": True}),
    )
    assert act(bout, "Hal", "unhorse", target="Sir") == [
        ("action", "unhorse"),
        ("roll", (5, 15, 1)),
        ("outcome", "Hal tries to unhorse Sir: works"),
        ("condition", "Sir", "dismounted", None),
        ("condition", "Sir", "lost_action", 1),
        ("condition", "Hal", "lost_action", 2),
        ("stat", "Sir", "mounted", False),
        ("condition", "Hal", "lost_action", 1),  # Hal's own turn ends
        ("skipped", "Sir"),
        ("condition", "Sir", "lost_action", 0),
        ("skipped", "Hal"),
        ("condition", "Hal", "lost_action", 0),
        ("turn", "Sir", 2),
    ]


def test_defeat_at_the_hit_total_and_the_down_option() -> None:  # SRP-9
    srp = find_system("srp")
    from referee.bout.state import Fighter

    ann = Fighter("Ann", "a", {"hits": 10})
    assert srp().defeat_threshold(ann) == 10
    assert srp({"down": "exceed"}).defeat_threshold(ann) == 11


def test_hidden_stats_and_rolled_turn_order() -> None:  # SRP-10, SRP-19
    assert "skills" in find_system("srp")().hidden_stats()
    bout = bout_of(
        [3, 15],
        ("A", "x", {"hits": 5, "initiative": 1}),
        ("B", "y", {"hits": 5}),
        rules={"turn_order": "roll"},
    )
    assert bout.state.order == ("B", "A")  # 3 + 1 = 4 against 15


def test_example_fight_cli() -> None:
    result = CliRunner().invoke(cli, ["srp", "fight", str(EXAMPLE), "--seed", "1"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    for expected in [
        "  Bran charges to (1.5, 0) m, stopped by Ann's zone",
        "    extra attack by Ann:",
        "  Dorn tries to disarm Bran: works",
        "  Cara tries to grapple Ann: works",
        "    grapple: attack d20 rolled 6 vs 16 -> success",  # +4 from the rear
        "    grappled target: the attack hits automatically at special level",
        "  Ann breaks free",
        "Bout ended: side guards wins (one side is left)",
        "(seed 1)",
    ]:
        assert expected in lines


def test_example_fight_json_replays_clean() -> None:
    result = CliRunner().invoke(cli, ["srp", "fight", str(EXAMPLE), "--seed", "1", "--json"])
    data = json.loads(result.stdout)
    assert data["winner"] == "guards" and data["seed"] == 1
    from referee.bout.events import Event

    assert check_outcomes([Event.from_dict(e) for e in data["events"]]) == []


def test_bad_fight_file(tmp_path: Path) -> None:
    broken = tmp_path / "fight.toml"
    broken.write_text(
        '[fight]\nname = "x"\n[[fighter]]\nname = "A"\nhits = 5\nspeed = 2\n'
        '[[fighter]]\nname = "B"\nhits = 5\n'
    )
    result = CliRunner().invoke(cli, ["srp", "fight", str(broken)])
    assert result.exit_code == 2 and "fighter[0].speed" in result.stderr
    missing = CliRunner().invoke(cli, ["srp", "fight", str(tmp_path / "none.toml")])
    assert missing.exit_code == 2 and "cannot read fight file" in missing.stderr
