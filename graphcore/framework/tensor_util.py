"""Conversion between Python/numpy values and `TensorProto` messages.

`make_tensor_proto` produces the same message (byte for byte, when serialized
deterministically) as TensorFlow's `tensor_util.make_tensor_proto`; `MakeNdarray` is its
inverse.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from graphcore.framework import dtypes, tensor_shape
from graphcore.protobuf import tensor_pb2

__all__ = ["MakeNdarray", "make_ndarray", "make_tensor_proto"]

_TensorProto = tensor_pb2.TensorProto

# Types stored as raw bytes in `tensor_content` (when the array is not broadcast and
# has more than one element).
_TENSOR_CONTENT_TYPES = frozenset(
    [
        dtypes.float16,
        dtypes.float32,
        dtypes.float64,
        dtypes.int32,
        dtypes.uint8,
        dtypes.int16,
        dtypes.int8,
        dtypes.int64,
        dtypes.qint8,
        dtypes.quint8,
        dtypes.qint16,
        dtypes.quint16,
        dtypes.qint32,
        dtypes.uint32,
        dtypes.uint64,
        dtypes.bfloat16,
    ]
)

_QUANTIZED = (dtypes.qint8, dtypes.quint8, dtypes.qint16, dtypes.quint16, dtypes.qint32)

_INTEGRAL = (numbers.Integral, np.integer, tensor_shape.Dimension)
_REAL = (numbers.Real, np.integer, np.floating)
_COMPLEX = (numbers.Complex, np.number)
_TEXT = (bytes, str)


# --- value checks ----------------------------------------------------------------------


class _Mismatch(Exception):
    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


def _flatten(values: Any) -> Iterator[Any]:
    """Leaves of nested lists/tuples/dicts (dict values in sorted key order)."""
    if isinstance(values, (list, tuple)):
        for v in values:
            yield from _flatten(v)
    elif isinstance(values, dict):
        for k in sorted(values):
            yield from _flatten(values[k])
    else:
        yield values


def _isinstance_check(expected: tuple[type, ...]) -> Any:
    def check(values: Any) -> None:
        for v in _flatten(values):
            if not (
                isinstance(v, expected)
                or (isinstance(v, np.ndarray) and issubclass(v.dtype.type, expected))
            ):
                raise _Mismatch(v)

    return check


_check_int = _isinstance_check(_INTEGRAL)
_check_float = _isinstance_check(_REAL)
_check_complex = _isinstance_check(_COMPLEX)
_check_str = _isinstance_check(_TEXT)
_check_bool = _isinstance_check((bool,))


def _check_quantized(values: Any) -> None:
    if not isinstance(values, (list, tuple)):
        raise _Mismatch(values)
    if isinstance(values, tuple):
        for v in values:
            _check_int(v)
    else:
        for v in values:
            _check_quantized(v)


def _check_not_tensor(values: Any) -> None:
    ops = sys.modules.get("graphcore.framework.ops")
    tensor_cls = getattr(ops, "Tensor", None)
    if tensor_cls is None:
        return
    for v in _flatten(values):
        if isinstance(v, tensor_cls):
            raise _Mismatch(v)


def _checker_for(dtype: dtypes.DType | None) -> Any:
    if dtype is None:
        return _check_not_tensor
    base = dtype.base_dtype
    if base.is_bool:
        return _check_bool
    if base.is_complex:
        return _check_complex
    if base.is_floating:
        return _check_float
    if base.is_integer:
        return _check_int
    if base.is_quantized:
        return _check_quantized
    if base == dtypes.string:
        return _check_str
    return _check_not_tensor


def _assert_compatible(values: Any, dtype: dtypes.DType | None) -> None:
    try:
        _checker_for(dtype)(values)
    except _Mismatch as e:
        if dtype is None:
            raise TypeError("Expected any non-tensor type, got a tensor instead.") from None
        raise TypeError(
            f"Expected {dtype.name}, got {e.value!r} of type '{type(e.value).__name__}' instead."
        ) from None


def _dense_dims(values: Any) -> list[int]:
    """The shape implied by a nested list, following first elements only."""
    dims = []
    while isinstance(values, (list, tuple)):
        dims.append(len(values))
        if not values:
            break
        values = values[0]
    return dims


def _is_array_like(obj: Any) -> bool:
    ops = sys.modules.get("graphcore.framework.ops")
    tensor_cls = getattr(ops, "Tensor", None)
    if tensor_cls is not None and isinstance(obj, tensor_cls):
        return False
    if callable(getattr(obj, "__array__", None)) or isinstance(
        getattr(obj, "__array_interface__", None), dict
    ):
        return True
    if isinstance(obj, (bytes, str, int, float, complex, list, tuple)) or obj is None:
        return False
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def _np_array(values: Any, dtype: Any) -> np.ndarray:
    """`np.array(values, dtype)`, letting numeric conversions wrap as in numpy 1.x."""
    if dtype is not None and np.issubdtype(dtype, np.number):
        return np.array(values).astype(dtype)
    return np.array(values, dtype=dtype)


def _as_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bytearray):
        return bytes(value)
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


# --- appending values to the typed *_val fields ----------------------------------------


def _append_values(proto: Any, arr: np.ndarray, numpy_dtype: dtypes.DType) -> None:
    """Appends the flat array `arr` to the `*_val` field matching its numpy dtype."""
    kind = arr.dtype.kind
    if kind in ("O", "U", "S"):
        proto.string_val.extend([_as_bytes(x) for x in arr.tolist()])
        return
    if arr.dtype.names is not None:  # quantized structured types
        base = arr.dtype.fields[arr.dtype.names[0]][0]
        proto.int_val.extend(np.ascontiguousarray(arr).view(base).tolist())
        return
    t = arr.dtype.type
    if dtypes._np_bfloat16 is not None and t is dtypes._np_bfloat16:
        proto.half_val.extend(np.ascontiguousarray(arr).view(np.uint16).tolist())
        return
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    field = _APPEND_FIELDS.get((kind, arr.dtype.itemsize))
    if field is None:
        raise TypeError(f"Element type not supported in TensorProto: {numpy_dtype.name}")
    if kind == "f" and arr.dtype.itemsize == 2:
        arr = np.ascontiguousarray(arr).view(np.uint16)
    elif kind == "c":
        arr = np.ascontiguousarray(arr).view(np.float32 if arr.dtype.itemsize == 8 else np.float64)
    getattr(proto, field).extend(arr.tolist())


# (numpy kind, itemsize) -> TensorProto field holding such values.
_APPEND_FIELDS = {
    ("f", 2): "half_val",
    ("f", 4): "float_val",
    ("f", 8): "double_val",
    ("i", 1): "int_val",
    ("i", 2): "int_val",
    ("i", 4): "int_val",
    ("i", 8): "int64_val",
    ("u", 1): "int_val",
    ("u", 2): "int_val",
    ("u", 4): "uint32_val",
    ("u", 8): "uint64_val",
    ("b", 1): "bool_val",
    ("c", 8): "scomplex_val",
    ("c", 16): "dcomplex_val",
}


# --- public API --------------------------------------------------------------------------


def make_tensor_proto(
    values: Any,
    dtype: Any = None,
    shape: Any = None,
    verify_shape: bool = False,
    allow_broadcast: bool = False,
) -> Any:
    """Creates a `TensorProto` holding `values` (same encoding as TensorFlow).

    Args:
      values: a Python scalar, (nested) list/tuple, numpy array or scalar, or a TensorProto
        (returned unchanged).
      dtype: optional element type (anything `as_dtype` accepts).
      shape: optional shape; a single value (or fewer values) is stored once and
        broadcast by the reader.
      verify_shape: require `values` to have exactly `shape`.
      allow_broadcast: allow a scalar or length-1 value with any `shape`.

    Raises:
      TypeError: for values incompatible with `dtype` or a shape mismatch under
        `verify_shape` / `allow_broadcast`.
      ValueError: for ragged values, too many values for `shape`, or `None`.
    """
    if allow_broadcast and verify_shape:
        raise ValueError("allow_broadcast and verify_shape are not both allowed.")
    if isinstance(values, _TensorProto):
        return values

    if dtype:
        dtype = dtypes.as_dtype(dtype)
    else:
        dtype = None
    is_quantized = dtype is not None and dtype in _QUANTIZED

    if _is_array_like(values):
        values = np.asarray(values)

    if isinstance(values, (np.ndarray, np.generic)):
        if dtype is not None and dtype.is_numpy_compatible:
            nparray = values.astype(dtype.as_numpy_dtype)
        else:
            nparray = values
    else:
        if values is None:
            raise ValueError("None values not supported.")
        np_dt = dtype.as_numpy_dtype if dtype is not None and dtype.is_numpy_compatible else None
        if shape is not None and np.prod(shape, dtype=np.int64) == 0:
            nparray = np.empty(shape, dtype=np_dt)
        else:
            _assert_compatible(values, dtype)
            nparray = _np_array(values, np_dt)
            dense = _dense_dims(values)
            if list(nparray.shape) != dense and not is_quantized:
                raise ValueError(
                    f"Argument must be a dense tensor: {values} - got shape "
                    f"{list(nparray.shape)}, but wanted {dense}."
                )
        if dtype is None:
            if nparray.dtype == np.float64:
                nparray = nparray.astype(np.float32)
            elif nparray.dtype == np.int64:
                down = nparray.astype(np.int32)
                if np.array_equal(down, nparray):
                    nparray = down

    numpy_dtype = dtypes.as_dtype(nparray.dtype)
    if is_quantized:
        numpy_dtype = dtype
    if dtype is not None and dtype.base_dtype != numpy_dtype.base_dtype:
        raise TypeError(f"Incompatible types: {dtype} vs. {nparray.dtype}. Value is {values}")

    if shape is None:
        shape = nparray.shape
        is_same_size = True
        shape_size = nparray.size
    else:
        shape = [int(dim) for dim in shape]
        shape_size = int(np.prod(shape, dtype=np.int64))
        is_same_size = shape_size == nparray.size
        if allow_broadcast:
            if nparray.shape != (1,) and nparray.shape != () and nparray.size != shape_size:
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, got {nparray.shape}.")
        else:
            if verify_shape and nparray.shape != tuple(shape):
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, got {nparray.shape}.")
            if nparray.size > shape_size:
                raise ValueError(
                    "Too many elements provided. Needed at most %d, but received %d"
                    % (shape_size, nparray.size)
                )

    proto = _TensorProto(
        dtype=numpy_dtype.as_datatype_enum,
        tensor_shape=tensor_shape.TensorShape(shape).as_proto(),
    )

    if is_same_size and numpy_dtype in _TENSOR_CONTENT_TYPES and shape_size > 1:
        if nparray.size * nparray.itemsize >= (1 << 31):
            raise ValueError("Cannot create a tensor proto whose content is larger than 2GB.")
        if not nparray.dtype.isnative:
            nparray = nparray.astype(nparray.dtype.newbyteorder("="))
        proto.tensor_content = nparray.tobytes()
        return proto

    if numpy_dtype == dtypes.string and not isinstance(values, np.ndarray):
        try:
            str_values = [_as_bytes(x) for x in _flatten_to_strings(values)]
        except TypeError:
            raise TypeError(
                f"Failed to convert object of type {type(values)} to Tensor. "
                f"Contents: {values}. Consider casting elements to a supported type."
            ) from None
        proto.string_val.extend(str_values)
        return proto

    _append_values(proto, nparray.ravel(), numpy_dtype)
    return proto


def _flatten_to_strings(values: Any) -> Iterator[Any]:
    if isinstance(values, (list, tuple)):
        for v in values:
            yield from _flatten_to_strings(v)
    else:
        yield values


def MakeNdarray(tensor: Any) -> np.ndarray:  # noqa: N802 - TensorFlow's name
    """Creates a numpy array with the shape and contents of the `TensorProto` `tensor`.

    Values stored fewer times than the shape needs are padded with the last value
    (a single stored value fills the whole shape). Strings come back as an object
    array of `bytes`.
    """
    shape = [d.size for d in tensor.tensor_shape.dim]
    num_elements = int(np.prod(shape, dtype=np.int64))
    tensor_dtype = dtypes.as_dtype(tensor.dtype).base_dtype
    dtype = tensor_dtype.as_numpy_dtype if tensor_dtype.is_numpy_compatible else None

    if tensor.tensor_content:
        return np.frombuffer(tensor.tensor_content, dtype=dtype).copy().reshape(shape)

    enum = tensor_dtype.as_datatype_enum
    if tensor_dtype == dtypes.string:
        values = list(tensor.string_val)
        padding = num_elements - len(values)
        if padding > 0:
            last = values[-1] if values else b""
            values.extend([last] * padding)
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out.reshape(shape)

    if enum in (19, 14):  # float16, bfloat16
        values = np.array(tensor.half_val, dtype=np.uint16).view(dtype)
    elif enum == 1:
        values = np.array(tensor.float_val, dtype=np.float32)
    elif enum == 2:
        values = np.array(tensor.double_val, dtype=np.float64)
    elif enum in (3, 4, 17, 5, 6):  # int32, uint8, uint16, int16, int8
        values = np.array(tensor.int_val, dtype=dtype)
    elif tensor_dtype.is_quantized:
        base = dtype.fields[dtype.names[0]][0]
        values = np.array(tensor.int_val, dtype=base).view(dtype)
    elif enum == 9:
        values = np.array(tensor.int64_val, dtype=np.int64)
    elif enum == 22:
        values = np.array(tensor.uint32_val, dtype=np.uint32)
    elif enum == 23:
        values = np.array(tensor.uint64_val, dtype=np.uint64)
    elif enum == 8:
        values = np.array(tensor.scomplex_val, dtype=np.float32).view(np.complex64)
    elif enum == 18:
        values = np.array(tensor.dcomplex_val, dtype=np.float64).view(np.complex128)
    elif enum == 10:
        values = np.array(tensor.bool_val, dtype=np.bool_)
    else:
        raise TypeError(f"Unsupported tensor type: {tensor.dtype}")

    if values.size == 0:
        return np.zeros(shape, dtype)
    if values.size != num_elements:
        values = np.pad(values, (0, num_elements - values.size), "edge")
    return values.reshape(shape)


make_ndarray = MakeNdarray


# Evaluates small constant subgraphs (TF's shape inference does): set by
# graphcore.runtime.constant_folding, which runs kernels (the framework never imports them).
_constant_folder: Callable[[Any, int], np.ndarray | None] | None = None


def register_constant_folder(folder: Callable[[Any, int], np.ndarray | None]) -> None:
    """Makes ``folder(op, output_index)`` compute the values :func:`constant_value` does not
    know by itself (None when it can't)."""
    global _constant_folder
    _constant_folder = folder


def constant_value(tensor: Any) -> np.ndarray | None:
    """The value of ``tensor`` when graph building can know it (a Const, the Shape of a
    fully-defined tensor, an Identity of one, a Pack of known scalars, and small
    computations on known values such as ConcatV2, StridedSlice or Fill), else None.

    Shape functions use it to read shape-like inputs (Reshape's shape, Sum's axes).
    """
    op = getattr(tensor, "op", None)
    if op is None:
        return None
    op_type = op.type
    if op_type == "Const":
        return MakeNdarray(op._attrs["value"].tensor)
    if op_type == "Shape":
        shape = op.inputs[0].shape
        if shape.is_fully_defined():
            return np.array(shape.as_list(), dtype=op.outputs[0].dtype.as_numpy_dtype)
        return None
    if op_type == "ShapeN":
        shape = op.inputs[tensor.value_index].shape
        if shape.is_fully_defined():
            return np.array(shape.as_list(), dtype=tensor.dtype.as_numpy_dtype)
        return None
    if op_type == "Size":
        shape = op.inputs[0].shape
        if shape.is_fully_defined():
            return np.array(shape.num_elements(), dtype=op.outputs[0].dtype.as_numpy_dtype)
        return None
    if op_type == "Rank":
        ndims = op.inputs[0].shape.ndims
        return None if ndims is None else np.array(ndims, dtype=np.int32)
    if op_type in ("Identity", "StopGradient", "PreventGradient"):
        return constant_value(op.inputs[0])
    if op_type == "IdentityN":
        return constant_value(op.inputs[tensor.value_index])
    if op_type == "Pack":
        values = [constant_value(t) for t in op.inputs]
        if any(v is None for v in values):
            return None
        return np.stack(values, axis=op._attrs["axis"].i)
    if op_type == "Cast":
        value = constant_value(op.inputs[0])
        if value is None:
            return None
        return value.astype(op.outputs[0].dtype.as_numpy_dtype)
    if _constant_folder is not None:
        return _constant_folder(op, tensor.value_index)
    return None


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a graph tensor or tensor-like (a Variable, SparseTensor,
    IndexedSlices): what ``tf.is_tensor`` accepts."""
    from graphcore.framework.tensor import Tensor

    return isinstance(x, Tensor) or bool(getattr(x, "is_tensor_like", False)) or \
        hasattr(x, "_as_graph_element") or (hasattr(x, "indices") and hasattr(x, "values"))


def is_symbolic_tensor(x: Any) -> bool:
    """Whether ``x`` is a graph tensor (every graphcore tensor is)."""
    from graphcore.framework.tensor import Tensor

    return isinstance(x, Tensor)
