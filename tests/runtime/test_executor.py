"""PartitionExecutor and Rendezvous (graphcore/runtime/{executor,rendezvous}.py), driven
directly on partitions built by prune/place/partition."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import graphcore as tf
from graphcore import kernels  # noqa: F401 - registers the kernels
from graphcore.framework import common_shapes, errors, op_registry
from graphcore.framework import device as device_lib
from graphcore.kernels import registry as kernel_registry
from graphcore.ops import runtime_ops  # noqa: F401 - registers _Arg/_Retval/_Send/_Recv
from graphcore.protobuf import graph_pb2, step_stats_pb2
from graphcore.runtime.devices import Device
from graphcore.runtime.executor import PartitionExecutor, Step
from graphcore.runtime.graph_view import GraphView
from graphcore.runtime.partition import partition
from graphcore.runtime.placer import place
from graphcore.runtime.prune import prune
from graphcore.runtime.rendezvous import Rendezvous
from graphcore.runtime.resources import ResourceStore

LOCAL = device_lib.DeviceSpecV2(job="localhost", replica=0, task=0)

# A test-only op whose kernel raises the exception its "kind" attr names.
_RAISE = "GraphcoreTestExecutorRaise"
_BAD_BUILD = "GraphcoreTestExecutorBadBuild"
_EXC = {"value": ValueError("bad value"), "memory": MemoryError("no room"),
        "unimplemented": NotImplementedError("not here"),
        "op": errors.OutOfRangeError(None, None, "ran out")}
if op_registry.lookup(_RAISE) is None:
    op_registry.register_op(_RAISE).input("x: float").output("y: float") \
        .attr("kind: string").stateful().shape_fn(common_shapes.unknown_shapes)

    @kernel_registry.register_kernel(_RAISE)
    def _raise_kernel(ctx):
        exc = _EXC[ctx.node_def.attr["kind"].s.decode()]

        def compute(x):
            raise exc

        return compute

    op_registry.register_op(_BAD_BUILD).output("y: float").stateful() \
        .shape_fn(common_shapes.unknown_shapes)

    @kernel_registry.register_kernel(_BAD_BUILD)
    def _bad_build_kernel(ctx):
        raise RuntimeError("factory exploded")


def _compile(feeds=(), fetches=(), targets=(), n_devices=1, resources=None):
    devices = [Device("localhost", 0, 0, "CPU", i) for i in range(n_devices)]
    view = GraphView()
    view.extend(tf.get_default_graph().as_graph_def().SerializeToString())
    names = prune(view, set(feeds), list(fetches), list(targets))
    placement = place(view, names, devices, LOCAL)
    step = partition(view, names, placement, list(feeds), list(fetches), devices[0])
    slots = {k: i for i, k in enumerate(step.keys)}
    resources = resources or ResourceStore()
    executors = {name: PartitionExecutor(p.graph_def, p.device, resources, view.nodes, slots)
                 for name, p in step.partitions.items()}
    return executors, len(step.keys)


def _only(compiled):
    executors, _ = compiled
    (ex,) = executors.values()
    return ex


def _graph():
    x = tf.placeholder(tf.float32, shape=[2], name="x")
    a = tf.constant([1.0, 2.0], name="a")
    s = tf.add(x, a, name="s")
    i = tf.identity(s, name="i")
    with tf.control_dependencies([i]):
        n = tf.no_op(name="n")
    del n
    return tf.add(i, i, name="out")


def _run_modes():
    pool = ThreadPoolExecutor(4)
    modes = {
        "run": lambda ex, step: ex.run(step),
        "traced": lambda ex, step: ex.run_traced(step, step_stats_pb2.DeviceStepStats()),
        "parallel": lambda ex, step: ex.run_parallel(step, pool),
    }
    return modes, pool


@pytest.mark.parametrize("mode", ["run", "traced", "parallel"])
def test_small_graph_all_modes(mode):
    _graph()
    ex = _only(_compile(["x:0"], ["out:0", "s:0", "a:0"], ["n"]))
    modes, pool = _run_modes()
    try:
        for k in range(3):
            x = np.array([k, 10.0 * k], dtype=np.float32)
            step = Step([x], 3, None)
            modes[mode](ex, step)
            out, s, a = step.retvals
            np.testing.assert_array_equal(out, 2 * (x + [1.0, 2.0]))
            np.testing.assert_array_equal(s, x + [1.0, 2.0])
            np.testing.assert_array_equal(a, [1.0, 2.0])
    finally:
        pool.shutdown()


def test_steps_do_not_share_values():
    _graph()
    ex = _only(_compile(["x:0"], ["out:0"]))
    s1, s2 = Step([np.ones(2, np.float32)], 1, None), Step([np.zeros(2, np.float32)], 1, None)
    ex.run(s1)
    ex.run(s2)
    np.testing.assert_array_equal(s1.retvals[0], [4.0, 6.0])
    np.testing.assert_array_equal(s2.retvals[0], [2.0, 4.0])


def test_run_traced_records_every_node():
    _graph()
    ex = _only(_compile(["x:0"], ["out:0"], ["n"]))
    stats = step_stats_pb2.DeviceStepStats()
    step = Step([np.ones(2, np.float32)], 1, None)
    ex.run_traced(step, stats)
    recorded = [ns.node_name for ns in stats.node_stats]
    # Nothing is skipped: Const, _Arg, Identity, NoOp and _Retval are all recorded.
    assert recorded == [n.name for n in ex.graph_def.node]
    by_name = {ns.node_name: ns for ns in stats.node_stats}
    out = by_name["out"]
    assert out.timeline_label == "out = AddV2(i, i)"
    assert out.all_start_micros > 0
    assert out.op_end_rel_micros >= out.op_start_rel_micros == 0
    assert out.thread_id == threading.get_ident() & 0x7FFFFFFF
    (desc,) = out.output
    assert desc.slot == 0
    assert desc.tensor_description.dtype == tf.float32.as_datatype_enum
    assert [d.size for d in desc.tensor_description.shape.dim] == [2]
    assert desc.tensor_description.allocation_description.requested_bytes == 8
    assert not by_name["n"].output


def test_run_parallel_wide_graph_and_empty_partition():
    xs = [tf.constant(float(i), name=f"c{i}") for i in range(20)]
    total = xs[0]
    for i, x in enumerate(xs[1:]):
        total = tf.add(total, tf.add(x, x, name=f"d{i}"), name=f"t{i}")
    ex = _only(_compile(fetches=[total.name]))
    with ThreadPoolExecutor(8) as pool:
        for _ in range(20):
            step = Step([], 1, None)
            ex.run_parallel(step, pool)
            assert step.retvals[0] == 0.0 + 2 * sum(range(1, 20))
        empty = PartitionExecutor(graph_pb2.GraphDef(), Device("localhost", 0, 0, "CPU", 0),
                                  ResourceStore(), {}, {})
        empty.run_parallel(Step([], 0, None), pool)  # returns at once
        empty.run(Step([], 0, None))


def test_variable_refs_are_read_where_a_value_is_needed():
    v = tf.Variable([1.0, 2.0], name="v")
    inc = tf.assign_add(v, [1.0, 1.0], name="inc")
    store = ResourceStore()
    init = _only(_compile(targets=[v.initializer.name], resources=store))
    step = Step([], 0, None)
    init.run(step)
    ex = _only(_compile(fetches=[inc.name, "v/read:0"], resources=store))
    step = Step([], 2, None)
    ex.run(step)
    ref_value, read_value = step.retvals
    np.testing.assert_array_equal(ref_value, [2.0, 3.0])  # fetched ref is dereferenced
    assert isinstance(read_value, np.ndarray)
    assert not hasattr(ref_value, "read")


def _raise_graph(kind):
    x = tf.constant(1.0, name="x")
    g = tf.get_default_graph()
    op = g.create_op(_RAISE, [x], [tf.float32], name="boom",
                     attrs={"kind": tf.AttrValue(s=kind.encode())})
    return tf.add(op.outputs[0], x, name="after")


@pytest.mark.parametrize("mode", ["run", "traced", "parallel"])
@pytest.mark.parametrize("kind, cls, text", [
    ("value", errors.InvalidArgumentError, "ValueError: bad value"),
    ("memory", errors.ResourceExhaustedError, "OOM: no room"),
    ("unimplemented", errors.UnimplementedError, "not here"),
    ("op", errors.OutOfRangeError, "ran out"),
])
def test_kernel_errors_are_typed_and_name_the_node(mode, kind, cls, text):
    after = _raise_graph(kind)
    ex = _only(_compile(fetches=[after.name]))
    modes, pool = _run_modes()
    try:
        with pytest.raises(cls) as info:
            modes[mode](ex, Step([], 1, None))
    finally:
        pool.shutdown()
    err = info.value
    assert text in err.message
    assert "{{node boom}}" in err.message
    assert err.node_def is not None and err.node_def.name == "boom"


def test_placeholder_not_fed_names_the_placeholder():
    _graph()
    ex = _only(_compile(fetches=["out:0"]))
    with pytest.raises(errors.InvalidArgumentError, match="must feed a value") as info:
        ex.run(Step([], 1, None))
    assert info.value.node_def.name == "x"


def test_kernel_factory_failure_is_an_invalid_argument_at_compile_time():
    tf.get_default_graph().create_op(_BAD_BUILD, [], [tf.float32], name="badly_built")
    with pytest.raises(errors.InvalidArgumentError, match="badly_built.*factory exploded"):
        _compile(fetches=["badly_built:0"])


def test_missing_kernel_for_the_device_is_an_invalid_argument():
    tf.constant(1.0, name="c")
    view = GraphView()
    view.extend(tf.get_default_graph().as_graph_def())
    gd = tf.get_default_graph().as_graph_def()
    tpu = Device("localhost", 0, 0, "TPU", 0)
    with pytest.raises(errors.InvalidArgumentError, match="No TPU kernel for op Const"):
        PartitionExecutor(gd, tpu, ResourceStore(), view.nodes, {})


def test_uninitialized_variable_read_names_the_reading_node():
    v = tf.Variable(1.0, name="v")
    out = tf.add(v, 1.0, name="out")
    ex = _only(_compile(fetches=[out.name]))
    with pytest.raises(errors.FailedPreconditionError, match="uninitialized value v") as info:
        ex.run(Step([], 1, None))
    assert info.value.node_def.name == "v/read"  # the Identity that reads the ref


def test_uninitialized_variable_fetch_does_not_blame_an_unrelated_node():
    tf.Variable(1.0, name="v")
    c1 = tf.constant(1.0, name="c1")
    tf.add(c1, c1, name="c")
    ex = _only(_compile(fetches=["v:0", "c:0"]))
    with pytest.raises(errors.FailedPreconditionError) as info:
        ex.run(Step([], 2, None))
    assert info.value.node_def.name != "c"
    assert "{{node c}}" not in info.value.message


# -- Rendezvous -------------------------------------------------------------------------
def test_rendezvous_send_then_recv_and_recv_then_send():
    rv = Rendezvous(2)
    rv.send(0, "early")
    assert rv.recv(0) == "early"
    got = []
    t = threading.Thread(target=lambda: got.append(rv.recv(1)))
    t.start()
    time.sleep(0.02)
    assert not got
    rv.send(1, np.arange(3))
    t.join(5)
    assert not t.is_alive()
    np.testing.assert_array_equal(got[0], [0, 1, 2])


def test_rendezvous_abort_wakes_a_blocked_recv_with_cancelled():
    rv = Rendezvous(3)
    results = []

    def waiter(slot):
        try:
            rv.recv(slot)
            results.append("value")
        except errors.CancelledError as e:
            results.append(e)

    threads = [threading.Thread(target=waiter, args=(s,)) for s in (0, 1, 2)]
    for t in threads:
        t.start()
    time.sleep(0.02)
    rv.abort(ValueError("partition died"))
    for t in threads:
        t.join(5)
        assert not t.is_alive()
    assert len(results) == 3
    assert all(isinstance(r, errors.CancelledError) for r in results)
    assert "partition died" in results[0].message
    # Later receives fail fast too; the first abort's cause is kept.
    rv.abort(RuntimeError("second"))
    with pytest.raises(errors.CancelledError, match="partition died"):
        rv.recv(0)


# -- two partitions ---------------------------------------------------------------------
def _cycle_graph():
    """A on CPU:0 -> B on CPU:1 -> C on CPU:0: each partition sends and receives."""
    x = tf.placeholder(tf.float32, shape=[], name="x")
    with tf.device("/cpu:0"):
        a = tf.add(x, 1.0, name="a")
    with tf.device("/cpu:1"):
        b = tf.add(a, 10.0, name="b")
    with tf.device("/cpu:0"):
        c = tf.add(b, a, name="c")
    with tf.device("/cpu:1"):
        d = tf.add(c, b, name="d")
    return d


def _run_two(executors, n_keys, args, n_fetches, pool):
    step = Step(args, n_fetches, Rendezvous(n_keys))
    exs = list(executors.values())

    def one(ex):
        try:
            ex.run(step)
        except BaseException as e:
            step.rendezvous.abort(e)
            raise

    futures = [pool.submit(one, ex) for ex in exs]
    errs = []
    for f in futures:
        try:
            f.result(timeout=10)
        except errors.OpError as e:
            errs.append(e)
    return step, errs


def test_cycle_between_two_partitions_runs_concurrently_without_deadlock():
    d = _cycle_graph()
    executors, n_keys = _compile(["x:0"], [d.name, "c:0"], n_devices=2)
    assert len(executors) == 2 and n_keys >= 3
    for ex in executors.values():  # each partition both sends and receives
        ops = {n.op for n in ex.graph_def.node}
        assert {"_Send", "_Recv"} <= ops
    with ThreadPoolExecutor(2) as pool:
        for k in range(300):
            step, errs = _run_two(executors, n_keys, [np.float32(k)], 2, pool)
            assert not errs
            a = k + 1.0
            b = a + 10.0
            c = b + a
            assert step.retvals == [c + b, c]


def test_failure_in_one_partition_cancels_the_other():
    x = tf.placeholder(tf.float32, shape=[], name="x")
    with tf.device("/cpu:0"):
        bad = tf.get_default_graph().create_op(
            _RAISE, [x], [tf.float32], name="boom",
            attrs={"kind": tf.AttrValue(s=b"value")}).outputs[0]
    with tf.device("/cpu:1"):
        out = tf.add(bad, 1.0, name="out")
    executors, n_keys = _compile(["x:0"], [out.name], n_devices=2)
    with ThreadPoolExecutor(2) as pool:
        _, errs = _run_two(executors, n_keys, [np.float32(1)], 1, pool)
    kinds = sorted(type(e).__name__ for e in errs)
    assert kinds == ["CancelledError", "InvalidArgumentError"]


def test_run_parallel_failure_aborts_the_rendezvous():
    x = tf.placeholder(tf.float32, shape=[], name="x")
    with tf.device("/cpu:0"):
        bad = tf.get_default_graph().create_op(
            _RAISE, [x], [tf.float32], name="boom",
            attrs={"kind": tf.AttrValue(s=b"value")}).outputs[0]
    with tf.device("/cpu:1"):
        out = tf.add(bad, 1.0, name="out")
    executors, n_keys = _compile(["x:0"], [out.name], n_devices=2)
    sender = next(ex for ex in executors.values()
                  if any(n.op == "_Send" for n in ex.graph_def.node))
    receiver = next(ex for ex in executors.values() if ex is not sender)
    step = Step([np.float32(1)], 1, Rendezvous(n_keys))
    caught = []

    def recv_side():
        try:
            receiver.run(step)
        except errors.OpError as e:
            caught.append(e)

    t = threading.Thread(target=recv_side)
    t.start()
    with ThreadPoolExecutor(2) as pool:
        with pytest.raises(errors.InvalidArgumentError, match="boom"):
            sender.run_parallel(step, pool)
    t.join(5)
    assert not t.is_alive()
    assert len(caught) == 1 and isinstance(caught[0], errors.CancelledError)


def test_run_is_one_generated_straight_line_function_equal_to_the_slot_loop():
    """A plan's in-order step is a generated function (a local per slot, a call per
    kernel); it gives what the table-driven loop gives, fetches of fed values and of
    constants included (errors: test_kernel_errors_are_typed_and_name_the_node)."""
    _graph()
    x = tf.get_default_graph().get_tensor_by_name("x:0")
    tf.identity(tf.constant([3.0, 4.0], name="b") * x, name="bx")
    ex = _only(_compile(["x:0"], ["out:0", "a:0", "x:0", "bx:0"], ["n"]))
    assert ex._straight is not None
    feed = np.array([1.0, 5.0], dtype=np.float32)
    by_line, by_loop = Step([feed], 4, None), Step([feed], 4, None)
    ex.run(by_line)
    ex._run(by_loop)
    for got, want in zip(by_line.retvals, by_loop.retvals):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(by_line.retvals[3], [3.0, 20.0])


def test_shape_arithmetic_is_folded_per_input_shape():
    """Shape -> BroadcastGradientArgs and the Mean gradient's divisor are computed once
    per distinct input shape (a memo in the straight line) and reused; the values match
    the slot loop's for every batch size, a fetched shape stays the caller's to write, and
    an error in folded arithmetic names its node on every step."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    b = tf.Variable(np.ones(3, np.float32), name="b")
    loss = tf.reduce_mean(tf.square(x + b))
    grad_b, = tf.gradients(loss, [b])
    shape = tf.shape(x, name="shape")
    # A Shape of a folded value (Fill) folds with it.
    same = tf.reduce_sum(tf.reshape(x, tf.shape(tf.fill(tf.shape(x), 1.0))), axis=0)
    x2 = tf.placeholder(tf.float32, name="x2")
    bad = tf.square(tf.cast(tf.reshape(tf.shape(x2), [3], name="bad"), tf.float32))
    with tf.Session() as sess:
        sess.run(b.initializer)
        for n in (2, 5, 2, 5):
            feed = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
            got, s, total = sess.run([grad_b, shape, same], {x: feed})
            np.testing.assert_allclose(total, feed.sum(axis=0))
            np.testing.assert_allclose(got, np.mean(2 * (feed + 1), axis=0) / 3, rtol=1e-6)
            s[0] = -1  # the caller's own copy
        ex = next(p for k, p in sess._engine._plans.items() if "shape:0" in k[1]).executors[0]
        memos = [v for k, v in ex._straight.__globals__.items() if k.startswith("m")
                 and isinstance(v, dict)]
        assert memos and all(len(m) == 2 for m in memos if m)  # batch 2 and batch 5
        by_loop = Step([feed], 3, None)
        ex._run(by_loop)
        np.testing.assert_allclose(by_loop.retvals[0], got)
        for _ in range(2):
            with pytest.raises(errors.InvalidArgumentError, match="{node bad}"):
                sess.run(bad, {x2: feed})


