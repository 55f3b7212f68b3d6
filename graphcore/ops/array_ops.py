"""Array ops: constants, placeholders, shapes, reshaping, slicing, concat/split, pad/tile,
fill/one_hot, gather, and ``Tensor.__getitem__`` (TF1 wrappers with TF1's op names)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_conversion, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor, SparseTensorValue
from graphcore.ops import gen_array_ops  # noqa: F401 - registers the array ops
from graphcore.platform.deprecation import deprecated_argument_lookup
from graphcore.protobuf import attr_value_pb2

__all__ = [
    "constant",
    "placeholder",
    "placeholder_with_default",
    "identity",
    "identity_n",
    "stack",
    "unstack",
    "where",
    "squeeze",
    "gather",
    "boolean_mask",
    "sequence_mask",
    "reshape",
    "transpose",
    "invert_permutation",
    "expand_dims",
    "concat",
    "split",
    "slice",
    "strided_slice",
    "tile",
    "pad",
    "reverse",
    "reverse_v2",
    "fill",
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "shape",
    "shape_n",
    "size",
    "rank",
    "one_hot",
    "stop_gradient",
    "unsorted_segment_sum",
    "newaxis",
]

newaxis = None



def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False) -> ops_lib.Tensor:
    """A Const op holding ``value`` (``tf.constant`` of TF1: a scalar with a larger
    ``shape`` fills it)."""
    g = ops_lib.get_default_graph()
    proto = tensor_util.make_tensor_proto(value, dtype=dtype, shape=shape,
                                          verify_shape=verify_shape)
    attrs = {"value": attr_value_pb2.AttrValue(tensor=proto),
             "dtype": attr_value_pb2.AttrValue(type=proto.dtype)}
    op = g._create_op_internal(op_registry.get("Const"), [], [dtypes_lib.as_dtype(proto.dtype)],
                               name, attrs)
    return op._outputs[0]


def _constant_conversion(value: Any, dtype: Any = None, name: str | None = None,
                         as_ref: bool = False) -> ops_lib.Tensor:
    del as_ref
    return constant(value, dtype=dtype, name=name or "Const")


tensor_conversion.register_tensor_conversion_function(object, _constant_conversion, 200)


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> ops_lib.Tensor:
    """A value that must be fed at run time (any shape when ``shape`` is None)."""
    return apply_op("Placeholder", name=name, dtype=dtype,
                    shape=shape_lib.unknown_shape() if shape is None else shape).outputs[0]


def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """``input`` unless fed; the fed value must match ``shape`` (None: any shape)."""
    shape = shape_lib.unknown_shape() if shape is None else shape
    return apply_op("PlaceholderWithDefault", name=name, input=input, shape=shape).outputs[0]


def identity(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """A Tensor with the same value as ``input`` (reads a Variable's ref)."""
    if hasattr(input, "_as_graph_element") and hasattr(input, "value"):
        input = input.value()
    return apply_op("Identity", name=name, input=input).outputs[0]


# -- conversions: TensorShape/Dimension to tensors, lists of tensors auto-packed ----------

def _tensor_shape_conversion(s: Any, dtype: Any = None, name: str | None = None,
                             as_ref: bool = False) -> ops_lib.Tensor:
    """TF's TensorShape -> Tensor conversion (int64 only when a dimension needs it)."""
    del as_ref
    if not s.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {s} to a Tensor.")
    dims = s.as_list()
    big = next((d for d in dims if d >= 2**31), 0)
    if dtype is not None:
        dtype = dtypes_lib.as_dtype(dtype)
        if dtype not in (dtypes_lib.int32, dtypes_lib.int64):
            raise TypeError(f"Cannot convert TensorShape {s} to dtype {dtype}. Allowed dtypes "
                            "are tf.int32 and tf.int64.")
        if dtype == dtypes_lib.int32 and big:
            raise ValueError(f"Cannot convert TensorShape {s} to dtype int32; a dimension is "
                             "too large. Consider using tf.int64.")
    else:
        dtype = dtypes_lib.int64 if big else dtypes_lib.int32
    return constant(dims, dtype=dtype, name=name or "shape_as_tensor")


def _dimension_conversion(d: Any, dtype: Any = None, name: str | None = None,
                          as_ref: bool = False) -> ops_lib.Tensor:
    del as_ref
    if d.value is None:
        raise ValueError(f"Cannot convert unknown Dimension {d} to a Tensor.")
    if dtype is not None:
        dtype = dtypes_lib.as_dtype(dtype)
        if dtype not in (dtypes_lib.int32, dtypes_lib.int64):
            raise TypeError(f"Cannot convert Dimension {d} to dtype {dtype}. Allowed dtypes are "
                            "tf.int32 and tf.int64.")
    else:
        dtype = dtypes_lib.int32
    return constant(d.value, dtype=dtype, name=name or "dimension_as_tensor")


tensor_conversion.register_tensor_conversion_function(shape_lib.TensorShape,
                                                      _tensor_shape_conversion, 100)
tensor_conversion.register_tensor_conversion_function(shape_lib.Dimension,
                                                      _dimension_conversion, 100)


def _is_tensor_like(x: Any) -> bool:
    return isinstance(x, ops_lib.Tensor) or (hasattr(x, "_as_graph_element")
                                             and hasattr(x, "dtype"))


def _nested_dtype(values: Any) -> Any:
    for v in values:
        if _is_tensor_like(v):
            return v.dtype.base_dtype
        if isinstance(v, (list, tuple)):
            d = _nested_dtype(v)
            if d is not None:
                return d
    return None


def _autopack(values: Any, dtype: Any, name: str) -> Any:
    must_pack = False
    converted = []
    with ops_lib.name_scope(name) as scope:
        for i, elem in enumerate(values):
            if _is_tensor_like(elem):
                if dtype is not None and elem.dtype.base_dtype != dtype:
                    raise TypeError(f"Cannot convert a list containing a tensor of dtype "
                                    f"{elem.dtype} to {dtype} (Tensor is: {elem!r})")
                converted.append(elem)
                must_pack = True
            elif isinstance(elem, (list, tuple)):
                sub = _autopack(elem, dtype, str(i))
                if isinstance(sub, ops_lib.Tensor):
                    must_pack = True
                converted.append(sub)
            else:
                converted.append(elem)
        if not must_pack:
            return converted
        tensors = [e if isinstance(e, ops_lib.Tensor) or _is_tensor_like(e)
                   else constant(e, dtype=dtype, name=str(i)) for i, e in enumerate(converted)]
        return apply_op("Pack", name=scope, values=tensors).outputs[0]


def _autopacking_conversion(v: Any, dtype: Any = None, name: str | None = None,
                            as_ref: bool = False) -> Any:
    """TF's conversion of a (nested) list holding tensors: a Pack op named 'packed'."""
    if as_ref:
        return NotImplemented
    inferred = _nested_dtype(v)
    if inferred is None:
        return NotImplemented
    if dtype is not None and dtypes_lib.as_dtype(dtype).base_dtype != inferred:
        return NotImplemented
    return _autopack(v, inferred, name or "packed")


tensor_conversion.register_tensor_conversion_function((list, tuple), _autopacking_conversion,
                                                      99)


# -- wrappers ------------------------------------------------------------------------------

def _to_tensor(value: Any, name: str, **kwargs: Any) -> ops_lib.Tensor:
    return tensor_conversion.convert_to_tensor(value, name=name, **kwargs)


def stack(values: list, axis: int = 0, name: str = "stack") -> ops_lib.Tensor:
    """Packs a list of rank-R tensors into one rank-(R+1) tensor along ``axis``."""
    if axis == 0:
        try:
            return tensor_conversion.convert_to_tensor(values, name=name)
        except (TypeError, ValueError, NotImplementedError):
            pass
    first = tensor_conversion.convert_to_tensor(values[0], name=name)
    if first.shape.ndims is not None:
        n = first.shape.ndims + 1
        if axis < -n or axis >= n:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-n}, {n})")
    return apply_op("Pack", name=name, values=list(values), axis=axis).outputs[0]


