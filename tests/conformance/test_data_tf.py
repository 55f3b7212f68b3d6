"""Reference tier: tf.data in graph mode against TensorFlow's compat.v1 — the same
element sequences from the same pipelines (multisets where shuffled), OutOfRangeError at
the end, output types/shapes, node names and op types of the dataset ops, the FunctionDef
a map traces, TFRecord files written by TF, and iterators by structure and string handle.
Skipped without TensorFlow."""

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
_spec = importlib.util.spec_from_file_location(
    "pipeline_values", Path(__file__).resolve().parent / "pipeline_values.py")
_values = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_values)
_plain = _values.plain
tf1 = tf_ref.compat.v1
tf1.disable_eager_execution()
tf_ref.autograph.set_verbosity(0)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("data")
    with tf_ref.io.TFRecordWriter(str(tmp / "a.tfrecord")) as w:
        for i in range(3):
            w.write(b"a%d" % i)
    with tf_ref.io.TFRecordWriter(str(tmp / "b.tfrecord.gz"), "GZIP") as w:
        for i in range(2):
            w.write(b"b%d" % i)
    (tmp / "x.txt").write_bytes(b"one\ntwo\r\n\nfour")
    (tmp / "y.txt").write_bytes(b"five\n")
    (tmp / "f.bin").write_bytes(b"HH012345678F")
    (tmp / "g.bin").write_bytes(b"HH0123F")
    return tmp


def _gen():
    for i in range(3):
        yield i, b"s%d" % i


def _bad_gen():
    yield [1, 2, 3]


def _slices(lib, tmp):
    return lib.data.Dataset.from_tensor_slices(
        (np.arange(4), np.array([b"a", b"b", b"c", b"d"])))


CASES = {
    "range": lambda t, p: t.data.Dataset.range(2, 9, 3),
    "from_tensors": lambda t, p: t.data.Dataset.from_tensors(([1, 2], "x")).repeat(2),
    "slices_tuple": _slices,
    "slices_dict": lambda t, p: t.data.Dataset.from_tensor_slices(
        {"a": [1, 2], "b": [[1.5], [2.5]]}),
    "map": lambda t, p: t.data.Dataset.range(5).map(lambda x: x * x + 1),
    "map_tuple": lambda t, p: _slices(t, p).map(lambda i, s: (s, i * 2)),
    "map_dict_out": lambda t, p: t.data.Dataset.range(3).map(
        lambda x: {"x": x, "y": t.cast(x, t.float32) / 2}),
    "map_parallel": lambda t, p: t.data.Dataset.range(6).map(lambda x: x + 1,
                                                             num_parallel_calls=3),
    "filter": lambda t, p: t.data.Dataset.range(10).filter(lambda x: x % 3 > 0),
    "flat_map": lambda t, p: t.data.Dataset.range(4).flat_map(
        lambda x: t.data.Dataset.range(x)),
    "interleave": lambda t, p: t.data.Dataset.range(1, 4).interleave(
        lambda x: t.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=2),
    "batch": lambda t, p: t.data.Dataset.range(7).batch(3),
    "batch_drop": lambda t, p: t.data.Dataset.range(7).batch(3, drop_remainder=True),
    "padded_batch": lambda t, p: t.data.Dataset.range(5).map(
        lambda x: t.fill([x], x)).padded_batch(2, padded_shapes=[None]),
    "padded_batch_fixed": lambda t, p: t.data.Dataset.range(3).map(
        lambda x: t.fill([x], x)).padded_batch(2, padded_shapes=[4],
                                         padding_values=t.constant(-1, t.int64)),
    "unbatch": lambda t, p: t.data.Dataset.range(6).batch(4).unbatch(),
    "repeat_take_skip": lambda t, p: t.data.Dataset.range(3).repeat(3).skip(2).take(5),
    "prefetch_cache": lambda t, p: t.data.Dataset.range(4).cache().prefetch(2).repeat(2),
    "concatenate": lambda t, p: t.data.Dataset.range(2).concatenate(
        t.data.Dataset.range(5, 7)),
    "zip": lambda t, p: t.data.Dataset.zip((t.data.Dataset.range(3),
                                            t.data.Dataset.range(10, 20))),
    "enumerate": lambda t, p: t.data.Dataset.from_tensor_slices([b"x", b"y"]).enumerate(3),
    "tfrecord": lambda t, p: t.data.TFRecordDataset([str(p / "a.tfrecord")]),
    "tfrecord_gzip": lambda t, p: t.data.TFRecordDataset(str(p / "b.tfrecord.gz"),
                                                         compression_type="GZIP"),
    "text_lines": lambda t, p: t.data.TextLineDataset([str(p / "x.txt"), str(p / "y.txt")]),
    "fixed_length": lambda t, p: t.data.FixedLengthRecordDataset(
        str(p / "f.bin"), 3, header_bytes=2, footer_bytes=1),
    "fixed_length_bad": lambda t, p: t.data.FixedLengthRecordDataset(str(p / "g.bin"), 3,
                                                                      header_bytes=2,
                                                                      footer_bytes=1),
    "from_generator": lambda t, p: t.data.Dataset.from_generator(
        _gen, (t.int64, t.string), ([], [])).repeat(2),
    "from_generator_bad_shape": lambda t, p: t.data.Dataset.from_generator(
        _bad_gen, t.int32, [2]),
    "batch_mismatch": lambda t, p: t.data.Dataset.range(4).map(
        lambda x: t.fill([x], x)).batch(2),
    "group_by_window": lambda t, p: t.data.Dataset.range(11).apply(
        t.data.experimental.group_by_window(lambda x: x % 3, lambda k, w: w.batch(2),
                                            window_size=2)),
    "group_by_window_size_func": lambda t, p: t.data.Dataset.range(12).map(
        lambda x: (x, t.fill([x % 4], x))).group_by_window(
        lambda x, v: t.size(v, out_type=t.int64), lambda k, w: w.padded_batch(
            3, ([], [None])).map(lambda x, v: (x + 100 * k, v)),
        window_size_func=lambda k: k + 1),
    "shard": lambda t, p: t.data.Dataset.range(10).shard(3, 2),
    "bucket_by_sequence_length": lambda t, p: t.data.Dataset.range(1, 12).map(
        lambda x: t.fill([x % 7], x)).apply(t.data.experimental.bucket_by_sequence_length(
            lambda x: t.size(x), [2, 4], [2, 3, 2])),
    "bucket_pad_to_boundary": lambda t, p: t.data.Dataset.range(1, 9).map(
        lambda x: (t.fill([x % 5], x), x)).bucket_by_sequence_length(
        lambda x, y: t.size(x), [3, 6], [2, 2, 1], pad_to_bucket_boundary=True,
        padding_values=(t.constant(-1, t.int64), t.constant(0, t.int64))),
    # an outer constant captured by map, one captured through flat_map's inner map
    "map_captures": lambda t, p: (lambda c: t.data.Dataset.range(4).map(lambda x: x * c)
                                  .flat_map(lambda y: t.data.Dataset.range(2).map(
                                      lambda z: z + y + c)))(t.constant(3, t.int64)),
}

