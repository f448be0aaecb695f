"""No code in src/referee reads or sets a private attribute of a dependency's object.

An AST scan of every module: an attribute `X._name` (read, set or deleted, or named by a literal
in `getattr`, `hasattr`, `setattr`, `delattr`) is ours when a class in src/referee defines
`_name` for its objects (a method, a name assigned in the class's body, an attribute assigned on
`self` or `cls`, an entry of `__slots__`) or when `X` is a module, class or function imported
from referee; it is theirs otherwise. So is an import of a private name or of a private module
from outside referee, and a key a framework keeps in the ASGI scope for itself (`"fastapi..."`,
`"starlette..."`). Dunder names (`__pydantic_extra__`) and the names the
standard library documents with an underscore (a namedtuple's `_replace`, `_fields`, `_make`,
...; an enum's sunder names such as `_value_`) are public.

The scan goes by names, not types: an attribute of a library's object that happens to share a
name with one of ours passes.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import referee

SRC = Path(referee.__file__).resolve().parent

#: Names with a leading underscore that the standard library documents as public.
DOCUMENTED = frozenset({"_replace", "_fields", "_field_defaults", "_asdict", "_make"})

#: A string that names an ASGI scope key of FastAPI's or Starlette's own.
FRAMEWORK_KEY = re.compile(r"(fastapi|starlette)[._]")


def is_private(name: str) -> bool:
    """Whether a name is private by Python's convention: a leading underscore, not a dunder, not
    an enum's sunder (`_value_`), not one of `DOCUMENTED`."""
    if not name.startswith("_") or name in DOCUMENTED:
        return False
    return not name.endswith("_")


def modules() -> dict[str, ast.Module]:
    """Every module of src/referee, by its path under it."""
    return {
        path.relative_to(SRC).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(SRC.rglob("*.py"))
    }


def members(tree: ast.Module) -> Iterator[str]:
    """The names a module's classes define for their objects: methods, nested classes and
    names assigned in a class's body, attributes assigned on `self` or `cls`, `__slots__`
    entries."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    yield item.name
                for target in (
                    ast.walk(item) if isinstance(item, ast.Assign | ast.AnnAssign) else ()
                ):
                    if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store):
                        yield target.id
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
        ):
            yield node.attr
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets
        ):
            for entry in ast.walk(node.value):
                if isinstance(entry, ast.Constant) and isinstance(entry.value, str):
                    yield entry.value


def our_imports(tree: ast.Module) -> set[str]:
    """The names a module binds to a module, class or function of referee's by importing it."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "referee":
                    bound.add(alias.asname or "referee")
        elif isinstance(node, ast.ImportFrom) and (
            node.level or str(node.module).startswith("referee")
        ):
            bound |= {alias.asname or alias.name for alias in node.names}
    return bound


def docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes of a module (text, not keys)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def theirs(tree: ast.Module, ours: frozenset[str]) -> Iterator[tuple[int, str]]:
    """(line, name) of each private name of a dependency that a module uses; `ours`: the
    names referee's classes define for their objects."""
    texts = docstrings(tree)
    imported = our_imports(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr) and node.attr not in ours:
            if not (isinstance(node.value, ast.Name) and node.value.id in imported):
                yield node.lineno, node.attr
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr", "delattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and is_private(node.args[1].value)
            and node.args[1].value not in ours
        ):
            yield node.lineno, node.args[1].value
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] != "referee":
                if any(is_private(part) for part in node.module.split(".")):
                    yield node.lineno, node.module
                yield from ((node.lineno, a.name) for a in node.names if is_private(a.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] != "referee" and any(is_private(part) for part in parts):
                    yield node.lineno, alias.name
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in texts
            and FRAMEWORK_KEY.match(node.value)
        ):
            yield node.lineno, node.value


def uses() -> dict[tuple[str, str], list[int]]:
    """Every use of a dependency's private name in src/referee: (file, name) -> lines."""
    trees = modules()
    ours = frozenset(name for tree in trees.values() for name in members(tree))
    found: dict[tuple[str, str], list[int]] = {}
    for path, tree in trees.items():
        for line, name in theirs(tree, ours):
            found.setdefault((path, name), []).append(line)
    return found


def test_no_code_uses_a_private_name_of_a_dependency() -> None:
    found = uses()
    assert not found, sorted(f"{path}:{lines[0]}: {name}" for (path, name), lines in found.items())


def test_the_scan_finds_each_kind_of_use() -> None:
    tree = ast.parse(
        "import fastapi._compat\n"
        "from fastapi.routing import _helper\n"
        "from fastapi._compat import ModelField\n"
        "field._type_adapter.validate_python(x)\n"
        "request._body = body\n"
        "getattr(route, '_embed_body_fields', False)\n"
        "scope.get('fastapi.telemetry')\n"
        "self._mine, node._replace(a=1), mode._value_, model.__pydantic_extra__\n"
        "from referee.service import lean\n"
        "lean._REFUSED, other._REFUSED\n"
    )
    assert sorted(theirs(tree, frozenset({"_mine"}))) == [
        (1, "fastapi._compat"),
        (2, "_helper"),
        (3, "fastapi._compat"),
        (4, "_type_adapter"),
        (5, "_body"),
        (6, "_embed_body_fields"),
        (7, "fastapi.telemetry"),
        (10, "_REFUSED"),
    ]
