"""Reference tier: array ops against TensorFlow's compat.v1 graph mode.

a. Values and static shapes of the same wrapper calls on constants.
b. Static shapes with partially-known placeholders (shape inference).
c. The op names and types TF1 wrappers create.
d. Build-time errors: TF raises ValueError exactly where graphcore does.
"""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
from tensorflow.python.util import deprecation  # noqa: E402

deprecation._PRINT_DEPRECATION_WARNINGS = False

_X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
_M = np.arange(12, dtype=np.int32).reshape(3, 4)
_E = np.zeros([0, 3], dtype=np.float32)

# name -> fn(lib) returning a tensor or a list of tensors, built from constants.
VALUE_CASES = {
    "reshape": lambda t: t.reshape(t.constant(_X), [4, -1]),
    "reshape_scalar": lambda t: t.reshape(t.constant([7]), []),
    "reshape_empty": lambda t: t.reshape(t.constant(_E), [-1, 0]),
    "reshape_empty2": lambda t: t.reshape(t.constant(_E), [3, -1]),
    "transpose": lambda t: t.transpose(t.constant(_X)),
    "transpose_perm": lambda t: t.transpose(t.constant(_X), [1, 0, 2]),
    "transpose_neg_perm": lambda t: t.transpose(t.constant(_M), [-1, 0]),
    "expand_dims": lambda t: t.expand_dims(t.constant(_M), -1),
    "expand_dims_dim": lambda t: t.expand_dims(t.constant(_M), dim=0),
    "squeeze": lambda t: t.squeeze(t.constant(np.zeros([1, 3, 1]))),
    "squeeze_axis": lambda t: t.squeeze(t.constant(np.zeros([1, 3, 1])), [-1]),
    "concat": lambda t: t.concat([t.constant(_M), t.constant(_M)], -1),
    "concat0": lambda t: t.concat([t.constant(_M), t.constant(_M[:1])], 0),
    "concat_one": lambda t: t.concat([t.constant(_M)], 0),
    "concat_empty": lambda t: t.concat([t.constant(_E), t.constant(np.ones([2, 3], np.float32))],
                                       0),
    "split": lambda t: t.split(t.constant(_X), 2, axis=-1),
    "split_v": lambda t: t.split(t.constant(_X), [1, -1], axis=1),
    "stack": lambda t: t.stack([t.constant(_M), t.constant(_M)], axis=-1),
    "stack_consts": lambda t: t.stack([1, 2, 3]),
    "unstack": lambda t: t.unstack(t.constant(_X), axis=1),
    "slice": lambda t: t.slice(t.constant(_X), [1, 0, 1], [-1, 2, 2]),
    "slice_empty": lambda t: t.slice(t.constant(_X), [1, 0, 1], [0, 2, 2]),
    "getitem_mix": lambda t: t.constant(_X)[1:, ::2, None],
    "getitem_ellipsis": lambda t: t.constant(_X)[..., 0],
    "getitem_neg": lambda t: t.constant(_X)[-1],
    "getitem_rev": lambda t: t.constant(_X)[::-1, 2:0:-1],
    "getitem_newaxis_ellipsis": lambda t: t.constant(_X)[None, ..., None, 1],
    "getitem_big_bounds": lambda t: t.constant(_X)[:, -10:10, 5:],
    "getitem_tensor": lambda t: t.constant(_X)[t.constant(1), :, t.constant(-2)],
    "getitem_step_neg_end": lambda t: t.constant(_M)[:, -1::-2],
    "strided_slice": lambda t: t.strided_slice(t.constant(_M), [0, 1], [3, 4], [2, 2]),
    "strided_slice_masks": lambda t: t.strided_slice(t.constant(_X), [1, 0, 0], [0, 1, 2],
                                                     [1, 1, 1], begin_mask=1, end_mask=1,
                                                     shrink_axis_mask=2, new_axis_mask=4),
    "gather": lambda t: t.gather(t.constant(_M), [[2, 0], [1, 1]]),
    "gather_axis": lambda t: t.gather(t.constant(_X), [3, 0], axis=-1),
    "gather_batch": lambda t: t.gather(t.constant(_X), [[0, 2], [1, 1]], axis=1, batch_dims=1),
    "tile": lambda t: t.tile(t.constant(_M), [2, 1]),
    "tile_zero": lambda t: t.tile(t.constant(_M), [0, 2]),
    "pad": lambda t: t.pad(t.constant(_M), [[1, 0], [2, 1]]),
    "pad_value": lambda t: t.pad(t.constant(_M), [[1, 0], [2, 1]], constant_values=-1),
    "pad_reflect": lambda t: t.pad(t.constant(_M), [[1, 1], [2, 2]], mode="REFLECT"),
    "pad_symmetric": lambda t: t.pad(t.constant(_M), [[1, 1], [2, 2]], mode="symmetric"),
    "reverse": lambda t: t.reverse(t.constant(_X), [0, -1]),
    "fill": lambda t: t.fill([2, 3], 9),
    "fill_empty": lambda t: t.fill([0, 3], 1.5),
    "zeros": lambda t: t.zeros([2, 3], t.int32),
    "zeros_big": lambda t: t.zeros([40, 40]),
    "ones": lambda t: t.ones([3], t.bool),
    "zeros_like": lambda t: t.zeros_like(t.constant(_M)),
    "ones_like": lambda t: t.ones_like(t.constant(_M), dtype=t.float64),
    "shape": lambda t: t.shape(t.constant(_X)),
    "shape64": lambda t: t.shape(t.constant(_X), out_type=t.int64),
    "size": lambda t: t.size(t.constant(_X)),
    "rank": lambda t: t.rank(t.constant(_X)),
    "one_hot": lambda t: t.one_hot([0, 2, -1, 5], 3),
    "one_hot_axis0": lambda t: t.one_hot([[0, 2], [1, 1]], 3, on_value=5, off_value=-1, axis=0),
    "one_hot_dtype": lambda t: t.one_hot([1], 2, dtype=t.int64),
    "identity_n": lambda t: t.identity_n([t.constant(_M), t.constant(1.0)]),
    "stop_gradient": lambda t: t.stop_gradient(t.constant(_M)),
    "where": lambda t: t.where([[True, False], [False, True]]),
    "unsorted_segment_sum": lambda t: t.unsorted_segment_sum(t.constant(_M), [0, 2, 0], 4),
    "boolean_mask_2d": lambda t: t.boolean_mask(t.constant(_X),
                                                [[True, False, True], [False, False, True]]),
    "boolean_mask_axis": lambda t: t.boolean_mask(t.constant(_X), [True, False, False, True],
                                                  axis=2),
    "boolean_mask_strings": lambda t: t.boolean_mask(t.constant(["x", "y", "z"]),
                                                     [True, False, True]),
    "strings": lambda t: t.reshape(t.constant([["a", "b"], ["c", "d"]])[::-1], [-1]),
}


