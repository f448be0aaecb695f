"""Event types are spelt once, in `referee.vocabulary.EventType` (issue #28): no code compares an
event's type with a bare string, keys a table by bare event-type strings or matches on them.

The scan reads the package's source: an expression is an event's type when it is `x.type`,
`x["type"]` or `x.get("type")`, or a name bound to one of those in the same function; comparing
one with a string literal (`==`, `!=`, `in` a literal tuple, set or list, a `match` case) is
the bare spelling this forbids, and so is a dict literal whose keys are all event-type strings.
Payload kinds that share a word with an event type (an action of kind "roll") are not event
types and stay out of the scan.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import referee
from referee.vocabulary import EVENT_TYPES

PACKAGE = Path(referee.__file__).parent


def _is_type_read(node: ast.AST) -> bool:
    """`x.type`, `x["type"]` or `x.get("type")`."""
    if isinstance(node, ast.Attribute):
        return node.attr == "type"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "type"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        first = node.args[0] if node.args else None
        return node.func.attr == "get" and isinstance(first, ast.Constant) and first.value == "type"
    return False


FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _walk(scope: ast.AST) -> list[ast.AST]:
    """The nodes of `scope`, not descending into the functions it defines."""
    nodes, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        nodes.append(node)
        if not isinstance(node, FUNCTIONS):
            todo += ast.iter_child_nodes(node)
    return nodes


def _type_names(scope: ast.AST) -> set[str]:
    """Names bound in `scope` (not in nested functions) to an event's type."""
    names: set[str] = set()
    for node in _walk(scope):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and _is_type_read(node.value):
                names.add(target.id)
            elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                for name, value in zip(target.elts, node.value.elts, strict=False):
                    if isinstance(name, ast.Name) and _is_type_read(value):
                        names.add(name.id)
    return names


def _literals(node: ast.AST) -> list[str]:
    """The event-type strings a literal spells (a string, or a tuple, set or list of them)."""
    elements = node.elts if isinstance(node, ast.Tuple | ast.Set | ast.List) else [node]
    return [e.value for e in elements if isinstance(e, ast.Constant) and e.value in EVENT_TYPES]


def bare_event_types(source: str, filename: str = "<source>") -> list[str]:
    """Every place in `source` that spells an event type as a bare string, as `file:line: code`."""
    tree = ast.parse(source)
    found: list[str] = []

    def report(node: ast.AST) -> None:
        found.append(
            f"{filename}:{getattr(node, 'lineno', 0)}: {ast.get_source_segment(source, node)}"
        )

    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, FUNCTIONS))]
    for scope in scopes:
        names = _type_names(scope)

        def is_type(node: ast.AST, names: set[str] = names) -> bool:
            return _is_type_read(node) or (isinstance(node, ast.Name) and node.id in names)

        for node in _walk(scope):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                if any(is_type(o) for o in operands) and any(_literals(o) for o in operands):
                    report(node)
            elif isinstance(node, ast.Match) and is_type(node.subject):
                for case in node.cases:
                    if any(
                        isinstance(p, ast.MatchValue) and _literals(p.value)
                        for p in ast.walk(case.pattern)
                    ):
                        report(case.pattern)
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and node.keys:
            keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
            if len(keys) > 1 and all(k in EVENT_TYPES for k in keys):
                report(node)
    return sorted(set(found))


def test_no_bare_event_type_outside_the_vocabulary() -> None:
    found = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "vocabulary.py"
        for hit in bare_event_types(
            path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE))
        )
    ]
    assert found == [], "compare through referee.vocabulary.EventType:\n" + "\n".join(found)


def test_the_scan_finds_each_bare_spelling() -> None:
    source = """
from referee.vocabulary import EventType
def f(event, records, e):
    kind, payload = event.get("type"), event.get("payload")
    t = e.type
    a = kind == "roll"
    b = [r for r in records if r["type"] in ("wound", "stat")]
    c = t != "turn"
    d = e.type == EventType.ROLL and kind in (EventType.WOUND, EventType.STAT)
    k = payload.get("kind") == "roll"
    match e["type"]:
        case "ended":
            pass
        case EventType.TURN:
            pass
TABLE = {"ended": 1, "voided": 2}
ANSWER = {"roll": 47, "total": 47}
"""
    lines = [hit.split(":")[1] for hit in bare_event_types(source)]
    assert lines == ["12", "16", "6", "7", "8"]


STATIC_JS = PACKAGE / "service" / "static" / "js"
#: A JS comparison of an event's type with a string literal, or a `case` on one.
JS_BARE = re.compile(r"""\.type\s*[!=]==?\s*["']([a-z_]+)["']|\bcase\s+["']([a-z_]+)["']\s*:""")


def js_bare_event_types(source: str) -> list[str]:
    """The event types a JS source compares as bare strings (`e.type === "roll"`)."""
    return [a or b for a, b in JS_BARE.findall(source) if (a or b) in EVENT_TYPES]


def test_no_bare_event_type_in_the_console_or_the_browser_verifier() -> None:
    found = {
        path.name: hits
        for path in sorted(STATIC_JS.glob("*.js"))
        if path.name != "vocabulary.js"
        and (hits := js_bare_event_types(path.read_text(encoding="utf-8")))
    }
    assert found == {}, "compare through EventType of static/js/vocabulary.js"
    assert js_bare_event_types('if (e.type === "roll") x; if (f.type === "checkbox") y;') == [
        "roll"
    ]
