"""The gradient registry: one gradient function per op type.

A gradient function takes the forward Operation and the gradients of its outputs
(one argument per output; None where no gradient flows) and returns one gradient per
input (None for inputs that get none)::

    @RegisterGradient("AddV2")
    def _add_grad(op, grad):
        return [grad, grad]

``NotDifferentiable("Shape")`` records that an op has no gradient (its inputs get
None); an op type with no entry at all makes ``tf.gradients`` raise LookupError.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

GradFn = Callable[..., Any]

_lock = threading.Lock()
_registry: dict[str, GradFn | None] = {}


class RegisterGradient:
    """Decorator registering the gradient function of ``op_type``."""

    def __init__(self, op_type: str):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn: GradFn) -> GradFn:
        with _lock:
            if self._op_type in _registry:
                raise KeyError(f"Registering two gradient with name '{self._op_type}'! "
                               f"(Previous registration was in {_registry[self._op_type]})")
            _registry[self._op_type] = fn
        return fn


def NotDifferentiable(op_type: str) -> None:  # noqa: N802 - TF's name
    """Declares that ``op_type`` has no gradient."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    with _lock:
        _registry[op_type] = None


NoGradient = NotDifferentiable


def get_gradient_function(op: Any) -> GradFn | None:
    """The gradient function for ``op`` (honouring ``gradient_override_map``).

    Returns None for a NotDifferentiable op; raises LookupError when none is registered.
    """
    override = op._attrs.get("_gradient_op_type")
    op_type = override.s.decode() if override is not None else op.type
    if op_type not in _registry:
        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: "
                          f"{op_type}). In general every operation must have an associated "
                          "`@tf.RegisterGradient` for correct autodiff.")
    return _registry[op_type]


def registered_gradients() -> dict[str, GradFn | None]:
    return dict(_registry)
