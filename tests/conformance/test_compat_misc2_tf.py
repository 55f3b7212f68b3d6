"""Reference tier: top-level TF1 names added late, against TensorFlow's compat.v1 in graph
mode — assert_variables_initialized, matrix_square_root / linalg.sqrtm, approx_top_k and
the N-d FFTs (TF's CPU build has no FFTND kernels: their graphs are compared with TF's,
their values with numpy's fftn, as TF's GPU kernels compute them). Skipped without
TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

_X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 7 - 2.5
_SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])


def _assert_initialized(t):
    v = t.Variable(1.0, name="v", use_resource=False)
    w = t.Variable([2.0], name="w", use_resource=False)
    both, one = t.assert_variables_initialized(), t.assert_variables_initialized([v])
    names = (both.name, one.name, [i.op.inputs[0].name for i in both.op.inputs])
    return names, [both, one], t.global_variables_initializer(), w


def _run(t, build):
    with t.Graph().as_default():
        out = build(t)
        with t.Session() as sess:
            if isinstance(out, tuple) and len(out) == 4:  # (static, fetches, init, var)
                static, fetches, init, _ = out
                try:
                    sess.run(fetches)
                    failed = None
                except t.errors.FailedPreconditionError as e:
                    failed = "uninitialized value" in e.message
                sess.run(init)
                return static, failed, sess.run(fetches)
            return [(x.name, x.dtype.name, x.shape.as_list()) for x in out], sess.run(out)


CASES = {
    "assert_variables_initialized": _assert_initialized,
    "matrix_square_root": lambda t: [t.matrix_square_root(_SPD, name="msr"),
                                     t.linalg.sqrtm(_SPD.astype(np.float32))],
    "approx_top_k": lambda t: list(t.approx_top_k(_X, 2)) + list(
        t.approx_top_k(_X[0], 4, recall_target=0.5, name="top4")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_tensorflow(case):
    ours, ref = _run(tf, CASES[case]), _run(tf1, CASES[case])
    assert ours[:-1] == ref[:-1]
    for a, b in zip(ours[-1], ref[-1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _ffts(t):
    c = t.cast(_X, t.complex64)
    return [t.fftnd(c, [3, 6], [-2, -1]), t.ifftnd(c, [2, 4], [0, 2], name="inv"),
            t.rfftnd(_X.astype(np.float64), [3, 4], [1, 2], Tcomplex=t.complex128),
            t.irfftnd(c, [3, 6], [1, 2]), t.fftnd(c, [2], [2])]


def test_fftnd_graphs_match_tensorflow_and_values_numpy():
    with tf1.Graph().as_default() as g:
        ref = _ffts(tf1)
        ref_graph = [(x.name, x.dtype.name, x.shape.as_list()) for x in ref]
        ref_nodes = {n.name: (n.op, list(n.input), sorted(n.attr)) for n in
                     g.as_graph_def().node}
    with tf.Graph().as_default() as g:
        ours = _ffts(tf)
        assert [(x.name, x.dtype.name, x.shape.as_list()) for x in ours] == ref_graph
        assert {n.name: (n.op, list(n.input), sorted(n.attr)) for n in
                g.as_graph_def().node} == ref_nodes
        with tf.Session() as sess:
            values = sess.run(ours)
    c = _X.astype(np.complex64)
    expected = [np.fft.fftn(c, [3, 6], [-2, -1]), np.fft.ifftn(c, [2, 4], [0, 2]),
                np.fft.rfftn(_X.astype(np.float64), [3, 4], [1, 2]),
                np.fft.irfftn(c, [3, 6], [1, 2]), np.fft.fftn(c, [2], [2])]
    for got, want, dtype in zip(values, expected, ["complex64", "complex64", "complex128",
                                                   "float32", "complex64"]):
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


_AUDIO = np.array([[0.0, -1.0], [0.5, 0.25], [1.5, -2.0], [0.3333, -0.00002],
                   [1 / 65536, -1 / 65536]], np.float32)


def _wav_case(t):
    """(encoded bytes, decodes of them and of a JUNK-prefixed 18-byte-fmt file, errors)."""
    wav = t.audio.encode_wav(_AUDIO, 16000)
    contents = t.placeholder(t.string, [])
    decodes = [t.audio.decode_wav(contents),
               t.audio.decode_wav(contents, desired_channels=3, desired_samples=7),
               t.audio.decode_wav(contents, desired_channels=1, desired_samples=2)]
    static = [(d.audio.name, d.audio.shape.as_list(), d.sample_rate.shape.as_list())
              for d in decodes]
    with t.Session() as sess:
        data = sess.run(wav)
        junk = data[:12] + b"JUNK\x02\x00\x00\x00ab" + data[12:16] + b"\x12\x00\x00\x00" + \
            data[20:36] + b"\x00\x00" + data[36:]
        values = [sess.run(list(d), {contents: c}) for d in decodes for c in (data, junk)]
        errors = []
        for bad in (b"RIFX" + data[4:], data[:40], data[:20] + b"\x03" + data[21:],
                    data[:34] + b"\x08" + data[35:], data + b"data\x00\x00\x00\x00"):
            try:
                sess.run(decodes[0].audio, {contents: bad})
                errors.append(None)
            except t.errors.InvalidArgumentError as e:
                errors.append(e.message)
    return data, static, values, errors


def test_audio_wav_matches_tensorflow():
    with tf.Graph().as_default():
        ours = _wav_case(tf)
    with tf1.Graph().as_default():
        ref = _wav_case(tf1)
    assert ours[0] == ref[0] and ours[1] == ref[1]
    for (a, ra), (b, rb) in zip(ours[2], ref[2]):
        np.testing.assert_array_equal(a, b)
        assert ra == rb
    assert [e is None for e in ours[3]] == [e is None for e in ref[3]]
    for mine, theirs in zip(ours[3], ref[3]):
        assert theirs is None or mine.splitlines()[0] in theirs


def test_resource_loader_matches_tensorflow(tmp_path):
    here = os.path.dirname(os.path.abspath(__file__))
    rl, ref = tf.resource_loader, tf1.resource_loader
    assert rl.get_data_files_path() == ref.get_data_files_path() == here
    assert rl.get_path_to_datafile("a/b.txt") == ref.get_path_to_datafile("a/b.txt")
    assert rl.readahead_file_path("/x/y") == ref.readahead_file_path("/x/y") == "/x/y"
    assert rl.get_root_dir_with_all_resources() == os.path.dirname(tf.platform.__file__)
    assert rl.load_resource("resource_loader.py") == open(
        os.path.join(os.path.dirname(tf.platform.__file__), "resource_loader.py"), "rb").read()
    with pytest.raises(OSError):
        rl.load_resource(str(tmp_path / "missing"))


def _creator_case(t):
    log = []

    def outer(next_creator, **kwargs):
        log.append(("outer", kwargs["name"], kwargs["trainable"], sorted(kwargs)))
        return next_creator(**kwargs)

    def inner(next_creator, **kwargs):
        log.append(("inner", kwargs["name"], kwargs["initial_value"] is not None))
        kwargs["name"] = (kwargs["name"] or "anon") + "_x"
        kwargs["trainable"] = False
        return next_creator(**kwargs)

    with t.variable_creator_scope(outer):
        a = t.Variable(1.0, name="a", use_resource=False)
        with t.variable_scope("s", use_resource=False), t.variable_creator_scope(inner):
            b = t.Variable([2.0], use_resource=False)
            c = t.get_variable("c", [2])
    d = t.Variable(3.0, name="d", use_resource=False)
    made = [(v.name, v.op.type, v.shape.as_list()) for v in (a, b, c, d)]
    return log, made, [v.name for v in t.trainable_variables()]


def test_variable_creator_scope_matches_tensorflow():
    with tf.Graph().as_default():
        ours = _creator_case(tf)
    with tf1.Graph().as_default():
        ref = _creator_case(tf1)
    assert ours == ref


def _session_handle_case(t):
    c = t.multiply(t.constant(10.0), t.constant(5.0))
    h = t.get_session_handle(c)
    out = [h.name, list(h.op.node_def.attr["_class"].list.s)]
    with t.Session() as sess:
        hv = sess.run(h)
        p, x = t.get_session_tensor(hv.handle, t.float32)
        y = x * 2
        out += [type(hv).__name__, hv.handle, str(hv), x.name, x.op.device, p.op.device]
        out.append(sess.run(y, {p: hv.handle}))
        hv2 = sess.run(t.get_session_handle(y), {p: hv.handle})
        dp, d = t.delete_session_tensor(hv.handle)
        sess.run(d, {dp: hv.handle})
        for fetch, holder in ((y, p), (d, dp)):
            try:
                sess.run(fetch, {holder: hv.handle})
            except t.errors.InvalidArgumentError as e:
                out.append([line for line in e.message.splitlines() if "store" in line])
        out += [hv2.handle, sess.run(y, {p: hv2.handle})]
    return out


def test_session_handles_match_tensorflow():
    with tf.Graph().as_default():
        ours = _session_handle_case(tf)
    with tf1.Graph().as_default():
        ref = _session_handle_case(tf1)
    assert ours == ref


def test_tensor_handle_eval_delete_and_feed():
    with tf.Graph().as_default(), tf.Session() as sess:
        hv = sess.run(tf.get_session_handle(tf.constant([1.0, 2.0])))
        np.testing.assert_array_equal(hv.eval(), [1.0, 2.0])
        z = tf.placeholder(tf.float32, [2])
        np.testing.assert_array_equal(sess.run(z * 3, {z: hv}), [3.0, 6.0])
        hv.delete()
        with pytest.raises(TypeError, match="may have already been deleted"):
            hv.eval()


def _ragged_fill_case(t):
    values = t.constant([10.0, 20.0, 30.0, 40.0])
    default = t.constant(-1.0)
    r = t.ragged_fill_empty_rows(t.constant([3, 1, 1, 5], t.int64), values,
                                 t.constant(7, t.int64), default)
    g = t.ragged_fill_empty_rows_grad(r.reverse_index_map, t.range(8.0) * 1.5)
    grads = t.gradients(t.reduce_sum(r.output_values * t.range(1.0, 9.0)), [values, default])
    bad = t.ragged_fill_empty_rows(t.constant([0, 4], t.int64), values[:2],
                                   t.constant(3, t.int64), default)
    static = [(x.name, x.shape.as_list()) for x in list(r) + list(g)]
    with t.Session() as sess:
        out = sess.run([list(r), list(g), grads])
        try:
            sess.run(bad.output_values)
            err = None
        except t.errors.InvalidArgumentError as e:
            err = "is invalid" in e.message
    return static, out, err


def test_ragged_fill_empty_rows_matches_tensorflow():
    with tf.Graph().as_default():
        ours = _ragged_fill_case(tf)
    with tf1.Graph().as_default():
        ref = _ragged_fill_case(tf1)
    assert ours[0] == ref[0] and ours[2] == ref[2]
    for a, b in zip(tf.nest.flatten(ours[1]), tf.nest.flatten(ref[1])):
        np.testing.assert_array_equal(a, b)


def _check_pinned_case(t):
    with t.Graph().as_default():
        y = t.check_pinned(t.constant([1.0, 2.0]), name="pin")
    with t.Session(graph=y.graph) as sess:
        try:
            sess.run(y)
            return y.name, y.shape.as_list(), None
        except t.errors.OpError as e:
            return y.name, y.shape.as_list(), type(e).__name__


def test_check_pinned_matches_tensorflow():
    # Both CPU-only here: TF's build has no CUDA, graphcore has no GPU (FailedPrecondition).
    from graphcore.kernels.gpu_kernels import AVAILABLE

    if AVAILABLE:
        pytest.skip("a GPU is visible: a host constant is not pinned (InvalidArgument)")
    assert _check_pinned_case(tf) == _check_pinned_case(tf1) == (
        "pin:0", [2], "FailedPreconditionError")


def test_mixed_precision_and_types_namespaces_match_tensorflow():
    mp, ref = tf.mixed_precision, tf1.mixed_precision
    public = {n for n in dir(ref) if not n.startswith("_")}
    assert public <= set(dir(mp))
    assert {n for n in dir(ref.experimental) if not n.startswith("_")} <= set(
        dir(mp.experimental))
    assert mp.FixedLossScale is tf.train.experimental.FixedLossScale
    scale = mp.experimental.FixedLossScale(128.0)
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(scale()) == 128.0
    assert tf.Tensor in tf.types.experimental.TensorLike.__args__
