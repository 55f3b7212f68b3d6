"""Parameter-server placement by load (TF 1.x's ``tf.contrib.training``
``GreedyLoadBalancingStrategy`` and ``byte_size_load_fn``): each variable goes to the ps
task holding the least so far, as ``replica_device_setter(ps_strategy=...)`` asks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from graphcore.framework import tensor_shape as shape_lib

__all__ = ["GreedyLoadBalancingStrategy", "byte_size_load_fn"]


class GreedyLoadBalancingStrategy:
    """Places each op on the ps task of least load (the first such on ties), then adds
    ``load_fn(op)`` to that task's load."""

    def __init__(self, num_tasks: int, load_fn: Callable[[Any], float]):
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op: Any) -> int:
        task = int(np.argmin(self._ps_loads))
        self._ps_loads[task] += self._load_fn(op)
        return task


def byte_size_load_fn(op: Any) -> int:
    """The bytes a variable op holds: its ``shape`` attr (else its output's static shape)
    times its dtype's size; 0 when either is unknown."""
    try:
        elem_size = op.get_attr("dtype").size
    except ValueError:
        return 0
    try:
        shape = shape_lib.as_shape(op.get_attr("shape"))
    except ValueError:
        shape = shape_lib.unknown_shape()
    if not shape.is_fully_defined() and op.outputs:
        shape = op.outputs[0].get_shape()
    if not shape.is_fully_defined():
        return 0
    return shape.num_elements() * elem_size
