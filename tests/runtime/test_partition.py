"""Partitioning (graphcore/runtime/partition.py): per-device GraphDefs joined by
_Send/_Recv, with _Arg/_Retval for the step's feeds and fetches."""

import re

import pytest

import graphcore as tf
from graphcore.framework import device as device_lib
from graphcore.ops import runtime_ops  # noqa: F401 - registers _Arg/_Retval/_Send/_Recv
from graphcore.protobuf import graph_pb2
from graphcore.runtime.devices import Device
from graphcore.runtime.graph_view import GraphView
from graphcore.runtime.partition import partition
from graphcore.runtime.placer import place
from graphcore.runtime.prune import prune
from graphcore.runtime.rendezvous import rendezvous_key_from_attrs

LOCAL = device_lib.DeviceSpecV2(job="localhost", replica=0, task=0)
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"
CPU2 = "/job:localhost/replica:0/task:0/device:CPU:2"
KEY_RE = re.compile(r"^(?P<src>[^;]+);(?P<inc>[0-9a-f]{16});(?P<dst>[^;]+);(?P<name>[^;]+);0:0$")
SENDRECV_ATTRS = ("tensor_name", "send_device", "send_device_incarnation", "recv_device",
                  "client_terminated")


def _cpus(n):
    return [Device("localhost", 0, 0, "CPU", i) for i in range(n)]


def _split(feeds=(), fetches=(), targets=(), n_devices=2, graph_def=None):
    devices = _cpus(n_devices)
    view = GraphView()
    gd = graph_def if graph_def is not None else tf.get_default_graph().as_graph_def()
    view.extend(gd.SerializeToString())
    names = prune(view, set(feeds), list(fetches), list(targets))
    placement = place(view, names, devices, LOCAL)
    step = partition(view, names, placement, list(feeds), list(fetches), devices[0])
    return step, devices


def _nodes(step, device):
    return {n.name: n for n in step.partitions[device].graph_def.node}


def _by_op(step, op):
    return [n for p in step.partitions.values() for n in p.graph_def.node if n.op == op]


def test_single_device_one_partition_with_args_and_retvals():
    x = tf.placeholder(tf.float32, name="x")
    a = tf.constant(1.0, name="a")
    tf.add(x, a, name="y")
    step, devices = _split(feeds=["x:0"], fetches=["y:0", "a:0"], n_devices=1)
    assert list(step.partitions) == [CPU0]
    assert step.keys == []
    part = step.partitions[CPU0]
    assert part.device == devices[0]
    assert part.n_args == 1 and part.n_retvals == 2
    nodes = _nodes(step, CPU0)
    assert "x" not in nodes  # the placeholder is replaced by the feed
    (arg,) = [n for n in nodes.values() if n.op == "_Arg"]
    assert arg.attr["index"].i == 0 and arg.attr["T"].type == tf.float32.as_datatype_enum
    assert list(nodes["y"].input) == [arg.name, "a"]
    retvals = sorted((n for n in nodes.values() if n.op == "_Retval"),
                     key=lambda n: n.attr["index"].i)
    assert [list(r.input) for r in retvals] == [["y"], ["a"]]
    assert [r.attr["index"].i for r in retvals] == [0, 1]
    assert all(n.device == CPU0 for n in nodes.values())
    assert not _by_op(step, "_Send") and not _by_op(step, "_Recv")


def test_retval_of_a_non_zero_output_keeps_its_index_and_ref_types_are_stripped():
    v = tf.Variable([1.0], name="v")
    del v
    step, _ = _split(fetches=["v:0"], n_devices=1)
    (ret,) = _by_op(step, "_Retval")
    assert list(ret.input) == ["v"]
    assert ret.attr["T"].type == tf.float32.as_datatype_enum  # not float32_ref


def _two_device_graph():
    with tf.device("/cpu:0"):
        a = tf.constant([1.0, 2.0], name="a")
    with tf.device("/cpu:1"):
        b = tf.add(a, a, name="b")
        c = tf.identity(a, name="c")
        d = tf.add(b, c, name="d")
    return d


