"""TF's execution-mode switches and build facts, for graph mode, graphcore's only mode.

The switches a TF1 script calls to select TF1 graph behaviour (``disable_eager_execution``,
``disable_v2_behavior``, ``disable_control_flow_v2``...) are accepted and change nothing
but the resource-variable default, which ``disable_v2_behavior`` resets as TF's does;
the ones that would leave graph mode (``enable_eager_execution``...) are absent, since
graphcore has no eager mode.
"""

from __future__ import annotations

import platform

from graphcore.ops import resource_variable_ops

# The TF1 release whose API graphcore implements (scripts branch on it).
VERSION = "1.15.5"
GIT_VERSION = "graphcore"
COMPILER_VERSION = platform.python_compiler()
CXX11_ABI_FLAG = 0
MONOLITHIC_BUILD = 0
CXX_VERSION = 0


def executing_eagerly() -> bool:
    """Always False: graphcore builds graphs."""
    return False


def executing_eagerly_outside_functions() -> bool:
    return False


def disable_eager_execution() -> None:
    """Graph mode is already the mode."""


def disable_v2_behavior() -> None:
    """TF1 behaviour: graph mode, control flow v1, ref variables by default."""
    resource_variable_ops.disable_resource_variables()


def disable_control_flow_v2() -> None:
    """Control flow is TF1's (Switch/Merge/Enter/Exit) already."""


def control_flow_v2_enabled() -> bool:
    return False


def disable_tensor_equality() -> None:
    """Tensors compare by identity already (TF1)."""


def disable_v2_tensorshape() -> None:
    """TensorShape dimensions are Dimension objects already (TF1)."""
