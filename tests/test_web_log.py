"""The dice log (static/js/log.js) in a real browser, fed scripted events: an MSV-4 critical
chain is shown as numbered free attacks, a void strikes its events through, an override
(SRP-20) is written beside the original outcome, which stays."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.browser_fixtures import browser, clean, pages, web  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser


def ev(seq: int, type_: str, by: str, **payload: Any) -> dict[str, Any]:
    """One event as the stream sends it (`by` is its actor; payloads may have an "actor")."""
    return {"seq": seq, "type": type_, "actor": by, "payload": payload}


def attack(seq: int, actor: str, target: str, roll: int, crit: bool, nonce: int) -> list[Any]:
    summary = f"{actor} attacks {target}: {roll} vs CS 65"
    return [
        ev(seq, "action", actor, kind="attack", options={"target": target}),
        ev(seq + 1, "roll", "system", nonce=nonce, dice=["d100"], faces=[roll]),
        ev(seq + 2, "outcome", "system", summary=summary, kind="attack", actor=actor,
           critical=crit, extra_action=crit),
    ]  # fmt: skip


#: Tarl rolls 40 (critical), then 20 (critical), then 47; Pa-Kur answers; the referee voids
#: Pa-Kur's attack and overrides Tarl's last outcome.
EVENTS = [
    *attack(0, "Tarl", "Pa-Kur", 40, True, 0),
    *attack(3, "Tarl", "Pa-Kur", 20, True, 1),
    *attack(6, "Tarl", "Pa-Kur", 47, False, 2),
    ev(9, "wound", "system", target="Pa-Kur", amount=4, total=9),
    ev(10, "turn", "system", fighter="Pa-Kur", round=1),
    *attack(11, "Pa-Kur", "Tarl", 30, False, 3),
    ev(14, "voided", "referee", **{"from": 11, "to": 13}),
    ev(15, "overridden", "referee", of=8, original=[{"target": "Pa-Kur", "amount": 4}],
       wounds=[{"target": "Pa-Kur", "amount": 1, "total": 6}], note="glancing"),
    *attack(16, "Pa-Kur", "Tarl", 12, False, 4),
    ev(19, "action", "Tarl", kind="move", options={"path": [[150, 0]]}),
    ev(20, "outcome", "system", summary="Tarl moves 1.5 m", kind="move", actor="Tarl"),
    ev(21, "overridden", "referee", of=20, original=[], wounds=[], note="fine as it is"),
]  # fmt: skip


def test_the_log_shows_chains_voids_and_overrides(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    page = pages()
    page.goto(web.url + "/static/verify.html")
    lines = page.evaluate(
        """async (events) => {
          const {DiceLog} = await import("/static/js/log.js");
          const list = document.createElement("ol");
          document.body.append(list);
          const log = new DiceLog(list);
          events.forEach((e) => log.add(e));
          const text = (li) => {
            const clone = li.cloneNode(true);
            clone.querySelectorAll("button.copy").forEach((b) => b.remove());
            return clone.textContent;
          };
          if (![...list.children].every((li) => li.querySelector("button.copy"))) return [];
          return [...list.children].map((li) => [li.dataset.seq, li.className, text(li)]);
        }""",
        EVENTS,
    )
    by_seq = {int(seq): (cls, text) for seq, cls, text in lines}
    assert by_seq[0] == ("action", "#0Tarl: attack → Pa-Kur")
    assert by_seq[1] == ("roll consequence", "#1rollnonce 0d100 40")
    assert by_seq[2][1] == "#2Tarl attacks Pa-Kur: 40 vs CS 65critical: free attack follows"
    assert by_seq[3] == (
        "action free-attack",
        "⤷ free attack 1 (MSV-4 chain)#3Tarl: attack → Pa-Kur",
    )
    assert by_seq[6] == (
        "action free-attack",
        "⤷ free attack 2 (MSV-4 chain)#6Tarl: attack → Pa-Kur",
    )
    assert by_seq[11][0] == "action voided"  # Pa-Kur's own attack is no free attack
    assert all("voided" in by_seq[s][0] for s in (11, 12, 13))
    assert by_seq[8] == (
        "outcome consequence overridden",
        "#8Tarl attacks Pa-Kur: 47 vs CS 65overridden by #15: Pa-Kur 1",
    )
    # the override in the words of sentences.js (the twin of referee.sentences)
    assert by_seq[15][1] == '#15Event 8 is overridden: wounds Pa-Kur 4 → Pa-Kur 1 ("glancing")'
    assert by_seq[16] == ("action", "#16Pa-Kur: attack → Tarl")
    # An override that leaves a move's wounds as they were does not strike the move out.
    assert by_seq[20] == (
        "outcome consequence",
        "#20Tarl moves 1.5 moverride #21 changed nothing (no wounds)",
    )
    clean(page)


def test_every_line_has_its_time_and_copies_as_one_chat_line(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    page = pages()
    page.goto(web.url + "/static/verify.html")
    at = "2026-12-01T18:02:11.250000Z"
    events = [{**e, "at": at} for e in EVENTS[:3]]
    shown = page.evaluate(
        """async (events) => {
          const {DiceLog, chatText} = await import("/static/js/log.js");
          const list = document.createElement("ol");
          document.body.append(list);
          const log = new DiceLog(list);
          events.forEach((e) => log.add(e));
          const local = new Date(events[0].at).toLocaleTimeString([], {
            hour: "2-digit", minute: "2-digit", second: "2-digit"});
          return {
            local,
            times: [...list.querySelectorAll("li > time")].map((t) =>
              [t.getAttribute("datetime"), t.textContent, t.title]),
            chat: [...list.children].map((li) => chatText(li)),
          };
        }""",
        events,
    )
    assert len(shown["times"]) == 3
    for datetime, text, title in shown["times"]:
        assert datetime == at and text == shown["local"]
        assert title.endswith(f"({at})") and "2026" in title
    stamp = f"[{shown['local']}]"
    assert shown["chat"] == [
        f"{stamp} #0 Tarl: attack → Pa-Kur",
        f"{stamp} #1 roll nonce 0 d100 40",
        f"{stamp} #2 Tarl attacks Pa-Kur: 40 vs CS 65",
    ]
    clean(page)