def unstack(value: Any, num: int | None = None, axis: int = 0,
            name: str = "unstack") -> list:
    """Unpacks dimension ``axis`` of ``value`` into a list of ``num`` tensors."""
    if num is None:
        value = tensor_conversion.convert_to_tensor(value)
        shape = value.shape
        if shape.ndims is not None:
            if axis < -shape.ndims or axis >= shape.ndims:
                raise ValueError(f"Argument `axis` = {axis} not in range [{-shape.ndims}, "
                                 f"{shape.ndims})")
            num = shape.as_list()[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {shape}")
    return apply_op("Unpack", name=name, value=value, num=num, axis=axis).outputs


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None):
    """TF1 ``tf.where``: coordinates of true elements (int64, [num_true, rank]) or, with
    ``x`` and ``y``, a Select between them."""
    if x is None and y is None:
        with ops_lib.name_scope(name, "Where", [condition]) as scope:
            condition = _to_tensor(condition, "condition", preferred_dtype=dtypes_lib.bool)
            return apply_op("Where", name=scope, input=condition).outputs[0]
    if x is not None and y is not None:
        if op_registry.lookup("Select") is None:
            raise NotImplementedError("where(condition, x, y) needs the Select op")
        return apply_op("Select", name=name, condition=condition, t=x, e=y).outputs[0]
    raise ValueError("x and y must both be non-None or both be None.")


