"""Reference tier: dtypes, TensorShape and TensorProto encoding against TensorFlow."""

import numpy as np
import pytest

from graphcore.framework import dtypes as gd
from graphcore.framework import tensor_shape as gs
from graphcore.framework import tensor_util as gu
from graphcore.protobuf import tensor_pb2, tensor_shape_pb2

tf = pytest.importorskip("tensorflow")
from tensorflow.python.framework import dtypes as td  # noqa: E402
from tensorflow.python.framework import tensor_shape as ts  # noqa: E402
from tensorflow.python.framework import tensor_util as tu  # noqa: E402

ENUMS = list(range(1, 24)) + list(range(101, 124))
PREDICATES = [
    "name",
    "as_datatype_enum",
    "is_floating",
    "is_integer",
    "is_complex",
    "is_bool",
    "is_quantized",
    "is_unsigned",
    "is_numeric",
    "is_numpy_compatible",
    "size",
    "_is_ref_dtype",
]


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - comparing exception classes
        return ("raise", type(e))


@pytest.mark.parametrize("enum", ENUMS)
def test_dtype_properties(enum):
    g, t = gd.as_dtype(enum), td.as_dtype(enum)
    for attr in PREDICATES:
        assert getattr(g, attr) == getattr(t, attr), attr
    assert repr(g) == repr(t)
    assert str(g) == str(t)
    assert g.base_dtype.as_datatype_enum == t.base_dtype.as_datatype_enum
    assert g._as_ref.as_datatype_enum == t._as_ref.as_datatype_enum
    assert g.real_dtype.as_datatype_enum == t.real_dtype.as_datatype_enum
    assert _outcome(lambda: g.as_numpy_dtype) == _outcome(lambda: t.as_numpy_dtype)
    for attr in ("min", "max", "limits"):
        go, to = _outcome(lambda a=attr: getattr(g, a)), _outcome(lambda a=attr: getattr(t, a))
        assert go[0] == to[0], attr
        if go[0] == "ok":
            assert tuple(np.atleast_1d(go[1])) == tuple(np.atleast_1d(to[1])), attr
            assert type(go[1]) in (type(to[1]), gd._Limits), attr
        else:
            assert go[1] is to[1], attr
    for other in ENUMS:
        assert g.is_compatible_with(other) == t.is_compatible_with(other)


def test_module_constants():
    names = [n for n in dir(td) if isinstance(getattr(td, n), td.DType)]
    assert len(names) > 50
    for n in names:
        if getattr(td, n).as_datatype_enum % 100 > 23:
            continue  # float8 / int4 / ... are newer than TF1
        assert getattr(gd, n).as_datatype_enum == getattr(td, n).as_datatype_enum, n
    assert {d.as_datatype_enum for d in gd.QUANTIZED_DTYPES} == {
        d.as_datatype_enum for d in td.QUANTIZED_DTYPES
    }


_AS_DTYPE_INPUTS = [
    "float32", "float", "double", "half", "int32_ref", "float_ref", "double_ref", "half_ref",
    "string", "bool", "complex64", "quint8", "resource", "variant_ref", "bfloat16",
    "complex", "int", "long", "Float32", b"float32", "",
    0, 1, 7, 23, 99, 101, 123, 200, -1, 1.0, True, None, [1], (), {},
    float, bool, int, complex, str, bytes, object, ord,
    np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
    np.uint16, np.uint32, np.uint64, np.bool_, np.complex64, np.complex128, np.object_,
    np.str_, np.bytes_, np.intc, np.longdouble, np.void, np.longlong, np.ulonglong, np.uintc,
    np.dtype("q"), np.dtype("Q"), np.dtype("<i8"), np.dtype(">u2"),
    np.dtype("float32"), np.dtype(">f4"), np.dtype("U5"), np.dtype("S3"), np.dtype("O"),
    np.dtype("datetime64[s]"), np.dtype([("a", "i4")]), np.dtype([("qint8", "i1")]),
    np.zeros(3), np.int32(3), np.float32(1.5),
]  # fmt: skip


