"""Assertions (TF's check_ops): ``assert_equal`` and its relatives build an Assert op
that fails the step; when both sides are known while the graph is built and the condition
fails, TF raises at once, and so does this. ``check_numerics`` is the CheckNumerics op."""

from __future__ import annotations

import collections.abc
from typing import Any

import numpy as np

from graphcore.framework import common_shapes, errors, op_registry, tensor_util
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, control_flow_ops, math_ops

__all__ = [
    "add_check_numerics_ops", "assert_equal", "assert_greater", "assert_greater_equal",
    "assert_integer", "assert_less", "assert_less_equal", "assert_near", "assert_negative",
    "assert_non_negative", "assert_non_positive", "assert_none_equal", "assert_positive",
    "assert_proper_iterable", "assert_rank", "assert_rank_at_least", "assert_rank_in",
    "assert_same_float_dtype", "assert_scalar", "assert_type", "check_numerics",
    "is_non_decreasing", "is_numeric_tensor", "is_strictly_increasing",
    "verify_tensor_all_finite",
]

op_registry.register_op("CheckNumerics").input("tensor: T").output("output: T") \
    .attr("T: {bfloat16, half, float, double}").attr("message: string").stateful() \
    .shape_fn(common_shapes.unchanged_shape)


def check_numerics(tensor: Any, message: str, name: str | None = None) -> ops_lib.Tensor:
    """``tensor``, failing the step with InvalidArgumentError if it has a NaN or Inf."""
    return apply_op("CheckNumerics", name=name, tensor=tensor, message=message).outputs[0]


def verify_tensor_all_finite(t: Any, msg: str, name: str | None = None) -> ops_lib.Tensor:
    """``t`` after a CheckNumerics of it (TF's VerifyFinite)."""
    with ops_lib.name_scope(name, "VerifyFinite", [t]) as scope:
        t = convert_to_tensor(t, name="t")
        with ops_lib.colocate_with(t.op):
            verify_input = check_numerics(t, message=msg)
            return control_flow_ops.with_dependencies([verify_input], t, name=scope)


def add_check_numerics_ops() -> ops_lib.Operation:
    """A group of CheckNumerics over every float output of the default graph's ops."""
    check_op = []
    for op in ops_lib.get_default_graph().get_operations():
        for output in op.outputs:
            if output.dtype.base_dtype in (dtypes_lib.float16, dtypes_lib.float32,
                                           dtypes_lib.float64):
                if op._get_control_flow_context() is not None:
                    raise ValueError("`tf.add_check_numerics_ops() is not compatible with "
                                     "TensorFlow control flow operations such as `tf.cond()` "
                                     "or `tf.while_loop()`.")
                message = f"{op.name}:{output.value_index}"
                with ops_lib.control_dependencies(check_op):
                    check_op = [check_numerics(output, message=message)]
    return control_flow_ops.group(*check_op)


def _message_prefix(message: str | None) -> str:
    return f"{message}.  " if message else ""


def _static_text(value: Any) -> str:
    if isinstance(value, ops_lib.Tensor):
        known = tensor_util.constant_value(value)
        return str(value) if known is None else str(known)
    return str(value)


def _assert_static(condition: bool, data: list) -> None:
    if not condition:
        raise errors.InvalidArgumentError(None, None,
                                          "\n".join(_static_text(d) for d in data))


def _binary_assert(sym: str, opname: str, op_func: Any, static_func: Any, x: Any, y: Any,
                   data: Any, summarize: Any, message: Any, name: Any) -> ops_lib.Operation:
    with ops_lib.name_scope(name, opname, [x, y]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        if message is not None:
            data = [message] + list(data)
        condition = math_ops.reduce_all(op_func(x, y))
        x_static, y_static = tensor_util.constant_value(x), tensor_util.constant_value(y)
        if x_static is not None and y_static is not None:
            _assert_static(bool(np.all(static_func(x_static, y_static))), data)
        return control_flow_ops.Assert(condition, data, summarize=summarize)


def _binary(sym: str, opname: str, op_func: Any, static_func: Any):
    def fn(x: Any, y: Any, data: Any = None, summarize: Any = None, message: Any = None,
           name: str | None = None) -> ops_lib.Operation:
        return _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize,
                              message, name)

    fn.__name__ = opname
    fn.__doc__ = f"Asserts ``x {sym} y`` elementwise (an Assert op; raises at once when " \
                 "both are known and it fails)."
    return fn


def assert_equal(x: Any, y: Any, data: Any = None, summarize: Any = None, message: Any = None,
                 name: str | None = None) -> ops_lib.Operation:
    """Asserts ``x == y`` elementwise (an Assert op; raises at once when both are known and
    it fails).  As TF's, the scope is opened twice -- once to short-circuit ``x is y`` to a
    NoOp -- so the Assert's ops are named ``assert_equal_1/...`` (``name_1/...``)."""
    with ops_lib.name_scope(name, "assert_equal", [x, y, data]):
        if x is y:
            return control_flow_ops.no_op()
    return _binary_assert("==", "assert_equal", math_ops.equal, np.equal, x, y, data,
                          summarize, message, name)