SHUFFLED = {
    "shuffle": lambda t, p: t.data.Dataset.range(8).shuffle(4, seed=5),
    "shuffle_repeat": lambda t, p: t.data.Dataset.range(5).shuffle(
        5, reshuffle_each_iteration=False).repeat(2),
}


def _drain(lib, build, tmp, one_shot=True):
    with lib.Graph().as_default():
        dataset = build(lib, tmp)
        types = lib.data.get_output_types(dataset)
        shapes = lib.data.get_output_shapes(dataset)
        if one_shot:
            iterator = lib.data.make_one_shot_iterator(dataset)
        else:
            iterator = lib.data.make_initializable_iterator(dataset)
        nxt = iterator.get_next()
        out = []
        with lib.Session() as sess:
            if not one_shot:
                sess.run(iterator.initializer)
            try:
                for _ in range(100):
                    out.append(_plain(sess.run(nxt)))
                end = None
            except lib.errors.OutOfRangeError as e:
                end = ("OutOfRangeError", "End of sequence" in e.message)
            except lib.errors.InvalidArgumentError as e:
                end = ("InvalidArgumentError",
                       [x for x in e.message.splitlines() if any(w in x for w in ("Cannot", "Excluding", "yielded"))][0]
                       .split("Shapes are")[0].strip())
    structure = (repr(types), repr(_plain_shapes(shapes)))
    return out, end, structure


def _plain_shapes(shapes):
    if isinstance(shapes, dict):
        return {k: _plain_shapes(v) for k, v in sorted(shapes.items())}
    if isinstance(shapes, tuple):
        return tuple(_plain_shapes(s) for s in shapes)
    return shapes.as_list() if shapes.dims is not None else None


@pytest.mark.parametrize("case", sorted(CASES))
def test_sequences_match_tf(case, files):
    want = _drain(tf1, CASES[case], files)
    got = _drain(tf, CASES[case], files, one_shot=case not in ("map", "batch"))
    assert got[0] == want[0]
    assert got[1] == want[1]
    assert got[2][1] == want[2][1]
    assert got[2][0].replace("graphcore", "tf") == want[2][0]


