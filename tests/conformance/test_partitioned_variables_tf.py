"""Reference tier: TF1 partitioned variables against TensorFlow's compat.v1 — the
partitioners' results and errors; get_variable(partitioner=...) shard names, shapes,
initial values, GraphDef nodes, SaveSliceInfos, collections, devices under
replica_device_setter and conversion; checkpoints of partitioned variables written by
each side and restored by the other (into other shard counts and into an unpartitioned
variable), list_variables/load_variable; embedding_lookup over a PartitionedVariable
(mod and div) with its IndexedSlices gradients; a partitioned-embedding model trained
with Adagrad in both from the same initial values. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
# Keras 3 hides tf.compat.v1.layers: tf_keras' legacy layers are TF1's tf.layers.
tf1_layers = pytest.importorskip("tf_keras.api._v1.keras.__internal__.legacy.layers")
pytestmark = pytest.mark.filterwarnings("ignore:`tf.layers:UserWarning")


# -- partitioners --------------------------------------------------------------------------

PARTITIONERS = {
    "fixed_3": ("fixed_size_partitioner", (3,), {}, [10, 4], "float32"),
    "fixed_more_than_rows": ("fixed_size_partitioner", (5,), {}, [2, 4], "float32"),
    "fixed_axis1": ("fixed_size_partitioner", (2,), {"axis": 1}, [3, 5], "float32"),
    "min_max_default": ("min_max_variable_partitioner", (), {}, [1000, 64], "float32"),
    "min_max_4": ("min_max_variable_partitioner", (4,), {"min_slice_size": 1 << 10},
                  [100, 64], "float32"),
    "min_max_rows_cap": ("min_max_variable_partitioner", (50,),
                         {"min_slice_size": 16}, [3, 64], "float64"),
    "min_max_string": ("min_max_variable_partitioner", (8,),
                       {"min_slice_size": 64, "bytes_per_string_element": 4}, [40, 2],
                       "string"),
    "min_max_bad_axis": ("min_max_variable_partitioner", (2,), {"axis": 2}, [4, 4],
                         "float32"),
    "axis_size": ("variable_axis_size_partitioner", (1000,), {}, [100, 8], "float32"),
    "axis_size_big_slice": ("variable_axis_size_partitioner", (10,), {}, [6, 8],
                            "float32"),
    "axis_size_max_shards": ("variable_axis_size_partitioner", (64,), {"max_shards": 3},
                             [100, 4], "int64"),
    "axis_size_axis1": ("variable_axis_size_partitioner", (100,), {"axis": 1},
                        [5, 60], "float32"),
    "axis_size_string": ("variable_axis_size_partitioner", (100,),
                         {"bytes_per_string_element": 10}, [30, 2], "string"),
    "axis_size_bad_bytes": ("variable_axis_size_partitioner", (0,), {}, [4], "float32"),
    "axis_size_bad_max_shards": ("variable_axis_size_partitioner", (10,),
                                 {"max_shards": -1}, [4], "float32"),
}


def _partition(lib, case):
    fn, args, kwargs, shape, dtype = PARTITIONERS[case]
    try:
        partitioner = getattr(lib, fn)(*args, **kwargs)
        return partitioner(shape=lib.TensorShape(shape), dtype=lib.as_dtype(dtype))
    except ValueError as e:
        return ("ValueError", str(e))


@pytest.mark.parametrize("case", sorted(PARTITIONERS))
def test_partitioners_match_tf(case):
    assert _partition(tf, case) == _partition(tf1, case)


# -- get_variable(partitioner=...) ---------------------------------------------------------

FULL = np.arange(70, dtype=np.float32).reshape(10, 7) / 10


def _offset_initializer(lib):
    """An initializer reading its shard of FULL from partition_info."""

    def init(shape, dtype=None, partition_info=None):
        offset = partition_info.var_offset
        rows = FULL[offset[0]:offset[0] + shape[0], offset[1]:offset[1] + shape[1]]
        return lib.constant(rows, dtype=dtype)

    return init


def _build_partitioned(lib, shards, axis=0, use_setter=False):
    """emb (callable initializer), tbl (Tensor initializer), dense kernel (tf.layers)
    and a scalar with a partitioner."""
    with lib.Graph().as_default() as g:
        setter = lib.train.replica_device_setter(ps_tasks=2) if use_setter else None
        with g.device(setter), lib.variable_scope("", use_resource=False):
            with lib.variable_scope("scope", partitioner=lib.fixed_size_partitioner(
                    shards, axis)) as scope:
                emb = lib.get_variable("emb", shape=[10, 7],
                                       initializer=_offset_initializer(lib))
            with lib.variable_scope(scope, reuse=True):
                again = lib.get_variable("emb", shape=[10, 7])
            tbl = lib.get_variable("tbl", initializer=lib.constant(FULL),
                                   partitioner=lib.fixed_size_partitioner(shards, axis))
            scalar = lib.get_variable("scalar", shape=[],
                                      partitioner=lib.fixed_size_partitioner(shards))
            x = lib.constant(np.ones((2, 10), np.float32))
            with lib.variable_scope("d", partitioner=lib.fixed_size_partitioner(2)):
                dense = (tf1_layers if lib is tf1 else lib.layers).Dense(3, kernel_initializer=lib.ones_initializer(),
                                         bias_initializer=lib.ones_initializer())
                y = dense(x)
            full = lib.convert_to_tensor(emb)
        nodes = [(n.name, n.op, n.device) for n in g.as_graph_def().node]
        info = [(v.name, v.shape.as_list(), v._get_save_slice_info().spec,
                 v._get_save_slice_info().full_name) for v in list(emb) + list(tbl)]
        facts = {
            "same": again is emb,
            "partitioned": [type(v).__name__ == "PartitionedVariable"
                            for v in (emb, tbl, scalar)],
            "names": [emb.name, tbl.name, scalar.name, full.name, full.op.inputs[0].name],
            "shapes": [emb.shape.as_list(), tbl.get_shape().as_list(), len(emb),
                       emb._get_partitions(), [v.name for v in emb._get_variable_list()]],
            "global": [v.name for v in lib.global_variables()],
            "trainable": [v.name for v in lib.trainable_variables()],
            "dense": [[v.name for v in dense.trainable_weights],
                      [v.name for v in dense.weights]],
            "info": info,
            "proto": [str(v.to_proto().save_slice_info_def) for v in emb],
        }
        if use_setter:  # no ps tasks to run on
            return facts, nodes, None
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            values = sess.run([full, lib.convert_to_tensor(tbl), y])
    return facts, nodes, values


@pytest.mark.parametrize("shards,axis", [(3, 0), (4, 1), (1, 0)])
def test_get_variable_partitioned_matches_tf(shards, axis):
    ours, theirs = _build_partitioned(tf, shards, axis), _build_partitioned(tf1, shards, axis)
    assert ours[0] == theirs[0]
    assert [n[:2] for n in ours[1]] == [n[:2] for n in theirs[1]]
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_array_equal(ours[2][0], FULL)


def test_replica_device_setter_places_shards_round_robin_as_tf():
    ours, theirs = _build_partitioned(tf, 3, use_setter=True), \
        _build_partitioned(tf1, 3, use_setter=True)
    placed = {n[0]: n[2] for n in ours[1] if n[1] == "VariableV2"}
    assert placed == {n[0]: n[2] for n in theirs[1] if n[1] == "VariableV2"}
    assert placed["scope/emb/part_0"] != placed["scope/emb/part_1"]


def _regularized(lib):
    with lib.Graph().as_default() as g:
        with lib.variable_scope("s", use_resource=False,
                                regularizer=lambda t: 0.5 * lib.reduce_sum(t)):
            v = lib.get_variable("v", initializer=lib.constant(FULL),
                                 partitioner=lib.fixed_size_partitioner(3))
        losses = g.get_collection(lib.GraphKeys.REGULARIZATION_LOSSES)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            return [t.name for t in losses], sess.run([lib.convert_to_tensor(t)
                                                       for t in losses]), len(v)


def test_regularizer_applies_to_each_shard_as_tf():
    ours, theirs = _regularized(tf), _regularized(tf1)
    assert ours[0] == theirs[0] == [f"s/v/part_{i}/Regularizer/mul:0" for i in range(3)]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)


def _default_initializer_std(lib):
    with lib.Graph().as_default():
        v = lib.get_variable("w", shape=[400, 300], partitioner=lib.fixed_size_partitioner(4))
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            return [sess.run(lib.convert_to_tensor(s)).std() for s in v]


def test_default_initializer_scales_by_the_full_shape():
    """glorot_uniform of each shard uses the full variable's fans (partition_info)."""
    want = np.sqrt(6.0 / 700) / np.sqrt(3.0)
    np.testing.assert_allclose(_default_initializer_std(tf), want, rtol=0.05)
    np.testing.assert_allclose(_default_initializer_std(tf1), want, rtol=0.05)


