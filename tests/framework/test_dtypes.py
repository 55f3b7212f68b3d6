"""Unit tests for graphcore.framework.dtypes (no TensorFlow needed)."""

import pickle

import numpy as np
import pytest

from graphcore.framework import dtypes


def test_enums_and_names():
    assert dtypes.float32.as_datatype_enum == 1
    assert dtypes.float64.as_datatype_enum == 2
    assert dtypes.int32.as_datatype_enum == 3
    assert dtypes.string.as_datatype_enum == 7
    assert dtypes.bool.as_datatype_enum == 10
    assert dtypes.float16.as_datatype_enum == 19
    assert dtypes.resource.as_datatype_enum == 20
    assert dtypes.uint64.as_datatype_enum == 23
    assert dtypes.float32_ref.as_datatype_enum == 101
    assert dtypes.int32_ref.name == "int32_ref"
    assert dtypes.half is dtypes.float16
    assert dtypes.double is dtypes.float64
    assert dtypes.double_ref is dtypes.float64_ref


def test_repr_str():
    assert repr(dtypes.float32) == "tf.float32"
    assert repr(dtypes.int32_ref) == "tf.int32_ref"
    assert str(dtypes.float32) == "<dtype: 'float32'>"
    assert str(dtypes.string_ref) == "<dtype: 'string_ref'>"


def test_ref_types():
    assert dtypes.float32._as_ref is dtypes.float32_ref
    assert dtypes.float32_ref._as_ref is dtypes.float32_ref
    assert dtypes.float32_ref.base_dtype is dtypes.float32
    assert dtypes.float32.base_dtype is dtypes.float32
    assert dtypes.float32_ref._is_ref_dtype
    assert not dtypes.float32._is_ref_dtype
    assert dtypes.float32 != dtypes.float32_ref


def test_predicates():
    assert dtypes.float16.is_floating and dtypes.bfloat16.is_floating
    assert not dtypes.qint8.is_integer and dtypes.qint8.is_quantized
    assert dtypes.uint32.is_integer and dtypes.uint32.is_unsigned
    assert not dtypes.int32.is_unsigned
    assert dtypes.complex64.is_complex and not dtypes.complex64.is_floating
    assert dtypes.bool.is_bool and not dtypes.bool.is_integer
    assert not dtypes.string.is_numeric and dtypes.qint8.is_numeric
    assert not dtypes.resource.is_numpy_compatible
    assert dtypes.int64_ref.is_integer


def test_real_dtype():
    assert dtypes.complex64.real_dtype is dtypes.float32
    assert dtypes.complex128_ref.real_dtype is dtypes.float64
    assert dtypes.float32_ref.real_dtype is dtypes.float32_ref


def test_numpy_types():
    assert dtypes.float32.as_numpy_dtype is np.float32
    assert dtypes.bool.as_numpy_dtype is np.bool_
    assert dtypes.string.as_numpy_dtype is object
    assert dtypes.qint8.as_numpy_dtype == np.dtype([("qint8", np.int8)])
    with pytest.raises(KeyError):
        dtypes.resource.as_numpy_dtype  # noqa: B018
    assert dtypes.float32.size == 4 and dtypes.complex128.size == 16
    assert dtypes.string.size == 0


def test_bfloat16_numpy_type():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert dtypes.bfloat16.as_numpy_dtype is ml_dtypes.bfloat16
    assert dtypes.as_dtype(ml_dtypes.bfloat16) is dtypes.bfloat16


def test_min_max_limits():
    assert dtypes.int8.min == -128 and dtypes.int8.max == 127
    assert dtypes.uint64.max == 2**64 - 1
    assert dtypes.float32.max == np.finfo(np.float32).max
    assert dtypes.float16.min == np.finfo(np.float16).min
    with pytest.raises(TypeError, match="quantized type"):
        dtypes.qint8.min  # noqa: B018
    with pytest.raises(TypeError):
        dtypes.bool.max  # noqa: B018
    assert dtypes.int8.limits == (0, 127)
    assert dtypes.int8.limits(clip_negative=False) == (-128, 127)
    assert dtypes.float32.limits == (0, 1)
    with pytest.raises(ValueError, match="does not have defined limits"):
        dtypes.float16.limits  # noqa: B018


@pytest.mark.parametrize(
    "value,expected",
    [
        (dtypes.int32, dtypes.int32),
        (1, dtypes.float32),
        (101, dtypes.float32_ref),
        ("float", dtypes.float32),
        ("double_ref", dtypes.float64_ref),
        ("half", dtypes.float16),
        ("int32_ref", dtypes.int32_ref),
        (np.float32, dtypes.float32),
        (np.dtype("int64"), dtypes.int64),
        (np.dtype(">f4"), dtypes.float32),
        (np.dtype("U3"), dtypes.string),
        (np.dtype("S3"), dtypes.string),
        (np.object_, dtypes.string),
        (np.longlong, dtypes.int64),
        (np.ulonglong, dtypes.uint64),
        (float, dtypes.float32),
        (bool, dtypes.bool),
        (object, dtypes.string),
        (np.zeros(2, np.int8), dtypes.int8),
        (np.dtype([("quint8", np.uint8)]), dtypes.quint8),
    ],
)
def test_as_dtype(value, expected):
    assert dtypes.as_dtype(value) is expected


@pytest.mark.parametrize("value", [0, 99, 200, "int", "complex", int, str, None, [1], "Float32"])
def test_as_dtype_errors(value):
    with pytest.raises(TypeError, match="to a TensorFlow DType"):
        dtypes.as_dtype(value)


def test_dtype_constructor():
    assert dtypes.DType(1) == dtypes.float32
    assert dtypes.as_dtype(dtypes.DType(1)) is dtypes.float32
    with pytest.raises(TypeError, match="valid tensorflow::DataType"):
        dtypes.DType(99)


def test_eq_and_hash():
    assert dtypes.float32 == "float32"
    assert dtypes.float32 == np.float32
    assert dtypes.float32 == 1
    assert dtypes.float32 != "foo"
    assert dtypes.float32 != None  # noqa: E711
    assert dtypes.float32 != [1]
    assert len({dtypes.float32, dtypes.as_dtype("float"), dtypes.float32_ref}) == 2
    with pytest.raises(TypeError):
        dtypes.float32 < dtypes.float64  # noqa: B015


def test_is_compatible_with():
    assert dtypes.float32.is_compatible_with(dtypes.float32_ref)
    assert not dtypes.float32_ref.is_compatible_with(dtypes.float32)
    assert dtypes.float32.is_compatible_with("float")
    assert not dtypes.float32.is_compatible_with(dtypes.int32)


def test_pickle_and_quantized_set():
    assert pickle.loads(pickle.dumps(dtypes.int32_ref)) is dtypes.int32_ref
    assert dtypes.qint8 in dtypes.QUANTIZED_DTYPES
    assert dtypes.qint8_ref in dtypes.QUANTIZED_DTYPES
    assert len(dtypes.QUANTIZED_DTYPES) == 10


def test_all_enums_round_trip():
    for enum in list(range(1, 24)) + list(range(101, 124)):
        dt = dtypes.as_dtype(enum)
        assert dt.as_datatype_enum == enum
        assert dtypes.as_dtype(dt.name) is dt
        assert getattr(dtypes, dt.name) is dt
