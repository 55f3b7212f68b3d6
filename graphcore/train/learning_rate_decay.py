"""Learning-rate schedules of TF1's ``tf.train`` (graph mode: each returns the decayed
rate as a Tensor of ``global_step``), built as TF builds them."""

from __future__ import annotations

import functools
import math
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor

__all__ = [
    "exponential_decay",
    "inverse_time_decay",
    "natural_exp_decay",
    "piecewise_constant",
    "piecewise_constant_decay",
    "polynomial_decay",
    "cosine_decay",
    "cosine_decay_restarts",
    "linear_cosine_decay",
    "noisy_linear_cosine_decay",
]


def _math():
    from graphcore.ops import math_ops

    return math_ops


def _check_step(global_step: Any) -> None:
    if global_step is None:
        raise ValueError("global_step is required for this decay.")


def exponential_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None) -> ops_lib.Tensor:
    """learning_rate * decay_rate ** (global_step / decay_steps) (the exponent floored
    when ``staircase``)."""
    _check_step(global_step)
    m = _math()
    with ops_lib.name_scope(name or "ExponentialDecay") as scope:
        initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = initial.dtype
        decay_steps = m.cast(decay_steps, dtype)
        decay_rate = m.cast(decay_rate, dtype)
        step = m.cast(global_step, dtype)
        p = step / decay_steps
        if staircase:
            p = m.floor(p)
        return m.multiply(initial, m.pow(decay_rate, p), name=scope)


def natural_exp_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None) -> ops_lib.Tensor:
    """learning_rate * exp(-decay_rate * global_step / decay_steps)."""
    _check_step(global_step)
    m = _math()
    natural_exp_rate = m.exp(m.negative(decay_rate))
    return exponential_decay(learning_rate, global_step, decay_steps, natural_exp_rate,
                             staircase=staircase, name=name)


def inverse_time_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                       decay_rate: Any, staircase: bool = False,
                       name: str | None = None) -> ops_lib.Tensor:
    """learning_rate / (1 + decay_rate * global_step / decay_steps)."""
    _check_step(global_step)
    m = _math()
    from graphcore.ops import array_ops

    with ops_lib.name_scope(name or "InverseTimeDecay") as scope:
        initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = initial.dtype
        decay_steps = m.cast(decay_steps, dtype)
        decay_rate = m.cast(decay_rate, dtype)
        step = m.cast(global_step, dtype)
        p = step / decay_steps
        if staircase:
            p = m.floor(p)
        const = m.cast(array_ops.constant(1), dtype)
        denom = m.add(const, m.multiply(decay_rate, p))
        return m.divide(initial, denom, name=scope)


def polynomial_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                     end_learning_rate: Any = 0.0001, power: Any = 1.0, cycle: bool = False,
                     name: str | None = None) -> ops_lib.Tensor:
    """(lr - end) * (1 - step / decay_steps) ** power + end, the step clipped to
    decay_steps (or decay_steps stretched to the next multiple when ``cycle``)."""
    _check_step(global_step)
    m = _math()
    from graphcore.ops import array_ops

    with ops_lib.name_scope(name or "PolynomialDecay") as scope:
        initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = initial.dtype
        end_learning_rate = m.cast(end_learning_rate, dtype)
        power = m.cast(power, dtype)
        step = m.cast(global_step, dtype)
        decay_steps_recomp = m.cast(decay_steps, dtype)
        if cycle:
            where = getattr(array_ops, "where_v2", array_ops.where)
            multiplier = where(m.equal(step, 0), convert_to_tensor(1.0, dtype=dtype),
                               m.ceil(step / decay_steps))
            decay_steps_recomp = m.multiply(decay_steps_recomp, multiplier)
        else:
            step = m.minimum(step, decay_steps_recomp)
        p = m.divide(step, decay_steps_recomp)
        return m.add(m.multiply(initial - end_learning_rate, m.pow(1 - p, power)),
                     end_learning_rate, name=scope)


def cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any, alpha: Any = 0.0,
                 name: str | None = None) -> ops_lib.Tensor:
    """learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) /
    decay_steps)) + alpha)."""
    _check_step(global_step)
    m = _math()
    with ops_lib.name_scope(name or "CosineDecay"):
        initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = initial.dtype
        decay_steps = m.cast(decay_steps, dtype)
        step = m.cast(global_step, dtype)
        step = m.minimum(step, decay_steps)
        completed_fraction = step / decay_steps
        cosine_decayed = 0.5 * (1.0 + m.cos(
            convert_to_tensor(math.pi, dtype=dtype) * completed_fraction))
        decayed = (1 - alpha) * cosine_decayed + alpha
        return m.multiply(initial, decayed)


def cosine_decay_restarts(learning_rate: Any, global_step: Any, first_decay_steps: Any,
                          t_mul: Any = 2.0, m_mul: Any = 1.0, alpha: Any = 0.0,
                          name: str | None = None) -> ops_lib.Tensor:
    """SGDR (Loshchilov & Hutter): cosine decay restarted after ``first_decay_steps``,
    each period ``t_mul`` times longer and its peak ``m_mul`` times lower."""
    from graphcore.ops import control_flow_ops

    _check_step(global_step)
    m = _math()
    with ops_lib.name_scope(name, "SGDRDecay") as scope:
        initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = initial.dtype
        first_decay_steps = m.cast(first_decay_steps, dtype)
        alpha = m.cast(alpha, dtype)
        t_mul = m.cast(t_mul, dtype)
        m_mul = m.cast(m_mul, dtype)
        completed_fraction = m.cast(global_step, dtype) / first_decay_steps

        def compute_step(completed_fraction, geometric=False):
            if geometric:
                i_restart = m.floor(m.log(1.0 - completed_fraction * (1.0 - t_mul))
                                    / m.log(t_mul))
                sum_r = (1.0 - t_mul ** i_restart) / (1.0 - t_mul)
                completed_fraction = (completed_fraction - sum_r) / t_mul ** i_restart
            else:
                i_restart = m.floor(completed_fraction)
                completed_fraction -= i_restart
            return i_restart, completed_fraction

        i_restart, completed_fraction = control_flow_ops.cond(
            m.equal(t_mul, 1.0), lambda: compute_step(completed_fraction, geometric=False),
            lambda: compute_step(completed_fraction, geometric=True))
        m_fac = m_mul ** i_restart
        cosine_decayed = 0.5 * m_fac * (1.0 + m.cos(
            convert_to_tensor(math.pi, dtype=dtype) * completed_fraction))
        decayed = (1 - alpha) * cosine_decayed + alpha
        return m.multiply(initial, decayed, name=scope)


def _linear_cosine(learning_rate: Any, global_step: Any, decay_steps: Any, num_periods: Any,
                   alpha: Any, beta: Any, name: str | None, default_name: str,
                   noise: tuple | None = None) -> ops_lib.Tensor:
    """(alpha + linear [+ noise]) * cosine + beta, times the learning rate; ``noise`` is
    (initial_variance, variance_decay) of the Gaussian added to the linear part."""
    _check_step(global_step)
    m = _math()
    with ops_lib.name_scope(name, default_name) as scope:
        initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = initial.dtype
        decay_steps = m.cast(decay_steps, dtype)
        if noise is not None:
            initial_variance = m.cast(noise[0], dtype)
            variance_decay = m.cast(noise[1], dtype)
        num_periods = m.cast(num_periods, dtype)
        alpha = m.cast(alpha, dtype)
        beta = m.cast(beta, dtype)
        step = m.minimum(m.cast(global_step, dtype), decay_steps)
        linear_decayed = (decay_steps - step) / decay_steps
        if noise is not None:
            from graphcore.ops import random_ops

            variance = initial_variance / m.pow(1.0 + step, variance_decay)
            linear_decayed = linear_decayed + random_ops.random_normal(
                linear_decayed.shape, stddev=m.sqrt(variance))
        fraction = 2.0 * num_periods * (step / decay_steps)
        cosine_decayed = 0.5 * (1.0 + m.cos(convert_to_tensor(math.pi, dtype=dtype)
                                            * fraction))
        return m.multiply(initial, (alpha + linear_decayed) * cosine_decayed + beta,
                          name=scope)


