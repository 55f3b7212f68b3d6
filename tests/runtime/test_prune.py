"""Pruning (graphcore/runtime/prune.py): the nodes one step must run."""

import pytest

import graphcore as tf
from graphcore.framework import common_shapes, errors, op_registry
from graphcore.protobuf import graph_pb2, node_def_pb2
from graphcore.runtime.graph_view import GraphView
from graphcore.runtime.prune import prune

# A test-only op with two outputs (no built-in op has more than one).
_TWO_OUT = "GraphcoreTestPruneTwoOutputs"
if op_registry.lookup(_TWO_OUT) is None:
    op_registry.register_op(_TWO_OUT).input("x: float").output("y: float") \
        .output("z: float").shape_fn(common_shapes.unknown_shapes)


def _view(graph=None):
    view = GraphView()
    view.extend((graph or tf.get_default_graph()).as_graph_def().SerializeToString())
    return view


def _chain():
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    c = tf.add(a, b, name="c")
    d = tf.add(c, c, name="d")
    tf.constant(5.0, name="unrelated")
    tf.add(d, b, name="e")
    return _view()


def test_fetch_closure_only():
    view = _chain()
    assert prune(view, set(), ["c:0"], []) == ["a", "b", "c"]
    assert prune(view, set(), ["d:0"], []) == ["a", "b", "c", "d"]
    assert prune(view, set(), ["a:0"], []) == ["a"]
    assert prune(view, set(), [], []) == []


def test_result_is_in_topological_order_whatever_the_fetch_order():
    view = _chain()
    result = prune(view, set(), ["e:0", "a:0", "c:0"], [])
    assert result == sorted(result, key=lambda n: view.nodes[n].index)
    assert result == ["a", "b", "c", "d", "e"]


def test_topological_order_for_nodes_extended_out_of_order():
    def const(name):
        nd = node_def_pb2.NodeDef(name=name, op="Const")
        nd.attr["dtype"].type = tf.float32.as_datatype_enum
        nd.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(1.0))
        return nd

    add = node_def_pb2.NodeDef(name="sum", op="AddV2", input=["z", "y"])
    add.attr["T"].type = tf.float32.as_datatype_enum
    gd = graph_pb2.GraphDef()
    gd.node.extend([add, const("z"), const("y")])
    view = GraphView()
    view.extend(gd)
    result = prune(view, set(), ["sum:0"], [])
    assert result[-1] == "sum" and set(result) == {"z", "y", "sum"}


def _counter(name):
    v = tf.Variable(0.0, name=name)
    return v, tf.assign_add(v, 1.0, name=f"{name}_inc")


def test_control_inputs_with_an_effect_are_followed():
    a = tf.constant(1.0, name="a")
    _, inc = _counter("v")
    with tf.control_dependencies([inc]):
        b = tf.identity(a, name="b")
    tf.no_op(name="other")
    assert b.op.control_inputs
    view = _view()
    assert prune(view, set(), ["b:0"], []) == ["a", "v", "v_inc/value", "v_inc", "b"]


def test_control_inputs_to_effect_free_work_are_dropped():
    # As TF's graph optimizer does: a control edge whose only purpose would be to run
    # stateless work that nothing else needs is dropped, and that work never runs.
    a = tf.constant(1.0, name="a")
    side = tf.constant(3.0, name="side")
    side_effect = tf.identity(side, name="side_effect")
    with tf.control_dependencies([side_effect]):
        b = tf.identity(a, name="b")
        t = tf.no_op(name="t")
    del b, t
    view = _view()
    assert prune(view, set(), ["b:0"], []) == ["a", "b"]
    assert prune(view, set(), [], ["t"]) == ["t"]
    # Needed anyway (fetched): the edge stays, for ordering.
    assert prune(view, set(), ["b:0", "side_effect:0"], []) == \
        ["a", "side", "side_effect", "b"]