def squeeze(input: Any, axis: Any = None, name: str | None = None,  # noqa: A002
            squeeze_dims: Any = None) -> ops_lib.Tensor:
    """Removes size-1 dimensions (only those in ``axis`` when given)."""
    axis = deprecated_argument_lookup("axis", axis, "squeeze_dims", squeeze_dims)
    if np.isscalar(axis):
        axis = [axis]
    return apply_op("Squeeze", name=name, input=input,
                    squeeze_dims=[int(a) for a in (axis or [])]).outputs[0]


def gather(params: Any, indices: Any, validate_indices: Any = None, name: str | None = None,
           axis: Any = None, batch_dims: int = 0) -> ops_lib.Tensor:
    """Slices of ``params`` at ``indices`` along ``axis`` (default ``batch_dims``)."""
    del validate_indices
    if axis is None:
        axis = batch_dims
    axis_value = tensor_util.constant_value(axis) if isinstance(axis, ops_lib.Tensor) else axis
    if hasattr(params, "sparse_read") and axis_value == 0 and batch_dims == 0:
        return params.sparse_read(indices, name=name)  # a resource variable: ResourceGather
    if hasattr(params, "_as_graph_element") and hasattr(params, "value") and \
            not hasattr(params, "handle"):  # a resource variable is read inside the op's scope
        params = params.value()
    return apply_op("GatherV2", name=name, params=params, indices=indices, axis=axis,
                    batch_dims=batch_dims).outputs[0]


def _math_op(op_type: str, name: str, **kwargs: Any) -> ops_lib.Tensor:
    """An op the math engineer registers (Prod, Max, Range...), by its TF op type."""
    if op_registry.lookup(op_type) is None:
        raise NotImplementedError(f"This needs the {op_type} op, which is not registered yet")
    return apply_op(op_type, name=name, **kwargs).outputs[0]


