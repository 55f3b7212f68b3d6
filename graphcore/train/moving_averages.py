"""``tf.train.ExponentialMovingAverage`` and the moving-average updates it builds
(TF's ``moving_averages.py``: ``assign_moving_average`` with optional zero-debiasing,
``weighted_moving_average``).

An average of a variable is a slot ``<var>/<EMA name>`` initialized to the variable's
value; ``apply`` returns the group, named like the EMA, of the AssignMovingAvg updates
``avg -= (avg - var) * (1 - decay)``.
"""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    control_flow_ops,
    init_ops,
    math_ops,
    state_ops,
    variable_scope,
    variables,
)
from graphcore.train import slot_creator
from graphcore.train.optimizer import init_scope

__all__ = ["ExponentialMovingAverage"]

_FLOAT_TYPES = (dtypes_lib.bfloat16, dtypes_lib.float16, dtypes_lib.float32,
                dtypes_lib.float64)


def assign_moving_average(variable: Any, value: Any, decay: Any, zero_debias: bool = True,
                          name: str | None = None) -> ops_lib.Tensor:
    """``variable -= (variable - value) * (1 - decay)``; with ``zero_debias``, the
    average of a zero-initialized variable is divided by ``1 - decay ** t`` (the biased
    average and the step t live in ``<variable>/biased`` and ``<variable>/local_step``)."""
    with ops_lib.name_scope(name, "AssignMovingAvg") as scope:
        decay = convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype != variable.dtype.base_dtype:
            decay = math_ops.cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def _unique_in_scope(name: str) -> str:
    """``name``, or ``name_<i>`` when the variable scope already holds ``name``."""
    scope = variable_scope.get_variable_scope()
    if scope.reuse:
        return name
    existing = {v.op.name for v in scope.global_variables()}
    full_name = scope.name + "/" + name
    if full_name not in existing:
        return name
    idx = 1
    while f"{full_name}_{idx}" in existing:
        idx += 1
    return f"{name}_{idx}"


def _zero_debias(unbiased_var: Any, value: Any, decay: Any) -> ops_lib.Tensor:
    with variable_scope.variable_scope(unbiased_var.name[:-len(":0")],
                                       values=[unbiased_var, value, decay]):
        with init_scope(), ops_lib.colocate_with(unbiased_var):
            biased_var = variable_scope.get_variable(
                _unique_in_scope("biased"), initializer=init_ops.zeros_initializer(),
                shape=unbiased_var.get_shape(), dtype=unbiased_var.dtype.base_dtype,
                trainable=False)
            local_step = variable_scope.get_variable(
                _unique_in_scope("local_step"), shape=[],
                dtype=unbiased_var.dtype.base_dtype,
                initializer=init_ops.zeros_initializer(), trainable=False)
    update_biased = state_ops.assign_sub(biased_var, (biased_var - value) * decay)
    update_local_step = local_step.assign_add(1)
    bias_factor = 1 - math_ops.pow(1.0 - decay, update_local_step)
    return state_ops.assign(unbiased_var, update_biased / bias_factor,
                            name=ops_lib.get_default_graph().get_name_scope() + "/")


class ExponentialMovingAverage:
    """Maintains shadow averages of variables (or tensors) with ``decay``, lowered to
    ``min(decay, (1 + num_updates) / (10 + num_updates))`` when ``num_updates`` is given."""

    def __init__(self, decay: Any, num_updates: Any = None, zero_debias: bool = False,
                 name: str = "ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict[int, tuple[Any, Any]] = {}  # id(var) -> (var, average)

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list: Any = None) -> ops_lib.Operation:
        """Creates the averages of ``var_list`` (default: the trainable variables) and
        returns the op that updates them all."""
        if var_list is None:
            var_list = variables.trainable_variables()
        var_list = list(var_list)
        zero_debias_true = set()
        for var in var_list:
            if var.dtype.base_dtype not in _FLOAT_TYPES:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if id(var) in self._averages:
                continue
            with init_scope():
                if isinstance(var, variables.Variable):
                    with ops_lib.device(var.device):
                        initialized_value = control_flow_ops.cond(
                            state_ops.is_variable_initialized(var), var.read_value,
                            lambda v=var: v.initial_value)
                    avg = slot_creator.create_slot(var, initialized_value, self.name,
                                                   colocate_with_primary=True)
                    ops_lib.add_to_collection(ops_lib.GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    avg = slot_creator.create_zeros_slot(
                        var, self.name, colocate_with_primary=var.op.type in (
                            "Variable", "VariableV2", "VarHandleOp"))
                    if self._zero_debias:
                        zero_debias_true.add(id(avg))
            self._averages[id(var)] = (var, avg)
        with ops_lib.name_scope(self.name) as scope:
            decay = convert_to_tensor(self._decay, dtype=dtypes_lib.float32, name="decay")
            if self._num_updates is not None:
                num_updates = math_ops.cast(self._num_updates, dtypes_lib.float32,
                                            name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = []
            for var in var_list:
                avg = self._averages[id(var)][1]
                updates.append(assign_moving_average(avg, var, decay,
                                                     id(avg) in zero_debias_true))
            return control_flow_ops.group(*updates, name=scope)

    def average(self, var: Any) -> Any:
        """The average variable of ``var`` (None if ``apply`` did not see it)."""
        entry = self._averages.get(id(var))
        return entry[1] if entry is not None else None

    def average_name(self, var: Any) -> str:
        """The name of ``var``'s average: the existing one, or the one ``apply`` would
        give it."""
        entry = self._averages.get(id(var))
        if entry is not None:
            return entry[1].name[:-len(":0")]
        return ops_lib.get_default_graph().unique_name(
            var.name[:-len(":0")] + "/" + self.name, mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables: Any = None) -> dict[str, Any]:
        """A Saver's var_list that restores each variable from its average's name (the
        trainable and moving-average variables by default) and every other global
        variable from its own."""
        if moving_avg_variables is None:
            moving_avg_variables = (variables.trainable_variables()
                                    + variables.moving_average_variables())
        unique = {id(v): v for v in moving_avg_variables}
        name_map = {self.average_name(v): v for v in unique.values()}
        names = {v.name for v in unique.values()}
        for v in variables.global_variables():
            if v.name not in names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
