"""SRP formula packs (RULINGS SRP-5, SRP-8): the text written as formulas gives every figure of
the default pack; a changed pack agrees with a brute force written here; every --rules command
takes formula packs; bad formulas are errors naming the column."""

from __future__ import annotations

import itertools
import json
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.analysis.srp_odds import duel_odds, hit_counts, hit_distribution
from referee.bout.replay import check_export
from referee.cli.main import cli
from referee.errors import RulePackError
from referee.ledger import verify_export
from referee.systems.formula import FormulaError
from referee.systems.srp.gear import parse_shield
from referee.systems.srp.levels import Level
from referee.systems.srp.melee import Attack, Defense, resolve
from referee.systems.srp.rules import FORMULA_SKILLS, SrpRules, load_rules
from referee.systems.srp.sheet import DefenseKind
from referee.systems.srp.system import SrpSystem
from tests.depth import examples
from tests.service_fixtures import LiveServer

TEXT_PACK = resources.files("referee.lab").joinpath("packs/srp-text.toml")
W, SH, AV, NO = DefenseKind.WEAPON, DefenseKind.SHIELD, DefenseKind.AVOID, DefenseKind.NONE
EXAMPLE_FIGHT = Path(__file__).parent.parent / "examples" / "srp" / "fight.toml"


def text_rules(**options: object) -> SrpRules:
    import tomllib

    return load_rules({**tomllib.loads(TEXT_PACK.read_text("utf-8")), **options}, "srp-text")


@pytest.fixture
def text_pack(tmp_path: Path) -> str:
    path = tmp_path / "srp-text.toml"
    path.write_text(TEXT_PACK.read_text("utf-8"), encoding="utf-8")
    return str(path)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_the_text_as_formulas_gives_every_level_and_bonus() -> None:  # SRP-5, SRP-8
    for twenty in (True, False):
        pack, default = text_rules(defense_twenty_fails=twenty), SrpRules(twenty)
        assert pack.uses_formulas and pack != default
        for skill in FORMULA_SKILLS:
            for defending in (False, True):
                for roll in range(1, 21):
                    mine = pack.level(roll, skill, defending=defending)
                    assert mine is default.level(roll, skill, defending=defending)
            assert pack.skill_bonus(skill) == default.skill_bonus(skill)
            for hit in Level:
                assert pack.level_damage(hit, skill) == default.level_damage(hit, skill)
    # a skill past the checked range is evaluated when it occurs, with the same answer
    assert text_rules().level(3, 400) is SrpRules().level(3, 400) is Level.CRITICAL


def _defenses() -> list[Defense]:
    out = []
    for skill in (0, 1, 5, 9, 10, 12, 15, 19, 20, 21, 29, 30, 31, 45, 60, 100):
        out += [
            Defense(kind=W, skill=skill, armor=3),
            Defense(kind=AV, skill=skill, armor=0),
            Defense(kind=SH, skill=skill, armor=5, shield=parse_shield("medium")),
        ]
    return [*out, Defense(kind=NO, armor=2), Defense(kind=NO, armor=12)]


@pytest.mark.parametrize("keeps", [False, True])
def test_the_text_as_formulas_gives_every_odds_figure(keeps: bool) -> None:
    """hit_counts (what `referee srp odds` prints) for every attack skill 0..100, rear or not,
    against weapon, Avoid, shield and no defense at every level boundary of the table."""
    pack, default = text_rules(shield_keeps_level=keeps), SrpRules(shield_keeps_level=keeps)
    defenses = _defenses()
    for skill in range(0, 101):
        for attack in (
            Attack(skill=skill, weapon_damage=3, dam=1),
            Attack(skill=skill, weapon_damage=1, rear=True, modifier=-2),
        ):
            for defense in defenses:
                assert hit_counts(attack, defense, pack) == hit_counts(attack, defense, default)
    for attack in (
        Attack(skill=17, weapon_damage=2, automatic=True),
        Attack(skill=24, weapon_damage=3, missile=True, thrown=True, dam=3),
    ):
        for defense in defenses:
            assert hit_counts(attack, defense, pack) == hit_counts(attack, defense, default)


def test_the_text_as_formulas_gives_every_attack_outcome() -> None:
    """Every one of the 2,400 face triples (what `referee srp attack --dice` resolves)."""
    pack = text_rules()
    cases = [
        (Attack(skill=22, weapon_damage=3, dam=1, stun=True), Defense(kind=W, skill=12, armor=4)),
        (
            Attack(skill=31, weapon_damage=2, rear=True),
            Defense(kind=SH, skill=20, armor=4, shield=parse_shield("[8]")),
        ),
        (Attack(skill=9), Defense(kind=AV, skill=30, armor=1)),
    ]
    for attack, defense in cases:
        for faces in itertools.product(range(1, 21), range(1, 21), range(1, 7)):
            mine = resolve(attack, defense, faces, pack).as_dict()
            assert mine == resolve(attack, defense, faces, SrpRules()).as_dict()