def boolean_mask(tensor: Any, mask: Any, name: str = "boolean_mask",
                 axis: Any = None) -> ops_lib.Tensor:
    """The slices of ``tensor`` (from ``axis`` on) where the K-D ``mask`` is true."""
    with ops_lib.name_scope(name, values=[tensor, mask]):
        tensor = tensor_conversion.convert_to_tensor(tensor, name="tensor")
        mask = tensor_conversion.convert_to_tensor(mask, name="mask")
        shape_mask = mask.shape
        ndims_mask = shape_mask.ndims
        shape_tensor = tensor.shape
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some "
                             "dimensions are None.  E.g. shape=[None] is ok, but shape=None "
                             "is not.")
        axis = 0 if axis is None else axis
        axis_value = axis if isinstance(axis, int) else tensor_util.constant_value(axis)
        if axis_value is not None:
            axis = int(axis_value)
            if shape_tensor.ndims is not None:
                shape_tensor[axis:axis + ndims_mask].assert_is_compatible_with(shape_mask)
        leading = shape(tensor)[axis:axis + ndims_mask]
        if op_registry.lookup("Prod") is not None:
            leading_size = _math_op("Prod", "Prod", input=leading, reduction_indices=[0],
                                    keep_dims=False)
        else:
            dims = tensor_util.constant_value(leading)
            if dims is None:
                raise NotImplementedError("boolean_mask of a dynamic shape needs the Prod op")
            leading_size = constant(int(np.prod(dims)), dtype=leading.dtype, name="Prod")
        tensor = reshape(tensor, concat([shape(tensor)[:axis], [leading_size],
                                         shape(tensor)[axis + ndims_mask:]], 0))
        if axis_value is not None and shape_tensor.ndims is not None:
            first = shape_tensor[axis:axis + ndims_mask].num_elements()
            tensor.set_shape(shape_lib.TensorShape(shape_tensor[:axis]).concatenate(
                [first]).concatenate(shape_tensor[axis + ndims_mask:]))
        mask = reshape(mask, [-1])
        indices = squeeze(where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = dtypes_lib.bool,
                  name: str | None = None) -> ops_lib.Tensor:
    """mask[i..., j] = j < lengths[i...] (needs the math ops Range, Cast, Less)."""
    with ops_lib.name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = tensor_conversion.convert_to_tensor(lengths)
        if maxlen is None:
            r = lengths.shape.ndims
            axes = np.arange(r, dtype=np.int32) if r is not None else _math_op(
                "Range", "range", start=0, limit=rank(lengths), delta=1)
            if r is not None:
                axes = constant(axes)
            maxlen = _math_op("Max", "Max", input=lengths, reduction_indices=axes,
                              keep_dims=False)
            maxlen = _math_op("Maximum", "Maximum", x=constant(0, dtype=maxlen.dtype),
                              y=maxlen)
        else:
            maxlen = tensor_conversion.convert_to_tensor(maxlen)
        if maxlen.shape.ndims is not None and maxlen.shape.ndims != 0:
            raise ValueError("Argument `maxlen` must be scalar for sequence_mask, received "
                             f"`maxlen` = {maxlen} with shape '{maxlen.shape}' instead")
        row_vector = _math_op("Range", "Range", start=constant(0, dtype=maxlen.dtype),
                              limit=maxlen, delta=constant(1, dtype=maxlen.dtype))
        matrix = _math_op("Cast", "Cast", x=expand_dims(lengths, -1), DstT=maxlen.dtype,
                          Truncate=False)
        result = _math_op("Less", "Less", x=row_vector, y=matrix)
        dtype = dtypes_lib.as_dtype(dtype) if dtype is not None else None
        if dtype is None or result.dtype.is_compatible_with(dtype):
            return result
        return _math_op("Cast", "Cast", x=result, DstT=dtype, Truncate=False)


def reshape(tensor: Any, shape: Any, name: str | None = None) -> ops_lib.Tensor:
    """``tensor``'s values in ``shape`` (one entry may be -1: inferred)."""
    return apply_op("Reshape", name=name, tensor=tensor, shape=shape).outputs[0]


def transpose(a: Any, perm: Any = None, name: str = "transpose",
              conjugate: bool = False) -> ops_lib.Tensor:
    """Permutes the dimensions of ``a`` (reverses them when ``perm`` is None)."""
    with ops_lib.name_scope(name, "transpose", [a]) as scope:
        if not isinstance(a, ops_lib.Tensor):
            a = _to_tensor(a, "a")
        if conjugate and a.dtype.is_complex:
            raise NotImplementedError("conjugate transpose is not supported yet")
        if perm is None:
            r = a.shape.ndims
            if r is None:
                # TF's Range(rank - 1, -1, -1), from the raw op: array ops sit below
                # math_ops' wrappers.
                perm = apply_op("Range", start=rank(a) - 1, limit=-1, delta=-1).outputs[0]
            else:
                perm = np.arange(r - 1, -1, -1, dtype=np.int32)
        return apply_op("Transpose", name=scope, x=a, perm=perm).outputs[0]


def invert_permutation(x: Any, name: str | None = None) -> ops_lib.Tensor:
    return apply_op("InvertPermutation", name=name, x=x).outputs[0]


def expand_dims(input: Any, axis: Any = None, name: str | None = None,  # noqa: A002
                dim: Any = None) -> ops_lib.Tensor:
    """Inserts a size-1 dimension at ``axis`` (TF1's ``dim`` alias accepted)."""
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return apply_op("ExpandDims", name=name, input=input, dim=axis).outputs[0]


