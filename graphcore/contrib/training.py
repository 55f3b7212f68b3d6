"""``tf.contrib.training`` (TF 1.15): the load-balancing ps strategy of
``replica_device_setter``, ``HParams``, and ``create_train_op`` (the loss tensor that also
runs the update ops and one optimizer step)."""

from __future__ import annotations

import logging
from typing import Any

# ruff: noqa: F401
from graphcore.contrib.hparam import HParams
from graphcore.framework import ops as ops_lib
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import check_ops, clip_ops, control_flow_ops, variables
from graphcore.summary import summary_ops
from graphcore.train.load_balancing import GreedyLoadBalancingStrategy, byte_size_load_fn
from graphcore.train.optimizer import Optimizer
from graphcore.train.training_util import get_or_create_global_step

__all__ = ["GreedyLoadBalancingStrategy", "HParams", "add_gradients_summaries", "byte_size_load_fn",
           "clip_gradient_norms", "clip_gradient_norms_fn", "create_train_op",
           "multiply_gradients"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs
_USE_GLOBAL_STEP = 0


def add_gradients_summaries(grads_and_vars: list) -> list:
    """A histogram of each gradient and of its global norm (``<var>_gradient``,
    ``<var>_gradient_norm``)."""
    summaries = []
    for grad, var in grads_and_vars:
        if grad is None:
            _log.info("Var %s has no gradient", var.op.name)
            continue
        values = grad.values if isinstance(grad, IndexedSlices) else grad
        summaries.append(summary_ops.histogram(var.op.name + "_gradient", values))
        summaries.append(summary_ops.scalar(var.op.name + "_gradient_norm",
                                            clip_ops.global_norm([values])))
    return summaries


def clip_gradient_norms(gradients_to_variables: list, max_norm: Any) -> list:
    """Each gradient clipped to norm ``max_norm`` (``tf.clip_by_norm``)."""
    clipped = []
    for grad, var in gradients_to_variables:
        if grad is not None:
            if isinstance(grad, IndexedSlices):
                tmp = clip_ops.clip_by_norm(grad.values, max_norm)
                grad = IndexedSlices(tmp, grad.indices, grad.dense_shape)
            else:
                grad = clip_ops.clip_by_norm(grad, max_norm)
        clipped.append((grad, var))
    return clipped


def clip_gradient_norms_fn(max_norm: Any) -> Any:
    """``transform_grads_fn`` clipping each gradient to ``max_norm``."""
    return lambda grads_and_vars: clip_gradient_norms(grads_and_vars, max_norm)


def multiply_gradients(grads_and_vars: list, gradient_multipliers: dict) -> list:
    """Gradients times ``gradient_multipliers[var]`` (keyed by variable or op name)."""
    if not isinstance(grads_and_vars, list):
        raise ValueError("`grads_and_vars` must be a list.")
    if not gradient_multipliers:
        raise ValueError("`gradient_multipliers` is empty.")
    if not isinstance(gradient_multipliers, dict):
        raise ValueError("`gradient_multipliers` must be a dict.")
    multiplied = []
    for grad, var in grads_and_vars:
        key = var if var in gradient_multipliers else var.op.name
        if key in gradient_multipliers:
            if grad is None:
                raise ValueError("Requested multiple of `None` gradient.")
            multiplier = gradient_multipliers[key]
            if isinstance(grad, IndexedSlices):
                values = grad.values * convert_to_tensor(multiplier, dtype=grad.dtype)
                grad = IndexedSlices(values, grad.indices, grad.dense_shape)
            else:
                grad = grad * convert_to_tensor(multiplier, dtype=grad.dtype)
        multiplied.append((grad, var))
    return multiplied


def create_train_op(total_loss: Any, optimizer: Any, global_step: Any = _USE_GLOBAL_STEP,
                    update_ops: Any = None, variables_to_train: Any = None,
                    transform_grads_fn: Any = None, summarize_gradients: bool = False,
                    gate_gradients: int = Optimizer.GATE_OP, aggregation_method: Any = None,
                    colocate_gradients_with_ops: bool = False,
                    check_numerics: bool = True) -> Any:
    """``total_loss`` (checked finite) that, when run, first runs ``update_ops`` (default:
    UPDATE_OPS) and then one ``optimizer`` step on ``variables_to_train``, incrementing
    ``global_step`` (default: the graph's, created if needed); added to TRAIN_OP."""
    if global_step is _USE_GLOBAL_STEP:
        global_step = get_or_create_global_step()
    global_update_ops = ops_lib.get_collection(ops_lib.GraphKeys.UPDATE_OPS)
    update_ops = list(global_update_ops) if update_ops is None else list(update_ops)
    if not {id(op) for op in global_update_ops} <= {id(op) for op in update_ops}:
        _log.warning("update_ops in create_train_op does not contain all the update_ops in "
                     "GraphKeys.UPDATE_OPS")
    if update_ops:
        with ops_lib.control_dependencies(update_ops):
            barrier = control_flow_ops.no_op(name="update_barrier")
        total_loss = control_flow_ops.with_dependencies([barrier], total_loss)
    if variables_to_train is None:
        variables_to_train = variables.trainable_variables()
    if not variables_to_train:
        raise ValueError("No variables to optimize.")
    grads = optimizer.compute_gradients(
        total_loss, variables_to_train, gate_gradients=gate_gradients,
        aggregation_method=aggregation_method,
        colocate_gradients_with_ops=colocate_gradients_with_ops)
    if transform_grads_fn:
        grads = transform_grads_fn(grads)
    if summarize_gradients:
        with ops_lib.name_scope("summarize_grads"):
            add_gradients_summaries(grads)
    grad_updates = optimizer.apply_gradients(grads, global_step=global_step)
    with ops_lib.name_scope("train_op"):
        if check_numerics:
            total_loss = check_ops.check_numerics(total_loss, "LossTensor is inf or nan")
        train_op = control_flow_ops.with_dependencies([grad_updates], total_loss)
    train_ops = ops_lib.get_collection_ref(ops_lib.GraphKeys.TRAIN_OP)
    if not any(train_op is op for op in train_ops):
        train_ops.append(train_op)
    return train_op
