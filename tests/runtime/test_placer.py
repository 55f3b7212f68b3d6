"""Placement (graphcore/runtime/placer.py): a device for every node of a pruned graph."""

import pytest

import graphcore as tf
from graphcore.framework import common_shapes, errors, op_registry
from graphcore.framework import device as device_lib
from graphcore.kernels import registry as kernel_registry
from graphcore.runtime.devices import Device
from graphcore.runtime.graph_view import GraphView
from graphcore.runtime.placer import place
from graphcore.runtime.prune import prune

LOCAL = device_lib.DeviceSpecV2(job="localhost", replica=0, task=0)
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"

# Test-only ops with known kernel coverage (the built-in kernels change over time).
_CPU_ONLY = "GraphcoreTestPlacerCpuOnly"
_CPU_GPU = "GraphcoreTestPlacerCpuGpu"
_NO_KERNEL = "GraphcoreTestPlacerNoKernel"
for _op in (_CPU_ONLY, _CPU_GPU, _NO_KERNEL):
    if op_registry.lookup(_op) is None:
        op_registry.register_op(_op).output("y: float").stateful() \
            .shape_fn(common_shapes.unknown_shapes)
        if _op != _NO_KERNEL:
            kernel_registry.register_kernel(_op, "CPU")(lambda ctx: (lambda: ((1.0,))))
        if _op == _CPU_GPU:
            kernel_registry.register_kernel(_op, "GPU")(lambda ctx: (lambda: ((1.0,))))


def _cpus(n):
    return [Device("localhost", 0, 0, "CPU", i) for i in range(n)]


def _view(graph_def=None):
    view = GraphView()
    gd = graph_def if graph_def is not None else tf.get_default_graph().as_graph_def()
    view.extend(gd.SerializeToString())
    return view


def _place(devices, default_spec=LOCAL, soft=False, graph_def=None, names=None):
    view = _view(graph_def)
    names = list(view.order) if names is None else names
    placement = place(view, names, devices, default_spec, soft, False)
    assert set(placement) == set(names)
    return {n: d.name for n, d in placement.items()}


def _set_device(gd, node, device):
    for nd in gd.node:
        if nd.name == node:
            nd.device = device
            return gd
    raise KeyError(node)


def test_default_device_filling():
    a = tf.constant(1.0, name="a")
    tf.add(a, a, name="b")
    assert _place(_cpus(1)) == {"a": CPU0, "b": CPU0}
    # With two CPUs and no request, the lowest index wins.
    assert _place(_cpus(2)) == {"a": CPU0, "b": CPU0}


def test_partial_requests_are_completed_by_the_default_task():
    with tf.device("/cpu:1"):
        tf.constant(1.0, name="a")
    with tf.device("/job:localhost"):
        tf.constant(1.0, name="b")
    with tf.device("/device:CPU:*"):
        tf.constant(1.0, name="c")
    assert _place(_cpus(2)) == {"a": CPU1, "b": CPU0, "c": CPU0}


def test_explicit_cpu1_with_two_devices():
    a = tf.constant(1.0, name="a")
    with tf.device("/device:CPU:1"):
        b = tf.add(a, a, name="b")
    assert b.device
    assert _place(_cpus(2)) == {"a": CPU0, "b": CPU1}


def test_explicit_cpu1_with_one_device_is_an_error_and_soft_placement_recovers():
    with tf.device("/device:CPU:1"):
        tf.constant(1.0, name="a")
    with pytest.raises(errors.InvalidArgumentError, match="operation a") as info:
        _place(_cpus(1))
    assert "CPU:1" in info.value.message
    assert _place(_cpus(1), soft=True) == {"a": CPU0}


def test_colocation_via_class_attr():
    with tf.device("/cpu:1"):
        anchor = tf.constant(1.0, name="anchor")
    with tf.colocate_with(anchor.op):
        tf.constant(2.0, name="follower")
    gd = tf.get_default_graph().as_graph_def()
    follower = next(n for n in gd.node if n.name == "follower")
    assert list(follower.attr["_class"].list.s) == [b"loc:@anchor"]
    assert _place(_cpus(2), graph_def=gd) == {"anchor": CPU1, "follower": CPU1}


def test_colocation_target_outside_the_pruned_set_still_constrains():
    with tf.device("/cpu:1"):
        anchor = tf.constant(1.0, name="anchor")
    with tf.colocate_with(anchor.op):
        tf.constant(2.0, name="follower")
    view = _view()
    names = prune(view, set(), ["follower:0"], [])
    assert names == ["follower"]
    placement = place(view, names, _cpus(2), LOCAL)
    assert {n: d.name for n, d in placement.items()} == {"follower": CPU1}


def test_colocation_via_ref_inputs_assign_follows_its_variable():
    with tf.device("/cpu:1"):
        v = tf.Variable([1.0, 2.0], name="v")
    with tf.device("/cpu:0"):
        tf.assign_add(v, [1.0, 1.0], name="inc")
    placed = _place(_cpus(2), soft=True)
    assert placed["v"] == CPU1
    assert placed["inc"] == placed["v"]
    assert placed["v/Assign"] == CPU1


