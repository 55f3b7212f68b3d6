"""Array ops available so far: constants, placeholders, stack, where, squeeze, gather."""

import numpy as np
import pytest

import graphcore as tf
from graphcore import errors


def test_constant_shapes_and_fill():
    assert tf.constant(0, shape=[2, 3]).shape.as_list() == [2, 3]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.constant(7, shape=[2, 2])), np.full((2, 2), 7))
        np.testing.assert_array_equal(sess.run(tf.constant([], dtype=tf.float32)), [])
        assert sess.run(tf.constant("s")) == b"s"


def test_stack_where_squeeze_gather_boolean_mask():
    a = tf.constant([1, 2])
    b = tf.constant([3, 4])
    s0 = tf.stack([a, b])
    s1 = tf.stack([a, b], axis=1)
    assert s0.shape.as_list() == [2, 2] and s1.shape.as_list() == [2, 2]
    mask = tf.constant([True, False, True])
    w = tf.where(mask)
    assert w.dtype == tf.int64 and w.shape.as_list() == [None, 1]
    sq = tf.squeeze(tf.constant([[1], [2]]), axis=[1])
    assert sq.shape.as_list() == [2]
    g = tf.gather(tf.constant([[1, 2], [3, 4], [5, 6]]), [2, 0])
    assert g.shape.as_list() == [2, 2]
    m = tf.boolean_mask(tf.constant(["x", "y", "z"]), mask)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(s0), [[1, 2], [3, 4]])
        np.testing.assert_array_equal(sess.run(s1), [[1, 3], [2, 4]])
        np.testing.assert_array_equal(sess.run(w), [[0], [2]])
        np.testing.assert_array_equal(sess.run(sq), [1, 2])
        np.testing.assert_array_equal(sess.run(g), [[5, 6], [1, 2]])
        assert list(sess.run(m)) == [b"x", b"z"]
        bad = tf.gather(tf.constant([1, 2]), [5])
        with pytest.raises(errors.InvalidArgumentError, match="not in"):
            sess.run(bad)
    with pytest.raises(ValueError):
        tf.squeeze(tf.constant([[1, 2]]), axis=[1])


# -- values against numpy -------------------------------------------------------------------

_X = np.arange(60, dtype=np.float32).reshape(3, 4, 5)


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


@pytest.mark.parametrize("spec", [
    (slice(1, None), slice(None, None, 2), None),
    (Ellipsis, 0),
    (-1,),
    (slice(None, None, -1), slice(3, 0, -2)),
    (None, Ellipsis, None, 1),
    (slice(-10, 10), slice(5, None)),
    (1, slice(None, None, -1), -1),
    (slice(2, 1),),
    (slice(None, None, -3), Ellipsis, slice(-2, None)),
    (0, 0, 0),
])
def test_getitem_matches_numpy(spec):
    out = tf.constant(_X)[spec]
    expected = _X[spec]
    assert out.shape.as_list() == list(expected.shape)
    got = _run(out)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)




def test_getitem_with_tensor_indices_and_placeholders():
    x = tf.placeholder(tf.float32, [None, 4, 5])
    i = tf.placeholder(tf.int32, [])
    y = x[i, 1:, i]
    assert y.shape.as_list() == [None]  # begin is not constant: TF infers no size either
    np.testing.assert_array_equal(_run(y, {x: _X, i: 2}), _X[2, 1:, 2])
    z = x[1:, ::2, None]
    assert z.shape.as_list() == [None, 2, 1, 5]
    with pytest.raises(errors.InvalidArgumentError, match="out of bounds"):
        _run(x[i], {x: _X, i: 3})
    with pytest.raises(TypeError, match="valid indices"):
        x[1.5]
    with pytest.raises(ValueError, match="out of bounds"):
        tf.constant(_X)[3]