def _fixed2(t):
    return t.get_variable("v", [4], partitioner=t.fixed_size_partitioner(2))


def _reuse_missing(t):
    with t.variable_scope("", reuse=True):
        return _fixed2(t)


ERRORS = {
    "unpartitioned_exists": lambda t: (t.get_variable("v", [4]), _fixed2(t)),
    "exists_no_reuse": lambda t: [_fixed2(t) for _ in range(2)],
    "reuse_missing": lambda t: _reuse_missing(t),
    "not_callable": lambda t: t.get_variable("v", [4], partitioner=3),
    "unknown_shape": lambda t: t.get_variable("v", partitioner=t.fixed_size_partitioner(2),
                                              initializer=t.zeros_initializer()),
    "two_axes": lambda t: t.get_variable("v", [4, 4],
                                         partitioner=lambda shape, dtype: [2, 2]),
    "wrong_rank": lambda t: t.get_variable("v", [4, 4],
                                           partitioner=lambda shape, dtype: [2]),
    "zero": lambda t: t.get_variable("v", [4], partitioner=lambda shape, dtype: [0]),
    "not_sequence": lambda t: t.get_variable("v", [4], partitioner=lambda shape, dtype: 2),
    "create_bad_slicing": lambda t: t.create_partitioned_variables([4, 2], [2],
                                                                   t.zeros_initializer()),
}


