"""Session.run end to end on the local engine (graphcore/client/session.py)."""

import collections
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import graphcore as tf
from graphcore import errors

ROOT = Path(__file__).resolve().parents[2]


def test_counter_example_prints_0_to_3():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "counter.py")],
                         capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["0", "1", "2", "3"]


def test_seed_001_graphs_and_sessions_side_by_side():
    g_1 = tf.Graph()
    with g_1.as_default():
        c = tf.constant("Node in g_1")
        sess_1 = tf.Session()
    g_2 = tf.Graph()
    with g_2.as_default():
        d = tf.constant("Node in g_2")
    sess_2 = tf.Session(graph=g_2)
    assert c.graph is g_1
    assert sess_1.graph is g_1
    assert d.graph is g_2
    assert sess_2.graph is g_2
    assert sess_1.run(c) == b"Node in g_1"
    assert sess_2.run(d) == b"Node in g_2"
    with pytest.raises(ValueError):
        sess_1.run(d)  # an element of another graph
    sess_1.close()
    sess_2.close()


def test_seed_001_feeding():
    x = tf.placeholder(tf.float32, shape=[3])
    y = tf.add(x, x)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0, 3.0]}), [2.0, 4.0, 6.0])
        np.testing.assert_array_equal(sess.run(y, {x: [0.0, 0.0, 5.0]}), [0.0, 0.0, 10.0])
        with pytest.raises(errors.InvalidArgumentError, match="must feed a value for "
                                                              "placeholder tensor 'Placeholder'"):
            sess.run(y)
        with pytest.raises(ValueError, match="Cannot feed value of shape"):
            sess.run(y, {x: 37.0})
        # The session is still usable.
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 1.0, 1.0]}), [2.0, 2.0, 2.0])


def test_fetch_structures():
    a = tf.constant(1, name="a")
    b = tf.constant([2.0, 3.0], name="b")
    op = tf.no_op(name="nothing")
    Pair = collections.namedtuple("Pair", ["first", "second"])
    with tf.Session() as sess:
        assert sess.run(a) == 1
        assert isinstance(sess.run(a), np.int32)
        assert sess.run(op) is None
        res = sess.run({"a": a, "nested": [b, (a, op)], "pair": Pair(a, "b:0")})
        assert res["a"] == 1
        np.testing.assert_array_equal(res["nested"][0], [2.0, 3.0])
        assert res["nested"][1] == (1, None)
        assert isinstance(res["pair"], Pair) and res["pair"].first == 1
        np.testing.assert_array_equal(res["pair"].second, [2.0, 3.0])
        assert sess.run("a:0") == 1 and sess.run("nothing") is None
        with pytest.raises(TypeError):
            sess.run(None)
        with pytest.raises(TypeError):
            sess.run(3.5)


def test_each_fetch_computed_once_per_step():
    v = tf.Variable(0, name="v")
    inc = tf.assign_add(v, 1)
    with tf.Session() as sess:
        sess.run(v.initializer)
        r = sess.run([inc, inc, {"again": inc}])
        assert r[0] == r[1] == r[2]["again"] == 1
        assert sess.run(v) == 1


def test_pruning_skips_unrelated_ops():
    v = tf.Variable(10, name="v")
    bump = tf.assign_add(v, 5)
    x = tf.placeholder(tf.int32, [], name="x")
    y = tf.add(x, 1, name="y")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y, {x: 1}) == 2
        assert sess.run(v) == 10
        sess.run(bump)
        assert sess.run(v) == 15


def test_feeds_fetch_fed_value_and_feed_intermediate():
    x = tf.placeholder(tf.float32, [2], name="x")
    mid = tf.add(x, 1.0, name="mid")
    out = tf.add(mid, 1.0, name="out")
    with tf.Session() as sess:
        r = sess.run([x, out], {x: [1.0, 2.0]})
        np.testing.assert_array_equal(r[0], [1.0, 2.0])
        np.testing.assert_array_equal(r[1], [3.0, 4.0])
        # Feeding an intermediate tensor cuts everything above it: x need not be fed.
        np.testing.assert_array_equal(sess.run(out, {mid: [10.0, 20.0]}), [11.0, 21.0])
        np.testing.assert_array_equal(sess.run(out, {"mid:0": np.array([0.0, 0.0])}),
                                      [1.0, 1.0])
        with pytest.raises(ValueError, match="could not convert string to float"):
            sess.run(out, {x: ["a", "b"]})  # numpy's ValueError, as TF
        with pytest.raises(TypeError):
            sess.run(out, {x: tf.constant([1.0, 2.0])})
        tf.get_default_graph().prevent_feeding(mid)
        with pytest.raises(ValueError, match="may not be fed"):
            sess.run(out, {mid: [1.0, 1.0]})
        np.testing.assert_array_equal(sess.run(out, {x: [0.0, 1.0]}), [2.0, 3.0])