ODDS_SPECS = [
    ("skill=15 damage=3 dam=1 hits=12", "skill=13 damage=4 defense=12 armor=5 hits=10"),
    ("skill=24 damage=2 hits=9", "skill=18 defend=shield shield=(6) defense=15 armor=3 hits=11"),
    ("skill=9 damage=1", "defend=avoid avoid=14 armor=2"),
    ("skill=30 damage=4 dam=2 hits=6", "skill=30 defense=20 defend=none armor=8 hits=7"),
]


@pytest.mark.parametrize(("attacker", "defender"), ODDS_SPECS)
def test_srp_odds_cli_is_the_same_under_the_text_pack(
    attacker: str, defender: str, text_pack: str
) -> None:
    for extra in ([], ["--rear"], ["--json"]):
        base = ["srp", "odds", "--attacker", attacker, "--defender", defender, *extra]
        code, plain, _ = run(*base)
        assert code == 0
        assert run(*base, "--rules", text_pack) == (0, plain, "")


def test_srp_attack_cli_is_the_same_under_the_text_pack(text_pack: str) -> None:
    for dice in ("3,14,6", "1,1,6", "2,20,3", "20,1,1", "6,4,5"):
        base = ["srp", "attack", "--skill", "22", "--defense", "12", "--defend", "shield",
                "--shield", "medium", "--armor", "3", "--weapon-damage", "2",
                "--dice", dice]  # fmt: skip
        code, plain, _ = run(*base)
        assert code == 0 and run(*base, "--rules", text_pack) == (0, plain, "")


# --- a changed pack against a brute force written here -------------------------------------

CHANGED = {
    "success": "roll <= skill + 1",
    "special": "roll % 2 == 0",
    "critical": "roll <= floor(skill / 5)",
    "damage_bonus": "floor(skill / 8)",
    "special_damage": "2 + (skill > 15)",
    "critical_damage": "6",
}


def brute_level(roll: int, skill: int, defending: bool, twenty_fails: bool) -> int:
    if roll == 20 and (twenty_fails or not defending):
        return 0
    if roll > skill + 1:
        return 0
    if roll <= skill // 5:
        return 3
    return 2 if roll % 2 == 0 else 1


