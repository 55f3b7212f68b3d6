"""Reference tier: SparseTensor and the sparse ops (graphcore/ops/sparse_ops.py,
sparse_segment_ops.py) against TensorFlow's compat.v1 — values, static shapes and dtypes
of each op, gradients w.r.t. values and dense operands, session fetch/feed of
SparseTensors (sparse_placeholder), node names, and errors. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

IND = [[0, 1], [1, 0], [2, 3]]
VALS = np.array([1.0, 2.0, 3.0])
IND2 = [[0, 1], [2, 2]]
B = np.arange(8.0).reshape(4, 2)


def _dense(lib, st):
    return lib.sparse_tensor_to_dense(st)


# name -> fn(lib, st, st2, v, b) -> dense Tensor(s); v: the float64 values placeholder of
# st, b: a float64 [4, 2] placeholder. Gradients are taken w.r.t. v and b.
CASES = {
    "to_dense": lambda lib, st, st2, v, b: _dense(lib, st),
    "to_dense_default": lambda lib, st, st2, v, b: lib.sparse_tensor_to_dense(st, -1.0),
    "sparse_to_dense": lambda lib, st, st2, v, b: lib.sparse_to_dense(
        [[0, 0], [1, 2]], [2, 3], v[:2], 0.5),
    "sparse_to_dense_1d": lambda lib, st, st2, v, b: lib.sparse_to_dense([[1], [3]], [5],
                                                                         v[1:]),
    "matmul": lambda lib, st, st2, v, b: lib.sparse_tensor_dense_matmul(st, b),
    "matmul_adjoint_b": lambda lib, st, st2, v, b: lib.sparse_tensor_dense_matmul(
        st, lib.transpose(b), adjoint_b=True),
    "matmul_adjoint_a": lambda lib, st, st2, v, b: lib.sparse_tensor_dense_matmul(
        lib.sparse_transpose(st), b, adjoint_a=True),
    "add_threshold": lambda lib, st, st2, v, b: _dense(lib, lib.sparse_add(
        st, lib.SparseTensor(IND, -v + [0.0, 0.5, 0.0], [3, 4]), threshold=0.1)),
    "add_dense_sparse": lambda lib, st, st2, v, b: _dense(lib, lib.sparse_add(
        st, lib.SparseTensor(IND2, lib.constant([5.0, -3.0], lib.float64), [3, 4]))),
    "add_dense": lambda lib, st, st2, v, b: lib.sparse_add(st, lib.reshape(
        lib.concat([b, b[:2]], 0), [3, 4])),
    "mul_operator": lambda lib, st, st2, v, b: _dense(lib, st * lib.reshape(b, [2, 4])[0]),
    "truediv_operator": lambda lib, st, st2, v, b: _dense(
        lib, st / (lib.reshape(b, [2, 4])[1] + 1.0)),
    "reshape": lambda lib, st, st2, v, b: _dense(lib, lib.sparse_reshape(st, [2, -1])),
    "reorder": lambda lib, st, st2, v, b: _dense(lib, lib.sparse_reorder(
        lib.SparseTensor([[2, 3], [0, 1], [1, 0]], v, [3, 4]))),
    "retain": lambda lib, st, st2, v, b: _dense(lib, lib.sparse_retain(st, [True, False,
                                                                            True])),
    "concat": lambda lib, st, st2, v, b: _dense(lib, lib.sparse_concat(1, [st, st2])),
    "concat_expand": lambda lib, st, st2, v, b: _dense(lib, lib.sparse_concat(
        0, [st, lib.SparseTensor([[0, 4]], lib.constant([9.0], lib.float64), [1, 5])],
        expand_nonconcat_dim=True)),
    "reduce_sum_axis": lambda lib, st, st2, v, b: lib.sparse_reduce_sum(st, 1),
    "reduce_sum_keepdims": lambda lib, st, st2, v, b: lib.sparse_reduce_sum(st, 0,
                                                                            keepdims=True),
    "reduce_sum_all": lambda lib, st, st2, v, b: lib.sparse_reduce_sum(st),
    "softmax": lambda lib, st, st2, v, b: _dense(lib, lib.sparse_softmax(
        lib.SparseTensor([[0, 0], [0, 2], [1, 1]], v, [2, 3]))),
    "fill_empty_rows": lambda lib, st, st2, v, b: [
        _dense(lib, t) if i == 0 else lib.cast(t, lib.float64) for i, t in enumerate(
            lib.sparse_fill_empty_rows(lib.SparseTensor([[0, 1], [2, 0], [2, 1]], v,
                                                         [4, 2]), 9.0))],
    "slice": lambda lib, st, st2, v, b: _dense(lib, lib.sparse_slice(st, [1, 0], [2, 3])),
    "split": lambda lib, st, st2, v, b: [_dense(lib, t) for t in lib.sparse_split(
        sp_input=st, num_split=3, axis=1)],
    "transpose": lambda lib, st, st2, v, b: _dense(lib, lib.sparse_transpose(st)),
    "merge": lambda lib, st, st2, v, b: _dense(lib, lib.sparse_merge(
        lib.SparseTensor(IND, lib.constant([2, 0, 1], lib.int64), [3, 4]),
        lib.SparseTensor(IND, v, [3, 4]), 3)),
    "from_dense": lambda lib, st, st2, v, b: _dense(lib, lib.sparse.from_dense(b)),
    "segment_sum": lambda lib, st, st2, v, b: lib.sparse_segment_sum(b, [0, 1, 3], [0, 0, 2]),
    "segment_mean": lambda lib, st, st2, v, b: lib.sparse_segment_mean(b, [0, 1, 3],
                                                                       [0, 0, 1]),
    "segment_sqrt_n": lambda lib, st, st2, v, b: lib.sparse_segment_sqrt_n(
        b, [0, 1, 3, 3], [0, 0, 1, 1]),
    "segment_sum_num": lambda lib, st, st2, v, b: lib.sparse_segment_sum(
        b, [0, 1], [0, 2], num_segments=4),
    "namespace": lambda lib, st, st2, v, b: lib.sparse.matmul(lib.sparse.reorder(st), b),
}


def _run(lib, case):
    with lib.Graph().as_default():
        v = lib.placeholder(lib.float64, [3])
        b = lib.placeholder(lib.float64, [4, 2])
        st = lib.SparseTensor(IND, v, [3, 4])
        st2 = lib.SparseTensor(IND2, lib.constant([5.0, -3.0], lib.float64), [3, 4])
        out = CASES[case](lib, st, st2, v, b)
        outs = out if isinstance(out, list) else [out]
        targets = [o for o in outs if o.dtype.is_floating]
        loss = lib.add_n([lib.reduce_sum(o * o) for o in targets])
        try:
            grads = [g for g in lib.gradients(loss, [v, b]) if g is not None]
        except LookupError:  # an op TF gives no gradient (SparseSplit)
            grads = []
        with lib.Session() as sess:
            values = sess.run(outs + [lib.convert_to_tensor(g) for g in grads],
                              {v: VALS, b: B})
        return values, [o.shape.as_list() if o.shape.ndims is not None else None
                        for o in outs], [o.dtype.name for o in outs], len(grads)


@pytest.mark.parametrize("case", sorted(CASES))
def test_sparse_ops_match_tf(case):
    ours, theirs = _run(tf, case), _run(tf1, case)
    assert ours[1:] == theirs[1:]  # static shapes, dtypes, which inputs get gradients
    for a, b in zip(ours[0], theirs[0]):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_allclose(a, b, rtol=1e-12)


def _placeholder_round_trip(lib, feed_kind):
    with lib.Graph().as_default() as g:
        sp = lib.sparse_placeholder(lib.float32, shape=[3, 4], name="sp")
        anon = lib.sparse_placeholder(lib.float32)
        total = lib.sparse_reduce_sum(sp) + lib.sparse_reduce_sum(anon)
        doubled = lib.SparseTensor(sp.indices, sp.values * 2, sp.dense_shape)
        value = lib.SparseTensorValue([[0, 0], [2, 3]], [7.0, 1.5], [3, 4])
        if feed_kind == "tuple":
            value = tuple(value)
        feed = {sp: value, anon: ([[1]], [2.0], [5])}
        nodes = [(n.name, n.op) for n in g.as_graph_def().node]
        with lib.Session() as sess:
            t, d = sess.run([total, doubled], feed)
            const = sess.run(lib.SparseTensor([[0, 1]], [4], [2, 2]))
        return float(t), type(d).__name__, d.indices.tolist(), d.values.tolist(), \
            d.dense_shape.tolist(), type(const).__name__, const.values.dtype.name, \
            sp.shape.as_list(), anon.shape.ndims, nodes


@pytest.mark.parametrize("feed_kind", ["value", "tuple"])
def test_sparse_placeholder_feed_and_fetch_match_tf(feed_kind):
    assert _placeholder_round_trip(tf, feed_kind) == _placeholder_round_trip(tf1, feed_kind)


def test_sparse_tensor_construction_matches_tf():
    def build(lib):
        with lib.Graph().as_default() as g:
            st = lib.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
            st.set_shape([3, None])
            with pytest.raises(ValueError):
                st.set_shape([2, 4])
            return [(n.name, n.op) for n in g.as_graph_def().node], str(st.shape), \
                st.dtype.name, st.indices.dtype.name, st.dense_shape.dtype.name, \
                isinstance(st, lib.SparseTensor)

    assert build(tf) == build(tf1)


ERRORS = {
    "to_dense_unordered": lambda lib: lib.sparse_tensor_to_dense(
        lib.SparseTensor([[1, 0], [0, 1]], [1.0, 2.0], [2, 2])),
    "to_dense_repeated": lambda lib: lib.sparse_to_dense([[0, 1], [0, 1]], [2, 2], 1.0),
    "matmul_out_of_bounds": lambda lib: lib.sparse_tensor_dense_matmul(
        lib.SparseTensor([[0, 5]], [1.0], [2, 3]), np.ones((3, 2), np.float32)),
    "fill_empty_rows_bad_row": lambda lib: lib.sparse_fill_empty_rows(
        lib.SparseTensor([[4, 0]], [1.0], [2, 2]), 0.0)[1],
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_sparse_errors_match_tf(case):
    messages = {}
    for lib in (tf, tf1):
        graph = lib.Graph()
        with graph.as_default():
            out = ERRORS[case](lib)
        try:
            lib.Session(graph=graph).run(out)
        except lib.errors.OpError as e:  # TF wraps the kernel's message in node details
            messages[lib] = (type(e).__name__, e.message)
    assert messages[tf][0] == messages[tf1][0] == "InvalidArgumentError"
    assert messages[tf][1].split("\n")[0] in messages[tf1][1]