assert_none_equal = _binary("!=", "assert_none_equal", math_ops.not_equal, np.not_equal)
assert_less = _binary("<", "assert_less", math_ops.less, np.less)
assert_less_equal = _binary("<=", "assert_less_equal", math_ops.less_equal, np.less_equal)
assert_greater = _binary(">", "assert_greater", math_ops.greater, np.greater)
assert_greater_equal = _binary(">=", "assert_greater_equal", math_ops.greater_equal,
                               np.greater_equal)


def _sign_assert(opname: str, text: str, zero_first: bool, strict: bool):
    def fn(x: Any, data: Any = None, summarize: Any = None, message: Any = None,
           name: str | None = None) -> ops_lib.Operation:
        prefix = _message_prefix(message)
        with ops_lib.name_scope(name, opname, [x]):
            x = convert_to_tensor(x, name="x")
            if data is None:
                data = [prefix, f"Condition {text} did not hold element-wise:",
                        f"x ({x.name}) = ", x]
            zero = convert_to_tensor(0, dtype=x.dtype)
            check = assert_less if strict else assert_less_equal
            a, b = (zero, x) if zero_first else (x, zero)
            return check(a, b, data=data, summarize=summarize)

    fn.__name__ = opname
    fn.__doc__ = f"Asserts ``{text}`` elementwise."
    return fn


assert_positive = _sign_assert("assert_positive", "x > 0", True, True)
assert_negative = _sign_assert("assert_negative", "x < 0", False, True)
assert_non_negative = _sign_assert("assert_non_negative", "x >= 0", True, False)
assert_non_positive = _sign_assert("assert_non_positive", "x <= 0", False, False)