def test_a_suspending_step_yields_where_it_waits_and_runs_on_one_thread():
    """``suspending``: the in-order step as a generator that yields the slot of a _Recv
    whose tensor has not arrived (the ps actor so runs a partition on its call's thread,
    suspended while it waits on its caller). Two partitions trading tensors both ways
    run to the end on this one thread, each resumed when the other has sent."""
    from graphcore.runtime.rendezvous import rendezvous_key_from_attrs

    d = _cycle_graph()
    executors, n_keys = _compile(["x:0"], [d.name, "c:0"], n_devices=2)

    def recv_slots(ex):
        return frozenset(ex.rendezvous_slots[rendezvous_key_from_attrs(n)]
                         for n in ex.graph_def.node if n.op == "_Recv")

    exs = list(executors.values())
    assert all(ex.suspending(frozenset()) is None for ex in exs)  # a Recv it may not yield
    for k in range(3):
        step = Step([np.float32(k)], 2, Rendezvous(n_keys))
        gens = [ex.suspending(recv_slots(ex))(step, step.args) for ex in exs]
        waits = []
        while gens:
            gen = gens.pop(0)
            slot = next(gen, None)
            if slot is not None:
                assert not step.rendezvous.ready(slot)
                waits.append(slot)
                gens.append(gen)
        a = k + 1.0
        b = a + 10.0
        c = b + a
        assert step.retvals == [c + b, c]
        assert len(waits) >= 2  # each partition waited on the other at least once

    # A kernel's failure comes out of the generator named; a suspended one closes.
    x = tf.placeholder(tf.float32, shape=[], name="x2")
    with tf.device("/cpu:0"):
        y = tf.add(x, 1.0, name="y2")
    with tf.device("/cpu:1"):
        bad = tf.get_default_graph().create_op(
            _RAISE, [y], [tf.float32], name="boom2",
            attrs={"kind": tf.AttrValue(s=b"value")}).outputs[0]
    executors, n_keys = _compile(["x2:0"], [bad.name], n_devices=2)
    receiver = next(ex for ex in executors.values()
                    if any(n.op == "_Recv" for n in ex.graph_def.node))
    sender = next(ex for ex in executors.values() if ex is not receiver)
    gen_fn = receiver.suspending(recv_slots(receiver))
    step = Step([np.float32(1)], 1, Rendezvous(n_keys))
    gen = gen_fn(step, step.args)
    next(gen)
    gen.close()  # (nothing raised: GeneratorExit passes through)
    gen = gen_fn(step, step.args)
    next(gen)
    assert list(sender.suspending(frozenset())(step, step.args)) == []  # (no _Recv: one go)
    with pytest.raises(errors.InvalidArgumentError, match="boom2"):
        next(gen)