def test_strided_slice_masks():
    t = tf.constant(_X)
    # begin/end masks on dim 0, shrink dim 1, new axis after it, ellipsis for the rest
    out = tf.strided_slice(t, [1, 2, 0, 0], [0, 3, 0, 0], [1, 1, 1, 1], begin_mask=1,
                           end_mask=1, shrink_axis_mask=2, new_axis_mask=4, ellipsis_mask=8)
    expected = _X[:, 2, None, ...]
    assert out.shape.as_list() == list(expected.shape)
    np.testing.assert_array_equal(_run(out), expected)


def test_reshape_values_shapes_and_errors():
    x = tf.constant(_X)
    assert tf.reshape(x, [-1, 10]).shape.as_list() == [6, 10]
    np.testing.assert_array_equal(_run(tf.reshape(x, [5, -1])), _X.reshape(5, -1))
    p = tf.placeholder(tf.float32, [None, 6])
    assert tf.reshape(p, [-1, 3, 2]).shape.as_list() == [None, 3, 2]
    assert tf.reshape(p, tf.shape(p)[::-1]).shape.as_list() == [6, None]
    n = tf.placeholder(tf.int32, [])
    assert tf.reshape(p, [n, -1]).shape.as_list() == [None, None]
    empty = tf.reshape(tf.zeros([0, 3]), [-1, 0])
    assert _run(empty).shape == (3, 0)
    with pytest.raises(ValueError, match="Cannot reshape a tensor with 60 elements"):
        tf.reshape(x, [7, 3])
    with pytest.raises(ValueError, match="evenly divisible by 7"):
        tf.reshape(x, [7, -1])
    s = tf.placeholder(tf.int32, [None])
    y = tf.reshape(tf.placeholder(tf.float32), s)
    feed = {y.op.inputs[0]: _X}
    with pytest.raises(errors.InvalidArgumentError, match="Only one input size may be -1"):
        _run(y, {**feed, s: [-1, -1]})
    with pytest.raises(errors.InvalidArgumentError, match="requested shape has 4"):
        _run(y, {**feed, s: [4]})


def test_transpose_expand_squeeze():
    x = tf.constant(_X)
    np.testing.assert_array_equal(_run(tf.transpose(x)), _X.T)
    np.testing.assert_array_equal(_run(tf.transpose(x, [1, 0, 2])), _X.transpose(1, 0, 2))
    assert tf.transpose(x, [2, 0, 1]).shape.as_list() == [5, 3, 4]
    u = tf.placeholder(tf.float32)
    np.testing.assert_array_equal(_run(tf.transpose(u, [1, 0]), {u: _X[0]}), _X[0].T)
    assert tf.expand_dims(x, -1).shape.as_list() == [3, 4, 5, 1]
    assert tf.expand_dims(x, dim=1).shape.as_list() == [3, 1, 4, 5]
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.expand_dims(x, 0, dim=0)
    with pytest.raises(ValueError, match=r"not in the interval \[-4, 3\]"):
        tf.expand_dims(x, 4)
    assert tf.squeeze(tf.zeros([1, 2, 1])).shape.as_list() == [2]
    assert tf.squeeze(tf.zeros([1, 2, 1]), -1).shape.as_list() == [1, 2]
    np.testing.assert_array_equal(_run(tf.squeeze(tf.zeros([1, 0, 1]))), np.zeros([0]))


def test_concat_split_stack_unstack():
    a = tf.constant(_X)
    np.testing.assert_array_equal(_run(tf.concat([a, a], -1)), np.concatenate([_X, _X], -1))
    assert tf.concat([a, a[:1]], 0).shape.as_list() == [4, 4, 5]
    assert tf.concat([a], 0).op.type == "Identity"
    parts = tf.split(a, 2, axis=1)
    assert [p.shape.as_list() for p in parts] == [[3, 2, 5]] * 2
    got = _run(parts)
    for g, e in zip(got, np.split(_X, 2, axis=1)):
        np.testing.assert_array_equal(g, e)
    v = tf.split(a, [1, -1, 2], axis=-1)
    assert [p.shape.as_list() for p in v] == [[3, 4, 1], [3, 4, 2], [3, 4, 2]]
    np.testing.assert_array_equal(_run(v[1]), _X[..., 1:3])
    ups = tf.unstack(a, axis=-1)
    assert len(ups) == 5 and ups[0].shape.as_list() == [3, 4]
    np.testing.assert_array_equal(_run(ups[3]), _X[..., 3])
    assert tf.stack([1, 2]).op.type == "Const"
    packed = tf.stack([a, a], axis=-1)
    np.testing.assert_array_equal(_run(packed), np.stack([_X, _X], -1))
    with pytest.raises(ValueError, match="Cannot infer argument `num`"):
        tf.unstack(tf.placeholder(tf.float32, [None, 2]))
    # a list holding tensors converts to a Pack ("autopacking")
    n = tf.placeholder(tf.int32, [])
    np.testing.assert_array_equal(_run(tf.reshape(a, [n, -1]), {n: 6}), _X.reshape(6, -1))