def _error(lib, case):
    with lib.Graph().as_default():
        try:
            ERRORS[case](lib)
        except (ValueError, TypeError) as e:
            return type(e).__name__, str(e).split("Originally defined")[0]
    return None


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_partitioned_errors_match_tf(case):
    ours = _error(tf, case)
    assert ours is not None and ours == _error(tf1, case)


def _create_partitioned(lib):
    with lib.Graph().as_default():
        with lib.variable_scope("", use_resource=False):
            parts = lib.create_partitioned_variables([10, 7], [1, 3], lib.constant(FULL))
            named = lib.create_partitioned_variables([10, 7], [2, 1], _offset_initializer(lib),
                                                     name="named")
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            return [v.name for v in parts + named], sess.run(parts + named)


def test_create_partitioned_variables_matches_tf():
    ours, theirs = _create_partitioned(tf), _create_partitioned(tf1)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_array_equal(a, b)


# -- checkpoints -------------------------------------------------------------------------------

def _save(lib, prefix, shards):
    with lib.Graph().as_default():
        with lib.variable_scope("", use_resource=False):
            v = lib.get_variable("emb", initializer=lib.constant(FULL),
                                 partitioner=lib.fixed_size_partitioner(shards))
            w = lib.get_variable("w", initializer=lib.constant(FULL[:2]),
                                 partitioner=lib.fixed_size_partitioner(2, axis=1))
            u = lib.get_variable("u", initializer=lib.constant([1.0, 2.0]))
        saver = lib.train.Saver()
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            sess.run(v._get_variable_list()[-1].assign_add(
                np.ones(v._get_variable_list()[-1].shape.as_list(), np.float32)))
            sess.run([x.assign_sub(np.ones(x.shape.as_list(), np.float32)) for x in w])
            sess.run(u.assign([3.0, 4.0]))
            saver.save(sess, prefix, write_meta_graph=False)
            return sess.run([lib.convert_to_tensor(v), lib.convert_to_tensor(w), u])


def _restore(lib, prefix, shards):
    with lib.Graph().as_default():
        with lib.variable_scope("", use_resource=False):
            v = lib.get_variable("emb", shape=[10, 7], initializer=lib.zeros_initializer(),
                                 partitioner=lib.fixed_size_partitioner(shards)
                                 if shards else None)
            w = lib.get_variable("w", shape=[2, 7], initializer=lib.zeros_initializer(),
                                 partitioner=lib.fixed_size_partitioner(3, axis=1))
            u = lib.get_variable("u", shape=[2], initializer=lib.zeros_initializer())
        saver = lib.train.Saver()
        with lib.Session() as sess:
            saver.restore(sess, prefix)
            return sess.run([lib.convert_to_tensor(v), lib.convert_to_tensor(w), u])


def _index(prefix):
    from graphcore.lib.io import checkpoint_format

    reader = checkpoint_format.BundleReader(prefix)
    return {k: str(reader.entry(k)).replace(f"offset: {reader.entry(k).offset}", "")
            for k in reader.keys()}