@pytest.mark.parametrize("case", sorted(SHUFFLED))
def test_shuffled_multisets_match_tf(case, files):
    want, want_end, _ = _drain(tf1, SHUFFLED[case], files)
    got, got_end, _ = _drain(tf, SHUFFLED[case], files)
    assert sorted(got) == sorted(want)
    assert got_end == want_end
    if case == "shuffle_repeat":
        assert got[:5] == got[5:]  # one order for every epoch


def _graph_nodes(lib):
    g = lib.Graph()
    with g.as_default():
        ds = lib.data.Dataset.from_tensor_slices((np.arange(4), np.arange(4.0)))
        ds = ds.map(lambda a, b: a + 1).filter(lambda a: a > 1).repeat(2).batch(2)
        ds = ds.shuffle(3, seed=4).shuffle(2)
        ds = ds.prefetch(1).take(3).skip(1).cache().concatenate(lib.data.Dataset.range(2)
                                                                .batch(2))
        ds = lib.data.Dataset.zip((ds, lib.data.Dataset.from_tensors(1)))
        it = lib.data.make_initializable_iterator(ds)
        it.get_next()
        lib.data.make_one_shot_iterator(lib.data.Dataset.range(3)).get_next()
        by_structure = lib.data.Iterator.from_structure(lib.int64, [])
        by_structure.make_initializer(lib.data.Dataset.range(1))
    gd = g.as_graph_def()
    nodes = {n.name: (n.op, list(n.input)) for n in gd.node}
    funcs = {f.signature.name.rsplit("_", 1)[0].rstrip("0123456789_"):
             ([a.name for a in f.signature.input_arg],
              [(n.name, n.op, list(n.input)) for n in f.node_def], dict(f.ret))
             for f in gd.library.function}
    return nodes, funcs


def test_graph_and_functions_match_tf():
    got_nodes, got_funcs = _graph_nodes(tf)
    want_nodes, want_funcs = _graph_nodes(tf1)
    assert got_nodes == want_nodes
    for name in ("__inference_Dataset_map_lambda", "__inference_Dataset_filter_lambda"):
        assert got_funcs[name] == want_funcs[name]
    # The one-shot factory copies the dataset ops by value, as TF's.
    assert got_funcs["_make_dataset"][1] == want_funcs["_make_dataset"][1]


def test_feedable_iterator_by_string_handle():
    """Iterator.from_string_handle switches between two datasets' iterators by feeding
    their string handles; from_structure re-initializes over another dataset."""
    results = []
    for lib in (tf1, tf):
        with lib.Graph().as_default():
            train = lib.data.make_one_shot_iterator(lib.data.Dataset.range(10, 13))
            valid = lib.data.make_initializable_iterator(lib.data.Dataset.range(3))
            handle = lib.placeholder(lib.string, shape=[])
            it = lib.data.Iterator.from_string_handle(handle, lib.int64, [])
            nxt = it.get_next()
            reinit = lib.data.Iterator.from_structure(lib.int64, [])
            n2 = reinit.get_next()
            inits = [reinit.make_initializer(lib.data.Dataset.range(k)) for k in (2, 1)]
            with lib.Session() as sess:
                th, vh = sess.run([train.string_handle(), valid.string_handle()])
                sess.run(valid.initializer)
                seq = [sess.run(nxt, {handle: h}) for h in (th, vh, th, vh)]
                for init in inits:
                    sess.run(init)
                    seq.append(sess.run(n2))
                with pytest.raises(lib.errors.OutOfRangeError):
                    sess.run(n2)
        results.append([int(v) for v in seq])
    assert results[1] == results[0] == [10, 0, 11, 1, 0, 0]


def _ds(t, n=10):
    return t.data.Dataset.range(n)


