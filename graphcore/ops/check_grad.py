"""Gradient of CheckNumerics: the incoming gradient, itself checked (TF's array_grad)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.ops import check_ops


@RegisterGradient("CheckNumerics")
def _check_numerics_grad(op: ops_lib.Operation, grad: Any) -> Any:
    message = op.get_attr("message")
    message = message.decode() if isinstance(message, bytes) else message
    return check_ops.check_numerics(
        grad, "Not a number (NaN) or infinity (Inf) values detected in gradient. "
              f"{message}")
