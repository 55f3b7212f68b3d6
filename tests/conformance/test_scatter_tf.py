"""Reference tier: the scatter/gather family (graphcore/ops/scatter_ops.py) against
TensorFlow's compat.v1 — in-place scatters into ref and resource variables, ScatterNd,
TensorScatter*, GatherNd (batch_dims), batch_gather, gather with batch_dims and axis,
DynamicPartition/DynamicStitch: values, static shapes, dtypes, op types, gradients and
index errors. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

BASE = np.arange(1, 13, dtype=np.float32).reshape(4, 3)
ROWS = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], np.float32)

# name -> (function name, indices, updates); updates into a 4x3 variable
VARIABLE_SCATTERS = {
    "update": ("scatter_update", [2, 0], ROWS[:2]),
    "add_duplicates": ("scatter_add", [1, 1, 3], ROWS),
    "sub": ("scatter_sub", [3, 0, 1], ROWS),
    "mul": ("scatter_mul", [1, 2], ROWS[:2]),
    "div": ("scatter_div", [0, 3], ROWS[:2]),
    "min": ("scatter_min", [0, 2, 2], ROWS - 5),
    "max": ("scatter_max", [0, 2, 2], ROWS),
    "add_scalar": ("scatter_add", [0, 2], np.float32(10)),
    "nd_update": ("scatter_nd_update", [[1, 1], [3, 0]], [100.0, 200.0]),
    "nd_add_rows": ("scatter_nd_add", [[2], [0], [2]], ROWS),
    "nd_sub": ("scatter_nd_sub", [[0, 2], [0, 2]], [1.0, 2.0]),
    "out_of_range": ("scatter_update", [1, 7], ROWS[:2]),
    "nd_out_of_range": ("scatter_nd_add", [[1], [9]], ROWS[:2]),
}


def _variable_scatter(lib, case, use_resource):
    fn_name, indices, updates = VARIABLE_SCATTERS[case]
    with lib.Graph().as_default():
        v = lib.Variable(BASE, use_resource=use_resource) if lib is tf else \
            tf1.Variable(BASE, use_resource=use_resource)
        out = getattr(lib, fn_name)(v, indices, updates)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            try:
                value = sess.run(out)
            except lib.errors.InvalidArgumentError as e:
                return "InvalidArgumentError", e.message
            return value, sess.run(v), out.shape.as_list()


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
@pytest.mark.parametrize("case", sorted(VARIABLE_SCATTERS))
def test_variable_scatters_match_tf(case, use_resource):
    ours = _variable_scatter(tf, case, use_resource)
    theirs = _variable_scatter(tf1, case, use_resource)
    if isinstance(theirs[0], str):  # TF's message wraps the kernel's in node details
        assert ours[0] == theirs[0]
        assert ours[1].split("\n")[0] in theirs[1]
        return
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    assert ours[2] == theirs[2]


def test_scatter_op_types_and_attrs_match_tf():
    def build(lib):
        with lib.Graph().as_default() as g:
            v = lib.Variable(BASE) if lib is tf else tf1.Variable(BASE, use_resource=False)
            lib.scatter_update(v, [1], ROWS[:1])
            lib.scatter_add(v, [1], ROWS[:1], use_locking=True)
            lib.scatter_nd_update(v, [[1]], ROWS[:1])
            lib.scatter_nd(lib.constant([[1]]), ROWS[:1], [4, 3])
            return sorted((n.name, n.op, sorted((k, str(a)) for k, a in n.attr.items()
                                                if k not in ("value", "_class")))
                          for n in g.as_graph_def().node if n.op.startswith("Scatter"))

    assert build(tf) == build(tf1)


T = np.arange(24, dtype=np.float64).reshape(2, 3, 4)

# name -> fn(lib, x) with x a float64 placeholder of T's shape (gradients through x)
FUNCTIONAL = {
    "scatter_nd": lambda lib, x: lib.scatter_nd([[1, 0], [0, 2]], x[0, :2], [2, 3, 4]),
    "scatter_nd_dup": lambda lib, x: lib.scatter_nd([[1], [1]], x[:, 0], [3, 4]),
    "tensor_scatter_update": lambda lib, x: lib.tensor_scatter_nd_update(
        x, [[0, 1], [1, 2]], x[1, :2] * 2),
    "tensor_scatter_add": lambda lib, x: lib.tensor_scatter_nd_add(
        x, [[1], [0]], x * 3),
    "tensor_scatter_sub": lambda lib, x: lib.tensor_scatter_sub(x, [[0, 0, 1]], [5.0]),
    "tensor_scatter_min": lambda lib, x: lib.tensor_scatter_nd_min(
        x, [[0, 1], [1, 1]], x[:, 0] + 2),
    "tensor_scatter_max": lambda lib, x: lib.tensor_scatter_nd_max(
        x, [[0, 1], [1, 1]], x[:, 0] + 6),
    "gather_nd_elements": lambda lib, x: lib.gather_nd(x, [[0, 1, 2], [1, 2, 3], [0, 1, 2]]),
    "gather_nd_rows": lambda lib, x: lib.gather_nd(x, [[1], [0], [1]]),
    "gather_nd_slices": lambda lib, x: lib.gather_nd(x, [[[1, 2]], [[0, 0]]]),
    "gather_nd_batch": lambda lib, x: lib.gather_nd(x, [[[2], [0]], [[1], [1]]], batch_dims=1),
    "batch_gather": lambda lib, x: lib.batch_gather(x, [[2, 0], [1, 1]]),
    "gather_axis2": lambda lib, x: lib.gather(x, [3, 0, 3], axis=2),
    "gather_batch_dims": lambda lib, x: lib.gather(x, [[1, 0, 1, 1], [2, 2, 0, 1]], axis=1,
                                                   batch_dims=1),
    "dynamic_partition": lambda lib, x: lib.dynamic_partition(x, [[0, 1, 0], [2, 1, 1]], 3),
    "dynamic_stitch": lambda lib, x: lib.dynamic_stitch([[2, 0], [1, 3]], [x[0, :2], x[1, 1:]]),
    "parallel_dynamic_stitch": lambda lib, x: lib.dynamic_stitch(
        [[0, 1], [2]], [x[0, :2], x[1, 1:2]]),
}


def _functional(lib, case):
    with lib.Graph().as_default():
        x = lib.placeholder(lib.float64, T.shape)
        out = FUNCTIONAL[case](lib, x)
        outs = out if isinstance(out, list) else [out]
        (grad,) = lib.gradients([lib.reduce_sum(o * o) for o in outs], x)
        with lib.Session() as sess:
            values = sess.run(outs + [lib.convert_to_tensor(grad)], {x: T})
        return values, [o.shape.as_list() for o in outs], [o.dtype.name for o in outs], \
            [o.op.type for o in outs]


@pytest.mark.parametrize("case", sorted(FUNCTIONAL))
def test_functional_scatter_gather_match_tf(case):
    ours, theirs = _functional(tf, case), _functional(tf1, case)
    assert len(ours[0]) == len(theirs[0])
    for a, b in zip(ours[0], theirs[0]):  # outputs, then the gradient
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert ours[2] == theirs[2]
    if not case.startswith(("gather_nd_batch", "batch_gather", "gather_batch")):
        assert ours[1] == theirs[1]
        assert ours[3] == theirs[3]


ERRORS = {
    "scatter_nd": lambda lib: lib.scatter_nd([[1], [7]], np.ones((2, 3), np.float32), [4, 3]),
    "tensor_scatter": lambda lib: lib.tensor_scatter_nd_update(
        np.zeros((4, 3), np.float32), [[1], [7]], np.ones((2, 3), np.float32)),
    "gather_nd": lambda lib: lib.gather_nd(np.zeros((4, 3), np.float32), [[1, 9]]),
    "dynamic_partition": lambda lib: lib.dynamic_partition(np.zeros((4, 3)), [0, 1, 2, 0], 2),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_index_errors_match_tf(case):
    def run(lib):
        with lib.Graph().as_default():
            out = ERRORS[case](lib)
            with lib.Session() as sess:
                with pytest.raises(lib.errors.InvalidArgumentError) as info:
                    sess.run(out)
        return info.value.message

    assert run(tf).split("\n")[0] in run(tf1)
