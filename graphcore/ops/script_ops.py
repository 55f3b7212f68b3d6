"""Python functions as graph ops (TF's script_ops): ``py_func`` / ``numpy_function``
(PyFunc, PyFuncStateless) and ``py_function`` (EagerPyFunc). The function stays in this
process's registry under the op's ``token``; like TF's, the op runs only in the process
that built it."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op

__all__ = ["numpy_function", "py_func", "py_function"]


def _unknown_outputs(op: ops_lib.Operation) -> list:
    return [shape_lib.unknown_shape() for _ in op.outputs]


for _op_type, _stateful in (("PyFunc", True), ("PyFuncStateless", False),
                            ("EagerPyFunc", True)):
    _builder = op_registry.register_op(_op_type).input("input: Tin").output("output: Tout") \
        .attr("token: string")
    if _op_type == "EagerPyFunc":
        _builder.attr("is_async: bool = false")
    _builder.attr("Tin: list(type) >= 0").attr("Tout: list(type) >= 0")
    if _stateful:
        _builder.stateful()
    _builder.shape_fn(_unknown_outputs)
    NotDifferentiable(_op_type)


class FuncRegistry:
    """token -> Python callable, for the PyFunc kernels of this process."""

    def __init__(self) -> None:
        self._funcs: dict[str, Callable] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()

    def insert(self, func: Callable) -> str:
        with self._lock:
            token = f"pyfunc_{next(self._ids)}"
            self._funcs[token] = func
        return token

    def get(self, token: str) -> Callable | None:
        return self._funcs.get(token)

    def remove(self, token: str) -> None:
        with self._lock:
            self._funcs.pop(token, None)


registry = FuncRegistry()


def _internal_py_func(op_type: str, func: Callable, inp: Any, Tout: Any,  # noqa: N803
                      name: str | None) -> Any:
    if not callable(func):
        raise ValueError(f"Expected func to be callable, got func of type {type(func)}")
    single = not isinstance(Tout, (list, tuple))
    tout = [dtypes_lib.as_dtype(Tout)] if single else [dtypes_lib.as_dtype(t) for t in Tout]
    token = registry.insert(func)
    graph = ops_lib.get_default_graph()
    # The graph keeps the function alive as long as it may run, as TF's does.
    graph.__dict__.setdefault("_py_funcs_used_in_graph", []).append(func)
    op = apply_op(op_type, name=name, input=list(inp or []), token=token, Tout=tout)
    if single:
        return op.outputs[0]
    return list(op.outputs) if op.outputs else op


def py_func(func: Callable, inp: Any, Tout: Any, stateful: bool = True,  # noqa: N803
            name: str | None = None) -> Any:
    """Runs ``func`` on numpy values of ``inp`` as an op; its results must have the
    dtypes ``Tout`` (a list: a list of outputs)."""
    return _internal_py_func("PyFunc" if stateful else "PyFuncStateless", func, inp, Tout,
                             name)


def numpy_function(func: Callable, inp: Any, Tout: Any, stateful: bool = True,  # noqa: N803
                   name: str | None = None) -> Any:
    """``py_func`` under TF 2's name."""
    return py_func(func, inp, Tout, stateful=stateful, name=name)


def py_function(func: Callable, inp: Any, Tout: Any, name: str | None = None) -> Any:  # noqa: N803
    """Runs ``func`` as an op with tensor-like inputs (``.numpy()`` gives the value)."""
    return _internal_py_func("EagerPyFunc", func, inp, Tout, name)