def _run_tf(fn):
    with tf_ref.Graph().as_default():
        out = fn(tf1)
        with tf1.Session() as sess:
            return out, sess.run(out)


def _run_gc(fn):
    with tf.Graph().as_default():
        out = fn(tf)
        with tf.Session() as sess:
            return out, sess.run(out)


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


@pytest.mark.parametrize("case", sorted(VALUE_CASES))
def test_values_and_static_shapes_match_tf(case):
    theirs_t, theirs_v = _run_tf(VALUE_CASES[case])
    ours_t, ours_v = _run_gc(VALUE_CASES[case])
    theirs_t, theirs_v, ours_t, ours_v = map(_as_list, (theirs_t, theirs_v, ours_t, ours_v))
    assert len(ours_t) == len(theirs_t)
    for o, t in zip(ours_t, theirs_t):
        assert o.shape.as_list() == t.shape.as_list()
        assert o.dtype.name == t.dtype.name
    for o, t in zip(ours_v, theirs_v):
        o, t = np.asarray(o), np.asarray(t)
        assert o.dtype == t.dtype
        assert o.shape == t.shape
        np.testing.assert_array_equal(o, t)


def _ph(t, shape, dtype="float32"):
    return t.placeholder(getattr(t, dtype), shape)


# Static shape inference with partial knowledge: fn(lib) -> tensor(s).
SHAPE_CASES = {
    "reshape_infer": lambda t: t.reshape(_ph(t, [None, 6]), [-1, 2, 3]),
    "reshape_known_in": lambda t: t.reshape(_ph(t, [4, 6]), [-1, 2, 3]),
    "reshape_two_unknown": lambda t: t.reshape(_ph(t, [4, 6]), [-1, -1]),
    "reshape_from_shape": lambda t: t.reshape(_ph(t, [None, 6]), t.shape(_ph(t, [None, 2, 3]))),
    "reshape_pack": lambda t: t.reshape(_ph(t, [None, 6]),
                                        t.stack([_ph(t, [], "int32"), 3, 2])),
    "reshape_concat": lambda t: t.reshape(_ph(t, [None, 6]),
                                          t.concat([[-1], t.shape(_ph(t, [5, 2, 3]))[1:]], 0)),
    "reshape_unknown_shape": lambda t: t.reshape(_ph(t, [4]), _ph(t, [3], "int32")),
    "reshape_unknown_rank_shape": lambda t: t.reshape(_ph(t, [4]), _ph(t, None, "int32")),
    "transpose_unknown_perm": lambda t: t.transpose(_ph(t, [2, None, 4]),
                                                    _ph(t, [3], "int32")),
    "transpose_partial": lambda t: t.transpose(_ph(t, [2, None, 4]), [2, 0, 1]),
    "expand_unknown_rank": lambda t: t.expand_dims(_ph(t, None), 0),
    "concat_partial": lambda t: t.concat([_ph(t, [None, 3]), _ph(t, [2, None])], 0),
    "concat_unknown_axis": lambda t: t.concat([_ph(t, [None, 3]), _ph(t, None)],
                                              _ph(t, [], "int32")),
    "split_unknown": lambda t: t.split(_ph(t, [None, 4]), 2, axis=1),
    "split_v_unknown_sizes": lambda t: t.split(_ph(t, [5, 4]), _ph(t, [2], "int32"), num=2),
    "unstack_partial": lambda t: t.unstack(_ph(t, [2, None]), axis=0),
    "stack_partial": lambda t: t.stack([_ph(t, [None, 3]), _ph(t, [2, None])], axis=1),
    "slice_unknown_begin": lambda t: t.slice(_ph(t, [5, 6]), _ph(t, [2], "int32"), [2, -1]),
    "slice_partial": lambda t: t.slice(_ph(t, [None, 6]), [1, 1], [-1, 2]),
    "getitem_partial": lambda t: _ph(t, [None, 6, None])[1:, ::2, 0],
    "getitem_unknown_rank": lambda t: _ph(t, None)[0],
    "getitem_dynamic": lambda t: _ph(t, [5, 6])[_ph(t, [], "int32"):],
    "gather_partial": lambda t: t.gather(_ph(t, [None, 6]), _ph(t, [None, 2], "int32"), axis=1),
    "gather_unknown_axis": lambda t: t.gather(_ph(t, [5, 6]), [1], axis=_ph(t, [], "int32")),
    "tile_partial": lambda t: t.tile(_ph(t, [None, 1, 3]), [2, 0, 1]),
    "tile_unknown": lambda t: t.tile(_ph(t, [None, 3]), _ph(t, [2], "int32")),
    "pad_partial": lambda t: t.pad(_ph(t, [None, 3]), [[1, 1], [0, 2]]),
    "pad_unknown": lambda t: t.pad(_ph(t, [None, 3]), _ph(t, [2, 2], "int32")),
    "fill_partial": lambda t: t.fill(t.stack([_ph(t, [], "int32"), 4]), 0.0),
    "zeros_dynamic": lambda t: t.zeros(t.shape(_ph(t, [None, 3]))),
    "zeros_like_partial": lambda t: t.zeros_like(_ph(t, [None, 3])),
    "ones_like_partial": lambda t: t.ones_like(_ph(t, [None, 3])),
    "shape_unknown": lambda t: t.shape(_ph(t, None)),
    "shape_partial": lambda t: t.shape(_ph(t, [None, 2])),
    "size_partial": lambda t: t.size(_ph(t, [None, 2])),
    "size_zero": lambda t: t.size(_ph(t, [None, 0])),
    "rank_unknown": lambda t: t.rank(_ph(t, None)),
    "one_hot_unknown_depth": lambda t: t.one_hot(_ph(t, [None], "int32"), _ph(t, [], "int32")),
    "squeeze_partial": lambda t: t.squeeze(_ph(t, [None, 1, 3]), [1]),
    "squeeze_unknown_dims": lambda t: t.squeeze(_ph(t, [None, 1, 3])),
}


