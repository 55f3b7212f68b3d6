"""GraphView (graphcore/runtime/graph_view.py): the engine's view of GraphDef bytes."""

import pytest

import graphcore as tf
from graphcore.framework import errors
from graphcore.protobuf import graph_pb2, node_def_pb2
from graphcore.runtime.graph_view import GraphView


def _const_node(name, value=1.0, dtype=tf.float32):
    nd = node_def_pb2.NodeDef(name=name, op="Const")
    nd.attr["dtype"].type = dtype.as_datatype_enum
    nd.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(value, dtype=dtype))
    return nd


def _add_node(name, x, y, dtype=tf.float32):
    nd = node_def_pb2.NodeDef(name=name, op="AddV2", input=[x, y])
    nd.attr["T"].type = dtype.as_datatype_enum
    return nd


def _gd(*nodes):
    gd = graph_pb2.GraphDef()
    gd.node.extend(nodes)
    return gd


def _simple_graph():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        c = tf.add(a, b, name="c")
        with tf.control_dependencies([c]):
            tf.no_op(name="d")
    return g


def _snapshot(view):
    return (dict(view.nodes), list(view.order), view.version)


@pytest.mark.parametrize("as_bytes", [True, False])
def test_extend_with_bytes_or_graph_def(as_bytes):
    gd = _simple_graph().as_graph_def()
    view = GraphView()
    view.extend(gd.SerializeToString() if as_bytes else gd)
    assert set(view.nodes) == {"a", "b", "c", "d"}
    assert view.order.index("c") > view.order.index("a")
    assert view.order.index("c") > view.order.index("b")
    assert view.order.index("d") > view.order.index("c")
    c = view.nodes["c"]
    assert c.op == "AddV2"
    assert c.inputs == [("a", 0), ("b", 0)]
    assert c.input_types == [tf.float32, tf.float32]
    assert c.output_types == [tf.float32]
    assert c.input_is_ref == [False, False]
    assert view.nodes["d"].control_inputs == ["c"]
    assert view.nodes["d"].output_types == []
    assert view.version == 1
    assert [view.nodes[n].index for n in view.order] == list(range(4))


def test_incremental_extends_see_earlier_nodes():
    view = GraphView()
    view.extend(_gd(_const_node("a"), _const_node("b")).SerializeToString())
    view.extend(_gd(_add_node("c", "a", "b:0")).SerializeToString())
    view.extend(_gd(_add_node("e", "c", "a")).SerializeToString())
    assert view.order == ["a", "b", "c", "e"]
    assert view.version == 3
    assert view.nodes["e"].index == 3
    assert view.nodes["c"].inputs == [("a", 0), ("b", 0)]


def test_extend_from_python_graph_incrementally():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
    view = GraphView()
    view.extend(g.as_graph_def().SerializeToString())
    with g.as_default():
        tf.add(a, a, name="b")
    gd = g.as_graph_def()
    new = graph_pb2.GraphDef()
    new.node.extend(n for n in gd.node if n.name not in view.nodes)
    view.extend(new.SerializeToString())
    assert view.order == ["a", "b"]


def test_nodes_given_out_of_order_are_ordered_topologically():
    e = _add_node("e", "c", "a")
    e.input.append("^d")
    gd = _gd(e, _add_node("c", "a", "b"),
             node_def_pb2.NodeDef(name="d", op="NoOp", input=["^c"]),
             _const_node("b"), _const_node("a"))
    view = GraphView()
    view.extend(gd.SerializeToString())
    order = view.order
    assert sorted(order) == ["a", "b", "c", "d", "e"]
    pos = {n: i for i, n in enumerate(order)}
    assert pos["a"] < pos["c"] and pos["b"] < pos["c"]
    assert pos["c"] < pos["d"] < pos["e"]
    assert all(view.nodes[n].index == pos[n] for n in order)


def test_ties_keep_given_order():
    view = GraphView()
    view.extend(_gd(_const_node("z"), _const_node("y"), _const_node("x")))
    assert view.order == ["z", "y", "x"]


def test_default_attrs_are_filled():
    nd = node_def_pb2.NodeDef(name="v", op="VariableV2")
    nd.attr["dtype"].type = tf.float32.as_datatype_enum
    nd.attr["shape"].shape.dim.add(size=2)
    assign = node_def_pb2.NodeDef(name="assign", op="Assign", input=["v", "init"])
    assign.attr["T"].type = tf.float32.as_datatype_enum
    view = GraphView()
    view.extend(_gd(nd, _const_node("init", [1.0, 2.0]), assign).SerializeToString())
    v = view.nodes["v"].node_def
    assert v.attr["container"].s == b""
    assert v.attr["shared_name"].s == b""
    a = view.nodes["assign"].node_def
    assert a.attr["validate_shape"].b is True
    assert a.attr["use_locking"].b is True
    info = view.nodes["assign"]
    assert info.input_is_ref == [True, False]
    assert info.output_types == [tf.float32_ref]
    assert view.nodes["v"].output_types == [tf.float32_ref]


def _assert_rejected(view, gd, exc, match):
    before = _snapshot(view)
    with pytest.raises(exc, match=match):
        view.extend(gd.SerializeToString())
    assert _snapshot(view) == before