def test_two_devices_send_recv_pairs_match():
    _two_device_graph()
    step, devices = _split(fetches=["d:0"])
    assert set(step.partitions) == {CPU0, CPU1}
    (send,) = _by_op(step, "_Send")
    (recv,) = _by_op(step, "_Recv")
    assert send.device == CPU0 and recv.device == CPU1
    assert send.name in _nodes(step, CPU0) and recv.name in _nodes(step, CPU1)
    for attr in SENDRECV_ATTRS:
        assert send.attr[attr] == recv.attr[attr], attr
    assert send.attr["send_device"].s.decode() == CPU0
    assert send.attr["recv_device"].s.decode() == CPU1
    assert send.attr["send_device_incarnation"].i == devices[0].incarnation
    assert send.attr["T"].type == recv.attr["tensor_type"].type == \
        tf.float32.as_datatype_enum
    assert list(send.input) == ["a"]
    # Both consumers on CPU:1 read the one _Recv.
    nodes = _nodes(step, CPU1)
    assert list(nodes["b"].input) == [recv.name, recv.name]
    assert list(nodes["c"].input) == [recv.name]
    # The rendezvous key is TF's, and Send and Recv resolve to it.
    (key,) = step.keys
    m = KEY_RE.match(key)
    assert m, key
    assert m["src"] == CPU0 and m["dst"] == CPU1
    assert int(m["inc"], 16) == devices[0].incarnation
    assert m["name"] == send.attr["tensor_name"].s.decode()
    assert rendezvous_key_from_attrs(send) == rendezvous_key_from_attrs(recv) == key


def test_one_send_per_tensor_and_destination_device():
    with tf.device("/cpu:0"):
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
    with tf.device("/cpu:1"):
        x1 = tf.add(a, b, name="x1")
        x2 = tf.add(a, a, name="x2")
    with tf.device("/cpu:2"):
        y1 = tf.add(a, x1, name="y1")
        y2 = tf.identity(a, name="y2")
    del x2, y1, y2
    step, _ = _split(fetches=["x2:0", "y1:0", "y2:0"], n_devices=3)
    sends = _by_op(step, "_Send")
    pairs = [(s.input[0], s.attr["recv_device"].s.decode()) for s in sends]
    assert len(pairs) == len(set(pairs))
    assert sorted(p for p in pairs if p[0] in ("a", "b")) == \
        sorted([("a", CPU1), ("a", CPU2), ("b", CPU1)])
    assert len(step.keys) == len(set(step.keys)) == len(sends) == len(_by_op(step, "_Recv"))
    tensor_names = [s.attr["tensor_name"].s for s in sends]
    assert len(tensor_names) == len(set(tensor_names))


def test_non_zero_output_index_crosses_devices():
    with tf.device("/cpu:0"):
        a = tf.constant(1.0, name="a")
    with tf.device("/cpu:1"):
        tf.add(a, a, name="b")
    # Edit the graph so b reads a's output through "a:0" spelled explicitly.
    gd = tf.get_default_graph().as_graph_def()
    b = next(n for n in gd.node if n.name == "b")
    b.input[0] = "a:0"
    step, _ = _split(fetches=["b:0"], graph_def=gd)
    assert len(_by_op(step, "_Send")) == 1


def test_cross_device_control_edge_is_carried_by_a_dummy():
    with tf.device("/cpu:0"):
        v = tf.Variable(0.0, name="v")
        effect = tf.assign_add(v, 1.0, name="effect")
    with tf.device("/cpu:1"):
        with tf.control_dependencies([effect]):
            tf.constant(2.0, name="after")
            tf.constant(3.0, name="after2")
    step, _ = _split(fetches=["after:0", "after2:0"])
    cpu0 = _nodes(step, CPU0)
    (dummy,) = [n for n in cpu0.values()
                if n.op == "Const" and n.name.startswith("effect/_ctrl")]
    assert list(dummy.input) == ["^effect"]
    (send,) = _by_op(step, "_Send")
    (recv,) = _by_op(step, "_Recv")
    assert list(send.input) == [dummy.name]
    assert send.device == CPU0 and recv.device == CPU1
    cpu1 = _nodes(step, CPU1)
    # Both control consumers share the one carried edge.
    assert list(cpu1["after"].input) == [f"^{recv.name}"]
    assert list(cpu1["after2"].input) == [f"^{recv.name}"]
    assert len(step.keys) == 1


def test_fetch_of_a_fed_tensor():
    x = tf.placeholder(tf.float32, name="x")
    with tf.device("/cpu:1"):
        tf.add(x, x, name="y")
    step, _ = _split(feeds=["x:0"], fetches=["x:0"])
    # Nothing runs: the feed goes straight to the fetch on the default device.
    assert list(step.partitions) == [CPU0]
    nodes = list(step.partitions[CPU0].graph_def.node)
    assert [n.op for n in nodes] == ["_Arg", "_Retval"]
    assert list(nodes[1].input) == [nodes[0].name]
    assert nodes[1].attr["T"].type == tf.float32.as_datatype_enum
    assert step.partitions[CPU0].n_args == 1 and step.partitions[CPU0].n_retvals == 1


