"""Main ops run when a SavedModel is loaded (TF1's ``saved_model.main_op``)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.ops import control_flow_ops, variables

__all__ = ["main_op", "main_op_with_restore"]


def main_op() -> ops_lib.Operation:
    """A group initializing the global and local variables and the lookup tables."""
    inits = [variables.global_variables_initializer(),
             variables.local_variables_initializer()]
    tables = ops_lib.get_collection(ops_lib.GraphKeys.TABLE_INITIALIZERS)
    inits.append(control_flow_ops.group(*tables, name="init_all_tables")
                 if tables else control_flow_ops.no_op(name="init_all_tables"))
    return control_flow_ops.group(*inits)


def main_op_with_restore(restore_op_name: Any) -> ops_lib.Operation:
    """``main_op()`` followed by the op named ``restore_op_name``."""
    with ops_lib.control_dependencies([main_op()]):
        return control_flow_ops.group(restore_op_name)
