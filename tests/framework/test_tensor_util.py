"""Unit tests for graphcore.framework.tensor_util (no TensorFlow needed)."""

import numpy as np
import pytest

from graphcore.framework import dtypes
from graphcore.framework.tensor_shape import TensorShape
from graphcore.framework.tensor_util import MakeNdarray, make_ndarray, make_tensor_proto
from graphcore.protobuf import tensor_pb2


def _dims(proto):
    return [d.size for d in proto.tensor_shape.dim]


def test_scalar_inference():
    p = make_tensor_proto(1)
    assert p.dtype == dtypes.int32.as_datatype_enum and list(p.int_val) == [1] and _dims(p) == []
    p = make_tensor_proto(1.5)
    assert p.dtype == dtypes.float32.as_datatype_enum and list(p.float_val) == [1.5]
    p = make_tensor_proto(True)
    assert p.dtype == dtypes.bool.as_datatype_enum and list(p.bool_val) == [True]
    p = make_tensor_proto("h\u00e9")
    assert p.dtype == dtypes.string.as_datatype_enum and list(p.string_val) == ["h\u00e9".encode()]
    p = make_tensor_proto(b"x\x00")
    assert list(p.string_val) == [b"x\x00"]
    p = make_tensor_proto(1 + 2j)
    assert p.dtype == dtypes.complex128.as_datatype_enum and list(p.dcomplex_val) == [1, 2]
    p = make_tensor_proto(2**40)
    assert p.dtype == dtypes.int64.as_datatype_enum and list(p.int64_val) == [2**40]
    p = make_tensor_proto(np.float64(2.5))
    assert p.dtype == dtypes.float64.as_datatype_enum and list(p.double_val) == [2.5]


def test_tensor_content_for_arrays():
    p = make_tensor_proto([1, 2, 3])
    assert p.dtype == dtypes.int32.as_datatype_enum
    assert _dims(p) == [3]
    assert p.tensor_content == np.array([1, 2, 3], np.int32).tobytes()
    assert not p.int_val
    p = make_tensor_proto([[1.0, 2.0], [3.0, 4.0]])
    assert _dims(p) == [2, 2]
    assert p.tensor_content == np.array([[1, 2], [3, 4]], np.float32).tobytes()
    p = make_tensor_proto([2**31, 1])
    assert p.dtype == dtypes.int64.as_datatype_enum


def test_typed_fields_for_non_content_types():
    p = make_tensor_proto([True, False])
    assert list(p.bool_val) == [True, False] and not p.tensor_content
    p = make_tensor_proto(["a", "bc"])
    assert list(p.string_val) == [b"a", b"bc"]
    p = make_tensor_proto(np.array([1 + 2j, 3j], np.complex64))
    assert list(p.scomplex_val) == [1, 2, 0, 3]


def test_float16_and_bfloat16():
    p = make_tensor_proto(np.float16(1.0))
    assert p.dtype == dtypes.float16.as_datatype_enum and list(p.half_val) == [0x3C00]
    p = make_tensor_proto(np.array([1.0, 2.0], np.float16))
    assert p.tensor_content == np.array([1.0, 2.0], np.float16).tobytes()
    pytest.importorskip("ml_dtypes")
    p = make_tensor_proto(1.0, dtype=dtypes.bfloat16)
    assert p.dtype == dtypes.bfloat16.as_datatype_enum and list(p.half_val) == [0x3F80]


def test_broadcast_with_shape():
    p = make_tensor_proto(0, shape=[2, 3])
    assert _dims(p) == [2, 3] and list(p.int_val) == [0] and not p.tensor_content
    np.testing.assert_array_equal(MakeNdarray(p), np.zeros((2, 3), np.int32))
    p = make_tensor_proto([1, 2], shape=[4])
    assert list(p.int_val) == [1, 2]
    np.testing.assert_array_equal(MakeNdarray(p), [1, 2, 2, 2])
    p = make_tensor_proto("a", shape=[2])
    assert MakeNdarray(p).tolist() == [b"a", b"a"]
    p = make_tensor_proto([1, 2, 3, 4], shape=TensorShape([2, 2]))
    assert _dims(p) == [2, 2] and p.tensor_content


def test_dtype_conversion():
    p = make_tensor_proto([1, 2], dtype=dtypes.float32)
    assert p.dtype == 1 and p.tensor_content == np.array([1, 2], np.float32).tobytes()
    p = make_tensor_proto(3, dtype="int8")
    assert p.dtype == dtypes.int8.as_datatype_enum and list(p.int_val) == [3]
    p = make_tensor_proto(np.array([1.7, 2.2]), dtype=dtypes.int32)
    np.testing.assert_array_equal(MakeNdarray(p), [1, 2])
    p = make_tensor_proto(2.0, dtype=dtypes.float32_ref)
    assert p.dtype == 1
    p = make_tensor_proto([(1,), (2,)], dtype=dtypes.qint8)
    assert p.dtype == dtypes.qint8.as_datatype_enum
    assert MakeNdarray(p).view(np.int8).tolist() == [1, 2]


