"""CPU kernels of the parsing ops (:mod:`graphcore.ops.parsing_ops`): Example protos
parsed with the generated ``example_pb2``, CSV lines by TF's RFC 4180 rules, raw bytes
and serialized TensorProtos through numpy."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors, tensor_util
from graphcore.framework import tensor_shape as shape_lib
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.lib.io import tf_record
from graphcore.lib.io.checkpoint_format import encode_varint
from graphcore.protobuf import example_pb2, tensor_pb2

_LIST_OF = {dtypes_lib.float32: "float_list", dtypes_lib.int64: "int64_list",
            dtypes_lib.string: "bytes_list"}
_TYPE_OF_LIST = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}
_COUNT_NAMES = {dtypes_lib.float32: "float", dtypes_lib.int64: "int64",
                dtypes_lib.string: "bytes"}


# TF's DataTypeString names where they differ from the DType's.
_TF_TYPE_NAMES = {dtypes_lib.float32: "float", dtypes_lib.float64: "double",
                  dtypes_lib.float16: "half"}


def _type_name(dtype: dtypes_lib.DType) -> str:
    return _TF_TYPE_NAMES.get(dtype, dtype.name)


def _shape_text(dims: list) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _strings(value: Any) -> list:
    return list(np.asarray(value, dtype=object).reshape(-1))


def _array(values: list, dtype: dtypes_lib.DType, shape: tuple) -> np.ndarray:
    if dtype == dtypes_lib.string:
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out.reshape(shape)
    return np.asarray(values, dtype=dtype.as_numpy_dtype).reshape(shape)


def _parse_examples(serialized: list, message_class: Any = example_pb2.Example) -> list:
    """Each serialized string parsed as a ``message_class`` (Example, SequenceExample)."""
    examples = []
    for s in serialized:
        example = message_class()
        try:
            example.ParseFromString(bytes(s))
        except DecodeError:
            raise _invalid(f"Could not parse example input, value: '{s!r}'") from None
        examples.append(example)
    return examples


class _Errors:
    """TF's messages for a bad feature: the batch parser's name the Example (its name or
    <unknown>) and index, the single-Example parser's only the key."""

    def __init__(self, single: bool, names: list):
        self.single = single
        self.names = names

    def _where(self, key: str, index: int) -> str:
        return f"Key: {key}." if self.single else \
            f"Name: {self.names[index]}, Key: {key}, Index: {index}."

    def wrong_type(self, key: str, index: int, kind: str, dtype: dtypes_lib.DType):
        return _invalid(f"{self._where(key, index)}  Data types don't match. Data type: "
                        f"{_TYPE_OF_LIST[kind]} but expected type: {_type_name(dtype)}")

    def missing(self, key: str, index: int, dtype: dtypes_lib.DType):
        name = "" if self.single else f"Name: {self.names[index]}, "
        return _invalid(f"{name}Feature: {key} (data type: {_type_name(dtype)}) is required "
                        "but could not be found.")

    def wrong_count(self, key: str, index: int, dtype: dtypes_lib.DType, count: int,
                    dims: list):
        if self.single:
            return _invalid(f"Key: {key}.  Can't parse serialized Example: Some "
                            f"{_LIST_OF[dtype]} slice was not parsed.")
        return _invalid(f"{self._where(key, index)}  Number of {_COUNT_NAMES[dtype]} values "
                        f"!= expected.  Values size: {count} but output shape: "
                        f"{_shape_text(dims)}")

    def not_multiple(self, key: str, index: int, dtype: dtypes_lib.DType, count: int,
                     dims: list, stride: int):
        if self.single:
            return _invalid(f"Error while parsing feature with key {key}: number of elements "
                            f"should be divisible by {stride}, found {count} instead")
        return _invalid(f"{self._where(key, index)}  Number of {_COUNT_NAMES[dtype]} values "
                        f"is not a multiple of stride length. Saw {count} values but output "
                        f"shape is: {_shape_text(dims)}")