def test_uninitialized_variable_and_initializers():
    counter = tf.Variable(0, name="counter")
    other = tf.Variable([1.0, 2.0], name="other")
    with tf.Session() as sess:
        with pytest.raises(errors.FailedPreconditionError,
                           match="Attempting to use uninitialized value counter"):
            sess.run(counter)
        assert not sess.run(tf.is_variable_initialized(counter))
        sess.run(tf.variables_initializer([counter]))
        assert sess.run(counter) == 0
        assert sess.run(tf.is_variable_initialized(counter))
        with pytest.raises(errors.FailedPreconditionError):
            sess.run(other)
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(other), [1.0, 2.0])


def test_fetched_values_are_independent_of_state():
    v = tf.Variable([1.0, 2.0], name="v")
    inc = tf.assign_add(v, [1.0, 1.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        first = sess.run(v)
        first += 100.0  # the caller owns what it fetched
        sess.run(inc)
        np.testing.assert_array_equal(sess.run(v), [2.0, 3.0])
        fed = np.array([5.0, 6.0], dtype=np.float32)
        sess.run(tf.assign(v, tf.placeholder_with_default(fed, [2])))
        fed[:] = 0.0
        np.testing.assert_array_equal(sess.run(v), [5.0, 6.0])


def test_default_session_eval_run_and_interactive():
    v = tf.Variable(3, name="v")
    t = tf.add(v, 1)
    with tf.Session() as sess:
        assert tf.get_default_session() is sess
        v.initializer.run()
        assert t.eval() == 4
        assert v.eval() == 3
        assert t.eval(session=sess) == 4
    assert tf.get_default_session() is None
    with pytest.raises(ValueError, match="No default session"):
        t.eval()
    isess = tf.InteractiveSession()
    assert tf.get_default_session() is isess
    v.initializer.run()
    assert t.eval() == 4
    isess.close()
    assert tf.get_default_session() is None


def test_run_after_close_and_empty_graph():
    c = tf.constant(1)
    sess = tf.Session()
    assert sess.run(c) == 1
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(c)
    with pytest.raises(RuntimeError, match="graph is empty"):
        tf.Session(graph=tf.Graph()).run([])


def test_kernel_error_is_typed_names_node_and_creation_site_and_session_survives():
    a = tf.placeholder(tf.float32, name="a")
    b = tf.placeholder(tf.float32, name="b")
    s = tf.add(a, b, name="bad_add")
    v = tf.Variable(7.0, name="keep")
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(errors.InvalidArgumentError) as info:
            sess.run(s, {a: np.ones(2), b: np.ones(3)})
        err = info.value
        assert "bad_add" in str(err)
        assert err.op is s.op
        assert "test_session.py" in str(err)  # where the op was created
        assert err.node_def.name == "bad_add"
        np.testing.assert_array_equal(sess.run(s, {a: np.ones(2), b: np.ones(2)}), [2.0, 2.0])
        assert sess.run(v) == 7.0


def test_extend_after_first_run():
    a = tf.constant(1, name="a")
    with tf.Session() as sess:
        assert sess.run(a) == 1
        b = tf.add(a, 41, name="b")
        assert sess.run(b) == 42
        c = tf.add(b, 1, name="c")
        assert sess.run([c, b]) == [43, 42]


def test_make_callable():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.add(x, 2.0)
    v = tf.Variable(0, name="v")
    inc = tf.assign_add(v, 1)
    with tf.Session() as sess:
        sess.run(v.initializer)
        f = sess.make_callable([y, inc], feed_list=[x])
        r = f(np.array([1.0, 2.0], dtype=np.float32))
        np.testing.assert_array_equal(r[0], [3.0, 4.0])
        assert r[1] == 1
        g = sess.make_callable(inc.op)
        assert g() is None
        assert sess.run(v) == 2
        with pytest.raises(TypeError):
            f()


def test_eight_threads_assign_add_use_locking():
    v = tf.Variable(0, name="v")
    inc = tf.assign_add(v, 1, use_locking=True)
    with tf.Session() as sess:
        sess.run(v.initializer)

        def work():
            for _ in range(1000):
                sess.run(inc.op)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sess.run(v) == 8000


def _two_device_graph():
    with tf.device("/device:CPU:0"):
        x = tf.placeholder(tf.float32, [2], name="x")
        a = tf.add(x, 1.0, name="a")
    with tf.device("/device:CPU:1"):
        b = tf.add(a, a, name="b")
        w = tf.Variable([1.0, 1.0], name="w")
        c = tf.add(b, w, name="c")
    with tf.device("/device:CPU:0"):
        with tf.control_dependencies([c]):
            d = tf.add(c, 1.0, name="d")
    return x, d, w


def test_two_cpu_devices_partition_send_recv_and_step_stats():
    x, d, w = _two_device_graph()
    config = tf.ConfigProto(device_count={"CPU": 2})
    with tf.Session(config=config) as sess:
        sess.run(w.initializer)
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
        md = tf.RunMetadata()
        out = sess.run(d, {x: [1.0, 2.0]}, options=opts, run_metadata=md)
        np.testing.assert_array_equal(out, [6.0, 8.0])
        assert len(md.partition_graphs) == 2
        by_device = {}
        for gd in md.partition_graphs:
            devices = {n.device for n in gd.node}
            assert len(devices) == 1
            by_device[devices.pop()] = gd
        assert set(by_device) == {"/job:localhost/replica:0/task:0/device:CPU:0",
                                  "/job:localhost/replica:0/task:0/device:CPU:1"}

        def keys(gd, op):
            return {(n.attr["send_device"].s, n.attr["send_device_incarnation"].i,
                     n.attr["recv_device"].s, n.attr["tensor_name"].s)
                    for n in gd.node if n.op == op}

        sends = set().union(*(keys(g, "_Send") for g in md.partition_graphs))
        recvs = set().union(*(keys(g, "_Recv") for g in md.partition_graphs))
        assert sends and sends == recvs
        assert len(md.step_stats.dev_stats) == 2
        for ds in md.step_stats.dev_stats:
            names = {ns.node_name for ns in ds.node_stats}
            assert names
            for ns in ds.node_stats:
                assert ns.all_start_micros > 0
                assert ns.all_end_rel_micros >= ns.op_start_rel_micros
        cpu1 = next(ds for ds in md.step_stats.dev_stats if ds.device.endswith("CPU:1"))
        b_stats = next(ns for ns in cpu1.node_stats if ns.node_name == "b")
        assert b_stats.output[0].tensor_description.allocation_description.requested_bytes == 8
        # Plain runs of the same plan agree.
        np.testing.assert_array_equal(sess.run(d, {x: [0.0, 0.0]}), [4.0, 4.0])


def test_partition_failure_cancels_the_step_and_session_survives():
    with tf.device("/device:CPU:1"):
        a = tf.placeholder(tf.float32, name="a")
        b = tf.placeholder(tf.float32, name="b")
        bad = tf.add(a, b, name="bad")
    with tf.device("/device:CPU:0"):
        out = tf.add(bad, 1.0, name="out")
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        with pytest.raises(errors.InvalidArgumentError, match="bad"):
            sess.run(out, {a: np.ones(2), b: np.ones(3)})
        np.testing.assert_array_equal(sess.run(out, {a: np.ones(2), b: np.ones(2)}), [3.0, 3.0])


def test_placement_soft_placement_and_logging(capfd):
    with tf.device("/device:GPU:0"):
        g = tf.constant(1.0, name="on_gpu")
    with tf.device("/device:CPU:7"):
        h = tf.constant(2.0, name="on_missing_cpu")
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError, match="Cannot assign a device for "
                                                              "operation on_gpu"):
            sess.run(g)
        with pytest.raises(errors.InvalidArgumentError, match="on_missing_cpu"):
            sess.run(h)
    config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=True)
    with tf.Session(config=config) as sess:
        assert sess.run([g, h]) == [1.0, 2.0]
    err = capfd.readouterr().err
    assert "on_gpu: (Const): /job:localhost/replica:0/task:0/device:CPU:0" in err


