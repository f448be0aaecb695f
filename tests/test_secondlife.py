"""The Second Life scripts (examples/secondlife) compiled by lummao and
run in a fake region (tests/sl_region.py) against a real `referee serve` on 127.0.0.1.

Every script must compile (a compile error fails the build). A whole MSV spar is played by two
fighter HUDs and refereed from the table; its export verifies against the commitment the table
said and the last hash the HUD showed, and its local chat judges clean. An SRP fight takes
positions from where the avatars stand; a dropped answer is retried once with the same
Idempotency-Key and acts once; a wearer typing on channel 0 sends nothing. Time is the region's
own: timers fire only when a test advances it.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from referee.cli.main import cli
from referee.ledger.signatures import check_line, read_key
from tests.conftest import need
from tests.service_fixtures import serve_process

try:
    import lummao
except ImportError:  # a failure with CI=true (tests.conftest.need), a skip elsewhere
    lummao = None

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "examples").rglob("*.lsl"))
HUD = ROOT / "examples/secondlife/fighter-hud.lsl"
TABLE = ROOT / "examples/secondlife/referee-table.lsl"
METER = ROOT / "examples/secondlife/meter.lsl"
LINK = re.compile(r"https?://\S+#bout=[A-Za-z0-9_-]+")
SHEET = {"weapons": [{"name": "broadsword", "damage": 3}], "skills": {"broadsword": 15}, "hits": 12}


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`referee serve` in a process of its own, with Second Life's rate per token."""
    need(lummao is not None, "lummao (pip install lummao)")
    db = tmp_path_factory.mktemp("sl") / "referee.db"
    proc, url = serve_process(
        db, "--rate", "token=25/20s", "--rate", "address=600/1m", stderr=subprocess.DEVNULL
    )
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture
def region() -> Iterator[object]:
    need(lummao is not None, "lummao (pip install lummao)")
    from tests.sl_region import Region

    world = Region()
    yield world
    world.close()


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_script_compiles(path: Path) -> None:
    need(lummao is not None, "lummao (pip install lummao)")
    source = lummao.convert_script_file(path).decode()
    assert "class Script(BaseLSLScript)" in source


def test_a_compile_error_is_an_error() -> None:
    need(lummao is not None, "lummao (pip install lummao)")
    with pytest.raises(lummao.CompileError, match="undeclared"):
        lummao.convert_script("default { state_entry() { llNoSuchFunction(1); } }")


#: What the scripts do with lummao's JSON and with `++` and `--` in expressions (see
#: `test_json_and_steps_answer_as_in_second_life`); the JSON is the object's description.
STEPS_SCRIPT = """
integer g = 2147483647;
vector gv;

default
{
    state_entry()
    {
        string body = llGetObjectDesc();
        llOwnerSay(llJsonGetValue(body, ["id"]));
        llOwnerSay(llJsonGetValue(body, ["n"]));
        llOwnerSay(llJsonGetValue(body, ["o"]));
        llOwnerSay(llJsonGetValue(body, ["o", "a", 1]));
        llOwnerSay(llList2CSV([llJsonGetValue(body, ["ok"]) == JSON_TRUE,
            llJsonGetValue(body, ["no"]) == JSON_NULL,
            llJsonGetValue(body, ["nope"]) == JSON_INVALID,
            llJsonGetValue(body, ["events", 2]) == JSON_INVALID,
            llJsonGetValue(body, ["o", "a", 2]) == JSON_INVALID,
            llJsonGetValue("[1", [0]) == JSON_INVALID]));
        integer i;
        integer a = i++;
        integer b = ++i;
        integer c = i--;
        integer d = --i;
        llOwnerSay(llList2CSV([a, b, c, d, i]));
        integer h = ++g;
        llOwnerSay(llList2CSV([h, g]));
        vector v;
        float x = v.x++;
        float y = ++gv.y;
        llOwnerSay(llList2CSV([x, y, v, gv]));
        integer n;
        list types;
        string item = llJsonGetValue(body, ["events", 0]);
        while (item != JSON_INVALID && llGetListLength(types) < 5)
        {
            types += llJsonGetValue(item, ["type"]);
            item = llJsonGetValue(body, ["events", ++n]);
        }
        llOwnerSay(llList2CSV(types + n));
    }
}
"""