@pytest.mark.parametrize("value", _AS_DTYPE_INPUTS, ids=repr)
def test_as_dtype(value):
    go, to = _outcome(lambda: gd.as_dtype(value)), _outcome(lambda: td.as_dtype(value))
    assert go[0] == to[0]
    if go[0] == "ok":
        assert go[1].as_datatype_enum == to[1].as_datatype_enum
    else:
        assert go[1] is to[1] is TypeError


@pytest.mark.parametrize("value", _AS_DTYPE_INPUTS, ids=repr)
def test_dtype_eq(value):
    assert (gd.float32 == value) == (td.float32 == value)
    assert (gd.int32 != value) == (td.int32 != value)


# --- make_tensor_proto ------------------------------------------------------------------

_MTP_CASES = [
    (1, {}),
    (-5, {}),
    (1.5, {}),
    (0.0, {}),
    (True, {}),
    ("abc", {}),
    (b"abc\x00", {}),
    ("h\u00e9llo \u4e16\u754c", {}),
    (1 + 2j, {}),
    (2**40, {}),
    (2**63, {}),
    ([1, 2, 3], {}),
    ((4, 5), {}),
    ([1.0, 2.5], {}),
    ([[1, 2], [3, 4]], {}),
    ([[[1.5]]], {}),
    ([True, False, True], {}),
    (["a", "bc", ""], {}),
    ([[b"x", "\u00e9"]], {}),
    ([1j, 2], {}),
    ([2**31, 1], {}),
    ([float("inf"), float("-inf"), 1e300], {}),
    ([], {}),
    ([[]], {}),
    ([[], []], {}),
    (np.zeros((0, 3)), {}),
    (np.zeros((2, 0), np.int64), {}),
    (np.array([1.5, -2, 65504], np.float16), {}),
    (np.float16(3.5), {}),
    (np.arange(6, dtype=np.int64).reshape(2, 3), {}),
    (np.arange(6, dtype=np.int32)[::2], {}),
    (np.arange(4, dtype=np.uint32), {}),
    (np.uint32(7), {}),
    (np.arange(4, dtype=np.uint64), {}),
    (np.uint64(2**64 - 1), {}),
    (np.array([-3], np.int8), {}),
    (np.array([1, 2], np.int8), {}),
    (np.uint16(9), {}),
    (np.array([65535], np.uint16), {}),
    (np.array([1 + 1j, -2j], np.complex64), {}),
    (np.complex128(3 - 4j), {}),
    (np.float64(2.5), {}),
    (np.array(5), {}),
    (np.array(["a", "bc"]), {}),
    (np.array([b"a", b"b\x00"]), {}),
    (np.array(["x", b"y"], dtype=object), {}),
    (np.array([True]), {}),
    ([np.float32(1), np.float32(2)], {}),
    ([np.int64(1), 2], {}),
    (0, {"shape": [2, 3]}),
    (1.5, {"dtype": "float16", "shape": [4]}),
    ([1, 2], {"shape": [4]}),
    ("a", {"shape": [3]}),
    (True, {"shape": [2, 2]}),
    (7, {"shape": []}),
    (7, {"shape": [1, 1]}),
    ([], {"shape": [0, 5]}),
    ([], {"dtype": "string", "shape": [0]}),
    ([1, 2, 3, 4], {"shape": [2, 2]}),
    ([1, 2], {"shape": [2], "verify_shape": True}),
    ([1], {"shape": [3], "allow_broadcast": True}),
    (5, {"shape": [2], "allow_broadcast": True}),
    ([1, 2], {"dtype": "float32"}),
    (1, {"dtype": "float64"}),
    ([1, 2], {"dtype": "int64"}),
    (np.array([1.5, 2.5]), {"dtype": "int32"}),
    (3, {"dtype": "int8"}),
    ([1, 2], {"dtype": "uint8"}),
    ([1, 2], {"dtype": "int16"}),
    ([1, 2], {"dtype": "uint16"}),
    (1, {"dtype": "complex64"}),
    ([1.5, 2], {"dtype": "complex128"}),
    (2, {"dtype": "uint32"}),
    ([2, 3], {"dtype": "uint64"}),
    (2.0, {"dtype": "float32_ref"}),
    (True, {"dtype": "bool"}),
    (["a"], {"dtype": "string"}),
    (np.array([1, 2, 3], np.int8), {"dtype": "qint8"}),
    (np.array([1, 2], np.int32), {"dtype": "qint32"}),
    (np.array(7, np.uint8), {"dtype": "quint8"}),
    (np.array([1.5, 2.25]), {"dtype": "bfloat16"}),
    (1.0, {"dtype": "bfloat16"}),
    ([1, 2], {"shape": gs.TensorShape([2])}),
    ([(1,), (2,)], {"dtype": "qint8"}),
    ([[(1,), (2,)]], {"dtype": "quint16"}),
    ([True, False], {"dtype": "int32"}),
    (np.str_("xy"), {}),
    (bytearray(b"ab"), {}),
    (memoryview(b"abc"), {}),
    ([1, 2], {"dtype": "int32_ref"}),
    (np.arange(3, dtype=np.ulonglong), {}),
]