@pytest.mark.parametrize("restore_shards", [3, 2, None], ids=["3", "2", "unpartitioned"])
def test_checkpoints_interchange_with_tf(tmp_path, restore_shards):
    ours = _save(tf, str(tmp_path / "gc"), 2)
    theirs = _save(tf1, str(tmp_path / "tf"), 2)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
    assert _index(str(tmp_path / "gc")) == _index(str(tmp_path / "tf"))
    for writer in ("gc", "tf"):
        got_tf = _restore(tf1, str(tmp_path / writer), restore_shards)
        got_gc = _restore(tf, str(tmp_path / writer), restore_shards)
        for a, b, want in zip(got_gc, got_tf, ours):
            np.testing.assert_array_equal(a, want)
            np.testing.assert_array_equal(b, want)


def test_checkpoint_reader_shows_the_full_variable(tmp_path):
    values = _save(tf, str(tmp_path / "gc"), 3)
    for lib in (tf, tf1):
        listed = lib.train.list_variables(str(tmp_path / "gc"))
        assert listed == [("emb", [10, 7]), ("u", [2]), ("w", [2, 7])]
        np.testing.assert_array_equal(lib.train.load_variable(str(tmp_path / "gc"), "emb"),
                                      values[0])
        reader = lib.train.NewCheckpointReader(str(tmp_path / "gc"))
        assert reader.get_variable_to_shape_map() == {"emb": [10, 7], "u": [2], "w": [2, 7]}
        np.testing.assert_array_equal(reader.get_tensor("w"), values[1])


def _warm_started(lib, prefix, mapping):
    with lib.Graph().as_default():
        with lib.variable_scope("new", use_resource=False):
            v = lib.get_variable("emb", shape=[10, 7], initializer=lib.zeros_initializer(),
                                 partitioner=lib.fixed_size_partitioner(3))
            u = lib.get_variable("u", shape=[2], initializer=lib.zeros_initializer())
        if mapping == "warm_start":
            lib.train.warm_start(prefix, "new/", var_name_to_prev_var_name={
                "new/emb": "emb", "new/u": "u"})
        else:
            assignment = {"scope": {"/": "new/"}, "name": {"emb": "new/emb", "u": "new/u"},
                          "list": {"emb": list(v), "u": u}}[mapping]
            lib.train.init_from_checkpoint(prefix, assignment)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            return sess.run([lib.convert_to_tensor(v), u])


@pytest.mark.parametrize("mapping", ["scope", "name", "list", "warm_start"])
def test_init_from_checkpoint_fills_shards_as_tf(tmp_path, mapping):
    want = _save(tf1, str(tmp_path / "tf"), 2)
    ours = _warm_started(tf, str(tmp_path / "tf"), mapping)
    theirs = _warm_started(tf1, str(tmp_path / "tf"), mapping)
    for a, b, w in zip(ours, theirs, [want[0], want[2]]):
        np.testing.assert_array_equal(a, w)
        np.testing.assert_array_equal(b, w)


def _meta_slices(lib, path):
    with lib.Graph().as_default():
        lib.train.import_meta_graph(path)
        return [(v.name, str(v._get_save_slice_info().spec)) for v in lib.global_variables()
                if v._get_save_slice_info() is not None]


def _export_meta(lib, path):
    with lib.Graph().as_default():
        with lib.variable_scope("", use_resource=False):
            lib.get_variable("emb", shape=[10, 7], partitioner=lib.fixed_size_partitioner(3))
        lib.train.Saver().export_meta_graph(path)


def test_meta_graph_save_slice_info_interchanges(tmp_path):
    _export_meta(tf, str(tmp_path / "gc.meta"))
    _export_meta(tf1, str(tmp_path / "tf.meta"))
    want = [("emb/part_0:0", "10 7 0,4:0,7"), ("emb/part_1:0", "10 7 4,3:0,7"),
            ("emb/part_2:0", "10 7 7,3:0,7")]
    for lib in (tf, tf1):
        for writer in ("gc", "tf"):
            assert _meta_slices(lib, str(tmp_path / f"{writer}.meta")) == want


# -- embedding_lookup and training ---------------------------------------------------------

IDS = np.array([[1, 5], [9, 0], [3, 3]], np.int64)


def _lookup(lib, strategy):
    with lib.Graph().as_default():
        with lib.variable_scope("", use_resource=False):
            emb = lib.get_variable("emb", shape=[10, 7], initializer=_offset_initializer(lib),
                                   partitioner=lib.fixed_size_partitioner(3))
        out = lib.nn.embedding_lookup(emb, IDS, partition_strategy=strategy)
        grads = lib.gradients(lib.reduce_sum(out * out), list(emb))
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            return (sess.run(out), [type(g).__name__ for g in grads],
                    sess.run([(g.indices, g.values) for g in grads]))


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_embedding_lookup_over_partitioned_variable_matches_tf(strategy):
    ours, theirs = _lookup(tf, strategy), _lookup(tf1, strategy)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    assert ours[1] == theirs[1] == ["IndexedSlices"] * 3
    for (ia, va), (ib, vb) in zip(ours[2], theirs[2]):
        np.testing.assert_array_equal(ia, ib)
        np.testing.assert_allclose(va, vb, rtol=1e-6)


