"""Math ops and the Tensor operator overloads that use them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor

__all__ = [
    "add",
    "logical_not",
]

_ADD_TYPES = ("{bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, "
              "int32, int64, complex64, complex128}")

op_registry.register_op("AddV2").input("x: T").input("y: T").output("z: T") \
    .attr(f"T: {_ADD_TYPES}").commutative().aggregate() \
    .shape_fn(common_shapes.broadcast_binary)

op_registry.register_op("Add").input("x: T").input("y: T").output("z: T") \
    .attr("T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, "
          "complex128, string}") \
    .shape_fn(common_shapes.broadcast_binary)


op_registry.register_op("LogicalNot").input("x: bool").output("y: bool") \
    .shape_fn(common_shapes.unchanged_shape)


def logical_not(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """Elementwise NOT of a bool tensor."""
    return apply_op("LogicalNot", name=name, x=x).outputs[0]


def add(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """x + y elementwise with broadcasting (an AddV2 op named 'Add'; Add for strings)."""
    with ops_lib.name_scope(name, "Add", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        op_type = "Add" if x.dtype.base_dtype.name == "string" else "AddV2"
        return apply_op(op_type, name=scope, x=x, y=y).outputs[0]


def _binary_operator(op_name: str, func: Callable, reverse: bool) -> Callable:
    """TF's operator wrapper: converts the other operand to this tensor's dtype under
    a ``name_scope(op_name)`` (so ``a + b`` makes an op named 'add')."""

    def wrapper(self: Any, other: Any) -> Any:
        with ops_lib.name_scope(None, op_name, [self, other]) as name:
            if not isinstance(other, ops_lib.Tensor):
                try:
                    other = convert_to_tensor(other, dtype_hint=self.dtype.base_dtype,
                                              name="x" if reverse else "y")
                except TypeError:
                    if hasattr(type(other), f"__r{op_name}__"):
                        return NotImplemented
                    raise
            if reverse:
                return func(other, self, name=name)
            return func(self, other, name=name)

    wrapper.__name__ = f"__{'r' if reverse else ''}{op_name}__"
    return wrapper


def _install_operators() -> None:
    for op_name, func in (("add", add),):
        ops_lib.Tensor._override_operator(f"__{op_name}__",
                                          _binary_operator(op_name, func, False))
        ops_lib.Tensor._override_operator(f"__r{op_name}__",
                                          _binary_operator(op_name, func, True))


_install_operators()