def test_empty():
    p = make_tensor_proto([])
    assert p.dtype == 1 and _dims(p) == [0] and not p.tensor_content and not p.float_val
    assert MakeNdarray(p).shape == (0,)
    p = make_tensor_proto([], shape=[0, 5])
    assert _dims(p) == [0, 5]
    assert MakeNdarray(p).shape == (0, 5)
    p = make_tensor_proto(np.zeros((2, 0), np.int64))
    assert MakeNdarray(p).dtype == np.int64


def test_errors():
    with pytest.raises(TypeError, match="Expected int32, got 2.5 of type 'float' instead."):
        make_tensor_proto([1, 2.5], dtype=dtypes.int32)
    with pytest.raises(ValueError):
        make_tensor_proto([[1, 2], [3]])
    with pytest.raises(ValueError, match="Argument must be a dense tensor"):
        make_tensor_proto([np.array([1, 2]), np.array([3, 4])])
    with pytest.raises(ValueError, match="Too many elements provided"):
        make_tensor_proto([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        make_tensor_proto([1, 2], shape=[2, 2], verify_shape=True)
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        make_tensor_proto([1, 2], shape=[3], allow_broadcast=True)
    with pytest.raises(ValueError, match="not both allowed"):
        make_tensor_proto(1, verify_shape=True, allow_broadcast=True)
    with pytest.raises(ValueError, match="None values not supported"):
        make_tensor_proto(None)
    with pytest.raises(TypeError):
        make_tensor_proto("a", dtype=dtypes.int32)
    with pytest.raises(TypeError):
        make_tensor_proto(["a", 1])


def test_allow_broadcast_and_verify_shape_ok():
    p = make_tensor_proto([1], shape=[3], allow_broadcast=True)
    np.testing.assert_array_equal(MakeNdarray(p), [1, 1, 1])
    p = make_tensor_proto([1, 2], shape=[2], verify_shape=True)
    assert _dims(p) == [2]


def test_tensor_proto_passthrough():
    p = tensor_pb2.TensorProto(dtype=1)
    assert make_tensor_proto(p) is p


def test_non_native_byte_order_is_normalized():
    p = make_tensor_proto(np.array([1, 2], dtype=">i4"))
    assert p.tensor_content == np.array([1, 2], np.int32).tobytes()
    p = make_tensor_proto(np.array([1.5], dtype=">f2"))
    np.testing.assert_array_equal(MakeNdarray(p), np.array([1.5], np.float16))


@pytest.mark.parametrize(
    "value",
    [
        np.arange(12, dtype=np.float32).reshape(3, 4),
        np.arange(5, dtype=np.float64),
        np.arange(5, dtype=np.int8),
        np.arange(5, dtype=np.uint8),
        np.arange(5, dtype=np.int16),
        np.arange(5, dtype=np.uint16),
        np.arange(5, dtype=np.uint32),
        np.arange(5, dtype=np.uint64),
        np.arange(5, dtype=np.int64),
        np.array([1 + 2j, -1j], np.complex64),
        np.array([1 + 2j, -1j], np.complex128),
        np.array([True, False]),
        np.array([1.5, -2.0], np.float16),
        np.float32(3.0),
        np.array(7, np.uint16),
        np.array([[b"a", b"bc"]], dtype=object),
    ],
    ids=lambda v: f"{v.dtype}{v.shape}",
)
def test_round_trip(value):
    out = make_ndarray(make_tensor_proto(value))
    assert out.dtype == (object if value.dtype.kind == "O" else value.dtype)
    assert out.shape == value.shape
    assert out.tolist() == value.tolist()


def test_string_make_ndarray_returns_bytes_objects():
    out = MakeNdarray(make_tensor_proto([["a", "b"], ["c", "\u00e9"]]))
    assert out.dtype == object and out.shape == (2, 2)
    assert out.tolist() == [[b"a", b"b"], [b"c", "\u00e9".encode()]]


def test_large_array_is_fast_enough():
    value = np.random.default_rng(0).standard_normal(1_000_000).astype(np.float32)
    p = make_tensor_proto(value)
    np.testing.assert_array_equal(MakeNdarray(p), value)
    p = make_tensor_proto(value.astype(np.complex64))
    assert len(p.scomplex_val) == 2_000_000