def assert_near(x: Any, y: Any, rtol: Any = None, atol: Any = None, data: Any = None,
                summarize: Any = None, message: Any = None,
                name: str | None = None) -> ops_lib.Operation:
    """Asserts ``|x - y| < atol + rtol * |y|`` elementwise (10 eps by default)."""
    prefix = _message_prefix(message)
    with ops_lib.name_scope(name, "assert_near", [x, y, rtol, atol]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        dtype = x.dtype.base_dtype
        eps = np.finfo(dtype.as_numpy_dtype).eps
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=dtype)
        if data is None:
            data = [prefix, f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        tol = atol + rtol * math_ops.abs(y)
        diff = math_ops.abs(x - y)
        condition = math_ops.reduce_all(math_ops.less(diff, tol))
        return control_flow_ops.Assert(condition, data, summarize=summarize)


def _rank_assert(opname: str, words: str, static_ok: Any, dynamic: Any):
    def fn(x: Any, rank: Any, data: Any = None, summarize: Any = None, message: Any = None,
           name: str | None = None) -> ops_lib.Operation:
        prefix = _message_prefix(message)
        with ops_lib.name_scope(name, opname, [x, rank]):
            x = convert_to_tensor(x, name="x")
            rank = convert_to_tensor(rank, name="rank")
            if data is None:
                data = [prefix, f"Tensor {x.name} must have rank{words}", rank,
                        "Received shape: ", array_ops.shape(x)]
            assert_type(rank, dtypes_lib.int32)  # TF's: a NoOp when the type is right
            rank_static = tensor_util.constant_value(rank)
            if rank_static is not None:
                if np.ndim(rank_static) != 0:
                    raise ValueError("Rank must be a scalar.")
                x_rank = x.shape.ndims
                if x_rank is not None:
                    if not static_ok(x_rank, int(rank_static)):
                        raise ValueError(f"{prefix}Tensor {x.name} must have rank{words} "
                                         f"{int(rank_static)}.  Received rank {x_rank}, "
                                         f"shape {x.shape}")
                    return control_flow_ops.no_op(name="static_checks_determined_all_ok")
            condition = dynamic(array_ops.rank(x), rank)
            if rank_static is None:  # TF also asserts that ``rank`` is a scalar
                rank_check = assert_rank(rank, 0, data=["Rank must be a scalar. Received "
                                                        "rank: ", rank])
                condition = control_flow_ops.with_dependencies([rank_check], condition)
            return control_flow_ops.Assert(condition, data, summarize=summarize)

    fn.__name__ = opname
    fn.__doc__ = f"Asserts that ``x`` has rank{words} ``rank``."
    return fn


assert_rank = _rank_assert("assert_rank", "", lambda a, r: a == r, math_ops.equal)
assert_rank_at_least = _rank_assert("assert_rank_at_least", " at least", lambda a, r: a >= r,
                                    math_ops.greater_equal)


def assert_rank_in(x: Any, ranks: Any, data: Any = None, summarize: Any = None,
                   message: Any = None, name: str | None = None) -> ops_lib.Operation:
    """Asserts that ``x``'s rank is one of ``ranks``."""
    prefix = _message_prefix(message)
    with ops_lib.name_scope(name, "assert_rank_in", [x]):
        x = convert_to_tensor(x, name="x")
        ranks = [convert_to_tensor(r, name="rank") for r in ranks]
        statics = [tensor_util.constant_value(r) for r in ranks]
        if x.shape.ndims is not None and all(s is not None for s in statics):
            if x.shape.ndims not in [int(s) for s in statics]:
                raise ValueError(f"{prefix}Tensor {x.name} must have rank in "
                                 f"{tuple(int(s) for s in statics)}.  Received rank "
                                 f"{x.shape.ndims}, shape {x.shape}")
            return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        if data is None:
            data = [prefix, f"Tensor {x.name} must have rank in", *ranks,
                    "Received shape: ", array_ops.shape(x)]
        x_rank = array_ops.rank(x)
        condition = math_ops.reduce_any(array_ops.stack([math_ops.equal(x_rank, r)
                                                         for r in ranks]))
        return control_flow_ops.Assert(condition, data, summarize=summarize)


def assert_integer(x: Any, message: Any = None, name: str | None = None) -> ops_lib.Operation:
    """Raises TypeError unless ``x`` has an integer dtype."""
    with ops_lib.name_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError(f"{_message_prefix(message)}Expected \"x\" to be integer type.  "
                            f"Found: {x.name} of dtype {x.dtype}")
        return control_flow_ops.no_op("statically_determined_was_integer")


def assert_type(tensor: Any, tf_type: Any, message: Any = None,
                name: str | None = None) -> ops_lib.Operation:
    """Raises TypeError unless ``tensor`` has dtype ``tf_type``."""
    tf_type = dtypes_lib.as_dtype(tf_type)
    with ops_lib.name_scope(name, "assert_type", [tensor]):
        tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError(f"{_message_prefix(message)}{tensor.name} must be of type "
                            f"{tf_type!r}; got {tensor.dtype!r}")
        return control_flow_ops.no_op("statically_determined_correct_type")


def assert_scalar(tensor: Any, name: str | None = None, message: Any = None) -> ops_lib.Tensor:
    """``tensor``, after checking that its static shape is a scalar's."""
    with ops_lib.name_scope(name, "assert_scalar", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name=scope)
        if tensor.shape.ndims != 0:
            raise ValueError(f"{_message_prefix(message)}Expected scalar shape for "
                             f"{tensor.name}, saw shape: {tensor.shape}.")
        return tensor


def assert_proper_iterable(values: Any) -> None:
    """Raises TypeError for tensors, arrays, strings and non-iterables."""
    if isinstance(values, (ops_lib.Tensor, np.ndarray, str, bytes)) or \
            not isinstance(values, collections.abc.Iterable):
        raise TypeError(f"Expected argument \"values\" to be a \"proper\" iterable.  Found: "
                        f"{type(values)}")


def assert_same_float_dtype(tensors: Any = None, dtype: Any = None) -> dtypes_lib.DType:
    """The common float dtype of ``tensors`` (and ``dtype``); float32 when none is given."""
    if tensors:
        dtypes = {t.dtype.base_dtype for t in tensors}
        if dtype is not None:
            dtypes.add(dtypes_lib.as_dtype(dtype))
        if len(dtypes) > 1:
            raise ValueError(f"Tensors have different dtypes: {sorted(d.name for d in dtypes)}")
        dtype = dtypes.pop()
    dtype = dtypes_lib.float32 if dtype is None else dtypes_lib.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def is_numeric_tensor(tensor: Any) -> bool:
    return isinstance(tensor, ops_lib.Tensor) and tensor.dtype.base_dtype in {
        dtypes_lib.float16, dtypes_lib.bfloat16, dtypes_lib.float32, dtypes_lib.float64,
        dtypes_lib.int8, dtypes_lib.int16, dtypes_lib.int32, dtypes_lib.int64,
        dtypes_lib.uint8, dtypes_lib.uint16, dtypes_lib.uint32, dtypes_lib.uint64,
        dtypes_lib.complex64, dtypes_lib.complex128}


def _monotonic(opname: str, compare: Any):
    def fn(x: Any, name: str | None = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(name, opname, [x]):
            x = array_ops.reshape(convert_to_tensor(x, name="x"), [-1])
            diff = control_flow_ops.cond(
                math_ops.less(array_ops.size(x), 2),
                lambda: convert_to_tensor(np.zeros([0], x.dtype.as_numpy_dtype)),
                lambda: x[1:] - x[:-1])
            zero = convert_to_tensor(0, dtype=diff.dtype)
            return math_ops.reduce_all(compare(zero, diff))

    fn.__name__ = opname
    return fn


is_non_decreasing = _monotonic("is_non_decreasing", math_ops.less_equal)
is_strictly_increasing = _monotonic("is_strictly_increasing", math_ops.less)