def linear_cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                        num_periods: Any = 0.5, alpha: Any = 0.0, beta: Any = 0.001,
                        name: str | None = None) -> ops_lib.Tensor:
    """Linear cosine decay (Bello et al., 2017): learning_rate * ((alpha + (decay_steps -
    step) / decay_steps) * 0.5 * (1 + cos(2 pi num_periods step / decay_steps)) + beta)."""
    return _linear_cosine(learning_rate, global_step, decay_steps, num_periods, alpha, beta,
                          name, "LinearCosineDecay")


def noisy_linear_cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                              initial_variance: Any = 1.0, variance_decay: Any = 0.55,
                              num_periods: Any = 0.5, alpha: Any = 0.0, beta: Any = 0.001,
                              name: str | None = None) -> ops_lib.Tensor:
    """linear_cosine_decay with Gaussian noise of variance initial_variance / (1 +
    step) ** variance_decay added to the linear part."""
    return _linear_cosine(learning_rate, global_step, decay_steps, num_periods, alpha, beta,
                          name, "NoisyLinearCosineDecay", (initial_variance, variance_decay))


def piecewise_constant(x: Any, boundaries: list, values: list,
                       name: str | None = None) -> ops_lib.Tensor:
    """values[0] while x <= boundaries[0], values[i] while boundaries[i-1] < x <=
    boundaries[i], values[-1] after boundaries[-1]."""
    m = _math()
    from graphcore.ops import control_flow_ops

    boundaries = [convert_to_tensor(b) for b in boundaries]
    values = [convert_to_tensor(v) for v in values]
    x_recomp = convert_to_tensor(x)
    for i, b in enumerate(boundaries):
        if b.dtype.base_dtype != x_recomp.dtype.base_dtype:
            if (b.dtype.base_dtype == dtypes_lib.int32
                    and x_recomp.dtype.base_dtype == dtypes_lib.int64):
                boundaries[i] = m.cast(b, x_recomp.dtype.base_dtype)
            else:
                raise ValueError(f"Boundaries ({b.dtype.base_dtype}) must have the same dtype "
                                 f"as x ({x_recomp.dtype.base_dtype}).")
    for v in values[1:]:
        if v.dtype.base_dtype != values[0].dtype.base_dtype:
            raise ValueError(f"Values must have elements all with the same dtype "
                             f"({values[0].dtype.base_dtype} vs {v.dtype.base_dtype}).")
    if len(values) != len(boundaries) + 1:
        raise ValueError("The length of boundaries should be 1 less than the length of "
                         "values")
    with ops_lib.name_scope(name or "PiecewiseConstant"):
        x_recomp = convert_to_tensor(x)
        pred_fn_pairs = [(x_recomp <= boundaries[0], lambda: values[0]),
                         (x_recomp > boundaries[-1], lambda: values[-1])]
        for low, high, v in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
            pred = (x_recomp > low) & (x_recomp <= high)
            pred_fn_pairs.append((pred, lambda v=v: v))
        default = lambda: values[0]  # noqa: E731 - TF's form
        case = getattr(control_flow_ops, "case", None)
        if case is not None:
            return case(pred_fn_pairs, default, exclusive=True)
        # No tf.case yet: the same value through nested conds.
        result = default
        for pred, fn in reversed(pred_fn_pairs):
            result = functools.partial(control_flow_ops.cond, pred, fn, result)
        return result()


piecewise_constant_decay = piecewise_constant
