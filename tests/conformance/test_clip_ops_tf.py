"""Reference tier: clipping (graphcore/ops/clip_ops.py) against TensorFlow's compat.v1 —
values, gradients and node names. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

A = np.array([[3.0, 4.0], [1.0, -2.0]], np.float32)
B = np.array([5.0, 12.0], np.float32)

CASES = {
    "by_value": lambda t, a, b: [t.clip_by_value(a, -1.0, 2.0)],
    "by_norm": lambda t, a, b: [t.clip_by_norm(a, 2.0)],
    "by_norm_axes": lambda t, a, b: [t.clip_by_norm(a, 1.0, axes=[1])],
    "by_norm_zero": lambda t, a, b: [t.clip_by_norm(a * 0.0, 1.0)],
    "global_norm": lambda t, a, b: [t.global_norm([a, None, b])],
    "by_global_norm": lambda t, a, b: t.clip_by_global_norm([a, b], 5.0)[0],
    "by_global_norm_use_norm": lambda t, a, b: t.clip_by_global_norm([a, None, b], 1.0,
        use_norm=t.constant(20.0))[0][::2],
    "by_average_norm": lambda t, a, b: [t.clip_by_average_norm(a, 0.5)],
}


def _run(lib, case):
    with lib.Graph().as_default() as g:
        a, b = lib.placeholder(lib.float32, [2, 2]), lib.placeholder(lib.float32, [2])
        outs = CASES[case](lib, a, b)
        grads = lib.gradients([lib.reduce_sum(o * o) for o in outs], [a, b])
        fetches = outs + [x for x in grads if x is not None]
        with lib.Session() as sess:
            values = sess.run(fetches, {a: A, b: B})
        names = sorted(n.name for n in g.as_graph_def().node if not n.name.startswith("grad"))
    return values, names


@pytest.mark.parametrize("case", sorted(CASES))
def test_clip_ops_match_tf(case):
    (ours, our_names), (theirs, their_names) = _run(tf, case), _run(tf1, case)
    assert our_names == their_names
    assert len(ours) == len(theirs)
    for x, y in zip(ours, theirs):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


def test_clip_by_global_norm_rejects_a_tensor():
    with pytest.raises(TypeError, match="`t_list` should be a sequence"):
        tf.clip_by_global_norm(tf.constant([1.0]), 1.0)
