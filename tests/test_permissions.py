"""The one table of permissions (`referee.bout.permissions`) and the engine's use of it.

The HTTP side (every route against the referee, the fighter, another fighter and nobody) is
`test_permission_matrix` in test_service_reliability.py.
"""

from __future__ import annotations

import pytest

from referee.bout import commands as c
from referee.bout.engine import decide
from referee.bout.permissions import PERMISSIONS, REFEREE, May, check
from referee.bout.runner import BoutRunner
from referee.errors import ForbiddenError, RuleError
from referee.rng import ScriptedRng


@pytest.mark.parametrize("operation", sorted(PERMISSIONS))
def test_the_referee_may_do_everything(operation: str) -> None:
    check(REFEREE, operation, "Tarl")


@pytest.mark.parametrize("operation", sorted(PERMISSIONS))
def test_a_fighter_may_only_what_names_itself(operation: str) -> None:
    permission = PERMISSIONS[operation]
    if permission.may is May.SELF:
        check("Tarl", operation, "Tarl")
    else:
        with pytest.raises(ForbiddenError):
            check("Tarl", operation, "Tarl")
    with pytest.raises(ForbiddenError):
        check("Tarl", operation, "Rask")
    with pytest.raises(ForbiddenError):
        check("Tarl", operation)  # naming nobody is never "itself"


def test_refusals_say_who_and_what() -> None:
    with pytest.raises(ForbiddenError, match=r"^'Tarl' may not act for 'Rask'$"):
        check("Tarl", "act", "Rask")
    with pytest.raises(ForbiddenError, match=r"^only the referee may close the bout$"):
        check("Tarl", "close")
    with pytest.raises(ForbiddenError, match=r"^modifier, rear: not Tarl's to choose"):
        check("Tarl", "circumstances", "Tarl", what="modifier, rear")


def test_an_unwritten_operation_is_a_programming_error() -> None:
    with pytest.raises(RuleError, match="no permission is written for 'fly'"):
        check(REFEREE, "fly")


def _running() -> BoutRunner:
    bout = BoutRunner.open("msv", "spar", rng=ScriptedRng([60, 40, 30, 20, 10]))
    bout.run(c.AddFighter("Tarl", {"cs": 65}))
    bout.run(c.AddFighter("Rask", {"cs": 55}))
    bout.run(c.RollInitiative())
    return bout


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (c.UpdateFighter("Rask", {"cs": 50}), "only the referee may update a fighter"),
        (c.Reveal("Rask"), "only the referee may reveal stats"),
        (c.RollInitiative(), "only the referee may roll initiative"),
        (c.Skip(), "only the referee may skip a turn"),
        (c.Resume(), "only the referee may resume the bout"),
        (c.Pause(), "only the referee may pause the bout"),
        (c.Void(), "only the referee may void an action"),
        (c.End(None), "only the referee may end the bout"),
        (c.Cancel(), "only the referee may cancel the bout"),
        (c.Override(0, {"Rask": 0}), "only the referee may override an outcome"),
        (c.RemoveFighter("Rask"), "a fighter may only remove itself"),
        (c.FreeRoll("Rask", (6,)), "'Tarl' may not roll for 'Rask'"),
        (c.AddFighter("Orc", {"cs": 50}), "'Tarl' may not add 'Orc': only the referee may"),
    ],
)
def test_the_engine_refuses_from_the_table(command: c.Command, message: str) -> None:
    bout = _running()
    with pytest.raises(ForbiddenError) as refused:
        decide(bout.state, command, ScriptedRng([1, 1, 1]), by="Tarl", system=bout.system)
    assert str(refused.value) == message


def test_a_fighter_acts_and_rolls_for_itself_only() -> None:
    bout = _running()
    actor = bout.state.current
    assert actor is not None
    other = "Rask" if actor == "Tarl" else "Tarl"
    with pytest.raises(ForbiddenError, match=f"^'{other}' may not act for '{actor}'$"):
        decide(bout.state, c.Act(actor, "attack", {"target": other}), ScriptedRng([50]), by=other)
    with pytest.raises(ForbiddenError, match=r"^rear: not"):
        decide(
            bout.state,
            c.Act(actor, "attack", {"target": other, "rear": True}),
            ScriptedRng([50]),
            by=actor,
        )
    events, _ = decide(
        bout.state, c.Act(actor, "attack", {"target": other}), ScriptedRng([50, 3]), by=actor
    )
    assert events[0].payload["by"] == actor
