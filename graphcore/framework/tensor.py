"""Tensor: the symbolic handle to one output of an Operation (a graph edge).

Its operators (``+``, ``[]``...) are installed by the math and array ops modules; the
Operation and Graph it points to are in :mod:`graphcore.framework.ops`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import session_stack
from graphcore.framework import tensor_shape as shape_lib

if TYPE_CHECKING:
    from graphcore.framework.ops import Graph, Operation


class Tensor:
    """A symbolic handle to one output of an Operation."""

    # ``aliases``: the names tf.contrib.layers' outputs_collections give the tensor (unset
    # until then, as in TF).
    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_consumers", "_name",
                 "aliases", "__weakref__")

    # Makes numpy defer to our operator overloads (ndarray + Tensor -> Tensor.__radd__).
    __array_priority__ = 100

    def __init__(self, op: Operation, value_index: int, dtype: dtypes_lib.DType):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = shape_lib.unknown_shape()
        self._consumers: list[Operation] = []
        self._name: str | None = None

    @property
    def op(self) -> Operation:
        return self._op

    @property
    def graph(self) -> Graph:
        return self._op._graph

    @property
    def name(self) -> str:
        if self._name is None:
            self._name = f"{self._op.name}:{self._value_index}"
        return self._name

    @property
    def dtype(self) -> dtypes_lib.DType:
        return self._dtype

    @property
    def value_index(self) -> int:
        return self._value_index

    @property
    def device(self) -> str:
        return self._op.device

    @property
    def shape(self) -> shape_lib.TensorShape:
        return self._shape

    def get_shape(self) -> shape_lib.TensorShape:
        return self._shape

    def set_shape(self, shape: Any) -> None:
        """Merges ``shape`` into the static shape (ValueError when incompatible)."""
        self._shape = self._shape.merge_with(shape_lib.as_shape(shape))

    def consumers(self) -> list[Operation]:
        return list(self._consumers)

    def _as_node_def_input(self) -> str:
        if self._value_index == 0:
            return self._op.name
        return f"{self._op.name}:{self._value_index}"

    def eval(self, feed_dict: dict | None = None, session: Any = None) -> Any:
        """Runs this tensor in ``session`` (default: the default session)."""
        return session_stack.run_with_session(self, feed_dict, session)

    def __str__(self) -> str:
        shape = f", shape={self._shape}" if self._shape.ndims is not None else ""
        dev = f", device={self.device}" if self.device else ""
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name}{dev})'

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __hash__(self) -> int:
        return id(self)

    def __bool__(self) -> bool:
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not "
                        "None:` instead of `if t:` to test if a tensor is defined, and use "
                        "TensorFlow ops such as tf.cond to execute subgraphs conditioned on "
                        "the value of a tensor.")

    def __iter__(self) -> Iterator[Tensor]:
        shape = self._shape
        if shape.ndims is None:
            raise TypeError("Cannot iterate over a tensor with unknown shape.")
        if shape.ndims == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        n = shape.dims[0].value if hasattr(shape.dims[0], "value") else shape.dims[0]
        if n is None:
            raise TypeError("Cannot iterate over a tensor with unknown first dimension.")
        for i in range(n):
            yield self[i]

    def __len__(self) -> int:
        raise TypeError(f"len is not well defined for symbolic Tensors. ({self.name}) Please "
                        "call `x.shape` rather than `len(x)` for shape information.")

    @staticmethod
    def _override_operator(operator: str, func: Callable) -> None:
        """Installs ``func`` as ``Tensor.<operator>`` (used by the math ops module)."""
        setattr(Tensor, operator, func)
