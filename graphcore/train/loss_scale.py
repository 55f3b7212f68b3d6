"""Loss scaling for mixed-precision training (TF1's ``tf.train.experimental``
``LossScale``, ``FixedLossScale``, ``DynamicLossScale``; TF's ``loss_scale.py``).

A loss scale multiplies the loss before differentiation so that small float16 gradients
do not flush to zero; ``update(grads)`` returns (the op that updates the scale, whether
the gradients may be applied). The dynamic scale halves (``multiplier``) on non-finite
gradients and doubles after ``increment_period`` finite steps, in the resource
variables ``current_loss_scale`` and ``good_steps``.
"""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import control_flow_ops, elementwise_ops, math_ops
from graphcore.ops.variables import Variable

__all__ = ["DynamicLossScale", "FixedLossScale", "LossScale"]


class LossScale:
    """Base class: ``__call__`` gives the scale as a Tensor; ``update(grads)`` gives
    (update op, should_apply_gradients)."""

    def __init__(self) -> None:
        self._weights: dict[tuple, Variable] = {}

    def __call__(self) -> ops_lib.Tensor:
        raise NotImplementedError

    def update(self, grads: Any) -> tuple:
        raise NotImplementedError

    def _add_weight(self, name: str, initial_value: Any, dtype: Any = None) -> Variable:
        variable = Variable(initial_value=initial_value, name=name, dtype=dtype,
                            trainable=False, use_resource=True)
        key = (name, ops_lib.get_default_graph())
        if self._weights.get(key) is not None:
            raise RuntimeError(f"Duplicate variables detected. {key}")
        self._weights[key] = variable
        return variable

    def _trackable_children(self) -> dict[str, Variable]:
        """Checkpoint dependencies (tf.train.Checkpoint): the default graph's weights by
        name."""
        graph = ops_lib.get_default_graph()
        return {name: v for (name, g), v in sorted(self._weights.items(),
                                                   key=lambda item: item[0][0])
                if g is graph}

    def get_config(self) -> dict:
        raise NotImplementedError

    @classmethod
    def from_config(cls, config: dict) -> LossScale:
        return cls(**config)


class FixedLossScale(LossScale):
    """A constant loss scale; gradients are always applied."""

    def __init__(self, loss_scale_value: float):
        super().__init__()
        if not isinstance(loss_scale_value, (int, float)):
            raise ValueError("loss_scale_value must be a Python int or float.")
        if loss_scale_value < 1:
            raise ValueError("loss_scale_value must be at least 1.")
        self._loss_scale_value = float(loss_scale_value)

    def __call__(self) -> ops_lib.Tensor:
        return convert_to_tensor(self._loss_scale_value)

    def update(self, grads: Any) -> tuple:
        del grads
        return control_flow_ops.no_op(), True

    def __repr__(self) -> str:
        return f"FixedLossScale({self._loss_scale_value})"

    def get_config(self) -> dict:
        return {"loss_scale_value": self._loss_scale_value}


def _is_all_finite(grads: list) -> ops_lib.Tensor:
    """True when every gradient (IndexedSlices: its values) is finite."""
    def raw_values(g):
        return g.values if isinstance(g, IndexedSlices) else g

    return math_ops.reduce_all([math_ops.reduce_all(elementwise_ops.is_finite(raw_values(g)))
                                for g in grads if g is not None])


def _assign_if_finite(var: Variable, value: Any) -> Any:
    return control_flow_ops.cond(elementwise_ops.is_finite(value), lambda: var.assign(value).op,
                                 control_flow_ops.no_op)


class DynamicLossScale(LossScale):
    """A loss scale that adapts: divided by ``multiplier`` (at least 1) when a step's
    gradients are not finite (the step is skipped), multiplied by it after
    ``increment_period`` finite steps in a row."""

    def __init__(self, initial_loss_scale: float = 2 ** 15, increment_period: int = 2000,
                 multiplier: float = 2.):
        super().__init__()
        self._initial_loss_scale = float(initial_loss_scale)
        self._increment_period = int(increment_period)
        self._multiplier = float(multiplier)
        self._current_loss_scale = self._add_weight(
            name="current_loss_scale", dtype=dtypes_lib.float32,
            initial_value=self._initial_loss_scale)
        self._num_good_steps = self._add_weight(name="good_steps", dtype=dtypes_lib.int64,
                                                initial_value=0)

    @property
    def initial_loss_scale(self) -> float:
        return self._initial_loss_scale

    @property
    def increment_period(self) -> int:
        return self._increment_period

    @property
    def multiplier(self) -> float:
        return self._multiplier

    def __call__(self) -> ops_lib.Tensor:
        return convert_to_tensor(self._current_loss_scale)

    def update(self, grads: Any) -> tuple:
        is_finite = _is_all_finite(nest.flatten(grads))

        def update_if_finite_grads():
            def incr_loss_scale():
                new_loss_scale = self._current_loss_scale * self._multiplier
                return control_flow_ops.group(
                    _assign_if_finite(self._current_loss_scale, new_loss_scale),
                    self._num_good_steps.assign(0))

            return control_flow_ops.cond(
                self._num_good_steps + 1 >= self._increment_period, incr_loss_scale,
                lambda: self._num_good_steps.assign_add(1).op)

        def update_if_not_finite_grads():
            new_loss_scale = math_ops.maximum(self._current_loss_scale / self._multiplier, 1)
            return control_flow_ops.group(self._num_good_steps.assign(0),
                                          self._current_loss_scale.assign(new_loss_scale))

        update_op = control_flow_ops.cond(is_finite, update_if_finite_grads,
                                          update_if_not_finite_grads)
        return update_op, is_finite

    def __repr__(self) -> str:
        return (f"DynamicLossScale(initial_loss_scale={self.initial_loss_scale}, "
                f"increment_period={self.increment_period}, multiplier={self.multiplier})")

    def get_config(self) -> dict:
        return {"initial_loss_scale": self.initial_loss_scale,
                "increment_period": self.increment_period, "multiplier": self.multiplier}


def get(identifier: Any) -> LossScale | None:
    """A LossScale from a number (fixed), "dynamic", a LossScale or None."""
    if isinstance(identifier, (int, float)):
        return FixedLossScale(identifier)
    if identifier == "dynamic":
        return DynamicLossScale()
    if isinstance(identifier, LossScale) or identifier is None:
        return identifier
    raise ValueError(f"Could not interpret loss scale identifier: {identifier}")