def test_slice_tile_pad_reverse():
    x = tf.constant(_X)
    np.testing.assert_array_equal(_run(tf.slice(x, [1, 0, 2], [-1, 3, 2])), _X[1:, :3, 2:4])
    assert tf.slice(x, [1, 0, 2], [-1, 3, 2]).shape.as_list() == [2, 3, 2]
    np.testing.assert_array_equal(_run(tf.tile(x[0], [2, 3])), np.tile(_X[0], [2, 3]))
    assert tf.tile(tf.placeholder(tf.float32, [None, 2]), [0, 3]).shape.as_list() == [0, 6]
    m = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(_run(tf.pad(m, [[1, 0], [0, 2]])), np.pad(m, [[1, 0], [0, 2]]))
    np.testing.assert_array_equal(_run(tf.pad(m, [[1, 0], [0, 2]], constant_values=7)),
                                  np.pad(m, [[1, 0], [0, 2]], constant_values=7))
    np.testing.assert_array_equal(_run(tf.pad(m, [[1, 1], [2, 2]], "REFLECT")),
                                  np.pad(m, [[1, 1], [2, 2]], "reflect"))
    np.testing.assert_array_equal(_run(tf.pad(m, [[1, 1], [2, 2]], "SYMMETRIC")),
                                  np.pad(m, [[1, 1], [2, 2]], "symmetric"))
    np.testing.assert_array_equal(_run(tf.reverse(x, [0, -1])), _X[::-1, :, ::-1])
    with pytest.raises(ValueError, match="Paddings must be non-negative"):
        tf.pad(m, [[-1, 0], [0, 0]])


def test_fill_zeros_ones_like():
    assert _run(tf.fill([2, 3], 7)).dtype == np.int32
    np.testing.assert_array_equal(_run(tf.fill([2, 3], 7.5)), np.full([2, 3], 7.5, np.float32))
    assert tf.zeros([2, 3]).op.type == "Const"
    big = tf.zeros([50, 50])
    assert big.op.type == "Fill" and big.shape.as_list() == [50, 50]
    assert _run(big).sum() == 0
    assert _run(tf.ones([2], tf.bool)).tolist() == [True, True]
    z = tf.zeros(tf.placeholder(tf.int32, [2]), tf.int64)
    assert z.shape.as_list() == [None, None] and z.dtype == tf.int64
    p = tf.placeholder(tf.float32, [None, 3])
    zl, ol = tf.zeros_like(p), tf.ones_like(p, dtype=tf.int32)
    assert zl.op.type == "ZerosLike" and ol.dtype == tf.int32
    assert ol.shape.as_list() == [None, 3]
    got_z, got_o = _run([zl, ol], {p: np.ones([2, 3])})
    np.testing.assert_array_equal(got_z, np.zeros([2, 3]))
    np.testing.assert_array_equal(got_o, np.ones([2, 3], np.int32))
    assert _run(tf.zeros_like(tf.constant(["a", "b"]))).tolist() == [b"", b""]
    with pytest.raises(ValueError, match="Fill dimensions must be >= 0"):
        tf.fill([2, -1], 0)


