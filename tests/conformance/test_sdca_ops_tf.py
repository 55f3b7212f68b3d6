"""Reference tier: the SDCA ops of tf.train (graphcore/ops/sdca_ops.py) against TF's
compat.v1 — sdca_fprint's fingerprints and shape, sdca_shrink_l1's in-place update of
several ref variables, op types and node names. Skipped when TensorFlow is not
installed."""

import numpy as np
import pytest

import graphcore as gc

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

STRINGS = [b"", b"a", b"hello", b"feature:42", "ünïcode".encode(), b"x" * 100]


def _run(lib):
    graph = lib.Graph()
    with graph.as_default():
        fprint = lib.train.sdca_fprint(lib.constant(STRINGS))
        w1 = lib.Variable([0.5, -0.1, 0.3, -2.0, 0.0], name="w1")
        w2 = lib.Variable([[1.0, -0.25], [0.05, 7.0]], name="w2")
        shrink = lib.train.sdca_shrink_l1([w1, w2], l1=0.3, l2=1.5)
        names = (fprint.op.name, fprint.shape.as_list(), shrink.name, shrink.type)
        with lib.Session(graph=graph) as sess:
            sess.run(lib.global_variables_initializer())
            sess.run(shrink)
            sess.run(shrink)
            return names, sess.run(fprint), sess.run([w1, w2])


def test_sdca_fprint_and_shrink_l1_match_tf():
    tf1.disable_resource_variables()
    try:
        theirs = _run(tf1)
    finally:
        tf1.enable_resource_variables()
    ours = _run(gc)
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], theirs[1])
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_array_equal(a, b)
