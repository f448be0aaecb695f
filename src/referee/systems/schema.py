"""The JSON Schema of every event of the built-in rule systems (`referee.payloads.schema`
with MSV's and SRP's outcome and initiative shapes).

The web console serves it as static/schema/events.json; `python -m referee.systems.schema`
writes it (the tests check the file is what this gives).

>>> sorted(event_schema()["x-outcomes"])
['msv', 'srp']
"""

from __future__ import annotations

import json
import sys
from typing import Any

from referee.payloads.schema import event_schema as schema_of
from referee.systems.base import find_system

#: The systems the published schema describes (a test may register more).
BUILT_IN = ("msv", "srp")


def event_schema() -> dict[str, Any]:
    """The schema of a ledger event of any built-in system."""
    systems = {name: find_system(name) for name in BUILT_IN}
    return schema_of(
        {name: system.outcomes for name, system in systems.items()},
        {name: system.initiative_detail for name, system in systems.items()},
    )


def schema_text() -> str:
    """The schema as the file holds it: indented JSON, keys as declared, a final newline."""
    return json.dumps(event_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # pragma: no cover - writes the published file
    sys.stdout.write(schema_text())
