"""The request schema says exactly what the request models accept: for action options and SRP
sheets, every JSON value is admitted by the published JSON schema (`object_schema`) if and only
if `bounded` accepts it (hypothesis against the schema validator, plus the bounds' edges)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs
from hypothesis import example, given
from hypothesis import strategies as st

from referee.errors import RuleError
from referee.service.models import MAX_ITEMS, MAX_NUMBER, MAX_TEXT, bounded, object_schema

SCHEMA = jsonschema_rs.Draft202012Validator(object_schema())

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-MAX_NUMBER - 3, MAX_NUMBER + 3)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([3.0, -0.0, 1e300, 2.5])
    | st.text(max_size=MAX_TEXT + 2)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


def _accepted(value: dict[str, Any]) -> bool:
    try:
        bounded(value, "options")
    except RuleError:
        return False
    return True


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@given(st.dictionaries(st.text(max_size=MAX_TEXT + 2), values, max_size=4))
@example({"n": MAX_NUMBER, "m": -MAX_NUMBER, "t": "x" * MAX_TEXT, "w": 62.0})
@example({"n": MAX_NUMBER + 1})
@example({"t": "x" * (MAX_TEXT + 1)})
@example({"x" * (MAX_TEXT + 1): 1})
@example({"l": list(range(MAX_ITEMS))})
@example({"l": list(range(MAX_ITEMS + 1))})
@example({str(n): n for n in range(MAX_ITEMS)})
@example({str(n): n for n in range(MAX_ITEMS + 1)})
@example({"deep": _nested(3)})  # the value at depth 1, its innermost at depth 4: accepted
@example({"deep": _nested(4)})  # one more: refused
@example({"deep": [[[[]]]]})  # an empty list at depth 4 is accepted
@example({"deep": [[[{}]]]})
@example({"f": 2.5})
def test_the_schema_admits_exactly_what_the_models_accept(value: dict[str, Any]) -> None:
    admitted = SCHEMA.is_valid(json.loads(json.dumps(value)))
    assert admitted == _accepted(value), value