def concat(values: Any, axis: Any, name: str = "concat") -> ops_lib.Tensor:
    """Concatenates ``values`` along ``axis``."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with ops_lib.name_scope(name) as scope:
            t = _to_tensor(axis, "concat_dim", dtype=dtypes_lib.int32)
            t.shape.assert_has_rank(0)
            del scope
            return identity(values[0], name=name)
    with ops_lib.name_scope(name, "concat", list(values)) as scope:
        # TF names converted list elements values_0, values_1... (a list holding tensors
        # becomes a Pack of that name)
        dtype = next((v.dtype.base_dtype for v in values if _is_tensor_like(v)), None)
        values = [v if isinstance(v, ops_lib.Tensor)
                  else tensor_conversion.convert_to_tensor(v, dtype=dtype, name=f"values_{i}")
                  for i, v in enumerate(values)]
        return apply_op("ConcatV2", name=scope, values=values, axis=axis).outputs[0]


def split(value: Any, num_or_size_splits: Any, axis: Any = 0, num: int | None = None,
          name: str = "split") -> list:
    """Splits ``value`` along ``axis`` into equal parts (an int) or given sizes."""
    if isinstance(num_or_size_splits, (int, np.integer, shape_lib.Dimension)) and \
            not isinstance(num_or_size_splits, bool):
        return apply_op("Split", name=name, split_dim=axis, value=value,
                        num_split=int(num_or_size_splits)).outputs
    size_splits = tensor_conversion.convert_to_tensor(num_or_size_splits)
    if size_splits.shape.ndims == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument "
                         f"to split. Argument provided: {num_or_size_splits}")
    if num is None:
        dims = size_splits.shape.as_list() if size_splits.shape.ndims is not None else None
        if dims:
            num = dims[0]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    return apply_op("SplitV", name=name, value=value, size_splits=size_splits, split_dim=axis,
                    num_split=num).outputs


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A001
    """The ``size``-sized block of ``input_`` starting at ``begin`` (size -1: to the end)."""
    return apply_op("Slice", name=name, input=input_, begin=begin, size=size).outputs[0]


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0, var: Any = None,
                  name: str | None = None) -> ops_lib.Tensor:
    """numpy-style strided slicing with TF's mask attributes."""
    del var
    if strides is None:
        strides = ones_like(begin)
    return apply_op("StridedSlice", name=name, input=input_, begin=begin, end=end,
                    strides=strides, begin_mask=begin_mask, end_mask=end_mask,
                    ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                    shrink_axis_mask=shrink_axis_mask).outputs[0]


def strided_slice_grad(shape: Any, begin: Any, end: Any, strides: Any, dy: Any,
                       begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0,
                       new_axis_mask: int = 0, shrink_axis_mask: int = 0,
                       name: str | None = None) -> ops_lib.Tensor:
    return apply_op("StridedSliceGrad", name=name, shape=shape, begin=begin, end=end,
                    strides=strides, dy=dy, begin_mask=begin_mask, end_mask=end_mask,
                    ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                    shrink_axis_mask=shrink_axis_mask).outputs[0]


_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")
_SLICE_DTYPES = (dtypes_lib.int16, dtypes_lib.int32, dtypes_lib.int64)


def _check_index(idx: Any) -> None:
    if isinstance(idx, (int, np.integer, shape_lib.Dimension)) and not isinstance(idx, bool):
        return
    dtype = getattr(idx, "dtype", None)
    if (dtype is None or dtypes_lib.as_dtype(dtype).base_dtype not in _SLICE_DTYPES
            or (getattr(idx, "shape", None) is not None and len(idx.shape or ()) == 1)):
        raise TypeError(_SLICE_TYPE_ERROR + f", got {idx!r}")


def _is_undefined_dimension(d: Any) -> bool:
    return isinstance(d, shape_lib.Dimension) and d.value is None


def _cast(x: ops_lib.Tensor, dtype: dtypes_lib.DType) -> ops_lib.Tensor:
    return apply_op("Cast", x=x, DstT=dtype, Truncate=False).outputs[0]