def _case_id(case):
    value, kwargs = case
    return f"{value!r}-{kwargs}"[:60]


def _tf_kwargs(kwargs):
    out = dict(kwargs)
    if isinstance(out.get("shape"), gs.TensorShape):
        out["shape"] = out["shape"].as_list()
    return out


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("case", _MTP_CASES, ids=_case_id)
def test_make_tensor_proto_bytes(case):
    value, kwargs = case
    ours = gu.make_tensor_proto(value, **kwargs)
    theirs = tu.make_tensor_proto(value, **_tf_kwargs(kwargs))
    want = theirs.SerializeToString(deterministic=True)
    assert ours.SerializeToString(deterministic=True) == want
    parsed = tensor_pb2.TensorProto.FromString(want)
    got, expected = gu.MakeNdarray(parsed), tu.MakeNdarray(theirs)
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype
    if expected.dtype == object:
        assert [gu._as_bytes(x) for x in got.ravel()] == [
            x if isinstance(x, bytes) else x.encode() for x in expected.ravel()
        ]
    else:
        np.testing.assert_array_equal(got, expected)


_MTP_ERRORS = [
    ([1, 2.5], {"dtype": "int32"}),
    (["a", 1], {}),
    ([[1, 2], [3]], {}),
    ([1, 2, 3], {"shape": [2]}),
    ([1, 2], {"shape": [2, 2], "verify_shape": True}),
    ([1, 2], {"shape": [3], "allow_broadcast": True}),
    (1, {"verify_shape": True, "allow_broadcast": True}),
    (None, {}),
    ("a", {"dtype": "int32"}),
    (1.5, {"dtype": "bool"}),
    (1, {"dtype": "string"}),
    (1j, {"dtype": "float32"}),
    (2**64, {}),
    ({"a": 1}, {}),
    (np.array(["a"]), {"dtype": "float32"}),
    ([np.array([1, 2]), np.array([3, 4])], {}),
    (np.array(["2020"], dtype="datetime64[D]"), {}),
    ([1, 2], {"dtype": "qint8"}),
    ([1, 2], {"dtype": "resource"}),
    (np.array([1.5]), {"dtype": "variant"}),
    (3, {"shape": 3}),
    ({"b": 2, "a": 1}, {"dtype": "int32"}),
]


@pytest.mark.parametrize("case", _MTP_ERRORS, ids=_case_id)
def test_make_tensor_proto_errors(case):
    value, kwargs = case
    go = _outcome(lambda: gu.make_tensor_proto(value, **kwargs))
    to = _outcome(lambda: tu.make_tensor_proto(value, **kwargs))
    assert to[0] == "raise"
    assert go == to


