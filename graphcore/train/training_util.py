"""The global step: ``tf.train.get_or_create_global_step`` and friends (TF1 graph mode).

The global step is an int64 scalar variable ``global_step`` (made by ``get_variable`` in
the current variable scope, outside any name scope), non-trainable, in the
GLOBAL_VARIABLES and GLOBAL_STEP collections, initialized to zero.
"""

from __future__ import annotations

import logging
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.ops.variables import Variable

__all__ = [
    "assert_global_step",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
]

GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs


def global_step(sess: Any, global_step_tensor: Any) -> int:
    """The global step's current value in ``sess``, as a Python int."""
    return int(sess.run(global_step_tensor))


def get_global_step(graph: ops_lib.Graph | None = None) -> Any:
    """The global step of ``graph`` (default graph): the one item of the GLOBAL_STEP
    collection, else the tensor ``global_step:0``; None when there is none (or when the
    collection holds several)."""
    graph = graph or ops_lib.get_default_graph()
    global_step_tensor = None
    global_step_tensors = graph.get_collection(ops_lib.GraphKeys.GLOBAL_STEP)
    if len(global_step_tensors) == 1:
        global_step_tensor = global_step_tensors[0]
    elif not global_step_tensors:
        try:
            global_step_tensor = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    else:
        _log.error("Multiple tensors in global_step collection.")
        return None
    assert_global_step(global_step_tensor)
    return global_step_tensor


def create_global_step(graph: ops_lib.Graph | None = None) -> Variable:
    """Creates the global step in ``graph``; ValueError if it already has one."""
    from graphcore.ops import init_ops, variable_scope

    graph = graph or ops_lib.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default() as g, g.name_scope(None):
        return variable_scope.get_variable(
            ops_lib.GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes_lib.int64,
            initializer=init_ops.zeros_initializer(), trainable=False,
            collections=[ops_lib.GraphKeys.GLOBAL_VARIABLES, ops_lib.GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph: ops_lib.Graph | None = None) -> Any:
    """The global step of ``graph``, created if it has none."""
    graph = graph or ops_lib.get_default_graph()
    global_step_tensor = get_global_step(graph)
    if global_step_tensor is None:
        global_step_tensor = create_global_step(graph)
    return global_step_tensor


def assert_global_step(global_step_tensor: Any) -> None:
    """TypeError unless ``global_step_tensor`` is an integer scalar Variable or Tensor."""
    if not isinstance(global_step_tensor, (Variable, ops_lib.Tensor)):
        raise TypeError(f'Existing "global_step" must be a Variable or Tensor: '
                        f"{global_step_tensor}.")
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(f'Existing "global_step" does not have integer type: '
                        f"{global_step_tensor.dtype}")
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')


def _get_global_step_read(graph: ops_lib.Graph | None = None) -> Any:
    graph = graph or ops_lib.get_default_graph()
    tensors = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if len(tensors) > 1:
        raise RuntimeError(f"There are multiple items in collection {GLOBAL_STEP_READ_KEY}. "
                           "There should be only one.")
    return tensors[0] if tensors else None


def _get_or_create_global_step_read(graph: ops_lib.Graph | None = None) -> Any:
    """A tensor reading the global step once per step (``global_step/add:0``: the value,
    or the initial value while uninitialized, plus 0); cached in a collection."""
    from graphcore.ops import control_flow_ops, state_ops

    graph = graph or ops_lib.get_default_graph()
    found = _get_global_step_read(graph)
    if found is not None:
        return found
    step = get_global_step(graph)
    if step is None:
        return None
    with graph.as_default() as g, g.name_scope(None):
        with g.name_scope(step.op.name + "/"):
            if isinstance(step, Variable):
                value = control_flow_ops.cond(state_ops.is_variable_initialized(step),
                                              step.read_value, lambda: step.initial_value)
            else:
                value = step
            read = value + 0
            ops_lib.add_to_collection(GLOBAL_STEP_READ_KEY, read)
    return _get_global_step_read(graph)


def _increment_global_step(increment: Any, graph: ops_lib.Graph | None = None) -> Any:
    from graphcore.ops import state_ops

    graph = graph or ops_lib.get_default_graph()
    step = get_global_step(graph)
    if step is None:
        raise ValueError("Global step tensor should be created by "
                         "tf.train.get_or_create_global_step before calling increment.")
    read = _get_or_create_global_step_read(graph)
    with graph.as_default() as g, g.name_scope(None):
        with g.name_scope(step.op.name + "/"):
            with ops_lib.control_dependencies([read]):
                return state_ops.assign_add(step, increment)