def brute_hits(attack: Attack, defense: Defense, twenty_fails: bool) -> dict[int, int]:
    """Every face triple through SRP-7..9 written out again, with the changed formulas."""
    skill = attack.effective_skill
    out: dict[int, int] = {}
    for a_roll, d_roll, die in itertools.product(range(1, 21), range(1, 21), range(1, 7)):
        a = brute_level(a_roll, skill, False, twenty_fails)
        shield_on = False
        if a == 0:
            hit = 0
        elif defense.kind is NO:
            hit = a
        else:
            d = brute_level(d_roll, defense.skill, True, twenty_fails)
            if d == 0:
                hit = a
            elif defense.kind is SH:
                hit, shield_on = max(1, a - d + 1), True
            else:
                hit = a - d if a > d else 0
        hits = 0
        if hit:
            damage = die + attack.weapon_damage + attack.dam + skill // 8
            damage += {1: 0, 2: 2 + (skill > 15), 3: 6}[hit]
            armor = defense.armor + (defense.shield.ap if shield_on and defense.shield else 0)
            if hit == 3:
                armor //= 2
            hits = -(-(max(0, damage) - armor) // 2) if max(0, damage) > armor else 0
            if hit == 3:
                hits = max(1, hits)
        out[hits] = out.get(hits, 0) + 1
    return dict(sorted(out.items()))


@pytest.mark.parametrize("twenty_fails", [True, False])
def test_a_changed_pack_agrees_with_brute_force(twenty_fails: bool) -> None:
    pack = load_rules({**CHANGED, "defense_twenty_fails": twenty_fails})
    for skill, rear in ((3, False), (12, True), (19, False), (25, False), (40, True)):
        attack = Attack(skill=skill, weapon_damage=2, dam=1, rear=rear)
        for defense in (
            Defense(kind=W, skill=14, armor=4),
            Defense(kind=AV, skill=19, armor=1),
            Defense(kind=SH, skill=11, armor=3, shield=parse_shield("(6)")),
            Defense(kind=NO, armor=7),
        ):
            assert hit_counts(attack, defense, pack) == brute_hits(attack, defense, twenty_fails)


def test_a_changed_pack_changes_the_cli_figures(tmp_path: Path) -> None:
    path = tmp_path / "changed.toml"
    path.write_text("[srp]\n" + "".join(f'{k} = "{v}"\n' for k, v in CHANGED.items()))
    attacker, defender = ODDS_SPECS[0]
    args = ["srp", "odds", "--attacker", attacker, "--defender", defender, "--json"]
    code, out, _ = run(*args, "--rules", str(path))
    assert code == 0
    data = json.loads(out)
    pack = load_rules(CHANGED)
    a = Attack(skill=15, weapon_damage=3, dam=1)
    d = Defense(kind=W, skill=12, armor=5)
    assert data["distribution"] == {str(k): str(p) for k, p in hit_distribution(a, d, pack).items()}
    back = hit_distribution(Attack(skill=13, weapon_damage=4), Defense(armor=0), pack)
    duel = duel_odds(hit_distribution(a, d, pack), back, 12, 10, pack)
    assert data["duel"]["first_wins"] == str(duel.first)
    assert json.loads(run(*args)[1])["duel"]["first_wins"] != str(duel.first)


def test_every_rules_command_takes_a_formula_pack(tmp_path: Path) -> None:
    path = tmp_path / "crit5.toml"
    path.write_text('critical = "roll <= floor(skill / 5)"\ndamage_bonus = "skill - 10"\n')
    pack = str(path)
    # skill 15, roll 3: special by the text, critical by the pack (and +5 high-skill damage)
    code, out, _ = run("srp", "attack", "--skill", "15", "--defend", "none", "--dice", "3,1,1",
                       "--rules", pack, "--json")  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["hit_level"] == "critical" and data["damage"] == 1 + 5 + 4
    code, out, _ = run("srp", "shoot", "--skill", "15", "--dice", "3,1,1", "--rules", pack,
                       "--json")  # fmt: skip
    assert code == 0 and json.loads(out)["shots"][0]["attack_level"] == "critical"
    code, out, _ = run("srp", "special", "disarm", "--skill", "15", "--defend", "weapon",
                       "--dice", "3,15,1", "--rules", pack, "--json")  # fmt: skip
    assert code == 0 and json.loads(out)["attack_level"] == "critical"
    code, out, _ = run("srp", "challenge", "--skill", "8", "--target", "15", "--dice", "3,4",
                       "--rules", pack)  # fmt: skip
    assert code == 0
    # a fight file's [rules] and the bout system it opens
    fight = tmp_path / "fight.toml"
    text = EXAMPLE_FIGHT.read_text("utf-8").replace(
        "[rules]\n", '[rules]\ncritical = "roll <= floor(skill / 5)"\n'
    )
    fight.write_text(text, encoding="utf-8")
    code, out, err = run("srp", "fight", str(fight), "--seed", "1")
    assert code == 0, err
    # Cara's grapple on the grappled Ann, roll 2 at 16: special by the text, critical here
    assert (
        "    grappled target: the attack hits automatically at critical level" in out.splitlines()
    )
    system = SrpSystem({"critical": "roll <= floor(skill / 5)"})
    assert system.rules["critical"] == "roll <= floor(skill / 5)"
    assert system.srp.level(2, 16) is Level.CRITICAL


@pytest.mark.parametrize(
    ("pack", "message"),
    [
        ({"special": "roll <= cs"}, "formula 'special': unknown name 'cs' at column 9"),
        ({"damage_bonus": "roll"}, "formula 'damage_bonus': unknown name 'roll'"),
        ({"damage_bonus": "skill / 3"}, "formula 'damage_bonus' gave -100/3 at skill = -100"),
        ({"critical_damage": "skill * 10"}, "must be a whole number in -1000..1000"),
        ({"critical": "roll / (skill - 7) > 1"}, "division by zero (at roll = 1, skill = 7)"),
        ({"success": 3.5}, "srp.success = 3.5 is not a formula in quotes"),
        ({"success": "roll <="}, "formula 'success': unexpected end at column 8"),
        ({"level": "roll"}, "unknown key srp.level"),
    ],
)
def test_bad_formulas_name_the_column(pack: dict[str, object], message: str) -> None:
    with pytest.raises(RulePackError) as caught:
        load_rules(pack)
    assert message in str(caught.value)


def test_a_bad_formula_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('special = "roll <= floor(skill / 0)"\n')
    code, out, err = run("srp", "odds", "--attacker", "skill=12", "--defender", "defense=10",
                         "--rules", str(path))  # fmt: skip
    assert code == 2 and out == "" and "formula 'special': division by zero" in err


def test_the_pack_round_trips_through_json() -> None:
    pack = load_rules(CHANGED)
    assert load_rules(pack.as_dict()) == pack
    assert "success" not in SrpRules().as_dict()
    with pytest.raises(FormulaError):
        load_rules({**CHANGED, "special": "roll // 2"})


FORMULA_RULES = {"critical": "roll <= floor(skill / 3)", "critical_damage": "7"}
SHEET = {"hits": 9, "skills": {"sword": 14}, "defense": 12, "armor": 2,
         "weapons": [{"name": "sword", "damage": 3}]}  # fmt: skip


def test_a_service_bout_with_an_srp_formula_pack_verifies(live: LiveServer) -> None:
    bout = live.post(
        "/api/bouts",
        json={"system": "srp", "name": "Lab", "client_seed": "lab", "rules": FORMULA_RULES},
    ).json()
    bid, ref = bout["id"], bout["referee_token"]
    tokens = {}
    for name in ("Ann", "Bran"):
        r = live.post(f"/api/bouts/{bid}/fighters", ref, json={"name": name, "sheet": SHEET})
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["token"]
    assert live.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    pack = load_rules(FORMULA_RULES)
    levels = []
    for _ in range(300):
        view = live.get(f"/api/bouts/{bid}").json()
        if view["winner"]:
            break
        me = view["turn"]
        foe = "Ann" if me == "Bran" else "Bran"
        r = live.post(f"/api/bouts/{bid}/attacks", tokens[me], json={"attacker": me, "target": foe})
        assert r.status_code == 200, r.text
        answer = r.json()
        attack_face = answer["rolls"][0]["faces"][0]
        assert answer["attack_level"] == pack.level(attack_face, 14).label
        levels.append(answer["attack_level"])
    # Each attack's level was checked against the pack above; the server seed is random, so
    # which levels came up is not (the exhaustive tests cover every level).
    assert view["winner"] and levels
    live.post(f"/api/bouts/{bid}/close", ref)
    export = live.get(f"/api/bouts/{bid}/export").json()
    assert export["events"][0]["payload"]["rules"]["critical"] == "roll <= floor(skill / 3)"
    assert verify_export(export, replay=check_export).ok


def test_a_bad_srp_formula_in_a_service_bout_is_a_400(live: LiveServer) -> None:
    r = live.post("/api/bouts", json={"system": "srp", "name": "x", "rules": {"special": "cs"}})
    assert (r.status_code, r.json()["error"]) == (400, "bad_formula")
    assert "formula 'special': unknown name 'cs'" in r.json()["message"]


@settings(max_examples=examples(60), deadline=None)
@given(
    third=st.integers(1, 12),
    tenth=st.integers(1, 25),
    band=st.integers(1, 10),
    twenty=st.booleans(),
)
def test_threshold_packs_match_the_rule_they_spell(
    third: int, tenth: int, band: int, twenty: bool
) -> None:  # SRP-5, SRP-8 with other divisors
    pack = load_rules(
        {
            "special": f"roll <= max(1, floor(skill / {third}))",
            "critical": f"roll <= floor(skill / {tenth})",
            "damage_bonus": f"max(0, ceil((skill - 20) / {band}))",
            "defense_twenty_fails": twenty,
        }
    )
    for skill in range(-3, 61):
        for defending in (False, True):
            counts = [0, 0, 0, 0]
            for roll in range(1, 21):
                if (roll == 20 and (twenty or not defending)) or roll > skill:
                    counts[0] += 1
                elif roll <= skill // tenth:
                    counts[3] += 1
                elif roll <= max(1, skill // third):
                    counts[2] += 1
                else:
                    counts[1] += 1
            assert pack.level_counts(skill, defending=defending) == tuple(counts)
        assert pack.skill_bonus(skill) == max(0, -(-(skill - 20) // band))


def test_srp_levels_table_under_a_pack(text_pack: str, tmp_path: Path) -> None:  # SRP-5
    for extra in ([], ["--json"]):
        for top in ("30", "40", "100"):
            code, plain, _ = run("srp", "levels", "--max", top, *extra)
            assert code == 0
            assert run("srp", "levels", "--max", top, "--rules", text_pack, *extra) == (
                0,
                plain,
                "",
            )
    path = tmp_path / "even.toml"
    path.write_text('special = "roll % 2 == 0"\ncritical = "roll <= floor(skill / 5)"\n')
    code, out, _ = run("srp", "levels", "--max", "12", "--rules", str(path))
    assert code == 0
    assert out.splitlines() == [
        "Skill\tSpecial\tCritical",
        "1\t--\t--",
        "2-3\t2\t--",
        "4\t2,4\t--",
        "5\t2,4\t1",
        "6-7\t2,4,6\t1",
        "8-9\t2,4,6,8\t1",
        "10-11\t4,6,8,10\t1-2",
        "12\t4,6,8,10,12\t1-2",
    ]