BATCH = 16
# (vocabulary, dimension): a small table for every optimizer, and the issue's
# 100k x 32 table over 4 shards (12.8 MB) for Adagrad.
SIZES = {"small": (500, 8), "100k": (100_000, 32)}


def _tables(size):
    vocab, dim = SIZES[size]
    table = np.random.RandomState(1).uniform(-0.1, 0.1, (vocab, dim)).astype(np.float32)
    head = np.random.RandomState(2).uniform(-0.1, 0.1, (dim, 1)).astype(np.float32)
    batches = [(np.random.RandomState(10 + s).randint(0, vocab, (BATCH, 3)),
                np.random.RandomState(20 + s).randn(BATCH, 1).astype(np.float32))
               for s in range(4)]
    return table, head, batches


def _table_initializer(lib, table):
    def init(shape, dtype=None, partition_info=None):
        start = partition_info.var_offset[0]
        return lib.constant(table[start:start + shape[0]], dtype=dtype)

    return init


OPTIMIZERS = {
    "adagrad": lambda t: t.train.AdagradOptimizer(0.5),
    "adam": lambda t: t.train.AdamOptimizer(0.05),
    "momentum": lambda t: t.train.MomentumOptimizer(0.3, 0.9, use_nesterov=True),
    "ftrl": lambda t: t.train.FtrlOptimizer(0.3, l1_regularization_strength=0.001),
    "sgd": lambda t: t.train.GradientDescentOptimizer(0.5),
}


def _train(lib, strategy, optimizer, prefix, size):
    table, head_value, batches = _tables(size)
    vocab, dim = SIZES[size]
    with lib.Graph().as_default():
        with lib.variable_scope("", use_resource=False):
            emb = lib.get_variable("emb", shape=[vocab, dim],
                                   initializer=_table_initializer(lib, table),
                                   partitioner=lib.fixed_size_partitioner(4))
            head = lib.get_variable("head", initializer=lib.constant(head_value))
        ids = lib.placeholder(lib.int64, [BATCH, 3])
        y = lib.placeholder(lib.float32, [BATCH, 1])
        hidden = lib.reduce_mean(lib.nn.embedding_lookup(emb, ids,
                                                         partition_strategy=strategy), 1)
        loss = lib.reduce_mean(lib.square(lib.matmul(hidden, head) - y))
        train = OPTIMIZERS[optimizer](lib).minimize(loss)
        saver = lib.train.Saver()
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            for batch_ids, batch_y in batches:
                sess.run(train, {ids: batch_ids, y: batch_y})
            saver.save(sess, prefix, write_meta_graph=False)
            return sess.run(list(emb) + [head])


@pytest.mark.parametrize("strategy,optimizer,size", [
    ("mod", "adagrad", "small"), ("div", "adagrad", "small"), ("div", "adam", "small"),
    ("mod", "momentum", "small"), ("div", "ftrl", "small"), ("div", "sgd", "small"),
    ("mod", "adagrad", "100k")])
def test_partitioned_embedding_model_trains_as_tf(tmp_path, strategy, optimizer, size):
    """Same variables after training, and the same checkpoint (slots of the shards are
    slices of the full variable's slot, e.g. emb/Adagrad)."""
    ours = _train(tf, strategy, optimizer, str(tmp_path / "gc"), size)
    theirs = _train(tf1, strategy, optimizer, str(tmp_path / "tf"), size)
    assert [a.shape for a in ours] == [b.shape for b in theirs]
    assert sum(a.shape[0] for a in ours[:4]) == SIZES[size][0]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert _index(str(tmp_path / "gc")).keys() == _index(str(tmp_path / "tf")).keys()
    assert tf.train.list_variables(str(tmp_path / "gc")) == \
        tf1.train.list_variables(str(tmp_path / "tf"))
    if optimizer in ("adagrad", "sgd"):  # sparse: only the looked-up rows move
        table, _, batches = _tables(size)
        # Both strategies map ids one-to-one onto the shards' rows.
        moved = (~np.isclose(np.concatenate(ours[:4]), table)).any(axis=1).sum()
        assert moved == len({int(i) for b, _ in batches for i in b.reshape(-1)})