def _slice_helper(tensor: Any, slice_spec: Any) -> ops_lib.Tensor:
    """``Tensor.__getitem__``: basic numpy indexing as one StridedSlice op."""
    tensor = tensor_conversion.convert_to_tensor(tensor)
    if (isinstance(slice_spec, bool)
            or (isinstance(slice_spec, ops_lib.Tensor) and slice_spec.dtype == dtypes_lib.bool)
            or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool)):
        return boolean_mask(tensor=tensor, mask=slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    new_axis_mask = shrink_axis_mask = begin_mask = end_mask = ellipsis_mask = 0
    for index, s in enumerate(slice_spec):
        if isinstance(s, builtins.slice):
            dtype = None
            for t in (s.start, s.stop, s.step):
                if isinstance(t, ops_lib.Tensor):
                    if t.dtype == dtypes_lib.int64:
                        dtype = dtypes_lib.int64
                    elif t.dtype == dtypes_lib.int32 and dtype != dtypes_lib.int64:
                        dtype = dtypes_lib.int32
                    elif t.dtype == dtypes_lib.int16 and dtype is None:
                        dtype = dtypes_lib.int16
            if s.start is not None and not _is_undefined_dimension(s.start):
                _check_index(s.start)
                begin.append(s.start)
            else:
                begin.append(0 if dtype is None else constant(0, dtype=dtype))
                begin_mask |= 1 << index
            if s.stop is not None and not _is_undefined_dimension(s.stop):
                _check_index(s.stop)
                end.append(s.stop)
            else:
                end.append(0 if dtype is None else constant(0, dtype=dtype))
                end_mask |= 1 << index
            if s.step is not None and not _is_undefined_dimension(s.step):
                _check_index(s.step)
                strides.append(s.step)
            else:
                strides.append(1 if dtype is None else constant(1, dtype=dtype))
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= 1 << index
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= 1 << index
        else:
            _check_index(s)
            begin.append(s)
            end.append(s + 1)
            if isinstance(s, ops_lib.Tensor) and s.dtype in (dtypes_lib.int16, dtypes_lib.int64):
                strides.append(constant(1, dtype=s.dtype))
            else:
                strides.append(1)
            shrink_axis_mask |= 1 << index
    with ops_lib.name_scope(None, "strided_slice", [tensor] + begin + end + strides) as name:
        if begin:
            packed = [stack(begin), stack(end), stack(strides)]
            types = [p.dtype.base_dtype for p in packed]
            if dtypes_lib.int64 in types:
                packed = [p if p.dtype.base_dtype == dtypes_lib.int64
                          else _cast(p, dtypes_lib.int64) for p in packed]
        else:
            empty = constant([], dtype=dtypes_lib.int32)
            packed = [empty, empty, empty]
        return strided_slice(tensor, *packed, begin_mask=begin_mask, end_mask=end_mask,
                             shrink_axis_mask=shrink_axis_mask, new_axis_mask=new_axis_mask,
                             ellipsis_mask=ellipsis_mask, name=name)


ops_lib.Tensor._override_operator("__getitem__", _slice_helper)


def tile(input: Any, multiples: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """``input`` repeated ``multiples[i]`` times along each dimension i."""
    return apply_op("Tile", name=name, input=input, multiples=multiples).outputs[0]


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", name: str | None = None,
        constant_values: Any = 0) -> ops_lib.Tensor:
    """Pads ``tensor`` by ``paddings`` ([rank, 2]); CONSTANT, REFLECT or SYMMETRIC."""
    mode = mode.upper()
    if mode == "CONSTANT":
        if (not isinstance(constant_values, ops_lib.Tensor) and np.ndim(constant_values) == 0
                and constant_values == np.zeros_like(constant_values)):
            result = apply_op("Pad", name=name, input=tensor, paddings=paddings).outputs[0]
        else:
            result = apply_op("PadV2", name=name, input=tensor, paddings=paddings,
                              constant_values=constant_values).outputs[0]
    elif mode in ("REFLECT", "SYMMETRIC"):
        result = apply_op("MirrorPad", name=name, input=tensor, paddings=paddings,
                          mode=mode).outputs[0]
    else:
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", '
                         f'"REFLECT", or "SYMMETRIC". Received `mode` = {mode}')
    return result


def reverse(tensor: Any, axis: Any, name: str | None = None) -> ops_lib.Tensor:
    """Reverses ``tensor`` along the dimensions in ``axis``."""
    return apply_op("ReverseV2", name=name, tensor=tensor, axis=axis).outputs[0]


reverse_v2 = reverse


def fill(dims: Any, value: Any, name: str | None = None) -> ops_lib.Tensor:
    """A tensor of shape ``dims`` filled with the scalar ``value``."""
    return apply_op("Fill", name=name, dims=dims, value=value).outputs[0]


def _static_dims(shape: Any) -> list[int] | None:
    """Python ints of a shape given as list/tuple/TensorShape, or None."""
    if isinstance(shape, ops_lib.Tensor):
        return None
    if isinstance(shape, shape_lib.TensorShape):
        return shape.as_list() if shape.is_fully_defined() else None
    try:
        flat = np.asarray(shape)
    except Exception:
        return None
    if flat.dtype == object or flat.ndim > 1 or flat.dtype.kind not in "iu":
        if flat.size == 0 and flat.ndim == 1:
            return []
        return None
    return [int(d) for d in flat.reshape(-1)]