@pytest.mark.parametrize("case", sorted(SHAPE_CASES))
def test_static_shapes_match_tf(case):
    with tf_ref.Graph().as_default():
        theirs = _as_list(SHAPE_CASES[case](tf1))
        theirs = [t.shape.as_list() if t.shape.rank is not None else None for t in theirs]
    with tf.Graph().as_default():
        ours = _as_list(SHAPE_CASES[case](tf))
        ours = [t.shape.as_list() if t.shape.ndims is not None else None for t in ours]
    assert ours == theirs


# The ops wrappers create: same names and types as TF1.
NAME_CASES = {
    "reshape": lambda t, x: t.reshape(x, [3, -1]),
    "transpose": lambda t, x: t.transpose(x),
    "transpose_perm": lambda t, x: t.transpose(x, [1, 0], name="tr"),
    "expand_dims": lambda t, x: t.expand_dims(x, 0),
    "squeeze": lambda t, x: t.squeeze(t.expand_dims(x, 0)),
    "concat": lambda t, x: t.concat([x, x], 0),
    "concat_one": lambda t, x: t.concat([x], 0),
    "split": lambda t, x: t.split(x, 2, axis=1),
    "split_v": lambda t, x: t.split(x, [1, 1], axis=1),
    "stack": lambda t, x: t.stack([x, x]),
    "stack_axis": lambda t, x: t.stack([x, x], axis=1),
    "unstack": lambda t, x: t.unstack(x),
    "slice": lambda t, x: t.slice(x, [0, 0], [1, 1]),
    "strided_slice": lambda t, x: t.strided_slice(x, [0], [1]),
    "getitem": lambda t, x: x[1:, ::2, None],
    "getitem_int": lambda t, x: x[0],
    "getitem_tensor": lambda t, x: x[t.constant(0)],
    "getitem_ellipsis": lambda t, x: x[..., 1],
    "gather": lambda t, x: t.gather(x, [0]),
    "gather_axis": lambda t, x: t.gather(x, [0], axis=1),
    "tile": lambda t, x: t.tile(x, [2, 1]),
    "pad": lambda t, x: t.pad(x, [[1, 1], [0, 0]]),
    "pad_value": lambda t, x: t.pad(x, [[1, 1], [0, 0]], constant_values=2.0),
    "pad_reflect": lambda t, x: t.pad(x, [[1, 1], [0, 0]], mode="REFLECT"),
    "fill": lambda t, x: t.fill([2, 2], 1.0),
    "zeros": lambda t, x: t.zeros([2, 2]),
    "zeros_big": lambda t, x: t.zeros([2000, 2000]),
    "zeros_tensor": lambda t, x: t.zeros(t.shape(x)),
    "ones": lambda t, x: t.ones([2, 2], t.int32),
    "zeros_like": lambda t, x: t.zeros_like(x),
    "zeros_like_partial": lambda t, x: t.zeros_like(t.placeholder(t.float32, [None])),
    "ones_like": lambda t, x: t.ones_like(x),
    "ones_like_partial": lambda t, x: t.ones_like(t.placeholder(t.float32, [None])),
    "shape": lambda t, x: t.shape(x),
    "shape_partial": lambda t, x: t.shape(t.placeholder(t.float32, [None])),
    "size": lambda t, x: t.size(x),
    "size_partial": lambda t, x: t.size(t.placeholder(t.float32, [None])),
    "rank": lambda t, x: t.rank(x),
    "rank_unknown": lambda t, x: t.rank(t.placeholder(t.float32)),
    "one_hot": lambda t, x: t.one_hot([0, 1], 3),
    "one_hot_values": lambda t, x: t.one_hot([0, 1], 3, on_value=2.0, off_value=1.0),
    "identity_n": lambda t, x: t.identity_n([x, x]),
    "stop_gradient": lambda t, x: t.stop_gradient(x),
    "where": lambda t, x: t.where([True, False]),
    "reverse": lambda t, x: t.reverse(x, [0]),
    "reshape_with_tensor_dim": lambda t, x: t.reshape(x, [t.constant(2), -1]),
    "named_scope": lambda t, x: t.reshape(t.transpose(x, name="a"), [-1], name="b"),
}