def test_make_ndarray_padding_and_empty():
    cases = [
        tensor_pb2.TensorProto(dtype=1, float_val=[1, 2], tensor_shape=_shape([2, 2])),
        tensor_pb2.TensorProto(dtype=3, int_val=[], tensor_shape=_shape([3])),
        tensor_pb2.TensorProto(dtype=7, string_val=[b"a"], tensor_shape=_shape([3])),
        tensor_pb2.TensorProto(dtype=10, bool_val=[True], tensor_shape=_shape([2])),
        tensor_pb2.TensorProto(dtype=19, half_val=[15360], tensor_shape=_shape([2])),
        tensor_pb2.TensorProto(dtype=8, scomplex_val=[1, 2], tensor_shape=_shape([2])),
        tensor_pb2.TensorProto(dtype=9, int64_val=[2**40], tensor_shape=_shape([])),
    ]
    for proto in cases:
        theirs = tu.MakeNdarray(_to_tf(proto))
        ours = gu.MakeNdarray(proto)
        assert ours.dtype == theirs.dtype
        if ours.dtype == object:
            assert ours.tolist() == theirs.tolist()
        else:
            np.testing.assert_array_equal(ours, theirs)


def _shape(dims):
    return tensor_shape_pb2.TensorShapeProto(dim=[{"size": d} for d in dims])


def _to_tf(proto):
    from tensorflow.core.framework import tensor_pb2 as tf_tensor_pb2

    return tf_tensor_pb2.TensorProto.FromString(proto.SerializeToString())


# --- TensorShape ------------------------------------------------------------------------


@pytest.fixture
def tf_v1_shapes():
    tf.compat.v1.disable_v2_tensorshape()
    try:
        yield
    finally:
        tf.compat.v1.enable_v2_tensorshape()


_SHAPES = [None, [], [2], [None], [2, 3], [2, None], [None, 3], [None, None], [1, 2, 3], [0]]


def _norm(x):
    """A comparable summary of a result from either library."""
    if isinstance(x, (gs.TensorShape, ts.TensorShape)):
        return ("shape", None if x.rank is None else tuple(x.as_list()))
    if isinstance(x, (gs.Dimension, ts.Dimension)):
        return ("dim", x.value)
    return x


def _both(fn_g, fn_t):
    go, to = _outcome(fn_g), _outcome(fn_t)
    if go[0] == "ok":
        go = ("ok", _norm(go[1]))
    if to[0] == "ok":
        to = ("ok", _norm(to[1]))
    return go, to


@pytest.mark.parametrize("a", _SHAPES, ids=repr)
@pytest.mark.parametrize("b", _SHAPES, ids=repr)
def test_shape_binary(tf_v1_shapes, a, b):
    ga, ta = gs.TensorShape(a), ts.TensorShape(a)
    for name in (
        "merge_with",
        "is_compatible_with",
        "most_specific_compatible_shape",
        "concatenate",
        "assert_same_rank",
        "assert_is_compatible_with",
        "__eq__",
        "__ne__",
    ):
        go, to = _both(
            lambda n=name: getattr(ga, n)(gs.TensorShape(b)),
            lambda n=name: getattr(ta, n)(ts.TensorShape(b)),
        )
        assert go == to, name
        go, to = _both(lambda n=name: getattr(ga, n)(b), lambda n=name: getattr(ta, n)(b))
        assert go == to, name