# (graph seed, pipeline, initializer runs): seeded shuffles give TF's exact order.
SHUFFLE_ORDER = {
    "small_buffer_op_seed": (None, lambda t: _ds(t).shuffle(3, seed=7), 1),
    "big_buffer_op_seed": (None, lambda t: _ds(t).shuffle(25, seed=7), 1),
    "graph_seed_only": (5, lambda t: _ds(t).shuffle(4), 1),
    "graph_and_op_seed": (5, lambda t: _ds(t).shuffle(4, seed=9), 1),
    "zero_seeds": (0, lambda t: _ds(t).shuffle(4, seed=0), 1),
    "reshuffle_epochs": (None, lambda t: _ds(t).shuffle(4, seed=7).repeat(3), 1),
    "reshuffle_big_buffer": (3, lambda t: _ds(t, 6).shuffle(20).repeat(3), 1),
    "fixed_epochs": (None, lambda t: _ds(t).shuffle(
        4, seed=7, reshuffle_each_iteration=False).repeat(3), 1),
    "repeat_then_shuffle": (2, lambda t: _ds(t, 6).repeat(3).shuffle(5, seed=1), 1),
    "shuffle_and_repeat": (None, lambda t: _ds(t, 6).apply(
        t.data.experimental.shuffle_and_repeat(4, 3, seed=11)), 1),
    "batch_after_shuffle": (4, lambda t: t.data.Dataset.from_tensor_slices(
        (np.arange(9), np.arange(9.0) / 2)).shuffle(6).repeat(2).batch(4), 1),
    "two_shuffles": (8, lambda t: _ds(t).shuffle(3, seed=4).shuffle(2), 1),
    "reinitialized": (6, lambda t: _ds(t).shuffle(4), 3),
    "reinitialized_fixed": (6, lambda t: _ds(t).shuffle(
        4, reshuffle_each_iteration=False).repeat(2), 2),
    # Dataset.random: TF's Philox values, the same on every pass.
    "random_op_seed": (None, lambda t: t.data.Dataset.random(seed=3).take(5).repeat(2), 1),
    "random_graph_seed": (5, lambda t: t.data.Dataset.random().take(4), 2),
    "random_shuffled": (1, lambda t: t.data.Dataset.random(seed=2).take(6).shuffle(3), 1),
}


def _shuffle_runs(lib, graph_seed, build, inits):
    with lib.Graph().as_default():
        if graph_seed is not None:
            lib.set_random_seed(graph_seed)
        iterator = lib.data.make_initializable_iterator(build(lib))
        nxt = iterator.get_next()
        runs = []
        with lib.Session() as sess:
            for _ in range(inits):
                sess.run(iterator.initializer)
                out = []
                try:
                    while True:
                        out.append(_plain(sess.run(nxt)))
                except lib.errors.OutOfRangeError:
                    runs.append(out)
    return runs


def test_shuffle_order_matches_tf():
    """Seeded shuffles (op seed, graph seed, both, (0, 0)) yield TF's element order: buffers
    smaller and larger than the dataset, reshuffled or fixed epochs under repeat, repeat
    then shuffle, shuffle_and_repeat, batches of shuffled tuples, a re-initialized
    iterator; Dataset.random TF's values.  Unseeded shuffles are permutations, one order
    per epoch without reshuffling."""
    for case, (graph_seed, build, inits) in SHUFFLE_ORDER.items():
        want = _shuffle_runs(tf1, graph_seed, build, inits)
        got = _shuffle_runs(tf, graph_seed, build, inits)
        assert got == want, case
    for reshuffle in (True, False):
        (got,) = _shuffle_runs(tf, None, lambda t, r=reshuffle: _ds(t).shuffle(
            4, reshuffle_each_iteration=r).repeat(2), 1)
        assert sorted(got[:10]) == sorted(got[10:]) == list(range(10))
        if not reshuffle:
            assert got[:10] == got[10:]


def test_bucket_longer_than_boundaries_fails_as_tf():
    """pad_to_bucket_boundary=True: an element as long as the last boundary fails the run
    with TF's assertion, after the batches before it. (TF 2.21 wraps the function's
    InvalidArgumentError in an InternalError; graphcore raises it as TF1 did.)"""
    results = {}
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            ds = lib.data.Dataset.range(1, 9).map(lambda x, lib=lib: lib.fill([x], x)).apply(
                lib.data.experimental.bucket_by_sequence_length(
                    lambda x, lib=lib: lib.size(x), [3, 6], [2, 2, 1], pad_to_bucket_boundary=True))
            nxt = lib.data.make_one_shot_iterator(ds).get_next()
            out = []
            with lib.Session() as sess:
                with pytest.raises(lib.errors.OpError) as info:
                    for _ in range(10):
                        out.append(sess.run(nxt).tolist())
            results[lib] = (out, info.value.message)
    assert results[tf][0] == results[tf1][0]
    line = results[tf][1].split("\n")[0]
    assert line.startswith("assertion failed: [When pad_to_bucket_boundary=True, elements "
                           "must have length < max(bucket_boundaries).] [Condition x < y "
                           "did not hold element-wise:] [x (args_0:0) = ] [2] [y (")
    assert line.split("] [y (")[0] in results[tf1][1]
