"""Reference tier: map_fn, scan, foldl, foldr and hessians (graphcore/ops/functional_ops.py)
against TensorFlow's compat.v1 — values and gradients through the loops. Skipped without
TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)

CASES = {
    "map_fn": lambda t, x: t.map_fn(lambda r: r * r, x),
    "map_fn_nested": lambda t, x: t.map_fn(lambda p: p[0] + p[1], (x, x * 10.0),
                                           dtype=t.float32),
    "map_fn_dtype_change": lambda t, x: t.map_fn(lambda r: t.reduce_sum(r) > 4.0, x,
                                                 dtype=t.bool),
    "scan": lambda t, x: t.scan(lambda a, r: a + r, x),
    "scan_initializer_reverse": lambda t, x: t.scan(lambda a, r: a * r, x,
                                                    initializer=t.ones([2]), reverse=True),
    "scan_nested": lambda t, x: t.scan(lambda a, r: (a[0] + r, a[1] * 2.0), x,
                                       initializer=(t.zeros([2]), t.ones([2]))),
    "foldl": lambda t, x: t.foldl(lambda a, r: a + r, x),
    "foldr": lambda t, x: t.foldr(lambda a, r: a * 2.0 + r, x, initializer=t.zeros([2])),
    "hessians": lambda t, x: t.hessians(t.reduce_sum(x * x * x), x),
}
DIFFERENTIABLE = {"map_fn", "map_fn_nested", "scan", "scan_initializer_reverse", "foldl",
                  "foldr"}


def _run(lib, case):
    with lib.Graph().as_default():
        x = lib.placeholder(lib.float32, [3, 2])
        out = CASES[case](lib, x)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        fetches = list(outs)
        if case in DIFFERENTIABLE:
            fetches += lib.gradients([lib.reduce_sum(o) for o in outs], [x])
        with lib.Session() as sess:
            return sess.run(fetches, {x: X})


@pytest.mark.parametrize("case", sorted(CASES))
def test_functional_ops_match_tf(case):
    ours, theirs = _run(tf, case), _run(tf1, case)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                   rtol=1e-6)