@pytest.mark.parametrize("a", _SHAPES, ids=repr)
def test_shape_unary(tf_v1_shapes, a):
    ga, ta = gs.TensorShape(a), ts.TensorShape(a)
    assert repr(ga) == repr(ta)
    checks = [
        lambda s: s.rank,
        lambda s: s.ndims,
        lambda s: len(s),
        lambda s: bool(s),
        lambda s: s.as_list(),
        lambda s: s.num_elements(),
        lambda s: s.is_fully_defined(),
        lambda s: s.assert_is_fully_defined(),
        lambda s: [_norm(d) for d in s],
        lambda s: None if s.dims is None else [_norm(d) for d in s.dims],
        lambda s: s[0],
        lambda s: s[-1],
        lambda s: s[1:],
        lambda s: s[:2],
        lambda s: s[1:3],
        lambda s: s[::-1],
        lambda s: s.with_rank(2),
        lambda s: s.with_rank_at_least(1),
        lambda s: s.with_rank_at_most(1),
        lambda s: s.assert_has_rank(1),
        lambda s: s.as_proto().SerializeToString(deterministic=True),
        lambda s: str(s[0]) if s.rank else None,
    ]
    for i, check in enumerate(checks):
        go, to = _both(lambda c=check: c(ga), lambda c=check: c(ta))
        assert go == to, i
    # str() follows TF1's spelling ("(2, ?)"): V1 shapes (this test's fixture).
    assert str(ga) == str(ts.TensorShape(a))
    tf.compat.v1.enable_v2_tensorshape()
    # Construction from a (TF-serialized) TensorShapeProto.
    proto = ts.TensorShape(a).as_proto()
    back = gs.TensorShape(tensor_shape_pb2.TensorShapeProto.FromString(proto.SerializeToString()))
    assert back == ga


_DIMS = [None, 0, 1, 3, 4]


@pytest.mark.parametrize("a", _DIMS)
@pytest.mark.parametrize("b", _DIMS + [gs.Dimension(3)])
def test_dimension_ops(tf_v1_shapes, a, b):
    ga, ta = gs.Dimension(a), ts.Dimension(a)
    tb = ts.Dimension(b.value) if isinstance(b, gs.Dimension) else b
    ops = [
        lambda x, y: x + y,
        lambda x, y: y + x,
        lambda x, y: x - y,
        lambda x, y: x * y,
        lambda x, y: x // y,
        lambda x, y: x % y,
        lambda x, y: x == y,
        lambda x, y: x != y,
        lambda x, y: x < y,
        lambda x, y: x >= y,
        lambda x, y: x.merge_with(y),
        lambda x, y: x.is_compatible_with(y),
        lambda x, y: x.assert_is_compatible_with(y),
        lambda x, y: x / y,
    ]
    for i, op in enumerate(ops):
        go, to = _both(lambda o=op: o(ga, b), lambda o=op: o(ta, tb))
        assert go == to, i
    assert repr(ga) == repr(ta) and str(ga) == str(ta)


@pytest.mark.parametrize("value", [3, None, True, -1, 2.5, "a", np.int64(4), [1]], ids=repr)
def test_dimension_construction(value):
    go, to = _both(lambda: gs.Dimension(value), lambda: ts.Dimension(value))
    assert go == to
    go, to = _both(lambda: gs.TensorShape(value), lambda: ts.TensorShape(value))
    assert go == to


@pytest.mark.parametrize(
    "a,b",
    [([2], [3]), ([2, None], [3]), ([1], [1, 2]), (None, [1]), ([None, 3], [2, 3])],
)
def test_shape_error_messages(tf_v1_shapes, a, b):
    """Messages match TF1's spelling of shapes (`?` for unknown dims)."""
    for name in ("merge_with", "assert_is_compatible_with", "assert_same_rank"):
        go = _outcome(lambda n=name: getattr(gs.TensorShape(a), n)(gs.TensorShape(b)))
        to = _outcome(lambda n=name: getattr(ts.TensorShape(a), n)(ts.TensorShape(b)))
        assert go == to
        try:
            getattr(ts.TensorShape(a), name)(ts.TensorShape(b))
        except ValueError as e:
            with pytest.raises(ValueError) as info:
                getattr(gs.TensorShape(a), name)(gs.TensorShape(b))
            assert str(info.value) == str(e)