# Wrappers built on math ops (Prod, Range, Less...): checked once those are registered.
MATH_NAME_CASES = {
    "boolean_mask": (("Prod",), lambda t, x: t.boolean_mask(x, [True, False, True])),
    "boolean_mask_2d": (("Prod",), lambda t, x: t.boolean_mask(x, [[True, False]] * 3)),
    "sequence_mask": (("Range", "Cast", "Less"), lambda t, x: t.sequence_mask([1, 2], 3)),
    "sequence_mask_no_max": (("Range", "Cast", "Less", "Max", "Maximum"),
                             lambda t, x: t.sequence_mask([1, 2])),
    "where_select": (("Select",), lambda t, x: t.where([True, False], [1, 2], [3, 4])),
    "transpose_unknown_rank": (("Range", "Sub"), lambda t, x: t.transpose(t.placeholder(
        t.float32))),
    "concat_mixed": ((), lambda t, x: t.concat([x, [[1.0, 2.0]], t.zeros([1, 2])], 0)),
}


def _names(t, fn):
    with t.Graph().as_default() as g:
        x = t.placeholder(t.float32, [3, 2], name="x")
        fn(t, x)
        return [(op.name, op.type) for op in g.get_operations()]


@pytest.mark.parametrize("case", sorted(NAME_CASES))
def test_op_names_and_types_match_tf(case):
    assert _names(tf, NAME_CASES[case]) == _names(tf1, NAME_CASES[case])


