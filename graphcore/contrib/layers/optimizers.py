"""``tf.contrib.layers.optimize_loss`` (TF 1.15): the loss tensor that also runs UPDATE_OPS
and one optimizer step (optimizer by name, class, instance or factory), with optional
learning-rate decay, gradient noise, multipliers, clipping by global norm, and the
summaries of ``OPTIMIZER_SUMMARIES``."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import clip_ops, control_flow_ops, init_ops, math_ops, random_ops
from graphcore.ops import variable_scope as vs
from graphcore.ops import variables as variables_lib
from graphcore.summary import summary_ops
from graphcore.train.adagrad import AdagradOptimizer
from graphcore.train.adam import AdamOptimizer
from graphcore.train.ftrl import FtrlOptimizer
from graphcore.train.gradient_descent import GradientDescentOptimizer
from graphcore.train.momentum import MomentumOptimizer
from graphcore.train.optimizer import Optimizer
from graphcore.train.rmsprop import RMSPropOptimizer
from graphcore.train.training_util import assert_global_step, get_global_step

__all__ = ["OPTIMIZER_CLS_NAMES", "OPTIMIZER_SUMMARIES", "optimize_loss"]

OPTIMIZER_CLS_NAMES = {
    "Adagrad": AdagradOptimizer,
    "Adam": AdamOptimizer,
    "Ftrl": FtrlOptimizer,
    "Momentum": lambda learning_rate: MomentumOptimizer(learning_rate, momentum=0.9),
    "RMSProp": RMSPropOptimizer,
    "SGD": GradientDescentOptimizer,
}

OPTIMIZER_SUMMARIES = ["learning_rate", "loss", "gradients", "gradient_norm",
                       "global_gradient_norm"]


def _learning_rate(learning_rate: Any) -> Any:
    if learning_rate is None:
        return None
    if isinstance(learning_rate, ops_lib.Tensor) and learning_rate.get_shape().ndims == 0:
        return learning_rate
    if isinstance(learning_rate, float):
        if learning_rate < 0.0:
            raise ValueError(f"Invalid learning_rate {learning_rate}.")
        return vs.get_variable("learning_rate", [], trainable=False,
                               initializer=init_ops.constant_initializer(learning_rate))
    raise ValueError(f"Learning rate should be 0d Tensor or float. Got {learning_rate} of type "
                     f"{type(learning_rate)}")


def _make_optimizer(optimizer: Any, lr: Any, learning_rate: Any) -> Optimizer:
    if isinstance(optimizer, str):
        if lr is None:
            raise ValueError("Learning rate is None, but should be specified if optimizer is "
                             f"string ({optimizer}).")
        if optimizer not in OPTIMIZER_CLS_NAMES:
            raise ValueError(f"Optimizer name should be one of [{', '.join(OPTIMIZER_CLS_NAMES)}"
                             f"], you provided {optimizer}.")
        return OPTIMIZER_CLS_NAMES[optimizer](learning_rate=lr)
    if isinstance(optimizer, type) and issubclass(optimizer, Optimizer):
        if lr is None:
            raise ValueError("Learning rate is None, but should be specified if optimizer is "
                             f"class ({optimizer}).")
        return optimizer(learning_rate=lr)
    if isinstance(optimizer, Optimizer):
        return optimizer
    if callable(optimizer):
        opt = optimizer(lr) if learning_rate is not None else optimizer()
        if not isinstance(opt, Optimizer):
            raise ValueError("Unrecognized optimizer: function should return subclass of "
                             f"Optimizer. Got {opt}.")
        return opt
    raise ValueError("Unrecognized optimizer: should be string, subclass of Optimizer, "
                     "instance of subclass of Optimizer or function with one argument. Got "
                     f"{optimizer}.")


def _add_scaled_noise(grads_and_vars: list, scale: float) -> list:
    noisy = []
    for grad, var in grads_and_vars:
        if grad is not None:
            shape = grad.dense_shape if isinstance(grad, IndexedSlices) else grad.get_shape()
            grad = grad + random_ops.truncated_normal(shape) * scale
        noisy.append((grad, var))
    return noisy


def _multiply_gradients(grads_and_vars: list, gradient_multipliers: dict) -> list:
    """Gradients times ``gradient_multipliers[var]`` (keyed by variable or ``var.name``
    with its ':0'); None gradients pass through."""
    multiplied = []
    for grad, var in grads_and_vars:
        key = var if var in gradient_multipliers else var.name
        if grad is not None and key in gradient_multipliers:
            multiplier = gradient_multipliers[key]
            if isinstance(grad, IndexedSlices):
                grad = IndexedSlices(grad.values * multiplier, grad.indices, grad.dense_shape)
            else:
                grad = grad * math_ops.cast(multiplier, grad.dtype)
        multiplied.append((grad, var))
    return multiplied


def _global_norm(grads_and_vars: list) -> Any:
    return clip_ops.global_norm([g for g, _ in grads_and_vars])


def optimize_loss(loss: Any, global_step: Any, learning_rate: Any, optimizer: Any,
                  gradient_noise_scale: float | None = None,
                  gradient_multipliers: dict | None = None, clip_gradients: Any = None,
                  learning_rate_decay_fn: Any = None, update_ops: Any = None,
                  variables: Any = None, name: str | None = None, summaries: Any = None,
                  colocate_gradients_with_ops: bool = False,
                  increment_global_step: bool = True) -> Any:
    """``loss`` that, when run, runs ``update_ops`` (default UPDATE_OPS) and applies one step
    of ``optimizer`` to ``variables`` (default: the trainable ones), incrementing
    ``global_step`` (default: the graph's, if any); ops under ``OptimizeLoss``."""
    loss = convert_to_tensor(loss)
    loss.get_shape().assert_has_rank(0)
    if global_step is None:
        global_step = get_global_step()
    else:
        assert_global_step(global_step)
    with vs.variable_scope(name, "OptimizeLoss", [loss, global_step]):
        if update_ops is None:
            update_ops = ops_lib.get_collection(ops_lib.GraphKeys.UPDATE_OPS)
        if update_ops:
            loss = control_flow_ops.with_dependencies(list(update_ops), loss)
        lr = _learning_rate(learning_rate)
        if summaries is None:
            summaries = ["loss", "learning_rate", "global_gradient_norm"]
        for summ in summaries:
            if summ not in OPTIMIZER_SUMMARIES:
                raise ValueError(f"Summaries should be one of [{', '.join(OPTIMIZER_SUMMARIES)}"
                                 f"], you provided {summ}.")
        if learning_rate is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            lr = learning_rate_decay_fn(lr, global_step)
            if "learning_rate" in summaries:
                summary_ops.scalar("learning_rate", lr)
        opt = _make_optimizer(optimizer, lr, learning_rate)
        if variables is None:
            variables = variables_lib.trainable_variables()
        gradients = opt.compute_gradients(
            loss, variables, colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gradient_noise_scale is not None:
            gradients = _add_scaled_noise(gradients, gradient_noise_scale)
        if gradient_multipliers is not None:
            gradients = _multiply_gradients(gradients, gradient_multipliers)
            if not gradients:
                raise ValueError("Empty list of (gradient, var) pairs encountered. This is "
                                 "most likely to be caused by an improper value of "
                                 "gradient_multipliers.")
        norms = "global_gradient_norm" in summaries or "gradient_norm" in summaries
        if norms:
            summary_ops.scalar("global_norm/gradient_norm", _global_norm(gradients))
        if isinstance(clip_gradients, float):
            grads, variables_ = zip(*gradients)
            clipped, _ = clip_ops.clip_by_global_norm(list(grads), clip_gradients)
            gradients = list(zip(clipped, variables_))
        elif callable(clip_gradients):
            gradients = clip_gradients(gradients)
        elif clip_gradients is not None:
            raise ValueError(f"Unknown type {type(clip_gradients)} for clip_gradients")
        if "loss" in summaries:
            summary_ops.scalar("loss", loss)
        for gradient, variable in gradients:
            values = gradient.values if isinstance(gradient, IndexedSlices) else gradient
            if values is not None:
                var_name = variable.name.replace(":", "_")
                if "gradients" in summaries:
                    summary_ops.histogram(f"gradients/{var_name}", values)
                if "gradient_norm" in summaries:
                    summary_ops.scalar(f"gradient_norm/{var_name}",
                                       clip_ops.global_norm([values]))
        if clip_gradients is not None and norms:
            summary_ops.scalar("global_norm/clipped_gradient_norm", _global_norm(gradients))
        grad_updates = opt.apply_gradients(
            gradients, global_step=global_step if increment_global_step else None,
            name="train")
        return control_flow_ops.with_dependencies([grad_updates], loss)