def _zeros_or_ones(shape: Any, dtype: Any, name: str | None, default: str,
                   one: bool) -> ops_lib.Tensor:
    dtype = dtypes_lib.as_dtype(dtype).base_dtype
    with ops_lib.name_scope(name, default, [shape]) as scope:
        if dtype == dtypes_lib.bool:
            value: Any = one
        elif dtype == dtypes_lib.string and not one:
            value = ""
        else:
            value = 1 if one else 0
        if not isinstance(shape, ops_lib.Tensor):
            dims = _static_dims(shape)
            if dims is not None and int(np.prod(dims, dtype=np.int64)) < 1000:
                return constant(value, shape=dims, dtype=dtype, name=scope)
            if dims is not None:
                shape = _tensor_shape_conversion(shape_lib.TensorShape(dims))
            else:
                shape = tensor_conversion.convert_to_tensor(shape, dtype=dtypes_lib.int32)
        if shape.shape.ndims == 0:
            shape = reshape(shape, [-1])
        return fill(shape, constant(value, dtype=dtype), name=scope)


def zeros(shape: Any, dtype: Any = dtypes_lib.float32, name: str | None = None) -> ops_lib.Tensor:
    """A tensor of ``shape`` with all elements zero (a Const when small, else Fill)."""
    return _zeros_or_ones(shape, dtype, name, "zeros", False)


def ones(shape: Any, dtype: Any = dtypes_lib.float32, name: str | None = None) -> ops_lib.Tensor:
    """A tensor of ``shape`` with all elements one (a Const when small, else Fill)."""
    return _zeros_or_ones(shape, dtype, name, "ones", True)


def _shape_internal(input: Any, name: str | None = None, optimize: bool = True,  # noqa: A002
                    out_type: Any = None) -> ops_lib.Tensor:
    with ops_lib.name_scope(name, "Shape", [input]) as scope:
        if isinstance(input, (SparseTensor, SparseTensorValue)):
            # TF: a SparseTensor's shape is its dense_shape.
            return apply_op("Cast", x=input.dense_shape,
                            DstT=dtypes_lib.int32 if out_type is None else out_type).outputs[0]
        input = tensor_conversion.convert_to_tensor(input)
        s = input.shape
        if optimize and s.is_fully_defined():
            if out_type is None:
                return _tensor_shape_conversion(s)
            return constant(s.as_list(), dtype=out_type, name=scope)
        return apply_op("Shape", name=scope, input=input,
                        out_type=dtypes_lib.int32 if out_type is None else out_type).outputs[0]


def shape(input: Any, name: str | None = None,  # noqa: A002
          out_type: Any = dtypes_lib.int32) -> ops_lib.Tensor:
    """The shape of ``input`` as a 1-D tensor (a Const when statically known)."""
    return _shape_internal(input, name, optimize=True, out_type=out_type)


def shape_n(input: Any, out_type: Any = dtypes_lib.int32,  # noqa: A002
            name: str | None = None) -> list:
    return apply_op("ShapeN", name=name, input=list(input), out_type=out_type).outputs


def size(input: Any, name: str | None = None,  # noqa: A002
         out_type: Any = dtypes_lib.int32) -> ops_lib.Tensor:
    """The number of elements of ``input`` (a Const when statically known)."""
    with ops_lib.name_scope(name, "Size", [input]) as scope:
        input = tensor_conversion.convert_to_tensor(input)
        s = input.shape
        if s.is_fully_defined():
            return constant(s.num_elements(), dtype=out_type, name=scope)
        if s.ndims is not None and 0 in s.as_list():
            return constant(0, dtype=out_type, name=scope)
        return apply_op("Size", name=scope, input=input, out_type=out_type).outputs[0]


