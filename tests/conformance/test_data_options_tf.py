"""Reference tier: tf.data.Options (types, defaults, errors, merging, Dataset.with_options
and options() through transformations and zip), DatasetSpec, tf.data.experimental's
transformations and constants, and tf.summary's v2 bridge names against TensorFlow's
compat.v1. Skipped without TensorFlow."""

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e).replace("tensorflow.python.data.ops.options", "X") \
            .replace("graphcore.data.options", "X")
    return None


def _options_behaviour(lib):
    out = []
    o = lib.data.Options()
    policy = o.experimental_distribute.auto_shard_policy
    out.append((o.deterministic, o.threading.private_threadpool_size, policy.name, int(policy),
                o.experimental_optimization.map_fusion, o.autotune.enabled))
    out.append(_error(lambda: setattr(o, "foo", 1)))
    out.append(_error(lambda: setattr(o, "deterministic", 3)))
    out.append(_error(lambda: setattr(o.threading, "private_threadpool_size", "4")))
    o.threading.private_threadpool_size = 4
    o.experimental_optimization.map_fusion = True
    o2 = lib.data.Options()
    o2.deterministic = False
    o2.threading.private_threadpool_size = 8
    m = o.merge(o2)
    out.append((m.deterministic, m.threading.private_threadpool_size,
                m.experimental_optimization.map_fusion, o == lib.data.Options(),
                lib.data.Options() == lib.data.Options()))
    t = lib.data.ThreadingOptions()
    t.max_intra_op_parallelism = 1
    out.append((t.max_intra_op_parallelism, t.private_threadpool_size))
    with lib.Graph().as_default():
        ds = lib.data.Dataset.range(3).with_options(o).map(lambda x: x * 2).with_options(o2)
        z = lib.data.Dataset.zip((ds, lib.data.Dataset.range(2).with_options(o)))
        got = ds.options()
        out.append((got.deterministic, got.threading.private_threadpool_size,
                    got.experimental_optimization.map_fusion,
                    z.options().threading.private_threadpool_size))
        out.append(_error(lambda: setattr(got, "deterministic", True)))
        spec = lib.data.DatasetSpec.from_value(z)
        out.append((str(spec.element_spec), spec == lib.data.DatasetSpec.from_value(z),
                    spec.is_compatible_with(z),
                    spec == lib.data.DatasetSpec(lib.data.Dataset.range(1).element_spec)))
        e = lib.data.experimental
        d2 = lib.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]).apply(e.unbatch()) \
            .apply(e.enumerate_dataset(5))
        d3 = lib.data.Dataset.range(3).apply(e.shuffle_and_repeat(10, count=2, seed=1))
        nxt, nxt3 = (lib.data.make_one_shot_iterator(d).get_next() for d in (d2, d3))
        with lib.Session() as s:
            out.append([tuple(int(v) for v in s.run(nxt)) for _ in range(4)])
            out.append(sorted(int(s.run(nxt3)) for _ in range(6)))
        out.append(str(e.get_structure(d2)))
        out.append((e.AUTOTUNE, e.INFINITE_CARDINALITY, e.UNKNOWN_CARDINALITY,
                    [p.name for p in e.AutoShardPolicy], [p.name for p in e.ExternalStatePolicy],
                    [p.name for p in e.AutotuneAlgorithm]))
    return out


def test_data_options_match_tf():
    ours, theirs = _options_behaviour(tf), _options_behaviour(tf1)
    for a, b in zip(ours, theirs):
        assert a == b


def _summary_behaviour(lib):
    out = []
    with lib.Graph().as_default():
        lib.summary.scalar("x", 1.0)
        out.append(lib.summary.all_v2_summary_ops())
        out.append(_error(lib.summary.initialize))
        node = lib.NodeDef(name="s", op="TensorSummary")
        node.attr["description"].s = b'{"typeHint": "image"}'
        out.append(str(lib.summary.get_summary_description(node)))
        out.append(_error(lambda: lib.summary.get_summary_description(
            lib.constant(1).op.node_def)))
    return out


def test_summary_v2_bridge_matches_tf():
    assert _summary_behaviour(tf) == _summary_behaviour(tf1)