def test_ref_input_group_with_conflicting_requests_is_an_error():
    v = tf.Variable([1.0, 2.0], name="v")
    inc = tf.assign_add(v, [1.0, 1.0], name="inc")
    gd = tf.get_default_graph().as_graph_def()
    _set_device(gd, "v", "/device:CPU:1")
    _set_device(gd, "inc", "/device:CPU:0")
    del inc
    with pytest.raises(errors.InvalidArgumentError, match="colocat") as info:
        _place(_cpus(2), graph_def=gd)
    assert "v" in info.value.message and "inc" in info.value.message
    placed = _place(_cpus(2), soft=True, graph_def=gd)
    assert placed["inc"] == placed["v"] == placed["v/Assign"]
    assert placed["v"] in (CPU0, CPU1)


def test_class_group_with_conflicting_requests_is_an_error():
    with tf.device("/cpu:0"):
        anchor = tf.constant(1.0, name="anchor")
    with tf.colocate_with(anchor.op):
        tf.constant(2.0, name="follower")
    gd = tf.get_default_graph().as_graph_def()
    _set_device(gd, "follower", "/device:CPU:1")
    with pytest.raises(errors.InvalidArgumentError, match="Cannot colocate"):
        _place(_cpus(2), graph_def=gd)
    placed = _place(_cpus(2), soft=True, graph_def=gd)
    assert placed["anchor"] == placed["follower"]


def test_gpu_request_without_gpu():
    with tf.device("/device:GPU:0"):
        tf.constant(1.0, name="g")
    with pytest.raises(errors.InvalidArgumentError, match="operation g") as info:
        _place(_cpus(1))
    assert "GPU:0" in info.value.message
    assert _place(_cpus(1), soft=True) == {"g": CPU0}


def test_gpu_device_without_kernel_is_an_error_or_soft_placed_to_cpu():
    # A GPU device exists, but the op has only a CPU kernel.
    devices = _cpus(1) + [Device("localhost", 0, 0, "GPU", 0)]
    g = tf.get_default_graph()
    with tf.device("/device:GPU:0"):
        g.create_op(_CPU_ONLY, [], [tf.float32], name="n")
    with pytest.raises(errors.InvalidArgumentError, match="operation n") as info:
        _place(devices)
    assert "no supported kernel for GPU" in info.value.message
    assert _place(devices, soft=True)["n"] == CPU0


def test_unrequested_type_prefers_gpu_when_every_member_has_a_kernel():
    devices = _cpus(1) + [Device("localhost", 0, 0, "GPU", 0)]
    g = tf.get_default_graph()
    g.create_op(_CPU_GPU, [], [tf.float32], name="both")
    g.create_op(_CPU_ONLY, [], [tf.float32], name="cpu_only")
    placed = _place(devices)
    assert placed == {"both": "/job:localhost/replica:0/task:0/device:GPU:0",
                      "cpu_only": CPU0}


def test_op_without_any_kernel_is_an_error():
    tf.get_default_graph().create_op(_NO_KERNEL, [], [tf.float32], name="orphan")
    with pytest.raises(errors.InvalidArgumentError, match="No OpKernel.*orphan"):
        _place(_cpus(1))


def _cluster():
    ps = Device("ps", 0, 0, "CPU", 0)
    w0 = Device("worker", 0, 0, "CPU", 0)
    w1 = Device("worker", 0, 1, "CPU", 0)
    return [ps, w0, w1]


PS = "/job:ps/replica:0/task:0/device:CPU:0"
W0 = "/job:worker/replica:0/task:0/device:CPU:0"
W1 = "/job:worker/replica:0/task:1/device:CPU:0"
WORKER0 = device_lib.DeviceSpecV2(job="worker", replica=0, task=0)


def test_job_and_task_placement_in_a_cluster():
    with tf.device("/job:ps"):
        v = tf.Variable(1.0, name="v")
    with tf.device("/job:ps/task:0"):
        tf.constant(3.0, name="on_ps")
    with tf.device("/job:worker/task:1"):
        tf.add(v, 1.0, name="on_w1")
    tf.add(v, 2.0, name="unpinned")
    placed = _place(_cluster(), default_spec=WORKER0)
    assert placed["v"] == PS
    assert placed["v/Assign"] == PS
    assert placed["v/read"] == PS  # the read is colocated with its variable
    assert placed["on_ps"] == PS
    assert placed["on_w1"] == W1
    assert placed["unpinned"] == W0


def test_unknown_job_or_task_in_a_cluster_is_an_error():
    with tf.device("/job:worker/task:7"):
        tf.constant(1.0, name="far")
    with pytest.raises(errors.InvalidArgumentError, match="operation far"):
        _place(_cluster(), default_spec=WORKER0)
    with tf.device("/job:chief"):
        tf.constant(1.0, name="chief")
    with pytest.raises(errors.InvalidArgumentError):
        _place(_cluster(), default_spec=WORKER0, names=["chief"])


@pytest.mark.parametrize("bad", ["/foo:bar", "/job:ps/task:x", "/device:CPU:a", "garbage"])
def test_malformed_device_string_names_the_node(bad):
    a = tf.constant(1.0, name="a")
    tf.add(a, a, name="victim")
    gd = _set_device(tf.get_default_graph().as_graph_def(), "victim", bad)
    with pytest.raises(errors.InvalidArgumentError, match="victim") as info:
        _place(_cpus(2), graph_def=gd)
    assert bad in info.value.message
    # Not even soft placement accepts an unparsable device string.
    with pytest.raises(errors.InvalidArgumentError, match="victim"):
        _place(_cpus(2), soft=True, graph_def=gd)


def test_log_device_placement(capfd):
    tf.constant(1.0, name="logged")
    view = _view()
    place(view, ["logged"], _cpus(1), LOCAL, False, True)
    assert f"logged: (Const): {CPU0}" in capfd.readouterr().err