def test_colocation_follows_variable_placement():
    with tf.device("/device:CPU:1"):
        v = tf.Variable(1.0, name="v")
    inc = tf.assign_add(v, 2.0)  # ref input: must run where v lives
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(v.initializer)
        opts = tf.RunOptions(output_partition_graphs=True)
        md = tf.RunMetadata()
        sess.run(inc, options=opts, run_metadata=md)
        for gd in md.partition_graphs:
            for n in gd.node:
                if n.name in ("v", "AssignAdd"):
                    assert n.device.endswith("CPU:1")
        assert sess.run(v) == 3.0


def test_inter_op_parallel_executor():
    x = tf.placeholder(tf.float64, [100], name="x")
    outs = [tf.add(x, float(i)) for i in range(20)]
    total = outs[0]
    for o in outs[1:]:
        total = tf.add(total, o)
    p = tf.placeholder(tf.float32, name="p")
    q = tf.placeholder(tf.float32, name="q")
    bad = tf.add(p, q, name="bad")
    config = tf.ConfigProto(inter_op_parallelism_threads=4)
    with tf.Session(config=config) as sess:
        val = np.arange(100.0)
        np.testing.assert_allclose(sess.run(total, {x: val}), 20 * val + sum(range(20)))
        with pytest.raises(errors.InvalidArgumentError, match="bad"):
            sess.run(bad, {p: np.ones(2), q: np.ones(3)})
        np.testing.assert_allclose(sess.run(total, {x: val}), 20 * val + sum(range(20)))


def test_session_accepts_imported_tf_style_graph_def():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([1, 2], name="a")
        tf.add(a, a, name="b")
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(g.as_graph_def(), name="imp")
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run("imp/b:0"), [2, 4])
