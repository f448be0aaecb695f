"""Payload keys are read through their shapes (issue #28): `referee.payloads` declares each
event's fields, and code reads `Shape.read(payload).field`, never `payload["field"]` by hand.

The scan reads the package's source for a payload indexed by a literal key (`payload["x"]`,
`event["payload"]["x"]`, `e.payload.get("x")`). Left to read by hand, each for its reason:
- the ledger (`referee.ledger`): it checks untrusted exports key by key, before any shape
  applies, and says which key is wrong;
- `referee.transcripts.receipts` and `referee.bout.replay`: they read an export a user gave,
  each key checked where it is read;
- `referee.store.store`: a roll's stream and faces as the store's own columns;
- the key `kind` anywhere: the outcome's kind, read to choose the outcome's shape.
"""

from __future__ import annotations

import ast
from pathlib import Path

import referee

PACKAGE = Path(referee.__file__).parent
BY_HAND = ("ledger/", "transcripts/receipts.py", "bout/replay.py", "store/store.py")
DISCRIMINATOR = "kind"


def _is_payload(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == "payload"
    if isinstance(node, ast.Name):
        return node.id == "payload"
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == "payload"
    )


def payload_keys_read_by_hand(source: str, filename: str = "<source>") -> list[str]:
    """Every `payload["key"]` or `payload.get("key")` in `source`, as `file:line: code`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        key = None
        if isinstance(node, ast.Subscript) and _is_payload(node.value):
            key = node.slice.value if isinstance(node.slice, ast.Constant) else None
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and _is_payload(node.func.value)
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            key = node.args[0].value
        if isinstance(key, str) and key != DISCRIMINATOR:
            found.append(f"{filename}:{node.lineno}: {ast.get_source_segment(source, node)}")
    return found


def test_payload_keys_are_read_through_their_shapes() -> None:
    found = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if not str(path.relative_to(PACKAGE)).startswith(BY_HAND) and "payloads" not in path.parts
        for hit in payload_keys_read_by_hand(
            path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE))
        )
    ]
    assert found == [], "read through referee.payloads shapes:\n" + "\n".join(found)


def test_the_scan_finds_each_hand_read() -> None:
    source = """
a = event["payload"]["faces"]
b = e.payload.get("nonce")
c = payload["winner"]
d = payload.get("kind")
f = p.Roll.read(event["payload"]).faces
"""
    assert [hit.split(":")[1] for hit in payload_keys_read_by_hand(source)] == ["2", "3", "4"]