def test_duplicate_name_within_one_extend_is_rejected_all_or_nothing():
    view = GraphView()
    _assert_rejected(view, _gd(_const_node("a"), _const_node("b"), _const_node("a")),
                     errors.InvalidArgumentError, "Duplicate node name.*'a'")
    assert view.nodes == {} and view.order == []


def test_duplicate_of_existing_node_is_rejected_all_or_nothing():
    view = GraphView()
    view.extend(_gd(_const_node("a")))
    _assert_rejected(view, _gd(_const_node("new"), _const_node("a")),
                     errors.InvalidArgumentError, "Duplicate node name")
    assert "new" not in view.nodes
    # The view still accepts a good extend afterwards.
    view.extend(_gd(_const_node("new")))
    assert view.order == ["a", "new"]


def test_unknown_op_is_not_found_and_view_unchanged():
    view = GraphView()
    view.extend(_gd(_const_node("a")))
    bogus = node_def_pb2.NodeDef(name="x", op="NoSuchOpAnywhere")
    _assert_rejected(view, _gd(_const_node("ok"), bogus), errors.NotFoundError,
                     "NoSuchOpAnywhere")


def test_dangling_data_input_is_rejected():
    view = GraphView()
    view.extend(_gd(_const_node("a")))
    _assert_rejected(view, _gd(_const_node("b"), _add_node("c", "a", "missing")),
                     errors.InvalidArgumentError, "unknown input node 'missing'")


def test_dangling_control_input_is_rejected():
    view = GraphView()
    nd = node_def_pb2.NodeDef(name="n", op="NoOp", input=["^ghost"])
    _assert_rejected(view, _gd(nd), errors.InvalidArgumentError,
                     "unknown control input 'ghost'")


def test_missing_output_index_is_rejected():
    view = GraphView()
    view.extend(_gd(_const_node("a")))
    _assert_rejected(view, _gd(_add_node("c", "a:1", "a")), errors.InvalidArgumentError,
                     "'a:1' does not exist")


@pytest.mark.parametrize("inputs", [["a"], ["a", "a", "a"], []])
def test_wrong_input_count_is_rejected(inputs):
    view = GraphView()
    view.extend(_gd(_const_node("a")))
    nd = _add_node("c", "a", "a")
    del nd.input[:]
    nd.input.extend(inputs)
    _assert_rejected(view, _gd(nd), errors.InvalidArgumentError, "inputs, its op takes 2")


def test_missing_required_attr_is_rejected():
    view = GraphView()
    view.extend(_gd(_const_node("a")))
    nd = node_def_pb2.NodeDef(name="c", op="AddV2", input=["a", "a"])  # no T
    _assert_rejected(view, _gd(nd), errors.InvalidArgumentError, "invalid attrs")


def test_cycle_is_rejected_all_or_nothing():
    view = GraphView()
    view.extend(_gd(_const_node("a")))
    gd = _gd(_const_node("fine"), _add_node("x", "a", "y"), _add_node("y", "x", "a"))
    _assert_rejected(view, gd, errors.InvalidArgumentError, "cycle")


def test_control_cycle_and_self_loop_are_rejected():
    view = GraphView()
    p = node_def_pb2.NodeDef(name="p", op="NoOp", input=["^q"])
    q = node_def_pb2.NodeDef(name="q", op="NoOp", input=["^p"])
    _assert_rejected(view, _gd(p, q), errors.InvalidArgumentError, "cycle")
    s = node_def_pb2.NodeDef(name="s", op="NoOp", input=["^s"])
    _assert_rejected(view, _gd(s), errors.InvalidArgumentError, "cycle")


def test_unparsable_bytes_are_rejected():
    view = GraphView()
    with pytest.raises(errors.InvalidArgumentError):
        view.extend(b"\xff\xff\xff\xff not a graph def")
    assert view.nodes == {} and view.version == 0


def test_empty_graph_def_is_a_no_op_extend():
    view = GraphView()
    view.extend(b"")
    view.extend(graph_pb2.GraphDef())
    assert view.nodes == {} and view.order == []


def test_list_type_attr_drives_input_count():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        tf.stack([a, a, a], name="s")
    view = GraphView()
    view.extend(g.as_graph_def().SerializeToString())
    assert view.nodes["s"].input_types == [tf.float32] * 3
    assert view.nodes["s"].inputs == [("a", 0)] * 3


def test_input_dtype_mismatch_is_rejected():
    view = GraphView()
    gd = _gd(_const_node("i", 1, tf.int32), _const_node("f", 1.0),
             _add_node("c", "i", "f"))
    _assert_rejected(view, gd, errors.InvalidArgumentError, "incompatible|type")


def test_non_ref_into_ref_input_is_rejected():
    view = GraphView()
    assign = node_def_pb2.NodeDef(name="assign", op="Assign", input=["c", "c"])
    assign.attr["T"].type = tf.float32.as_datatype_enum
    _assert_rejected(view, _gd(_const_node("c"), assign), errors.InvalidArgumentError,
                     "ref|incompatible")