@pytest.mark.parametrize("case", sorted(MATH_NAME_CASES))
def test_op_names_of_wrappers_on_math_ops_match_tf(case):
    from graphcore.framework import op_registry

    needs, fn = MATH_NAME_CASES[case]
    missing = [n for n in needs if op_registry.lookup(n) is None]
    if missing:
        pytest.skip(f"needs math ops {missing}")
    ours, theirs = _names(tf, fn), _names(tf1, fn)
    assert ours == theirs


# Calls TF rejects at graph-building time with ValueError (and graphcore must too).
ERROR_CASES = {
    "reshape_count": lambda t: t.reshape(t.zeros([2, 3]), [4]),
    "reshape_divisible": lambda t: t.reshape(t.zeros([2, 3]), [-1, 4]),
    "reshape_neg2": lambda t: t.reshape(t.zeros([2, 3]), [-2, 3]),
    "reshape_rank2_shape": lambda t: t.reshape(t.zeros([4]), [[2, 2]]),
    "transpose_len": lambda t: t.transpose(t.zeros([2, 3]), [0, 1, 2]),
    "transpose_range": lambda t: t.transpose(t.zeros([2, 3]), [0, 2]),
    "expand_dims_range": lambda t: t.expand_dims(t.zeros([2, 3]), 3),
    "concat_dims": lambda t: t.concat([t.zeros([2, 3]), t.zeros([3, 3])], 1),
    "concat_rank": lambda t: t.concat([t.zeros([2, 3]), t.zeros([3])], 0),
    "concat_axis": lambda t: t.concat([t.zeros([2, 3]), t.zeros([3, 3])], 2),
    "split_uneven": lambda t: t.split(t.zeros([2, 3]), 2, axis=1),
    "split_axis": lambda t: t.split(t.zeros([2, 3]), 2, axis=2),
    "split_v_sizes": lambda t: t.split(t.zeros([2, 3]), [1, 1], axis=1),
    "split_v_two_neg": lambda t: t.split(t.zeros([2, 3]), [-1, -1], axis=1),
    "unstack_unknown": lambda t: t.unstack(t.placeholder(t.float32, [None, 3])),
    "unstack_axis": lambda t: t.unstack(t.zeros([2, 3]), axis=2),
    "stack_shapes": lambda t: t.stack([t.zeros([2]), t.zeros([3])]),
    "slice_rank": lambda t: t.slice(t.zeros([2, 3]), [0], [1]),
    "getitem_oob": lambda t: t.zeros([2, 3])[2],
    "getitem_oob_neg": lambda t: t.zeros([2, 3])[-3],
    "getitem_too_many": lambda t: t.zeros([2, 3])[0, 0, 0],
    "getitem_zero_stride": lambda t: t.zeros([2, 3])[::0],
    "getitem_two_ellipsis": lambda t: t.zeros([2, 3])[..., ...],
    "tile_len": lambda t: t.tile(t.zeros([2, 3]), [2]),
    "pad_rank": lambda t: t.pad(t.zeros([2, 3]), [[1, 1]]),
    "pad_negative": lambda t: t.pad(t.zeros([2, 3]), [[-1, 1], [0, 0]]),
    "fill_negative": lambda t: t.fill([2, -1], 1.0),
    "fill_value_rank": lambda t: t.fill([2], [1.0]),
    "one_hot_depth": lambda t: t.one_hot([0, 1], -1),
    "gather_axis": lambda t: t.gather(t.zeros([2, 3]), [0], axis=2),
    "squeeze_not_one": lambda t: t.squeeze(t.zeros([2, 3]), [0]),
    "squeeze_range": lambda t: t.squeeze(t.zeros([2, 3]), [2]),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_build_time_errors_match_tf(case):
    tf1.disable_v2_tensorshape()  # TF1's spelling of shapes in messages: (?, 3)
    try:
        with tf_ref.Graph().as_default():
            with pytest.raises(ValueError) as theirs:
                ERROR_CASES[case](tf1)
    finally:
        tf1.enable_v2_tensorshape()
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as ours:
            ERROR_CASES[case](tf)
    first = str(theirs.value).split(" for '{{")[0].split("\n")[0]
    assert first in str(ours.value)


def test_getitem_type_error_matches_tf():
    with tf_ref.Graph().as_default():
        with pytest.raises(TypeError) as theirs:
            tf1.zeros([2])[1.5]
    with tf.Graph().as_default():
        with pytest.raises(TypeError) as ours:
            tf.zeros([2])[1.5]
    assert str(ours.value) == str(theirs.value)


# Run-time errors: fn(lib) -> (placeholders, output), fed values; both raise
# InvalidArgumentError with the same message.
def _rt(op, *dtypes):
    def build(t):
        phs = [t.placeholder(getattr(t, d)) for d in dtypes]
        return phs, op(t, *phs)
    return build


_F = np.zeros([2, 3], np.float32)
RUNTIME_CASES = {
    "reshape_count": (_rt(lambda t, x, s: t.reshape(x, s), "float32", "int32"), [_F, [4]]),
    "reshape_two_unknown": (_rt(lambda t, x, s: t.reshape(x, s), "float32", "int32"),
                            [_F, [-1, -1]]),
    "reshape_negative": (_rt(lambda t, x, s: t.reshape(x, s), "float32", "int32"),
                         [_F, [-2, -3]]),
    "reshape_multiple": (_rt(lambda t, x, s: t.reshape(x, s), "float32", "int32"),
                         [_F, [-1, 4]]),
    "reshape_2d": (_rt(lambda t, x, s: t.reshape(x, s), "float32", "int32"),
                   [np.zeros(4, np.float32), [[2, 2]]]),
    "transpose_dup": (_rt(lambda t, x, p: t.transpose(x, p), "float32", "int32"), [_F, [0, 0]]),
    "transpose_len": (_rt(lambda t, x, p: t.transpose(x, p), "float32", "int32"), [_F, [0]]),
    "transpose_range": (_rt(lambda t, x, p: t.transpose(x, p), "float32", "int32"),
                        [_F, [0, 2]]),
    "expand_dims": (_rt(lambda t, x, d: t.expand_dims(x, d), "float32", "int32"), [_F, 3]),
    "concat_dims": (_rt(lambda t, x, y: t.concat([x, y], 1), "float32", "float32"),
                    [_F, np.zeros([3, 3], np.float32)]),
    "concat_rank": (_rt(lambda t, x, y: t.concat([x, y], 1), "float32", "float32"),
                    [_F, np.zeros([3], np.float32)]),
    "concat_axis": (_rt(lambda t, x, y, a: t.concat([x, y], a), "float32", "float32", "int32"),
                    [_F, _F, 2]),
    "split": (_rt(lambda t, x: t.split(x, 2, axis=1), "float32"), [_F]),
    "stack": (_rt(lambda t, x, y: t.stack([x, y]), "float32", "float32"),
              [np.zeros(2, np.float32), np.zeros(3, np.float32)]),
    "unstack": (_rt(lambda t, x: t.unstack(x, num=2), "float32"),
                [np.zeros([3, 3], np.float32)]),
    "slice_size": (_rt(lambda t, x, b, s: t.slice(x, b, s), "float32", "int32", "int32"),
                   [_F, [0, 0], [3, 1]]),
    "slice_rank": (_rt(lambda t, x, b, s: t.slice(x, b, s), "float32", "int32", "int32"),
                   [_F, [0], [1]]),
    "slice_begin": (_rt(lambda t, x, b, s: t.slice(x, b, s), "float32", "int32", "int32"),
                    [_F, [-1, 0], [1, 1]]),
    "getitem": (_rt(lambda t, x, i: x[i], "float32", "int32"), [_F, 5]),
    "tile_len": (_rt(lambda t, x, m: t.tile(x, m), "float32", "int32"), [_F, [2]]),
    "tile_negative": (_rt(lambda t, x, m: t.tile(x, m), "float32", "int32"), [_F, [2, -1]]),
    "pad_rank": (_rt(lambda t, x, p: t.pad(x, p), "float32", "int32"), [_F, [[1, 1]]]),
    "pad_negative": (_rt(lambda t, x, p: t.pad(x, p), "float32", "int32"),
                     [_F, [[-1, 1], [0, 0]]]),
    "fill_negative": (_rt(lambda t, d: t.fill(d, 1.0), "int32"), [[2, -1]]),
    "fill_2d": (_rt(lambda t, d: t.fill(d, 1.0), "int32"), [[[2]]]),
    "one_hot_depth": (_rt(lambda t, d: t.one_hot([0, 1], d), "int32"), [-1]),
    "squeeze": (_rt(lambda t, x: t.squeeze(x, [0]), "float32"), [_F]),
    "squeeze_rank": (_rt(lambda t, x: t.squeeze(x, [0]), "float32"),
                     [np.zeros([], np.float32)]),
    "gather": (_rt(lambda t, x, i: t.gather(x, i), "float32", "int32"), [_F, [5]]),
    "gather_negative": (_rt(lambda t, x, i: t.gather(x, i), "float32", "int32"),
                        [_F, [[0, -1]]]),
}


def _tf_message(e):
    skip = ("Graph execution", "Detected", "  File", "Stack trace", "Original", "Traceback",
            "    ", "Node:", "\t")
    lines = [ln for ln in str(e).split("\n") if ln.strip() and not ln.startswith(skip)]
    return lines[0]


@pytest.mark.parametrize("case", sorted(RUNTIME_CASES))
def test_run_time_errors_match_tf(case):
    build, feeds = RUNTIME_CASES[case]
    with tf_ref.Graph().as_default():
        phs, out = build(tf1)
        with tf1.Session() as sess, pytest.raises(tf_ref.errors.InvalidArgumentError) as theirs:
            sess.run(out, dict(zip(phs, feeds)))
    with tf.Graph().as_default():
        phs, out = build(tf)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as ours:
            sess.run(out, dict(zip(phs, feeds)))
    assert _tf_message(theirs.value) in str(ours.value)
