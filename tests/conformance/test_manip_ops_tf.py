"""Reference tier: the manipulation family (graphcore/ops/manip_ops.py) against
TensorFlow's compat.v1 — values, dtypes, gradients and errors. Skipped without
TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

M = np.arange(12, dtype=np.float32).reshape(3, 4)
V = np.array([3, 1, 3, 2, 1, 7], np.int32)

# name -> (build(lib, x) with x a placeholder fed M, differentiable)
CASES = {
    "broadcast_to": (lambda t, x: t.broadcast_to(x[:1], [2, 3, 4]), True),
    "broadcast_dynamic_shape": (lambda t, x: t.broadcast_dynamic_shape([3, 1], [1, 4]), False),
    "linspace": (lambda t, x: t.linspace(0.0, 1.0, 5), False),
    "meshgrid_xy": (lambda t, x: t.meshgrid(t.constant([1, 2]), t.constant([3, 4, 5])), False),
    "meshgrid_ij": (lambda t, x: t.meshgrid(x[0], x[:2, 0], indexing="ij"), True),
    "repeat_scalar": (lambda t, x: t.repeat(x, 2, axis=0), True),
    "repeat_vector": (lambda t, x: t.repeat(x, [1, 0, 2, 1], axis=1), True),
    "repeat_flat": (lambda t, x: t.repeat(x[:2, :2], 3), True),
    "roll": (lambda t, x: t.roll(x, [1, -1], [0, 1]), True),
    "reverse_sequence": (lambda t, x: t.reverse_sequence(x, [1, 3, 4], seq_axis=1,
                                                         batch_axis=0), True),
    "reverse_sequence_batch1": (lambda t, x: t.reverse_sequence(x, [2, 1, 3, 0], seq_axis=0,
                                                                batch_axis=1), True),
    "unravel_index": (lambda t, x: t.unravel_index(t.constant([0, 5, 11]), [3, 4]), False),
    "ensure_shape": (lambda t, x: t.ensure_shape(x, [3, None]) * 2.0, True),
    "ensure_shape_fails": (lambda t, x: t.ensure_shape(x, [4, 3]), False),
    "ensure_shape_fails_at_run": (lambda t, x: t.ensure_shape(t.placeholder_with_default(
        x, None), [4, 3]), False),
    "unique": (lambda t, x: list(t.unique(t.constant(V))), False),
    "unique_with_counts": (lambda t, x: list(t.unique_with_counts(t.constant(V),
                                                                  out_idx=t.int64)), False),
    "setdiff1d": (lambda t, x: list(t.setdiff1d(t.constant(V), t.constant([1, 7]))), False),
    "searchsorted_left": (lambda t, x: t.searchsorted(x, x[:, 1:3] + 0.5), False),
    "searchsorted_right_1d": (lambda t, x: t.searchsorted(t.constant([1, 3, 3, 7]),
                                                          t.constant([3, 0, 8]),
                                                          side="right"), False),
    "bincount": (lambda t, x: t.bincount(t.constant(V)), False),
    "bincount_weights": (lambda t, x: t.bincount(t.constant(V), weights=t.constant(
        [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]), minlength=10), False),
    "histogram_fixed_width": (lambda t, x: t.histogram_fixed_width(
        t.reshape(x, [-1]), [2.0, 9.0], nbins=4), False),
    "parallel_stack": (lambda t, x: t.parallel_stack([x[0], x[1]]), False),
}


def _run(lib, case):
    build, differentiable = CASES[case]
    with lib.Graph().as_default():
        x = lib.placeholder(lib.float32, [3, 4])
        try:
            out = build(lib, x)
        except Exception as e:
            return "build: " + type(e).__name__
        outs = out if isinstance(out, list) else [out]
        fetches = list(outs)
        if differentiable:
            # densified: a gather's gradient is IndexedSlices
            fetches.append(lib.convert_to_tensor(
                lib.gradients([lib.reduce_sum(o * o) for o in outs], x)[0]))
        with lib.Session() as sess:
            try:
                return sess.run(fetches, {x: M})
            except Exception as e:
                return type(e).__name__


@pytest.mark.parametrize("case", sorted(CASES))
def test_manip_ops_match_tf(case):
    ours, theirs = _run(tf, case), _run(tf1, case)
    if isinstance(theirs, str):
        assert ours == theirs
        return
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_broadcast_static_shape():
    assert tf.broadcast_static_shape(tf.TensorShape([3, 1]), tf.TensorShape([4])) == \
        tf.TensorShape([3, 4])
    with pytest.raises(ValueError):
        tf.broadcast_static_shape(tf.TensorShape([3]), tf.TensorShape([4]))