def _feature_values(example: Any, key: str, dtype: dtypes_lib.DType, index: int,
                    errs: _Errors) -> list | None:
    """The values of feature ``key`` of ``example`` (None when absent), checked to be
    of ``dtype``."""
    feature = example.features.feature.get(key)
    if feature is None:
        return None
    kind = feature.WhichOneof("kind")
    if kind is None:
        return []
    if kind != _LIST_OF[dtype]:
        raise errs.wrong_type(key, index, kind, dtype)
    return list(getattr(feature, kind).value)


@register_kernel("ParseExampleV2")
def _parse_example_v2(ctx: KernelContext):
    num_sparse = ctx.attr("num_sparse")
    sparse_types = ctx.attr("sparse_types")
    dense_types = ctx.attr("Tdense")
    dense_shapes = [shape_lib.TensorShape(s) for s in ctx.attr("dense_shapes")]
    if ctx.attr("ragged_value_types"):
        raise errors.UnimplementedError(None, None, "ParseExampleV2: ragged features are "
                                        "not supported")

    def compute(serialized, names, sparse_keys, dense_keys, ragged_keys, *dense_defaults):
        del ragged_keys
        single = np.ndim(serialized) == 0
        examples = _parse_examples(_strings(serialized))
        names = [n.decode() for n in _strings(names)] or ["<unknown>"] * len(examples)
        errs = _Errors(single, names)
        sparse_keys = [k.decode() for k in _strings(sparse_keys)]
        dense_keys = [k.decode() for k in _strings(dense_keys)]
        batch = () if single else (len(examples),)
        indices, values, shapes = [], [], []
        for key, dtype in zip(sparse_keys[:num_sparse], sparse_types):
            per_example = [_feature_values(ex, key, dtype, i, errs) or []
                           for i, ex in enumerate(examples)]
            rows = [[b, j] if not single else [j]
                    for b, vals in enumerate(per_example) for j in range(len(vals))]
            indices.append(np.asarray(rows, dtype=np.int64).reshape(-1, len(batch) + 1))
            values.append(_array([v for vals in per_example for v in vals], dtype, (-1,)))
            shapes.append(np.asarray(list(batch) + [max(map(len, per_example), default=0)],
                                     dtype=np.int64))
        dense = [_dense(examples, errs, key, dtype, shape, np.asarray(default), batch)
                 for key, dtype, shape, default in zip(dense_keys, dense_types,
                                                       dense_shapes, dense_defaults)]
        return tuple(indices + values + shapes + dense)

    return compute