def test_shape_size_rank_one_hot_identity_n():
    p = tf.placeholder(tf.float32, [None, 3])
    s, n, r = tf.shape(p), tf.size(p), tf.rank(p)
    assert s.op.type == "Shape" and s.shape.as_list() == [2]
    assert tf.shape(tf.constant(_X)).op.type == "Const"
    assert tf.rank(p).op.type == "Const"
    assert tf.shape(p, out_type=tf.int64).dtype == tf.int64
    got = _run([s, n, r, tf.rank(tf.placeholder(tf.float32))],
               {p: np.zeros([4, 3]), "Placeholder_1:0": np.zeros([2, 2, 2])})
    assert got[0].tolist() == [4, 3] and got[0].dtype == np.int32
    assert got[1] == 12 and got[2] == 2 and got[3] == 3
    oh = tf.one_hot([0, 2, -1, 5], 3)
    np.testing.assert_array_equal(_run(oh), np.eye(3, dtype=np.float32)[[0, 2]].tolist()
                                  + [[0, 0, 0], [0, 0, 0]])
    oh0 = tf.one_hot([[1, 0]], 2, on_value=3, off_value=-1, axis=0)
    assert oh0.shape.as_list() == [2, 1, 2] and oh0.dtype == tf.int32
    np.testing.assert_array_equal(_run(oh0), [[[-1, 3]], [[3, -1]]])
    with pytest.raises(TypeError, match="does not match"):
        tf.one_hot([0], 2, on_value=1.0, off_value=0)
    a, b = tf.identity_n([tf.constant(1), tf.constant("x")])
    assert _run([a, b]) == [1, b"x"]
    assert _run(tf.stop_gradient(tf.constant(2.0))) == 2.0


def test_gather_axes_batch_dims_and_segment_sum():
    x = tf.constant(_X)
    g = tf.gather(x, [[3, 0], [1, 1]], axis=-1)
    assert g.shape.as_list() == [3, 4, 2, 2]
    np.testing.assert_array_equal(_run(g), np.take(_X, [[3, 0], [1, 1]], axis=-1))
    b = tf.gather(x, [[0, 2], [1, 1], [3, 3]], axis=1, batch_dims=1)
    assert b.shape.as_list() == [3, 2, 5]
    np.testing.assert_array_equal(_run(b), np.stack([_X[i][idx] for i, idx in
                                                     enumerate([[0, 2], [1, 1], [3, 3]])]))
    s = tf.unsorted_segment_sum(tf.constant([[1, 2], [3, 4], [5, 6]]), [0, -1, 0], 3)
    assert s.shape.as_list() == [3, 2]
    np.testing.assert_array_equal(_run(s), [[6, 8], [0, 0], [0, 0]])
    with pytest.raises(errors.InvalidArgumentError, match="out of range"):
        _run(tf.unsorted_segment_sum(tf.constant([1, 2]), [0, 3], 2))


def test_empty_tensors():
    e = tf.zeros([0, 3])
    assert _run(tf.concat([e, tf.ones([1, 3])], 0)).shape == (1, 3)
    assert _run(tf.tile(e, [2, 2])).shape == (0, 6)
    assert _run(tf.transpose(e)).shape == (3, 0)
    assert _run(e[:, 1]).shape == (0,)
    assert _run(tf.pad(e, [[1, 1], [0, 0]])).shape == (2, 3)
    assert _run(tf.gather(e, tf.zeros([0], tf.int32))).shape == (0, 3)
    assert _run(tf.split(e, 3, axis=1)[0]).shape == (0, 1)
    assert _run(tf.one_hot(tf.zeros([0], tf.int32), 4)).shape == (0, 4)
    assert _run(tf.slice(e, [0, 1], [-1, 1])).shape == (0, 1)
    assert _run(tf.reshape(e, [-1])).shape == (0,)


def test_where_with_x_and_y():
    from graphcore.framework import op_registry

    if op_registry.lookup("Select") is None:
        pytest.skip("Select is registered by the math ops")
    out = tf.where([True, False], [1, 2], [3, 4])
    assert out.op.type == "Select"
    np.testing.assert_array_equal(_run(out), [1, 4])
