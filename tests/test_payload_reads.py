"""Payload keys are read through their shapes (issue #28): `referee.payloads` declares each
event's fields, and code reads `Shape.read(payload).field` (a payload it trusts) or
`Shape.given(payload).field` (a payload from outside: an export, a stored row; each field as
given, and `wrong()` names the first key that does not fit), never `payload["field"]` by hand.

The scan reads the package's source for a payload indexed by a literal key (`payload["x"]`,
`event["payload"]["x"]`, `e.payload.get("x")`, `(e.get("payload") or {}).get("x")`, and the
aliases `p`, `*_payload`). Nothing is
left to read by hand: the ledger verifier, `transcripts.receipts`, `bout.replay` and the store
read through `Shape.given`. The one key read anywhere is `kind`: the outcome's kind, read to
choose the outcome's shape.
"""

from __future__ import annotations

import ast
from pathlib import Path

import referee

PACKAGE = Path(referee.__file__).parent
#: Files left to read payloads by hand, each with its reason in the module text: none.
BY_HAND: tuple[str, ...] = ()
DISCRIMINATOR = "kind"


def _is_payload(node: ast.AST) -> bool:
    if isinstance(node, ast.BoolOp):  # `(event.get("payload") or {})`
        return any(_is_payload(value) for value in node.values)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ):
        return node.args[0].value == "payload"
    if isinstance(node, ast.Attribute):
        return node.attr.endswith("payload")
    if isinstance(node, ast.Name):
        return node.id == "p" or node.id.endswith("payload")
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
        if not (BY_HAND and str(path.relative_to(PACKAGE)).startswith(BY_HAND))
        and "payloads" not in path.parts
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
g = p.get("winner")
h = roll_payload["nonce"]
i = Roll.given(e.payload).nonce
j = (opened.get("payload") or {}).get("system")
k = event.get("payload")["winner"]
"""
    assert [hit.split(":")[1] for hit in payload_keys_read_by_hand(source)] == [
        "2",
        "3",
        "4",
        "7",
        "8",
        "10",
        "11",
    ]
