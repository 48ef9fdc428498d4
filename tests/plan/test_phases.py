"""The send order is stated once, on the operations table: a call's phase is its row's."""

from __future__ import annotations

from reconciler.kinds.members.quota import LevelMove, move_key
from reconciler.operations import OPERATIONS, OperationName, Phase, call_key
from reconciler.plan.draft import Draft
from reconciler.plan.order import order_calls
from tests.plan.world import hq_desired, hq_live


def test_every_operation_row_states_its_phase() -> None:
    assert all(isinstance(op.phase, Phase) for op in OPERATIONS.values())
    # Deletions come after every other change, roles last of all (design §4).
    deletions = {OperationName.DELETE_ROLE, OperationName.DELETE_COLLABORATION}
    assert all(OPERATIONS[name].phase > Phase.SETTINGS for name in deletions)
    assert OPERATIONS[OperationName.DELETE_ROLE].phase == max(Phase)


def test_a_drafted_call_is_ordered_by_its_operations_phase() -> None:
    draft = Draft(hq_desired(), hq_live(), 0)
    draft.call("Role/z", OperationName.DELETE_ROLE, {}, ids={"roleId": "r"})
    draft.call("Role/a", OperationName.CREATE_ROLE, {"name": "a"})
    draft.call("Member/m", OperationName.UPDATE_USER_ROLE, {"user": "m", "role": "a"})
    order = [call.operation for call in order_calls(draft.calls)]
    assert order == ["createRole", "updateUserRole", "deleteRole"]


def test_the_quota_names_a_level_call_by_the_one_call_key() -> None:
    move = LevelMove("alice", 2, 1)
    assert move_key(move) == call_key(OperationName.UPDATE_USER_LEVEL, "Member/alice")
