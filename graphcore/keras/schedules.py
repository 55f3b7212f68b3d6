"""tf.keras.optimizers.schedules: learning rates as functions of the optimizer's step (a
Keras optimizer given one evaluates it at ``iterations`` each step and keeps no
``learning_rate`` variable). The decays are TF's formulas (those of tf.train's
``exponential_decay``... which TF defines through these classes); configs and
``serialize`` are Keras' (``{"module", "class_name", "config", "registered_name"}``)."""

from __future__ import annotations

import math
from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.keras import custom_objects as custom_lib
from graphcore.ops import control_flow_ops, math_ops
from graphcore.train import learning_rate_decay as decay_lib

__all__ = ["CosineDecay", "CosineDecayRestarts", "ExponentialDecay", "InverseTimeDecay",
           "LearningRateSchedule", "PiecewiseConstantDecay", "PolynomialDecay",
           "deserialize", "serialize"]


class LearningRateSchedule:
    """The base class: ``schedule(step)`` is the learning rate at ``step``."""

    def __call__(self, step: Any) -> Any:
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must "
                                  "override `__call__(self, step)`.")

    def get_config(self) -> dict:
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must "
                                  "override `get_config()` in order to be serializable.")

    @classmethod
    def from_config(cls, config: dict) -> LearningRateSchedule:
        return cls(**config)


class _RateDecay(LearningRateSchedule):
    """The schedules of (initial rate, decay_steps, decay_rate, staircase): ``_decay`` is
    tf.train's function of that signature."""

    _decay: Any = None

    def __init__(self, initial_learning_rate: Any, decay_steps: Any, decay_rate: Any,
                 staircase: bool = False, name: str | None = None) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step: Any) -> Any:
        return type(self)._decay(self.initial_learning_rate, step, self.decay_steps,
                                 self.decay_rate, self.staircase, self.name)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_RateDecay):
    _decay = staticmethod(decay_lib.exponential_decay)


class PiecewiseConstantDecay(LearningRateSchedule):
    def __init__(self, boundaries: list, values: list, name: str | None = None) -> None:
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of "
                             f"values. Received: boundaries={boundaries} of length "
                             f"{len(boundaries)}, and values={values} of length "
                             f"{len(values)}.")
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step: Any) -> Any:
        # The boundaries take the step's dtype (a float ``iterations`` in an optimizer).
        step = convert_to_tensor(step)
        boundaries = [b if b.dtype.base_dtype == step.dtype.base_dtype else
                      math_ops.cast(b, step.dtype.base_dtype)
                      for b in (convert_to_tensor(b) for b in self.boundaries)]
        return decay_lib.piecewise_constant(step, boundaries, self.values,
                                            self.name or "PiecewiseConstant")

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    def __init__(self, initial_learning_rate: Any, decay_steps: Any,
                 end_learning_rate: Any = 0.0001, power: Any = 1.0, cycle: bool = False,
                 name: str | None = None) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step: Any) -> Any:
        return decay_lib.polynomial_decay(self.initial_learning_rate, step, self.decay_steps,
                                          self.end_learning_rate, self.power, self.cycle,
                                          self.name)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps,
                "end_learning_rate": self.end_learning_rate, "power": self.power,
                "cycle": self.cycle, "name": self.name}


class InverseTimeDecay(_RateDecay):
    _decay = staticmethod(decay_lib.inverse_time_decay)


class CosineDecay(LearningRateSchedule):
    """Cosine decay to ``alpha`` times the rate over ``decay_steps``; with a
    ``warmup_target``, first a linear ramp to it over ``warmup_steps``."""

    def __init__(self, initial_learning_rate: Any, decay_steps: Any, alpha: Any = 0.0,
                 name: str | None = None, warmup_target: Any = None,
                 warmup_steps: Any = 0) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_steps = warmup_steps
        self.warmup_target = warmup_target

    def __call__(self, step: Any) -> Any:
        if self.warmup_target is None:
            return decay_lib.cosine_decay(self.initial_learning_rate, step, self.decay_steps,
                                          self.alpha, self.name)
        with ops_lib.name_scope(self.name or "CosineDecay"):
            initial = convert_to_tensor(self.initial_learning_rate,
                                        name="initial_learning_rate")
            dtype = initial.dtype
            decay_steps = math_ops.cast(self.decay_steps, dtype)
            target = math_ops.cast(self.warmup_target, dtype)
            warmup_steps = math_ops.cast(self.warmup_steps, dtype)
            step = math_ops.minimum(math_ops.cast(step, dtype), decay_steps + warmup_steps)

            def warmup() -> Any:
                with ops_lib.name_scope(self.name or "CosineDecay"):
                    return (target - initial) * (step / warmup_steps) + initial

            def decay() -> Any:
                with ops_lib.name_scope(self.name or "CosineDecay"):
                    fraction = (step - warmup_steps) / decay_steps
                    cosine = 0.5 * (1.0 + math_ops.cos(
                        convert_to_tensor(math.pi, dtype=dtype) * fraction))
                    return math_ops.multiply(target, (1 - self.alpha) * cosine + self.alpha)

            return control_flow_ops.cond(step < warmup_steps, warmup, decay)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """SGDR: cosine decay restarted after ``first_decay_steps``, each period ``t_mul``
    times longer and its peak ``m_mul`` times lower."""

    def __init__(self, initial_learning_rate: Any, first_decay_steps: Any,
                 t_mul: Any = 2.0, m_mul: Any = 1.0, alpha: Any = 0.0,
                 name: str | None = None) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def __call__(self, step: Any) -> Any:
        return decay_lib.cosine_decay_restarts(self.initial_learning_rate, step,
                                               self.first_decay_steps, self._t_mul,
                                               self._m_mul, self.alpha, self.name)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self._t_mul,
                "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


_BY_NAME = {cls.__name__: cls for cls in (
    CosineDecay, CosineDecayRestarts, ExponentialDecay, InverseTimeDecay,
    PiecewiseConstantDecay, PolynomialDecay)}


def serialize(learning_rate_schedule: LearningRateSchedule,
              use_legacy_format: bool = False) -> dict:
    """Keras' serialized form of a schedule."""
    config = learning_rate_schedule.get_config()
    name = type(learning_rate_schedule).__name__
    if use_legacy_format:
        return {"class_name": name, "config": config}
    return {"module": "keras.optimizers.schedules", "class_name": name, "config": config,
            "registered_name": None}


def deserialize(config: dict, custom_objects: dict | None = None,
                use_legacy_format: bool = False) -> LearningRateSchedule:
    """The schedule of a serialized form (either of Keras' formats)."""
    del use_legacy_format
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or custom_lib.lookup(name) or _BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"Unknown decay: '{name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is "
                         "included in the scope.")
    return cls.from_config(config.get("config", {}))
