"""Reference tier: the segment reductions (graphcore/ops/segment_ops.py) against
TensorFlow's compat.v1 — values (empty segments included), dtypes, errors, gradients.
Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

DATA = np.array([[1.0, -2.0], [3.0, 4.0], [5.0, 5.0], [-1.0, 0.5], [2.0, 2.0]], np.float32)
SORTED_IDS = np.array([0, 0, 2, 2, 3], np.int32)  # segment 1 is empty
UNSORTED_IDS = np.array([2, -1, 0, 2, 0], np.int32)  # segments 1 and 3 are empty
INT_DATA = np.array([7, -3, 9, 4, 1], np.int32)

SORTED = ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod"]
UNSORTED = ["unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
            "unsorted_segment_prod", "unsorted_segment_mean", "unsorted_segment_sqrt_n"]
DIFFERENTIABLE = {"segment_sum", "segment_mean", "segment_max", "segment_min",
                  "unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
                  "unsorted_segment_prod", "unsorted_segment_mean", "unsorted_segment_sqrt_n"}


def _run(lib, fn_name, data, ids, unsorted):
    with lib.Graph().as_default():
        d = lib.placeholder(lib.as_dtype(data.dtype), data.shape)
        fn = getattr(lib, fn_name) if hasattr(lib, fn_name) else getattr(lib.math, fn_name)
        out = fn(d, ids, 4) if unsorted else fn(d, ids)
        fetches = [out]
        if fn_name in DIFFERENTIABLE and data.dtype.kind == "f":
            fetches.append(lib.gradients(lib.reduce_sum(out * out), d)[0])
        with lib.Session() as sess:
            try:
                return sess.run(fetches, {d: data})
            except Exception as e:
                return type(e).__name__


@pytest.mark.parametrize("fn_name", SORTED + UNSORTED)
@pytest.mark.parametrize("data", [DATA, INT_DATA], ids=["float", "int"])
def test_segment_ops_match_tf(fn_name, data):
    unsorted = fn_name.startswith("unsorted")
    if data is INT_DATA and fn_name in ("unsorted_segment_mean", "unsorted_segment_sqrt_n"):
        pytest.skip("TF's mean/sqrt_n divide with the data's dtype")
    ids = UNSORTED_IDS if unsorted else SORTED_IDS
    ours, theirs = _run(tf, fn_name, data, ids, unsorted), _run(tf1, fn_name, data, ids,
                                                                  unsorted)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("case", ["not_increasing", "out_of_range"])
def test_bad_segment_ids_fail_as_in_tf(case):
    ids = np.array([1, 0, 2, 2, 3], np.int32) if case == "not_increasing" else \
        np.array([0, 0, 5, 1, 2], np.int32)
    fn = "segment_sum" if case == "not_increasing" else "unsorted_segment_sum"
    assert _run(tf, fn, DATA, ids, case == "out_of_range") == \
        _run(tf1, fn, DATA, ids, case == "out_of_range")