def _dense(examples: list, errs: _Errors, key: str, dtype: dtypes_lib.DType,
           shape: shape_lib.TensorShape, default: np.ndarray, batch: tuple) -> np.ndarray:
    """The dense output of feature ``key``: fixed ``shape`` per Example, or (first dim
    None) rows of ``shape[1:]`` padded with the scalar ``default`` to the longest."""
    dims = shape.as_list()
    variable = bool(dims) and dims[0] is None
    inner = dims[1:] if variable else dims
    stride = math.prod(inner)
    per_example: list[list] = []
    for index, ex in enumerate(examples):
        vals = _feature_values(ex, key, dtype, index, errs)
        if vals is None:
            if variable:
                vals = []
            elif default.size == 0:
                raise errs.missing(key, index, dtype)
            else:
                vals = list(default.reshape(-1))
        elif variable and len(vals) % max(stride, 1):
            raise errs.not_multiple(key, index, dtype, len(vals), dims, stride)
        elif not variable and len(vals) != stride:
            raise errs.wrong_count(key, index, dtype, len(vals), dims)
        per_example.append(vals)
    if not variable:
        return _array([v for vals in per_example for v in vals], dtype,
                      batch + tuple(inner))
    length = max((len(v) // stride for v in per_example), default=0) if stride else 0
    pad = default.reshape(-1)[0] if default.size else ("" if dtype == dtypes_lib.string
                                                       else 0)
    flat = [v for vals in per_example for v in vals + [pad] * (length * stride - len(vals))]
    return _array(flat, dtype, batch + (length,) + tuple(inner))


@register_kernel("DecodeRaw")
def _decode_raw(ctx: KernelContext):
    dtype = ctx.attr("out_type")
    np_dtype = np.dtype(dtype.as_numpy_dtype).newbyteorder(
        "<" if ctx.attr("little_endian") else ">")

    def compute(data):
        a = np.asarray(data, dtype=object)
        items = [bytes(s) for s in a.reshape(-1)]
        size = len(items[0]) if items else 0
        for i, s in enumerate(items):
            if len(s) != size:
                raise _invalid("DecodeRaw requires input strings to all be the same size, "
                               f"but element {i} has size {size} != {len(s)}")
        if size % np_dtype.itemsize:
            raise _invalid(f"Input to DecodeRaw has length {size} that is not a multiple of "
                           f"{np_dtype.itemsize}, the size of {_type_name(dtype)}")
        out = np.frombuffer(b"".join(items), dtype=np_dtype)
        if dtype == dtypes_lib.bool:
            out = out.view(np.uint8) != 0
        return (out.astype(np_dtype.newbyteorder("="), copy=False)
                .reshape(a.shape + (size // np_dtype.itemsize,)),)

    return compute


def _split_csv(record: bytes, delim: bytes, quoted: bool, index: int) -> list[bytes]:
    """The fields of one CSV line (TF's DecodeCSVOp::ExtractFields)."""
    fields, pos, n = [], 0, len(record)
    while True:
        if quoted and pos < n and record[pos:pos + 1] == b'"':
            field, pos = bytearray(), pos + 1
            while True:
                if pos >= n:
                    raise _invalid(f"Quoted field has to end with quote followed by delim "
                                   f"or end of record {index}")
                if record[pos:pos + 1] == b'"':
                    if record[pos + 1:pos + 2] == b'"':
                        field += b'"'
                        pos += 2
                        continue
                    pos += 1
                    break
                field += record[pos:pos + 1]
                pos += 1
            if pos < n and record[pos:pos + 1] != delim:
                raise _invalid("Quote inside a string has to be escaped by another quote")
            fields.append(bytes(field))
        else:
            end = record.find(delim, pos)
            end = n if end < 0 else end
            field = record[pos:end]
            if quoted and (b'"' in field or b"\n" in field or b"\r" in field):
                raise _invalid("Unquoted fields cannot have quotes/CRLFs inside")
            fields.append(field)
            pos = end
        if pos >= n:
            return fields
        pos += 1  # the delimiter; one after the last one starts an empty last field


_INT = re.compile(rb"\s*[-+]?\d+\s*")
_FLOAT = re.compile(rb"\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf|infinity|nan)"
                    rb"\s*", re.IGNORECASE)
_INT_RANGE = {dtypes_lib.int32: (-2**31, 2**31 - 1), dtypes_lib.int64: (-2**63, 2**63 - 1)}


def _csv_value(field: bytes, dtype: dtypes_lib.DType, f: int, i: int) -> Any:
    if dtype == dtypes_lib.string:
        return field
    if dtype in _INT_RANGE:
        lo, hi = _INT_RANGE[dtype]
        if _INT.fullmatch(field) and lo <= int(field) <= hi:
            return int(field)
    elif _FLOAT.fullmatch(field):
        return float(field)
    raise _invalid(f"Field {f} in record {i} is not a valid {_type_name(dtype)}: "
                   f"{field.decode()}")


@register_kernel("DecodeCSV")
def _decode_csv(ctx: KernelContext):
    delim = ctx.attr("field_delim")
    quoted = ctx.attr("use_quote_delim")
    na_value = ctx.attr("na_value")
    select_cols = list(ctx.attr("select_cols"))
    types = ctx.attr("OUT_TYPE")
    if len(delim) != 1:
        raise _invalid("field_delim should be only 1 char")

    def compute(records, *defaults):
        for f, d in enumerate(defaults):
            if np.size(d) > 1:
                raise _invalid(f"Shape of a default must be a length-0 or length-1 vector, "
                               f"or a scalar.  Field {f} has shape {list(np.shape(d))}")
        recs = np.asarray(records, dtype=object)
        columns: list[list] = [[] for _ in types]
        for i, record in enumerate(recs.reshape(-1)):
            fields = _split_csv(bytes(record), delim, quoted, i)
            if select_cols:
                if select_cols[-1] >= len(fields):
                    raise _invalid(f"Expect {select_cols[-1] + 1} fields but have "
                                   f"{len(fields)} in record {i}")
                fields = [fields[c] for c in select_cols]
            elif len(fields) != len(types):
                raise _invalid(f"Expect {len(types)} fields but have {len(fields)} in "
                               f"record {i}")
            for f, (field, dtype, default) in enumerate(zip(fields, types, defaults)):
                if not field or field == na_value:
                    if np.size(default) == 0:
                        raise _invalid(f"Field {f} is required but missing in record {i}!")
                    columns[f].append(np.asarray(default).reshape(-1)[0])
                else:
                    columns[f].append(_csv_value(field, dtype, f, i))
        return tuple(_array(col, dtype, recs.shape) for col, dtype in zip(columns, types))

    return compute


@register_kernel("DecodeCompressed")
def _decode_compressed(ctx: KernelContext):
    compression_type = ctx.attr("compression_type").decode()

    def compute(data):
        a = np.asarray(data, dtype=object)
        return (_array([tf_record.decompress(bytes(s), compression_type)
                        for s in a.reshape(-1)], dtypes_lib.string, a.shape),)

    return compute


def parse_tensor_proto(proto: tensor_pb2.TensorProto) -> np.ndarray:
    """The value of a TensorProto, string tensor_content included (TF's FromProto)."""
    if proto.dtype != dtypes_lib.string.as_datatype_enum or not proto.tensor_content:
        return tensor_util.MakeNdarray(proto)
    data, pos, lengths = proto.tensor_content, 0, []
    count = int(np.prod([d.size for d in proto.tensor_shape.dim]))
    for _ in range(count):
        n = shift = 0
        while True:
            byte = data[pos]
            pos += 1
            n |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        lengths.append(n)
    items = []
    for n in lengths:
        items.append(data[pos:pos + n])
        pos += n
    return np.array(items, dtype=object).reshape([d.size for d in proto.tensor_shape.dim])


def tensor_proto_bytes(a: np.ndarray, dtype: dtypes_lib.DType,
                       strings_as_content: bool = False) -> bytes:
    """``a`` as a serialized TensorProto, byte for byte TF's: strings as string_val
    (``AsProtoField``) or, with ``strings_as_content``, as tensor_content (TF's
    ``AsProtoTensorContent``: the varint lengths, then the bytes); everything else
    tensor_content."""
    a = np.asarray(a)
    proto = tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum)
    proto.tensor_shape.SetInParent()
    for d in a.shape:
        proto.tensor_shape.dim.add(size=d)
    if dtype == dtypes_lib.string and strings_as_content:
        items = [bytes(s) for s in a.reshape(-1)]
        proto.tensor_content = b"".join(encode_varint(len(s)) for s in items) + b"".join(items)
    elif dtype == dtypes_lib.string:
        proto.string_val.extend(bytes(s) for s in a.reshape(-1))
    else:
        np_dtype = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
        proto.tensor_content = a.astype(np_dtype, copy=False).tobytes()
    return proto.SerializeToString()


@register_kernel("SerializeTensor")
def _serialize_tensor(ctx: KernelContext):
    dtype = ctx.attr("T")
    return lambda tensor: (np.asarray(tensor_proto_bytes(tensor, dtype), dtype=object),)


@register_kernel("ParseTensor")
def _parse_tensor(ctx: KernelContext):
    out_type = ctx.attr("out_type")

    def compute(serialized):
        proto = tensor_pb2.TensorProto()
        try:
            proto.ParseFromString(bytes(np.asarray(serialized, dtype=object).item()))
        except DecodeError:
            raise _invalid("Could not parse `serialized` as TensorProto: "
                           f"'{serialized!r}'") from None
        parsed = dtypes_lib.as_dtype(proto.dtype)
        if parsed != out_type:
            raise _invalid(f"Type mismatch between parsed tensor ({_type_name(parsed)}) and "
                           f"dtype ({_type_name(out_type)})")
        return (tensor_util.MakeNdarray(proto),)

    return compute