def test_fed_tensor_also_consumed_is_fetched_from_its_arg():
    x = tf.placeholder(tf.float32, name="x")
    with tf.device("/cpu:1"):
        tf.add(x, x, name="y")
    step, _ = _split(feeds=["x:0"], fetches=["y:0", "x:0"])
    # The _Arg lives with its first consumer (CPU:1); the fetch reads it there.
    (arg,) = _by_op(step, "_Arg")
    assert arg.device == CPU1
    (ret_x,) = [r for r in _by_op(step, "_Retval") if r.attr["index"].i == 1]
    assert ret_x.device == CPU1 and list(ret_x.input) == [arg.name]


def test_feed_consumed_on_two_devices_has_one_arg_and_a_send():
    x = tf.placeholder(tf.float32, name="x")
    with tf.device("/cpu:0"):
        tf.add(x, x, name="y0")
    with tf.device("/cpu:1"):
        tf.add(x, x, name="y1")
    step, _ = _split(feeds=["x:0"], fetches=["y0:0", "y1:0"])
    (arg,) = _by_op(step, "_Arg")
    (send,) = _by_op(step, "_Send")
    assert list(send.input) == [arg.name] and send.device == arg.device
    assert sum(p.n_args for p in step.partitions.values()) == 1


def test_partition_lists_are_in_an_order_that_runs_without_deadlock():
    _two_device_graph()
    step, _ = _split(fetches=["d:0"])
    for part in step.partitions.values():
        seen = set()
        for nd in part.graph_def.node:
            for inp in nd.input:
                assert inp.lstrip("^").split(":")[0] in seen, (nd.name, inp)
            seen.add(nd.name)


def _all_cases():
    with tf.device("/cpu:0"):
        x = tf.placeholder(tf.float32, name="x")
        v = tf.Variable(1.0, name="v")
        a = tf.add(x, v, name="a")
    with tf.device("/cpu:1"):
        with tf.control_dependencies([a]):
            b = tf.add(a, 1.0, name="b")
        tf.assign_add(v, b, name="inc")  # colocated with v on CPU:0
    return _split(feeds=["x:0"], fetches=["b:0", "x:0", "inc:0"])


def test_every_partition_is_a_valid_graph_def_for_graphcore():
    step, _ = _all_cases()
    assert len(step.partitions) == 2
    for part in step.partitions.values():
        data = part.graph_def.SerializeToString()
        reparsed = graph_pb2.GraphDef.FromString(data)
        assert reparsed == part.graph_def
        fresh = GraphView()
        fresh.extend(data)  # unique names, registered ops, resolvable inputs, acyclic
        assert set(fresh.nodes) == {n.name for n in part.graph_def.node}
        for nd in part.graph_def.node:
            assert nd.device == part.device.name


def test_every_partition_parses_as_a_tensorflow_graph_def():
    tf_real = pytest.importorskip("tensorflow")
    step, _ = _all_cases()
    for part in step.partitions.values():
        theirs = tf_real.compat.v1.GraphDef()
        theirs.ParseFromString(part.graph_def.SerializeToString())
        assert [n.name for n in theirs.node] == [n.name for n in part.graph_def.node]
        assert [n.op for n in theirs.node] == [n.op for n in part.graph_def.node]
        assert theirs.SerializeToString(deterministic=True) == \
            part.graph_def.SerializeToString(deterministic=True)
        for nd in theirs.node:
            if nd.op in ("_Send", "_Recv"):
                assert nd.attr["send_device_incarnation"].i > 0
                assert nd.attr["tensor_name"].s
                assert nd.attr["recv_device"].s.decode().startswith("/job:localhost")


def test_generated_names_do_not_collide_with_graph_names():
    with tf.device("/cpu:0"):
        a = tf.constant(1.0, name="a")
    with tf.device("/cpu:1"):
        x = tf.constant(100.0, name="x")
        tf.add(a, x, name="b")
    gd = tf.get_default_graph().as_graph_def()
    for nd in gd.node:  # GraphDef bytes may name a node "a/_1" (TF's Python API can).
        if nd.name == "x":
            nd.name = "a/_1"
        if nd.name == "b":
            nd.input[1] = "a/_1"
    step, _ = _split(fetches=["b:0"], graph_def=gd)
    for part in step.partitions.values():
        names = [n.name for n in part.graph_def.node]
        assert len(names) == len(set(names)), names
