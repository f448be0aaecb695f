"""The console says SRP conditions in words, as the CLI does (SRP-16): `lost_action` is
"loses an action", `breaking_free` "breaking free". The page's table (systems.js) and the
rules' `Condition.words` are held to the same words; Chromium renders them on the fighter
cards' chips and in the log."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.systems.srp.actions import Condition
from tests.browser_fixtures import WAIT_MS, browser, clean, pages, web  # noqa: F401
from tests.service_fixtures import LiveServer

SYSTEMS_JS = (
    Path(__file__).resolve().parent.parent / "src/referee/service/static/js/systems.js"
).as_uri()
WORDS = {c.value: c.words for c in Condition}


def test_the_pages_table_is_the_rules_words() -> None:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("Node.js is needed to read the page's table (Debian: nodejs)")
        pytest.skip("no Node.js here")
    script = (
        f"import({json.dumps(SYSTEMS_JS)}).then((m) => console.log(JSON.stringify("
        "[m.CONDITION_WORDS, m.conditionWords('dazzled_badly')])))"
    )
    out = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    table, other = json.loads(out.stdout)
    assert table == WORDS
    assert WORDS["lost_action"] == "loses an action" and WORDS["breaking_free"] == "breaking free"
    assert other == "dazzled badly"


@pytest.mark.browser
def test_chips_and_log_lines_say_conditions_in_words(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    page = pages()
    page.goto(web.url + "/static/verify.html")
    page.wait_for_load_state("load", timeout=WAIT_MS)
    shown = page.evaluate(
        """async () => {
          const ui = await import("/static/js/ui.js");
          const { DiceLog } = await import("/static/js/log.js");
          const chips = ui.conditionChips(
            { name: "Tarl", conditions: { lost_action: 1, breaking_free: null, grappled: null } });
          const list = document.createElement("ol");
          document.body.append(list);
          const log = new DiceLog(list);
          const at = "2026-12-01T23:00:00Z";
          log.add({ seq: 0, type: "bout_opened", actor: "referee", at,
                    payload: { system: "srp", name: "Spar", dice_scheme: 2 } });
          log.add({ seq: 7, type: "condition", actor: "system", at,
                    payload: { target: "Tarl", condition: "lost_action", rounds: 1 } });
          log.add({ seq: 8, type: "condition", actor: "system", at,
                    payload: { target: "Tarl", condition: "breaking_free", rounds: 0 } });
          const lines = [...list.querySelectorAll("li.condition")]
            .map((li) => li.childNodes[3].textContent);
          return { chips: [...chips.querySelectorAll("li")].map((li) => li.textContent), lines };
        }"""
    )
    assert shown["chips"] == ["loses an action (1)", "breaking free", "grappled"]
    assert shown["lines"] == ["Tarl: loses an action (1 turn left)", "Tarl: breaking free ends"]