def test_control_input_whose_work_reaches_an_effect_is_followed():
    v, inc = _counter("v")
    after = tf.identity(inc, name="after")  # stateless itself, but feeds on the update
    with tf.control_dependencies([after]):
        tf.no_op(name="t")
    del v
    view = _view()
    assert prune(view, set(), [], ["t"]) == ["v", "v_inc/value", "v_inc", "after", "t"]


def test_control_input_on_an_unfed_placeholder_is_followed():
    x = tf.placeholder(tf.float32, name="x")
    y = tf.identity(x, name="y")
    with tf.control_dependencies([y]):
        tf.no_op(name="t")
    view = _view()
    assert prune(view, set(), [], ["t"]) == ["x", "y", "t"]


def test_targets_pull_in_their_closure():
    _, inc = _counter("v")
    b = tf.identity(inc, name="b")
    with tf.control_dependencies([b]):
        tf.no_op(name="t")
    tf.no_op(name="other")
    view = _view()
    assert prune(view, set(), [], ["t"]) == ["v", "v_inc/value", "v_inc", "b", "t"]
    assert prune(view, set(), ["v_inc/value:0"], ["other"]) == ["v_inc/value", "other"]


def test_fed_tensor_cuts_the_walk():
    x = tf.placeholder(tf.float32, name="x")
    a = tf.constant(1.0, name="a")
    c = tf.add(x, a, name="c")
    tf.add(c, a, name="d")
    view = _view()
    # Feeding c: nothing upstream of c is needed.
    assert prune(view, {"c:0"}, ["d:0"], []) == ["a", "d"]
    assert prune(view, {"x:0"}, ["d:0"], []) == ["a", "c", "d"]
    # Fetching a fed tensor needs no node at all.
    assert prune(view, {"c:0"}, ["c:0"], []) == []
    # Fetching the fed op by name (target) still runs it.
    assert prune(view, {"c:0"}, [], ["c"]) == ["x", "a", "c"]


def test_fed_output_does_not_cut_other_outputs_of_the_same_op():
    g = tf.get_default_graph()
    src = tf.constant(1.0, name="src")
    two = g.create_op(_TWO_OUT, [src], [tf.float32, tf.float32], name="two")
    tf.identity(two.outputs[0], name="use_y")
    tf.identity(two.outputs[1], name="use_z")
    tf.add(two.outputs[0], two.outputs[1], name="both")
    view = _view()
    assert prune(view, {"two:0"}, ["use_y:0"], []) == ["use_y"]
    # two:1 is not fed, so "two" (and its input) must still run.
    assert prune(view, {"two:0"}, ["use_z:0"], []) == ["src", "two", "use_z"]
    assert prune(view, {"two:0"}, ["both:0"], []) == ["src", "two", "both"]
    assert prune(view, {"two:0", "two:1"}, ["both:0"], []) == ["both"]


def test_control_edge_from_a_fed_op_is_still_followed():
    x = tf.placeholder(tf.float32, name="x")
    y = tf.identity(x, name="y")
    with tf.control_dependencies([y.op]):
        z = tf.constant(2.0, name="z")
    del z
    view = _view()
    # Feeding y:0 does not stand in for the control dependency on y.
    assert prune(view, {"y:0"}, ["z:0"], []) == ["x", "y", "z"]


def test_unknown_fetch_or_target_is_not_found():
    view = _chain()
    with pytest.raises(errors.NotFoundError, match="nope:0"):
        prune(view, set(), ["nope:0"], [])
    with pytest.raises(errors.NotFoundError, match="ghost"):
        prune(view, set(), ["a:0"], ["ghost"])
    with pytest.raises(errors.NotFoundError):
        prune(view, set(), ["a"], [])  # a fetch must be a tensor name


def test_fetch_of_missing_output_index_is_not_found():
    view = _chain()
    with pytest.raises(errors.NotFoundError):
        prune(view, set(), ["a:7"], [])


def test_prune_does_not_mutate_the_view():
    view = _chain()
    before = (list(view.order), dict(view.nodes), view.version)
    prune(view, {"c:0"}, ["e:0"], ["unrelated"])
    assert (list(view.order), dict(view.nodes), view.version) == before
