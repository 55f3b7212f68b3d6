"""Reference tier: TensorArray, tf.nn.rnn_cell and the RNN drivers against TensorFlow's
compat.v1 with control flow v1: values, shapes, gradients (through while loops), variable
and node names, and a TF dynamic_rnn GraphDef imported and run.  Skipped without
TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
# TF's own copy of the TF1 cells (Keras 3 hides tf.compat.v1.nn.rnn_cell).
tf_cells = pytest.importorskip("tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl")

RNG = np.random.default_rng(3)


pytestmark = pytest.mark.usefixtures("tf_control_flow_v1")


def _flat(x):
    if isinstance(x, dict):
        return [v for k in sorted(x) for v in _flat(x[k])]
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _flat(item)]
    return [x]


def _session(lib):
    return tf.Session() if lib is tf else tf1.Session()


def _run(lib, build):
    with (tf.Graph() if lib is tf else tf_ref.Graph()).as_default() as g:
        fetches = build(lib)
        with _session(lib) as sess:
            values = sess.run(fetches)
        return values, fetches, g


# -- TensorArray ---------------------------------------------------------------------

X = RNG.standard_normal((4, 3)).astype(np.float32)
W = RNG.standard_normal((3, 3)).astype(np.float32)
X6 = RNG.standard_normal((6, 2)).astype(np.float32)


def _ta_write_read(lib):
    ta = lib.TensorArray(lib.float32, size=3)
    ta = ta.write(0, [1., 2.]).write(2, [5., 6.])
    return [ta.read(2), ta.read(1), ta.size()]


def _ta_unstack_stack(lib):
    x = lib.constant(X)
    ta = lib.TensorArray(lib.float32, size=4).unstack(x)
    s = ta.stack()
    return [s, lib.gradients(lib.reduce_sum(s * s), x)[0]]


def _ta_gather_scatter(lib):
    x = lib.constant(X)
    ta = lib.TensorArray(lib.float32, size=6, clear_after_read=False)
    ta = ta.scatter([5, 0, 2, 3], x)
    g = ta.gather([3, 5])
    return [g, ta.stack(), lib.gradients(lib.reduce_sum(g * 3.), x)[0]]


def _ta_split_concat(lib):
    x = lib.constant(X6)
    ta = lib.TensorArray(lib.float32, size=3, infer_shape=False).split(x, [1, 3, 2])
    c = ta.concat()
    return [c, lib.gradients(lib.reduce_sum(c * c), x)[0]]


def _ta_dynamic_size(lib):
    ta = lib.TensorArray(lib.int32, size=0, dynamic_size=True)
    ta = ta.write(0, 7).write(4, 9)
    return [ta.size(), ta.read(4)]


def _ta_element_shape(lib):
    ta = lib.TensorArray(lib.float32, size=2, element_shape=[2], clear_after_read=False)
    ta = ta.write(0, [1., 2.])
    return [ta.stack(), ta.concat()]


def _ta_while_loop(lib):
    x = lib.constant(X)
    w = lib.constant(W)
    inp = lib.TensorArray(lib.float32, size=4).unstack(x)
    out = lib.TensorArray(lib.float32, size=4)

    def body(i, h, out):
        h = lib.tanh(lib.matmul(lib.expand_dims(inp.read(i), 0), w) + h)
        return i + 1, h, out.write(i, lib.reshape(h, [3]))

    _, h, out = lib.while_loop(lambda i, *_: i < 4, body,
                               [0, lib.zeros([1, 3]), out])
    y = out.stack()
    loss = lib.reduce_sum(y * y) + lib.reduce_sum(h)
    return [y, h] + lib.gradients(loss, [x, w])


def _ta_while_dynamic(lib):
    x = lib.constant(X)
    inp = lib.TensorArray(lib.float32, size=4).unstack(x)
    out = lib.TensorArray(lib.float32, size=0, dynamic_size=True, element_shape=[3])

    def body(i, out):
        return i + 1, out.write(i, inp.read(i) * lib.cast(i + 1, lib.float32))

    _, out = lib.while_loop(lambda i, _: i < 3, body, [0, out])
    y = out.stack()
    return [y, out.size(), lib.gradients(lib.reduce_sum(y), x)[0]]


def _ta_graph(lib):
    x = lib.constant(X)
    ta = lib.TensorArray(lib.float32, size=4).unstack(x)
    y = ta.stack() * 2.0
    return [y, lib.TensorArray(lib.float32, size=2).write(1, y[0]).read(1),
            lib.gradients(y, x)[0]]


TA_CASES = {
    "write_read": _ta_write_read,
    "graph": _ta_graph,
    "unstack_stack": _ta_unstack_stack,
    "gather_scatter": _ta_gather_scatter,
    "split_concat": _ta_split_concat,
    "dynamic_size": _ta_dynamic_size,
    "element_shape": _ta_element_shape,
    "while_loop": _ta_while_loop,
    "while_dynamic": _ta_while_dynamic,
}


@pytest.mark.parametrize("case", sorted(TA_CASES))
def test_tensor_array_matches_tf(case):
    got, ours, _ = _run(tf, TA_CASES[case])
    want, theirs, _ = _run(tf1, TA_CASES[case])
    for g, w, o, t in zip(got, want, ours, theirs):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
        assert o.shape.dims is None if t.shape.dims is None else \
            o.shape.as_list() == t.shape.as_list(), (o, t)


def _ops(g):
    return [(n.name, n.op) for n in g.as_graph_def().node if "TensorArray" in n.name]


def test_tensor_array_graph_names_and_attrs_match_tf():
    _, _, ours = _run(tf, _ta_graph)
    _, _, theirs = _run(tf1, _ta_graph)
    assert _ops(ours) == _ops(theirs)
    ta = {n.name: n for n in ours.as_graph_def().node}["TensorArray"]
    ref = {n.name: n for n in theirs.as_graph_def().node}["TensorArray"]
    for attr in ("dtype", "element_shape", "dynamic_size", "clear_after_read",
                 "identical_element_shapes", "tensor_array_name"):
        assert ta.attr[attr].SerializeToString() == ref.attr[attr].SerializeToString(), attr


@pytest.mark.parametrize("build, message", [
    (lambda lib: lib.TensorArray(lib.float32, size=2, tensor_array_name="foo")
     .write(0, 1.).write(0, 2.).stack(), "because it has already been written to"),
    (lambda lib: lib.TensorArray(lib.float32, size=2).read(3),
     "Tried to read from index 3 but array size is: 2"),
    (lambda lib: lib.TensorArray(lib.float32, size=2).write(3, 1.).stack(),
     "Tried to write to index 3 but array is not resizeable and size is: 2"),
    (lambda lib: lib.TensorArray(lib.float32, size=0, dynamic_size=True).stack(),
     "TensorArray has size zero, but element shape <unknown> is not fully defined"),
])
def test_tensor_array_errors_match_tf(build, message):
    for lib in (tf, tf1):
        with (tf.Graph() if lib is tf else tf_ref.Graph()).as_default():
            out = build(lib)
            with _session(lib) as sess, pytest.raises(
                    (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError,
                     tf_ref.errors.InvalidArgumentError, tf_ref.errors.UnimplementedError),
                    match=message) as info:
                sess.run(out)
            assert type(info.value).__name__ in ("InvalidArgumentError", "UnimplementedError")


# -- RNN cells and drivers -------------------------------------------------------------

B, T, D = 3, 4, 2


def _cells(m, kind):
    return {
        "basic_rnn": lambda: m.BasicRNNCell(5),
        "lstm": lambda: m.BasicLSTMCell(4),
        "lstm_peep_proj": lambda: m.LSTMCell(4, use_peepholes=True, num_proj=3,
                                            cell_clip=0.8, proj_clip=0.5),
        "gru": lambda: m.GRUCell(4),
        "multi_lstm": lambda: m.MultiRNNCell([m.BasicLSTMCell(4), m.BasicLSTMCell(3)]),
        "dropout_residual": lambda: m.ResidualWrapper(
            m.DropoutWrapper(m.BasicRNNCell(D), input_keep_prob=1.0)),
    }[kind]()


# (cell, driver, sequence_length, time_major)
RNN_CASES = [
    ("basic_rnn", "dynamic", None, False),
    ("basic_rnn", "dynamic", [4, 2, 1], True),
    ("lstm", "dynamic", None, False),
    ("lstm", "dynamic", [3, 4, 2], False),
    ("lstm_peep_proj", "dynamic", [2, 4, 4], False),
    ("gru", "dynamic", None, True),
    ("gru", "dynamic", [1, 3, 4], False),
    ("multi_lstm", "dynamic", [4, 1, 3], False),
    ("dropout_residual", "dynamic", None, False),
    ("lstm", "bidirectional", [4, 2, 3], False),
    ("gru", "bidirectional", None, True),
    ("lstm", "static", None, False),
    ("gru", "static", [2, 4, 3], False),
    ("lstm", "static_bidirectional", [3, 1, 4], False),
]


def _rnn_model(lib, cell_kind, driver, seq_len, time_major, x_value):
    m = tf.nn.rnn_cell if lib is tf else tf_cells
    x = lib.constant(x_value)
    kwargs = {"dtype": lib.float32}
    if seq_len is not None:
        kwargs["sequence_length"] = lib.constant(seq_len)
    if driver == "dynamic":
        out, state = lib.nn.dynamic_rnn(_cells(m, cell_kind), x, time_major=time_major,
                                        **kwargs)
    elif driver == "bidirectional":
        out, state = lib.nn.bidirectional_dynamic_rnn(
            _cells(m, cell_kind), _cells(m, cell_kind), x, time_major=time_major, **kwargs)
    else:
        steps = lib.unstack(x, axis=0 if time_major else 1)
        if driver == "static":
            out, state = lib.nn.static_rnn(_cells(m, cell_kind), steps, **kwargs)
        else:
            out, s_fw, s_bw = lib.nn.static_bidirectional_rnn(
                _cells(m, cell_kind), _cells(m, cell_kind), steps, **kwargs)
            state = (s_fw, s_bw)
    flat = _flat(out) + _flat(state)
    # A loss touching every output and state with distinct weights.
    loss = lib.add_n([lib.reduce_sum(t * (1.0 + 0.1 * i)) for i, t in enumerate(flat)])
    variables = sorted(lib.trainable_variables(), key=lambda v: v.name)
    grads = lib.gradients(loss, [x] + variables)
    return flat, grads, variables


@pytest.mark.parametrize("cell_kind, driver, seq_len, time_major", RNN_CASES,
                         ids=[f"{c}-{d}-{'len' if s else 'full'}-{'tm' if t else 'bm'}"
                              for c, d, s, t in RNN_CASES])
def test_rnn_matches_tf(cell_kind, driver, seq_len, time_major):
    shape = (T, B, D) if time_major else (B, T, D)
    x_value = RNG.standard_normal(shape).astype(np.float32)
    with tf_ref.Graph().as_default():
        flat, grads, variables = _rnn_model(tf1, cell_kind, driver, seq_len, time_major,
                                            x_value)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            want_vars = {v.name: sess.run(v) for v in variables}
            want, want_grads = sess.run([flat, grads])
        want_shapes = [t.shape.as_list() for t in flat]
    with tf.Graph().as_default():
        flat, grads, variables = _rnn_model(tf, cell_kind, driver, seq_len, time_major,
                                            x_value)
        assert [v.name for v in variables] == sorted(want_vars)
        loads = [v.assign(want_vars[v.name]) for v in variables]
        with tf.Session() as sess:
            sess.run(loads)
            got, got_grads = sess.run([flat, grads])
        assert [t.shape.as_list() for t in flat] == want_shapes
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    for g, w in zip(got_grads, want_grads):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_rnn_cell_variable_and_node_names_match_tf():
    def build(lib):
        m = tf.nn.rnn_cell if lib is tf else tf_cells
        x = lib.placeholder(lib.float32, [B, T, D])
        cells = [m.LSTMCell(3, use_peepholes=True, num_proj=2), m.GRUCell(2)]
        out, _ = lib.nn.dynamic_rnn(m.MultiRNNCell(cells), x, dtype=lib.float32)
        lib.nn.dynamic_rnn(m.BasicLSTMCell(2), out, dtype=lib.float32, scope="second")
        lib.nn.static_rnn(m.MultiRNNCell([m.GRUCell(2), m.BasicRNNCell(2)]),
                          lib.unstack(x, axis=1), dtype=lib.float32, scope="unrolled")
        return lib.global_variables()

    with tf_ref.Graph().as_default() as theirs:
        want = [v.name for v in build(tf1)]
    with tf.Graph().as_default() as ours:
        got = [v.name for v in build(tf)]
    assert got == want
    assert "rnn/multi_rnn_cell/cell_0/lstm_cell/projection/kernel:0" in got
    assert "rnn/multi_rnn_cell/cell_1/gru_cell/gates/kernel:0" in got
    # The cell's ops live in the loop's name scope, as TF's.
    ref_names = {n.name for n in theirs.as_graph_def().node}
    our_names = {n.name for n in ours.as_graph_def().node}
    for name in ("rnn/while/rnn/multi_rnn_cell/cell_0/lstm_cell/MatMul",
                 "rnn/while/rnn/multi_rnn_cell/cell_1/gru_cell/MatMul_1",
                 "second/while/basic_lstm_cell/MatMul",
                 "unrolled/unrolled/multi_rnn_cell/cell_1/basic_rnn_cell/MatMul_3"):
        assert name in ref_names, name
    var_ops = tuple(v.rsplit(":", 1)[0] for v in want)

    def cell_ops(names):
        # Variables' own nodes differ (TF 2 builds resource variables); the rest match.
        return sorted(n for n in names if "cell" in n and not n.startswith(var_ops))

    assert cell_ops(our_names) == cell_ops(ref_names)


def test_tf_dynamic_rnn_graph_def_imports_and_runs():
    x_value = RNG.standard_normal((B, T, D)).astype(np.float32)
    with tf_ref.Graph().as_default() as g:
        x = tf1.placeholder(tf1.float32, [B, T, D], name="x")
        out, state = tf1.nn.dynamic_rnn(tf_cells.BasicLSTMCell(4), x, dtype=tf1.float32,
                                        sequence_length=[4, 2, 3])
        loss = tf1.reduce_sum(out * out) + tf1.reduce_sum(state.c)
        grad = tf1.identity(tf1.gradients(loss, x)[0], name="grad_x")
        fetches = [out.name, state.c.name, state.h.name, grad.name]
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            want = sess.run(fetches, {x: x_value})
            frozen = tf1.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), [n.split(":")[0] for n in fetches])
    types = {n.op for n in frozen.node}
    assert {"TensorArrayV3", "TensorArrayScatterV3", "TensorArrayReadV3",
            "TensorArrayWriteV3", "TensorArrayGatherV3", "TensorArrayGradV3",
            "StackPushV2", "Enter", "Exit"} <= types
    with tf.Graph().as_default():
        tf.import_graph_def(tf.GraphDef.FromString(frozen.SerializeToString()), name="")
        with tf.Session() as sess:
            got = sess.run(fetches, {"x:0": x_value})
    for g_, w in zip(got, want):
        np.testing.assert_allclose(g_, w, rtol=1e-5, atol=1e-5)
