"""Numerical gradient checks (``tf.test.compute_gradient`` / ``compute_gradient_error``).

The theoretical Jacobian comes from ``tf.gradients`` (one backprop per element of y,
fed a one-hot ``grad_ys``); the numerical one from central differences, feeding x
perturbed by +-delta.  Both run in the default session.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import session_stack
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops
from graphcore.ops.gradients_impl import gradients

__all__ = ["compute_gradient", "compute_gradient_error"]


def _session() -> Any:
    sess = session_stack.get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session: use `with tf.Session():`")
    return sess


def _jacobians(x: Any, x_shape: Any, x_init: np.ndarray, y: Any, y_shape: Any, delta: float,
               extra_feed: dict) -> tuple[np.ndarray, np.ndarray]:
    sess = _session()
    x_size = int(np.prod(x_shape))
    y_size = int(np.prod(y_shape))
    dy = array_ops.placeholder(y.dtype.base_dtype, shape=y_shape)
    (dx,) = gradients(y, x, grad_ys=dy)
    if isinstance(dx, IndexedSlices):  # TF adds each slice's rows into the Jacobian
        dx = convert_to_tensor(dx)
    theoretical = np.zeros((x_size, y_size), dtype=np.float64)
    if dx is not None:
        one_hot = np.zeros(y_shape, dtype=y.dtype.base_dtype.as_numpy_dtype)
        flat = one_hot.reshape(-1)
        for j in range(y_size):
            flat[:] = 0
            flat[j] = 1
            value = sess.run(dx, {x: x_init, dy: one_hot, **extra_feed})
            theoretical[:, j] = np.asarray(value, dtype=np.float64).reshape(-1)
    numerical = np.zeros((x_size, y_size), dtype=np.float64)
    x_pos = x_init.copy()
    flat_x = x_pos.reshape(-1)
    for i in range(x_size):
        orig = flat_x[i]
        flat_x[i] = orig + delta
        y_pos = np.asarray(sess.run(y, {x: x_pos, **extra_feed}), dtype=np.float64)
        flat_x[i] = orig - delta
        y_neg = np.asarray(sess.run(y, {x: x_pos, **extra_feed}), dtype=np.float64)
        flat_x[i] = orig
        numerical[i, :] = ((y_pos - y_neg) / (2 * delta)).reshape(-1)
    return theoretical, numerical


def compute_gradient(x: Any, x_shape: Any, y: Any, y_shape: Any, x_init_value: Any = None,
                     delta: float = 1e-3, init_targets: Any = None,
                     extra_feed_dict: dict | None = None) -> Any:
    """(theoretical, numerical) Jacobians of ``y`` w.r.t. ``x`` ([x size, y size]); a
    list of pairs when ``x`` is a list."""
    sess = _session()
    if init_targets is not None:
        sess.run(init_targets)
    extra = dict(extra_feed_dict or {})
    if isinstance(x, (list, tuple)):
        inits = x_init_value or [None] * len(x)
        out = []
        for i, (xi, shape) in enumerate(zip(x, x_shape)):
            others = {xj: _init(xj, sj, vj) for j, (xj, sj, vj) in
                      enumerate(zip(x, x_shape, inits)) if j != i}
            out.append(_jacobians(xi, shape, _init(xi, shape, inits[i]), y, y_shape, delta,
                                  {**extra, **others}))
        return out
    return _jacobians(x, x_shape, _init(x, x_shape, x_init_value), y, y_shape, delta, extra)


def _init(x: Any, shape: Any, value: Any) -> np.ndarray:
    dtype = x.dtype.base_dtype.as_numpy_dtype
    if value is not None:
        return np.array(value, dtype=dtype).reshape(shape)
    rng = np.random.default_rng(0)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def compute_gradient_error(x: Any, x_shape: Any, y: Any, y_shape: Any, x_init_value: Any = None,
                           delta: float = 1e-3, init_targets: Any = None,
                           extra_feed_dict: dict | None = None) -> float:
    """The largest absolute difference between the theoretical and numerical Jacobians."""
    grads = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                             extra_feed_dict)
    if isinstance(grads, tuple):
        grads = [grads]
    error = 0.0
    for theoretical, numerical in grads:
        if theoretical.size:
            error = max(error, float(np.max(np.abs(theoretical - numerical))))
    return error