def rank(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """The rank of ``input`` (a Const when statically known)."""
    with ops_lib.name_scope(name, "Rank", [input]) as scope:
        if isinstance(input, (SparseTensor, SparseTensorValue)):
            # TF: a SparseTensor's rank is the size of its dense_shape.
            return apply_op("Size", name=scope, input=input.dense_shape,
                            out_type=dtypes_lib.int32).outputs[0]
        input = tensor_conversion.convert_to_tensor(input)
        if input.shape.ndims is not None:
            return constant(input.shape.ndims, dtype=dtypes_lib.int32, name=scope)
        return apply_op("Rank", name=scope, input=input).outputs[0]


def zeros_like(tensor: Any, dtype: Any = None, name: str | None = None,
               optimize: bool = True) -> ops_lib.Tensor:
    """Zeros of ``tensor``'s shape (and dtype unless given)."""
    with ops_lib.name_scope(name, "zeros_like", [tensor]) as scope:
        if not isinstance(tensor, ops_lib.Tensor):
            tensor = _to_tensor(tensor, "tensor")
        if dtype is not None:
            dtype = dtypes_lib.as_dtype(dtype)
        if optimize and tensor.shape.is_fully_defined() and tensor.dtype != dtypes_lib.variant:
            return zeros(tensor.shape, dtype=dtype or tensor.dtype, name=scope)
        if dtype is not None and dtype != tensor.dtype and dtype != dtypes_lib.variant:
            return zeros(_shape_internal(tensor, optimize=optimize), dtype=dtype, name=scope)
        return apply_op("ZerosLike", name=scope, x=tensor).outputs[0]


def ones_like(tensor: Any, dtype: Any = None, name: str | None = None,
              optimize: bool = True) -> ops_lib.Tensor:
    """Ones of ``tensor``'s shape (and dtype unless given)."""
    with ops_lib.name_scope(name, "ones_like", [tensor]) as scope:
        tensor = _to_tensor(tensor, "tensor")
        ones_shape = _shape_internal(tensor, optimize=optimize)
        if dtype is None:
            dtype = tensor.dtype
        ret = ones(ones_shape, dtype=dtype, name=scope)
        ret.set_shape(tensor.shape)
        return ret


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None,
            axis: Any = None, dtype: Any = None, name: str | None = None) -> ops_lib.Tensor:
    """One-hot vectors of length ``depth`` at ``indices`` (on/off values, new ``axis``)."""
    with ops_lib.name_scope(name, "one_hot",
                            [indices, depth, on_value, off_value, axis, dtype]) as scope:
        dtype = None if dtype is None else dtypes_lib.as_dtype(dtype)
        on_exists, off_exists = on_value is not None, off_value is not None
        if on_exists:
            on_value = tensor_conversion.convert_to_tensor(on_value, dtype_hint=dtype)
        if off_exists:
            off_value = tensor_conversion.convert_to_tensor(off_value, dtype_hint=dtype)
        on_dtype = on_value.dtype.base_dtype if on_exists else None
        off_dtype = off_value.dtype.base_dtype if off_exists else None
        if on_exists or off_exists:
            if dtype is not None:
                if on_exists and on_dtype != dtype:
                    raise TypeError(f"dtype {on_dtype} of on_value does not match dtype "
                                    f"parameter {dtype}")
                if off_exists and off_dtype != dtype:
                    raise TypeError(f"dtype {off_dtype} of off_value does not match dtype "
                                    f"parameter {dtype}")
            else:
                dtype = on_dtype if on_exists else off_dtype
            if on_exists and off_exists and on_dtype != off_dtype:
                raise TypeError(f"dtype {on_dtype} of on_value does not match dtype "
                                f"{off_dtype} of off_value")
        else:
            dtype = dtypes_lib.float32 if dtype is None else dtype
        if not on_exists:
            on_value = tensor_conversion.convert_to_tensor(1, dtype, name="on_value")
        if not off_exists:
            off_value = tensor_conversion.convert_to_tensor(0, dtype, name="off_value")
        return apply_op("OneHot", name=scope, indices=indices, depth=depth, on_value=on_value,
                        off_value=off_value, axis=axis).outputs[0]


def identity_n(input: Any, name: str | None = None) -> list:  # noqa: A002
    """Identity of each tensor in the list ``input``."""
    return apply_op("IdentityN", name=name, input=list(input)).outputs


def stop_gradient(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """``input`` unchanged, but no gradient flows through it."""
    return apply_op("StopGradient", name=name, input=input).outputs[0]


def prevent_gradient(input: Any, message: str = "",  # noqa: A002
                     name: str | None = None) -> ops_lib.Tensor:
    """``input`` unchanged; taking a gradient through it raises LookupError."""
    return apply_op("PreventGradient", name=name, input=input, message=message).outputs[0]


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any,
                         name: str | None = None) -> ops_lib.Tensor:
    """Sums of ``data`` slices per segment id (ids outside [0, num_segments) dropped)."""
    return apply_op("UnsortedSegmentSum", name=name, data=data, segment_ids=segment_ids,
                    num_segments=num_segments).outputs[0]