def test_json_and_steps_answer_as_in_second_life(region, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """llJsonGetValue as the LSL wiki gives it (a string unquoted, a number or an object as its
    text, a nested path, JSON_TRUE and JSON_NULL, JSON_INVALID for a missing key, an index past
    the end or broken JSON), and `++`/`--` before and after on a local, a global (integers wrap
    at 2**31) and a vector's member; then a list walked the table's way, `++n` in the path.
    On Python 3.13 lummao's own `++` on a local changes nothing (tests/sl_region.py `STEPS`):
    the walk would say "roll, turn, turn, turn, turn, 0"."""
    path = tmp_path / "steps.lsl"
    path.write_text(STEPS_SCRIPT, encoding="utf-8")
    owner = region.avatar("Tarl", "tarl.cabot", (130.0, 128.0, 25.0))
    body = {"id": "b1", "n": 7, "ok": True, "no": None, "o": {"a": [1, "x"]}}
    body["events"] = [{"type": "roll"}, {"type": "turn"}]
    region.rez(path, "steps", owner, desc=json.dumps(body, separators=(",", ":")))
    assert owner.private == [
        "b1",
        "7",
        '{"a":[1,"x"]}',
        "x",
        "1, 1, 1, 1, 1, 1",
        "0, 2, 2, 0, 0",
        "-2147483648, -2147483648",
        "0.000000, 1.000000, <1.000000, 0.000000, 0.000000>, <0.000000, 1.000000, 0.000000>",
        "roll, turn, 2",
    ]
    assert region.violations == []


# -- the scene ---------------------------------------------------------------------------------


def opened(region, url: str, desc: str, *, world: bool = False):  # type: ignore[no-untyped-def]
    """The referee rezzes the table and opens a bout; returns (referee, table, commitment)."""
    referee = region.avatar("Marcus", "marcus.resident", (128.0, 128.0, 25.0))
    table = region.rez(TABLE, "referee table", referee, desc=f"{url} {desc}", worn=False)
    if world:
        region.touch(referee, table)
        region.click(referee, "positions")
    region.touch(referee, table)
    region.click(referee, "open")
    said = region.chat[-1]
    assert said.speaker == "Referee" and "commitment" in said.text, said
    commitment = re.search(r"commitment ([0-9a-f]{64})", said.text)
    assert commitment is not None
    return referee, table, commitment.group(1)


def fighter(region, referee, table, name, username, pos, facing, setting, notecard=False):  # type: ignore[no-untyped-def]
    """An avatar steps up, is invited by the table, pastes its invite and wears HUD and meter."""
    avatar = region.avatar(name, username, pos, facing)
    invite_one(region, referee, table, avatar)
    invite = LINK.search(avatar.private[-1])
    assert invite is not None, avatar.private
    if notecard:
        hud = region.rez(
            HUD,
            "fighter HUD",
            avatar,
            notecards={"referee": [invite.group(0), *setting.split("\n")]},
        )
    else:
        hud = region.rez(HUD, "fighter HUD", avatar, desc=f"{invite.group(0)} {setting}")
    meter = region.rez(METER, "meter", avatar)
    assert any("you joined as" in line for line in avatar.private), avatar.private
    return avatar, hud, meter


def invite_one(region, referee, table, avatar) -> None:  # type: ignore[no-untyped-def]
    """The referee touches the table, *invite*, picks `avatar` from the avatars near it, and
    closes the menu with *done* (if anyone near is left to invite)."""
    region.touch(referee, table)
    region.click(referee, "invite")
    _, _, buttons, _ = referee.dialog
    region.click(referee, next(b for b in buttons if b.split(" ", 1)[-1] == avatar.name))
    if referee.dialog is not None:  # others near are left to invite
        region.click(referee, "done")


def begin(region, referee, table) -> None:  # type: ignore[no-untyped-def]
    region.touch(referee, table)
    region.click(referee, "begin")


def act(region, avatar, hud, button: str = "1 attack") -> None:  # type: ignore[no-untyped-def]
    region.touch(avatar, hud)
    region.click(avatar, button)


def export(url: str, bout: str) -> dict:  # type: ignore[type-arg]
    return httpx.get(f"{url}/api/bouts/{bout}/export", timeout=30).json()  # type: ignore[no-any-return]


def bout_of(table) -> str:  # type: ignore[no-untyped-def]
    return str(table.script.bout)


# -- a whole MSV spar ------------------------------------------------------------------------


def test_a_whole_msv_spar_refereed_from_the_table(serve: str, region, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from referee.bout.replay import check_export
    from referee.ledger import verify_export
    from referee.transcripts import judge_log

    referee, table, commitment = opened(region, serve, "msv Spar at the Tarn")
    tarl, hud_t, meter_t = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65"
    )
    pakur, hud_p, meter_p = fighter(
        region, referee, table, "Pa-Kur", "pakur.resident", (129.0, 128.0, 25.0), 0, "cs=70"
    )
    assert any("committed to its seed " + commitment in line for line in tarl.private)
    begin(region, referee, table)
    huds = {"Tarl": (tarl, hud_t), "Pa-Kur": (pakur, hud_p)}

    # The wearer typing on channel 0 (role play, never read).
    before = len(region.requests)
    region.say(tarl, 0, "attack Pa-Kur")
    assert len(region.requests) == before
    # The referee pauses and resumes from the table.
    for power in ("pause", "resume"):
        region.touch(referee, table)
        region.click(referee, power)

    for _ in range(200):
        region.advance(4.0)  # the HUDs poll; the one whose turn it is tells its wearer
        turn = hud_t.script.turn
        if hud_t.script.turn in ("", "\ufdd5") or "ended" in meter_t.text:
            break
        avatar, hud = huds[turn]
        assert any("your turn" in line for line in avatar.private[-6:]), avatar.private[-6:]
        act(region, avatar, hud)
    region.advance(4.0)
    assert "ended" in meter_t.text and "ended" in meter_p.text, (meter_t.text, meter_p.text)
    assert "damage" in meter_t.text and "/ 15" in meter_t.text

    region.touch(referee, table)
    region.click(referee, "close")
    region.click(referee, "yes, close")
    assert region.chat[-1].text.endswith(f"/static/verify.html#bout={bout_of(table)}")
    region.advance(4.0)
    shown = [line for line in tarl.private if "last event hash" in line][-1]
    last_hash = re.search(r"hash is ([0-9a-f]{64})", shown)
    assert last_hash is not None, shown

    doc = export(serve, bout_of(table))
    report = verify_export(doc, replay=check_export)
    assert report.ok, report.problems
    assert doc["fairness"]["commitment"] == commitment
    assert doc["events"][-1]["hash"] == last_hash.group(1)
    # Each HUD said its join's own event and hash, before any roll: the export holds them.
    for avatar in (tarl, pakur):
        joined = [line for line in avatar.private if "your join is event" in line][-1]
        held = re.search(r"your join is event (\d+), hash ([0-9a-f]{64})", joined)
        assert held is not None, joined
        assert doc["events"][int(held.group(1))]["hash"] == held.group(2)
    client_seed = doc["fairness"]["client_seed"]
    assert len(client_seed.split(":")) == 3  # the table's part, then each HUD's own

    # Each reading the HUDs said aloud is the service's `said`: the outcome as referee.sentences
    # says it (the same words as the chat endpoint's answer), never the HUD's own wording.
    from referee.sentences import sentence

    readings = [c.text for c in region.chat if c.speaker == "Referee"]
    outcomes = [e for e in doc["events"] if e["type"] == "outcome"]
    assert outcomes
    for outcome in outcomes:
        said = sentence(outcome, "msv")
        upto = next((o["seq"] for o in outcomes if o["seq"] > outcome["seq"]), None)
        after = [
            e
            for e in doc["events"]
            if outcome["seq"] < e["seq"] < (upto or 1 << 62) and e["type"] in ("turn", "ended")
        ]  # none when a critical's free attack comes at once
        then = sentence(after[0], "msv") if after else "acts again at once"
        assert any(line.startswith(said) and then in line for line in readings), (said, then)

    log = region.chat_log()
    case = judge_log(log)
    assert not case.verdict.anomalies, [(a.line, a.reason) for a in case.verdict.anomalies]
    winner = next(e for e in doc["events"] if e["type"] == "ended")["payload"]["winner"]
    assert case.verdict.winner == winner
    against = judge_log(log, export=doc)
    assert not against.verdict.anomalies
    # Any object in Second Life may call itself OnlineHost: against the export, a line whose
    # faces the ledger does not hold is caught.
    first = next(c for c in region.chat if c.speaker == "OnlineHost" and "(nonce 0" in c.text)
    face = re.search(r": (\d+) \(nonce", first.text)
    assert face is not None, first.text
    other = "1" if face.group(1) != "1" else "2"
    forged_line = first.text.replace(face.group(0), f": {other} (nonce")
    forged = log.replace(f"OnlineHost: {first.text}\n", f"OnlineHost: {forged_line}\n", 1)
    assert forged != log and judge_log(forged, export=doc).verdict.anomalies
    # Every roll line the table and the HUDs said is signed by the service (docs/ledger.md):
    # each genuine for this bout by the key the export holds, the changed one caught from the
    # log alone with that key, and each line far under SL's 1,024 bytes.
    key = read_key(doc["signing_key"]["public_key"])
    hosts = [c.text for c in region.chat if c.speaker == "OnlineHost"]
    assert len(hosts) >= 4 and all(len(t.encode()) < 300 for t in hosts)
    assert all(check_line(f"OnlineHost: {t}", key, doc["bout"]["id"]).genuine for t in hosts)
    caught = judge_log(forged, key=key.text).verdict.anomalies  # then the spar is out of step
    assert caught[0].kind.value == "forged" and "does not verify" in caught[0].reason, caught
    assert not judge_log(log, key=key.text).verdict.anomalies
    # The same text with another genuine line's signature (an object named OnlineHost
    # repeating a roll with a signature it heard) is forged too.
    second = next(t for t in hosts if t != first.text)
    swapped = first.text.split(" sig:")[0] + " sig:" + second.split(" sig:")[1]
    resigned = log.replace(f"OnlineHost: {first.text}\n", f"OnlineHost: {swapped}\n", 1)
    assert resigned != log
    caught = judge_log(resigned, key=key.text).verdict.anomalies
    assert caught[0].kind.value == "forged" and "does not verify" in caught[0].reason, caught
    # The command a referee runs on a saved local-chat log: every roll line counts (exit 0).
    saved, exported = tmp_path / "chat.txt", tmp_path / "bout.json"
    saved.write_text(log, encoding="utf-8")
    exported.write_text(json.dumps(doc), encoding="utf-8")
    for extra in ([], ["--export", str(exported)]):
        judged = CliRunner().invoke(cli, ["judge", str(saved), *extra])
        assert judged.exit_code == 0, judged.output
        assert winner in judged.output
    assert region.violations == []
    # No secret was ever said: not the tokens, not on any channel.
    tokens = [
        hud_t.script.token,
        hud_p.script.token,
        *(r.headers.get("Authorization", "") for r in region.requests),
    ]
    said = log + "".join(tarl.private + pakur.private)
    assert all(t.removeprefix("Bearer ") not in said for t in tokens if t)
    rates = figures(region, "msv spar")
    assert rates["meter of Tarl"] == rates["meter of Pa-Kur"] == 0
    assert rates["fighter-hud of Tarl"] <= 60  # the HUD's own budget: 20 in any 20 s


def figures(region, what: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Requests and bytes per minute of region time for each object, the largest answer and
    each script's peak memory, for docs/secondlife.md (`-s` shows them); returns the
    requests per minute by object."""
    from tests.sl_region import MEMORY_LIMIT

    minutes = region.clock / 60
    count: dict[str, int] = {f"{o.path.stem} of {o.owner.name}": 0 for o in region.objects}
    size = dict.fromkeys(count, 0)
    for request in region.requests:
        obj = next(o for o in region.objects if str(o.key) == request.obj)
        count[f"{obj.path.stem} of {obj.owner.name}"] += 1
        size[f"{obj.path.stem} of {obj.owner.name}"] += request.size
    rates = {name: n / minutes for name, n in count.items()}
    peak = {o.path.stem: o.peak_memory for o in region.objects}
    # docs/secondlife.md, "replies read": every answer fits SL's default 2,048 bytes but the
    # table's begin, initiative's, which lists every roll (ties rolled again) and is read with
    # up to 16,384 (`region.violations` holds any answer longer than its request reads)
    begins = [r.size for r in region.requests if r.url.endswith("/initiative")]
    most = max(r.size for r in region.requests if not r.url.endswith("/initiative"))
    print(
        f"\n{what} ({minutes:.1f} min of region time): largest answer {most} bytes, "
        f"initiative's {max(begins, default=0)}"
    )
    for name, n in count.items():
        print(f"  {name}: {n} requests, {rates[name]:.1f}/min, {size[name] / minutes:.0f} B/min")
    print(f"  peak memory (data, bytes): {peak}")
    assert all(v < MEMORY_LIMIT // 4 for v in peak.values())
    assert most <= 2048 and all(size <= 16384 for size in begins)
    return rates


# -- an SRP fight with positions from the world ---------------------------------------------------


def test_an_srp_fight_takes_positions_from_the_world(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    from referee.bout.replay import check_export
    from referee.ledger import verify_export

    referee, table, _ = opened(region, serve, "srp Skirmish", world=True)
    sheet = "sheet=" + json.dumps(SHEET)
    # Ann stands just west of Orc, both facing east: Ann is in Orc's rear arc (SRP-14).
    ann, hud_a, _ = fighter(
        region, referee, table, "Ann", "ann.resident", (120.0, 128.0, 25.0), 0, sheet, notecard=True
    )
    orc, hud_o, _ = fighter(
        region, referee, table, "Orc", "orc.resident", (121.0, 128.0, 25.0), 0, sheet, notecard=True
    )
    begin(region, referee, table)
    region.advance(4.0)
    assert hud_a.script.world == "world"
    act(region, ann, hud_a)
    sent = json.loads(region.requests[-1].body) if region.requests[-1].method == "POST" else None
    attack = next(json.loads(r.body) for r in region.requests if r.url.endswith("/actions"))
    assert attack["options"]["at"] == [12000, 12800, 0]
    assert attack["options"]["target_at"] == [12100, 12800, 0]
    doc = export(serve, bout_of(table))
    outcome = next(e for e in doc["events"] if e["type"] == "outcome")
    assert outcome["payload"]["rear"] is True
    assert "+ 4 rear" in outcome["payload"]["explanation"][0]
    # Orc turns to face Ann and strikes back: no rear attack from the front.
    orc.facing = 180.0
    region.advance(4.0)
    act(region, orc, hud_o)
    doc = export(serve, bout_of(table))
    second = [e for e in doc["events"] if e["type"] == "outcome"][1]
    assert second["actor"] in ("Orc", "system") and second["payload"]["rear"] is False
    # Ann steps 8 m away: out of reach, the rules refuse her attack and nothing is stored.
    ann.pos = (113.0, 128.0, 25.0)
    region.advance(4.0)
    events = len(export(serve, bout_of(table))["events"])
    act(region, ann, hud_a)
    assert "reaches up to 1.5 m" in ann.private[-1], ann.private[-1]
    assert len(export(serve, bout_of(table))["events"]) == events
    region.touch(referee, table)
    region.click(referee, "close")
    region.click(referee, "yes, close")
    report = verify_export(export(serve, bout_of(table)), replay=check_export)
    assert report.ok, report.problems
    assert sent is None or "actor" in sent
    assert region.violations == []
    figures(region, "srp fight")


def test_with_the_maps_positions_no_hud_reports_where_it_stands(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    referee, table, _ = opened(region, serve, "srp Skirmish")
    sheet = "sheet=" + json.dumps(SHEET)
    # Ann fights under another name than her display name, with a space and a letter past ASCII.
    ann, hud_a, _ = fighter(
        region, referee, table, "Ann", "ann.resident", (120.0, 128.0, 25.0), 0,
        sheet + "\nname=Ann of Tharna é", notecard=True,
    )  # fmt: skip
    fighter(
        region, referee, table, "Orc", "orc.resident", (121.0, 128.0, 25.0), 0, sheet, notecard=True
    )
    begin(region, referee, table)
    region.advance(4.0)
    assert hud_a.script.world == "map"
    assert any(r.url.endswith("&fighter=Ann%20of%20Tharna%20%C3%A9") for r in region.requests)
    assert hud_a.script.turn == "Ann of Tharna é"  # SRP's listed order: the first to join
    act(region, ann, hud_a)
    attack = next(json.loads(r.body) for r in region.requests if r.url.endswith("/actions"))
    assert attack["actor"] == "Ann of Tharna é" and attack["options"] == {"target": "Orc"}
    assert region.violations == []


# -- secrets -------------------------------------------------------------------------------------


def test_the_invite_is_never_said_where_anyone_else_hears(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    """The invite (the service's address and the bout's id: anyone who has both may join) goes
    to each fighter alone; nothing said on any channel, no floating text and nothing a bystander
    is told carries it or the bout's id while joining is open, nor a token ever."""
    referee, table, _ = opened(region, serve, "msv Secret")
    bystander = region.avatar("Eve", "eve.resident", (128.0, 170.0, 25.0))  # 42 m away
    tarl, hud_t, _ = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65"
    )
    pakur, hud_p, _ = fighter(
        region, referee, table, "Pa-Kur", "pakur.resident", (129.0, 128.0, 25.0), 0, "cs=70"
    )
    bout = bout_of(table)
    invites = [LINK.search(line) for line in tarl.private + pakur.private]
    assert {m.group(0) for m in invites if m} == {f"{serve}/static/join.html#bout={bout}"}
    begin(region, referee, table)
    region.advance(8.0)
    act(region, *((tarl, hud_t) if hud_t.script.turn == "Tarl" else (pakur, hud_p)))
    public = [text for _, _, text in region.said] + [t for o in region.objects for t in o.shown]
    assert public and bystander.private == []
    assert not [text for text in public if bout in text]  # on no channel, in no floating text
    tokens = [hud_t.script.token, hud_p.script.token, table.script.token]
    assert all(len(t) >= 16 for t in tokens)
    assert not [
        text for text in public + tarl.private + pakur.private if any(t in text for t in tokens)
    ]
    # The HUDs listen to their wearer on channel 7 and their dialogs, never on channel 0.
    assert all(chan != 0 for hud in (hud_t, hud_p) for chan, *_ in hud.listens.values())
    assert region.violations == []


def test_the_hud_set_up_in_the_docs_order_joins(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    """docs/secondlife.md's order: the script is saved in the box first, the invite pasted
    into the description after. Editing a description raises no event in Second Life; the
    HUD looks at it again every few seconds until it has joined, and at once when touched."""
    referee, table, _ = opened(region, serve, "msv Docs")
    tarl = region.avatar("Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180)
    pakur = region.avatar("Pa-Kur", "pakur.resident", (129.0, 128.0, 25.0), 0)
    invite_one(region, referee, table, tarl)
    invite_one(region, referee, table, pakur)
    huds = {}
    for avatar in (tarl, pakur):
        huds[avatar.name] = region.rez(HUD, "fighter HUD", avatar)  # the script first
        assert avatar.private[-1] == (
            "referee: paste your invite into my description (or a notecard named referee)"
        )
    invite_t = LINK.search(tarl.private[0])
    invite_p = LINK.search(pakur.private[0])
    assert invite_t is not None and invite_p is not None, (tarl.private, pakur.private)
    region.edit_description(huds["Tarl"], f"{invite_t.group(0)} cs=65")
    assert not any("you joined as" in line for line in tarl.private)  # no event: not yet
    region.advance(2.5)
    assert any("you joined as Tarl" in line for line in tarl.private), tarl.private
    region.edit_description(huds["Pa-Kur"], f"{invite_p.group(0)}")  # no Combat Skill yet
    region.touch(pakur, huds["Pa-Kur"])
    assert pakur.private[-1] == "referee: add your Combat Skill after the invite, e.g. cs=65"
    region.edit_description(huds["Pa-Kur"], f"{invite_p.group(0)} cs=70")
    region.touch(pakur, huds["Pa-Kur"])  # a touch reads it at once
    assert any("you joined as Pa-Kur" in line for line in pakur.private), pakur.private
    joins = [e for e in export(serve, bout_of(table))["events"] if e["type"] == "fighter_added"]
    assert [(e["payload"]["name"], e["payload"]["stats"]["cs"]) for e in joins] == [
        ("Tarl", 65),
        ("Pa-Kur", 70),
    ]
    region.advance(20.0)  # joined: the HUDs poll, and join nothing twice
    again = [e for e in export(serve, bout_of(table))["events"] if e["type"] == "fighter_added"]
    assert len(again) == 2
    assert region.violations == []


def test_only_the_avatars_the_referee_picks_are_invited(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    """*invite* lists the avatars within 20 m; only the ones the referee picks get an invite,
    and one invited is not offered again. A spectator standing by gets nothing."""
    referee, table, _ = opened(region, serve, "msv Picked")
    tarl = region.avatar("Tarl", "tarl.cabot", (130.0, 128.0, 25.0))
    eve = region.avatar("Eve", "eve.resident", (131.0, 129.0, 25.0))  # 3 m away, watching
    far = region.avatar("Cernus", "cernus.resident", (128.0, 170.0, 25.0))  # 42 m away
    region.touch(referee, table)
    region.click(referee, "invite")
    assert referee.dialog is not None
    assert referee.dialog[2] == ["done", "1 Tarl", "2 Eve"]
    region.click(referee, "1 Tarl")
    assert LINK.search(tarl.private[-1]) is not None
    assert referee.dialog is not None and referee.dialog[2] == ["done", "1 Eve"]
    region.click(referee, "done")
    assert eve.private == [] and far.private == []
    assert referee.private[-1] == "referee table: invited Tarl"
    region.touch(referee, table)
    region.click(referee, "invite")
    assert referee.dialog is not None and referee.dialog[2] == ["done", "1 Eve"]
    region.click(referee, "done")
    assert eve.private == []
    assert not [text for _, _, text in region.said if bout_of(table) in text]
    assert region.violations == []


def test_a_fighter_link_and_commands_on_channel_7(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    """What the old one-script HUD did, the fighter HUD does: given a fighter link (after a
    script reset, say) it acts as that fighter without joining again, sends the lines its
    wearer types on channel 7 to the chat endpoint and answers privately; a roll's public line
    is said as OnlineHost; a line that is not a command changes nothing; nobody else's lines
    and nothing on channel 0 are sent."""
    referee, table, _ = opened(region, serve, "msv Link")
    tarl, hud_t, _ = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65"
    )
    pakur, _, _ = fighter(
        region, referee, table, "Pa-Kur", "pakur.resident", (129.0, 128.0, 25.0), 0, "cs=70"
    )
    begin(region, referee, table)
    link = f"{serve}/static/fighter.html#bout={bout_of(table)}&token={hud_t.script.token}"
    assert len(link.encode()) <= 127  # fits a description
    region.objects.remove(hud_t)
    again = region.rez(HUD, "fighter HUD", tarl, desc=link)
    assert any("fighting as Tarl" in line for line in tarl.private[-3:]), tarl.private[-3:]
    # Anyone nearby may read a description: the token left it as soon as it was read.
    assert again.desc == "" and hud_t.script.token not in again.desc
    assert any("took your fighter link out of my description" in x for x in tarl.private[-3:])
    assert [r.url.rsplit("/", 1)[-1] for r in region.requests if r.obj == str(again.key)] == [
        "glance?after=-1&fighter=Tarl"
    ]
    events = len(export(serve, bout_of(table))["events"])

    region.say(tarl, 7, "status")
    assert tarl.private[-1].startswith("Round 1") or "Tarl" in tarl.private[-1], tarl.private[-1]
    region.say(tarl, 7, "close call!")
    assert tarl.private[-1].endswith(
        "error: not a command; did you mean `close bout`? (or `close joining`)"
    )
    mine = lambda: [r for r in region.requests if r.obj == str(again.key)]  # noqa: E731
    sent = len(mine())
    region.say(pakur, 7, "status")  # on channel 7, but not this HUD's wearer: Pa-Kur's HUD's
    region.say(tarl, 0, "//roll -sides100 -dice1")  # channel 0 is role play, never read
    assert len(mine()) == sent
    region.say(tarl, 7, "//roll -sides100 -dice1")
    said = region.chat[-1]
    assert said.speaker == "OnlineHost" and said.text.startswith("Tarl rolled 1 100-sided die: ")
    doc = export(serve, bout_of(table))
    added = [e["type"] for e in doc["events"][events:]]
    assert added == ["action", "roll"]  # the free roll; no second join, nothing else stored
    assert region.violations == []


def test_the_referee_voids_skips_and_may_think_better_of_closing(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    referee, table, _ = opened(region, serve, "msv Powers")
    tarl, hud_t, _ = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65"
    )
    pakur, hud_p, _ = fighter(
        region, referee, table, "Pa-Kur", "pakur.resident", (129.0, 128.0, 25.0), 0, "cs=70"
    )
    begin(region, referee, table)
    region.advance(4.0)
    first = hud_t.script.turn
    avatar, hud = (tarl, hud_t) if first == "Tarl" else (pakur, hud_p)
    act(region, avatar, hud)
    for power in ("void", "skip"):
        region.touch(referee, table)
        region.click(referee, power)
        assert region.chat[-1].text == f"the referee: {power}"
    region.touch(referee, table)
    region.click(referee, "close")
    assert "Close the bout" in referee.dialog[1]
    region.click(referee, "no")
    region.advance(4.0)
    doc = export(serve, bout_of(table))
    kinds = [e["type"] for e in doc["events"]]
    assert kinds.count("voided") == 1 and kinds.count("skipped") == 1
    assert "closed" not in kinds and table.script.phase == "running"
    skipped = next(e for e in doc["events"] if e["type"] == "skipped")["payload"]["name"]
    assert hud_t.script.turn != skipped
    assert region.violations == []


def test_menu_labels_fit_24_bytes_whatever_the_names(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    """Foes with names of 3 bytes a letter: each dialog button is cut to 24 bytes, not 24
    letters, and picking one still aims at the right foe."""
    referee, table, _ = opened(region, serve, "msv Far")
    foes = ["戦士" * 10, "剣士" * 10]
    tarl, hud_t, _ = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 0, "cs=65",
        notecard=True,
    )  # fmt: skip
    for i, name in enumerate(foes):
        fighter(region, referee, table, f"Foe{i}", f"foe{i}.resident", (129.0 - i, 128.0, 25.0),
                0, f"cs=40\nname={name}", notecard=True)  # fmt: skip
    begin(region, referee, table)
    region.advance(4.0)
    region.advance(4.0)
    for _ in range(2):  # the foes are skipped until Tarl is to act
        if hud_t.script.turn != "Tarl":
            region.touch(referee, table)
            region.click(referee, "skip")
            region.advance(4.0)
    assert hud_t.script.turn == "Tarl"
    region.touch(tarl, hud_t)
    region.click(tarl, "1 attack")
    assert tarl.dialog is not None
    buttons = tarl.dialog[2]
    assert buttons == ["1 " + "戦士" * 3 + "戦", "2 " + "剣士" * 3 + "剣"]  # 2 + 21 bytes
    region.click(tarl, buttons[1])
    attack = next(json.loads(r.body) for r in region.requests if r.url.endswith("/actions"))
    assert attack["options"] == {"target": foes[1]}
    assert region.violations == []


def test_a_changed_notecard_or_owner_resets_the_script(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    """`changed`: a HUD whose notecard is saved again reads it again (here a fighter link: it
    acts as that fighter without joining twice); a table given to someone else forgets its bout
    and its referee token and answers its new owner only."""
    referee, table, _ = opened(region, serve, "msv Changes")
    tarl, hud_t, _ = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65",
        notecard=True,
    )  # fmt: skip
    link = f"{serve}/static/fighter.html#bout={bout_of(table)}&token={hud_t.script.token}"
    joins = len([r for r in region.requests if r.url.endswith("/join")])
    region.edit_notecard(hud_t, "referee", [link])
    assert any("fighting as Tarl" in line for line in tarl.private[-2:]), tarl.private[-2:]
    assert not any("out of my description" in line for line in tarl.private)  # a notecard's
    assert len([r for r in region.requests if r.url.endswith("/join")]) == joins
    heir = region.avatar("Kamras", "kamras.resident", (128.0, 126.0, 25.0))
    region.give(table, heir)
    assert table.script.token == "" and table.script.bout == ""
    region.touch(referee, table)
    assert referee.dialog is None  # the old owner gets no menu
    region.touch(heir, table)
    assert heir.dialog is not None and heir.dialog[2] == ["open"]
    assert region.violations == []


# -- limits -------------------------------------------------------------------------------------


def limits_script(tmp_path: Path, body: str) -> Path:
    """A small LSL script doing one thing Second Life refuses, on touch."""
    path = tmp_path / "limit.lsl"
    path.write_text("default { touch_start(integer n) { " + body + " } }\n", encoding="utf-8")
    return path


#: Scripts each doing one thing Second Life refuses (an empty violation: within every limit).
BREAKS = {
    "throttle": (
        'integer i; for (i = 0; i < 26; ++i) llHTTPRequest(URL + "/api/health", [], "");',
        "request 26 within 20 s",
    ),
    "small-answer": ('llHTTPRequest(URL + "/api/bouts/nosuchbout/glance", [], "");', ""),
    "long-answer": ('llHTTPRequest(URL + "/openapi.json", [], "");', "an answer of"),
    "header": (
        'llHTTPRequest(URL + "/api/health",'
        ' [HTTP_CUSTOM_HEADER, "X-A", llGetSubString(BIG, 0, 250)], "");',
        "custom header X-A refused",
    ),
    "buttons": (
        "list b; integer i; for (i = 0; i < 13; ++i) b += [(string)i];"
        ' llDialog(llGetOwner(), "?", b, -5);',
        "a dialog of 13 buttons",
    ),
    "label": (
        'llDialog(llGetOwner(), "pick", ["1234567890123456789012345"], -5);',
        "a dialog button '1234567890123456789012345'",
    ),
    "message": ('llDialog(llGetOwner(), "", ["ok"], -5);', "a dialog message of 0 bytes"),
    "say": ("llSay(0, BIG);", "a chat message of 1025 bytes"),
    "owner-say": ("llOwnerSay(BIG);", "llOwnerSay of 1025 bytes"),
    "say-to": ("llRegionSayTo(llGetOwner(), 5, BIG);", "llRegionSayTo of 1025 bytes"),
    "text": ("llSetText(llGetSubString(BIG, 0, 254), <1,1,1>, 1.0);", "floating text of 255 bytes"),
    "listens": (
        'integer i; for (i = 0; i < 66; ++i) llListen(i + 1, "", NULL_KEY, "");',
        "a listen past 65 at once",
    ),
    "local-memory": (
        "string s = BIG; integer i; for (i = 0; i < 6; ++i) s += s;",
        "bytes of memory",
    ),
    "global-memory": ("integer i; for (i = 0; i < 6; ++i) BIG += BIG;", "bytes of memory"),
}


@pytest.mark.parametrize(("body", "violation"), BREAKS.values(), ids=BREAKS.keys())
def test_the_region_catches_what_second_life_refuses(
    serve: str, region, tmp_path: Path, body: str, violation: str
) -> None:  # type: ignore[no-untyped-def]
    """The fake region's limits can fail a test: each script here breaks one (an empty
    `violation`: a script within every limit, which the region lets be)."""
    head = f'string URL = "{serve}";\nstring BIG;\n'
    path = limits_script(tmp_path, body)
    path.write_text(
        head
        + path.read_text().replace(
            "touch_start(integer n) {",
            'state_entry() { integer i; for (i = 0; i < 1025; ++i) BIG += "x"; }\n'
            "    touch_start(integer n) {",
        ),
        encoding="utf-8",
    )
    owner = region.avatar("Tarl", "tarl.cabot", (130.0, 128.0, 25.0))
    obj = region.rez(path, "limit", owner)
    region.touch(owner, obj)
    if violation:
        assert len(region.violations) == 1 and violation in region.violations[0], region.violations
    else:
        assert region.violations == []


def test_a_long_description_or_notecard_line_is_cut(region, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    owner = region.avatar("Tarl", "tarl.cabot", (130.0, 128.0, 25.0))
    path = limits_script(tmp_path, "llOwnerSay(llGetObjectDesc());")
    obj = region.rez(path, "limit", owner, desc="d" * 128)
    region.touch(owner, obj)
    assert owner.private == ["d" * 127]
    assert region.violations == ["limit: a description of 128 bytes"]
    region.rez(HUD, "fighter HUD", owner, notecards={"referee": ["x" * 1025]})
    assert region.violations[-1] == "fighter HUD: a notecard line of 1025 bytes"


def test_the_table_begins_a_bout_of_eight(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    """Initiative's answer grows with the fighters (over 2,048 bytes for eight): the table
    reads it whole and says every roll and the order; every other answer stays small."""
    referee, table, _ = opened(region, serve, "msv Melee")
    names = ["Tarl", "Pa-Kur", "Ho-Tu", "Kamras", "Talena", "Elizabeth", "Cernus", "Saphrar"]
    for i, name in enumerate(names):
        fighter(region, referee, table, name, name.lower() + ".resident",
                (126.0 + i, 128.0, 25.0), 0, f"cs={50 + i}")  # fmt: skip
    begin(region, referee, table)
    begun = next(r for r in region.requests if r.url.endswith("/initiative"))
    assert begun.size > 2048
    rolls = [c for c in region.chat if c.speaker == "OnlineHost"]
    assert {c.text.split(" rolled ")[0] for c in rolls} == set(names)  # ties roll again
    assert region.chat[-1].text.startswith("Order: ")
    assert max(r.size for r in region.requests if r is not begun) <= 2048
    assert region.violations == []
    print(f"\nbout of eight: initiative {begun.size} bytes, table's peak {table.peak_memory} bytes")
    assert table.peak_memory < 24 * 1024  # of Mono's 64 KiB; each roll's signature in it


def test_a_dropped_answer_is_retried_once_with_the_same_key(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    referee, table, _ = opened(region, serve, "msv Retry")
    tarl, hud_t, _ = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65"
    )
    pakur, hud_p, _ = fighter(
        region, referee, table, "Pa-Kur", "pakur.resident", (129.0, 128.0, 25.0), 0, "cs=70"
    )
    begin(region, referee, table)
    region.advance(4.0)
    act(region, pakur, hud_p, "roll d100")  # a free roll, said as OnlineHost with its receipt
    assert region.chat[-1].speaker == "OnlineHost" and "free:Pa-Kur" in region.chat[-1].text
    avatar, hud = (tarl, hud_t) if hud_t.script.turn == "Tarl" else (pakur, hud_p)
    region.drop = lambda request: request.url.endswith("/actions")
    act(region, avatar, hud)
    sent = [r for r in region.requests if r.url.endswith("/actions")]
    assert [r.dropped for r in sent] == [True, False]
    assert sent[0].headers["Idempotency-Key"] == sent[1].headers["Idempotency-Key"]
    assert sent[0].answer == sent[1].answer  # the first answer again, byte for byte
    doc = export(serve, bout_of(table))
    attacks = [
        e for e in doc["events"] if e["type"] == "action" and e["payload"].get("kind") == "attack"
    ]
    assert len(attacks) == 1
    hosts = [c for c in region.chat if c.speaker == "OnlineHost" and avatar.name in c.text]
    assert len([h for h in hosts if "(nonce 1)" in h.text]) == 1  # said once, after the retry
    assert region.violations == []


def test_a_wearer_typing_fast_stays_within_both_throttles(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    """Thirty lines typed at once: the HUD sends 20 in any 20 s (SL allows 25 per object) and
    tells its wearer to wait for the rest; the service's 25 per 20 s per token is never hit."""
    referee, table, _ = opened(region, serve, "msv Haste")
    tarl, hud_t, _ = fighter(
        region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65"
    )
    fighter(region, referee, table, "Pa-Kur", "pakur.resident", (129.0, 128.0, 25.0), 0, "cs=70")
    region.advance(20.0)  # the join and the first polls fall out of the window
    start = len(region.requests)
    for _ in range(30):
        region.say(tarl, 7, "status")
    sent = [r for r in region.requests[start:] if r.obj == str(hud_t.key)]
    window = [r for r in region.requests if r.obj == str(hud_t.key) and r.at > region.clock - 20]
    assert len(window) == 20 and len(sent) == 20 - (len(window) - len(sent))
    assert tarl.private.count(
        "referee: too many requests just now; try again in a few seconds"
    ) == 30 - len(sent)
    assert all(r.status == 200 for r in sent)  # never 429 from the service
    region.advance(20.0)
    region.say(tarl, 7, "status")
    assert region.requests[-1].obj == str(hud_t.key) and region.requests[-1].status == 200
    assert region.violations == []


def test_polls_within_the_throttle_and_quiet_polls_cost_nothing(serve: str, region) -> None:  # type: ignore[no-untyped-def]
    referee, table, _ = opened(region, serve, "msv Quiet")
    fighter(region, referee, table, "Tarl", "tarl.cabot", (130.0, 128.0, 25.0), 180, "cs=65")
    region.advance(600.0)  # ten quiet minutes
    polls = [r for r in region.requests if "/glance?after=" in r.url]
    assert len(polls) >= 100
    assert all(r.status == 204 and r.size == 0 for r in polls[2:])
    assert region.violations == []
    rates = figures(region, "ten quiet minutes")
    assert rates["meter of Tarl"] == 0 and rates["fighter-hud of Tarl"] <= 15.5
