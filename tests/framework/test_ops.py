"""Graph, Operation, Tensor and the default-graph stack (graphcore/framework/ops.py)."""

import threading

import numpy as np
import pytest

import graphcore as tf
from graphcore.protobuf import graph_pb2


def _seed_000():
    counter = tf.Variable(0, name="counter")
    one = tf.constant(1)
    new_value = tf.add(counter, one)
    update = tf.assign(counter, new_value)
    init = tf.initialize_all_variables()
    return counter, one, new_value, update, init


def test_seed_000_graph_def_nodes_inputs_and_attrs():
    _seed_000()
    gd = tf.get_default_graph().as_graph_def()
    nodes = {n.name: n for n in gd.node}
    assert list(nodes) == ["counter/initial_value", "counter", "counter/Assign", "counter/read",
                           "Const", "Add", "Assign", "init"]
    assert nodes["counter"].op == "VariableV2"
    assert nodes["counter"].attr["dtype"].type == tf.int32.as_datatype_enum
    assert nodes["counter"].attr["shape"].shape.dim == []
    assert nodes["counter"].attr["container"].s == b""
    assert nodes["counter"].attr["shared_name"].s == b""
    assert list(nodes["counter/Assign"].input) == ["counter", "counter/initial_value"]
    assert list(nodes["counter/Assign"].attr["_class"].list.s) == [b"loc:@counter"]
    assert nodes["counter/Assign"].attr["use_locking"].b is True
    assert nodes["counter/Assign"].attr["validate_shape"].b is True
    assert nodes["counter/read"].op == "Identity"
    assert list(nodes["counter/read"].attr["_class"].list.s) == [b"loc:@counter"]
    assert nodes["Const"].attr["value"].tensor.int_val == [1]
    assert nodes["Add"].op == "AddV2"
    assert list(nodes["Add"].input) == ["counter/read", "Const"]
    assert list(nodes["Assign"].input) == ["counter", "Add"]
    assert list(nodes["Assign"].attr["_class"].list.s) == [b"loc:@counter"]
    assert nodes["init"].op == "NoOp"
    assert list(nodes["init"].input) == ["^counter/Assign"]
    text = str(gd)
    assert 'input: "^counter/Assign"' in text
    assert gd.versions.producer > 0


def test_seed_000_introspection_prints():
    counter, one, new_value, update, init = _seed_000()
    assert str(update) == 'Tensor("Assign:0", shape=(), dtype=int32_ref)'
    assert str(new_value) == 'Tensor("Add:0", shape=(), dtype=int32)'
    assert str(one) == 'Tensor("Const:0", shape=(), dtype=int32)'
    assert repr(counter) == "<tf.Variable 'counter:0' shape=() dtype=int32_ref>"
    assert counter.op.type == "VariableV2"
    assert str(counter.op).startswith('name: "counter"\nop: "VariableV2"')
    assert [t.name for t in update.op.inputs] == ["counter:0", "Add:0"]
    assert update.op.outputs[0] is update
    assert init.control_inputs == [counter.initializer]
    assert init.outputs == [] and init.values() == ()
    tb = update.op.traceback
    assert tb[-1][0] == __file__
    assert tb[-1][2] == "_seed_000"
    assert "tf.assign(counter, new_value)" in tb[-1][3]
    assert update.op.get_attr("T") == tf.int32
    assert update.op.get_attr("use_locking") is True
    assert counter.op.get_attr("shape").dim == []
    assert counter.op.node_def.name == "counter"
    assert counter.op.op_def.name == "VariableV2"
    assert update.op.graph is tf.get_default_graph()
    assert update.consumers() == [] and counter.op.outputs[0].consumers()[0].name == \
        "counter/Assign"


def test_seed_001_naming():
    c_0 = tf.constant(0, name="c")
    c_1 = tf.constant(2, name="c")
    with tf.name_scope("outer"):
        c_2 = tf.constant(2, name="c")
        with tf.name_scope("inner"):
            c_3 = tf.constant(3, name="c")
        c_4 = tf.constant(4, name="c")
        with tf.name_scope("inner"):
            c_5 = tf.constant(5, name="c")
    names = [t.op.name for t in (c_0, c_1, c_2, c_3, c_4, c_5)]
    assert names == ["c", "c_1", "outer/c", "outer/inner/c", "outer/c_1", "outer/inner_1/c"]


def test_seed_002_default_graph_stack():
    c = tf.constant(4.0)
    assert c.graph is tf.get_default_graph()
    g = tf.Graph()
    with g.as_default():
        d = tf.constant(30.0)
        assert d.graph is g
        assert tf.get_default_graph() is g
        g2 = tf.Graph()
        with g2.as_default() as inner:
            assert inner is g2 and tf.get_default_graph() is g2
        assert tf.get_default_graph() is g
    assert tf.get_default_graph() is c.graph
    assert [op.name for op in tf.get_default_graph().get_operations()] == ["Const"]
    with pytest.raises(AssertionError):
        with g.as_default():
            tf.reset_default_graph()
    old = tf.get_default_graph()
    tf.reset_default_graph()
    assert tf.get_default_graph() is not old
    assert tf.get_default_graph().get_operations() == []


def test_default_graph_is_thread_local_stack_over_global():
    g = tf.Graph()
    seen = {}

    def worker():
        seen["default"] = tf.get_default_graph()

    with g.as_default():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen["default"] is not g
    assert seen["default"] is tf.get_default_graph()


def test_name_scope_absolute_none_and_invalid():
    with tf.name_scope("a") as scope:
        assert scope == "a/"
        with tf.name_scope("b/") as abs_scope:
            assert abs_scope == "b/"
            assert tf.constant(1, name="x").op.name == "b/x"
        with tf.name_scope(None):
            assert tf.constant(1, name="top").op.name == "top"
        with tf.name_scope("a") as again:
            assert again == "a/a/"
    with tf.name_scope("a") as a1:
        assert a1 == "a_1/"
    with tf.name_scope(None, "default") as d:
        assert d == "default/"
    with tf.name_scope(None, "default") as d1:
        assert d1 == "default_1/"
    with pytest.raises(ValueError):
        with tf.name_scope("-bad"):
            pass
    # Unique names are case-insensitive and skip taken suffixes, as TF does.
    g = tf.get_default_graph()
    tf.constant(1, name="foo_1")
    assert g.unique_name("foo") == "foo"
    assert g.unique_name("FOO") == "FOO_2"


def test_control_dependencies_nesting_and_none():
    a = tf.constant(1, name="a")
    b = tf.constant(2, name="b")
    with tf.control_dependencies([a]):
        c = tf.constant(3, name="c")
        with tf.control_dependencies([b.op]):
            d = tf.constant(4, name="d")
            with tf.control_dependencies(None):
                e = tf.constant(5, name="e")
        f = tf.add(c, 1, name="f")  # dominated by c, created in the same block
    assert c.op.control_inputs == [a.op]
    assert d.op.control_inputs == [a.op, b.op]
    assert e.op.control_inputs == []
    assert f.op.control_inputs == []
    assert "^a" in d.op.node_def.input


def test_collections():
    g = tf.get_default_graph()
    g.add_to_collection("things", 1)
    tf.add_to_collections(["things", "more"], 2)
    assert g.get_collection("things") == [1, 2]
    ref = g.get_collection_ref("things")
    ref.append(3)
    assert tf.get_collection("things") == [1, 2, 3]
    copy = g.get_collection("things")
    copy.append(99)
    assert g.get_collection("things") == [1, 2, 3]
    with tf.name_scope("scope1"):
        v1 = tf.Variable(1.0, name="v")
    v2 = tf.Variable(2.0, name="v", trainable=False)
    assert tf.global_variables() == [v1, v2]
    assert tf.trainable_variables() == [v1]
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="scope1") == [v1]
    assert tf.get_collection("missing") == []
    assert "things" in g.get_all_collection_keys()


def test_lookup_by_name():
    g = tf.get_default_graph()
    c = tf.constant([1, 2], name="c")
    assert g.get_operation_by_name("c") is c.op
    assert g.get_tensor_by_name("c:0") is c
    assert g.as_graph_element("c") is c.op
    assert g.as_graph_element(c) is c
    with pytest.raises(KeyError, match="does not exist"):
        g.get_tensor_by_name("nope:0")
    with pytest.raises(KeyError, match="exists but only has 1 outputs"):
        g.get_tensor_by_name("c:1")
    with pytest.raises(ValueError, match="appears to refer to a Tensor"):
        g.get_operation_by_name("c:0")
    with pytest.raises(ValueError, match="refers to an Operation"):
        g.get_tensor_by_name("c")
    with pytest.raises(KeyError):
        g.get_operation_by_name("nope")
    other = tf.Graph()
    with pytest.raises(ValueError):
        other.as_graph_element(c)


def test_finalize_blocks_changes_and_leaves_graph_intact():
    g = tf.Graph()
    with g.as_default():
        tf.constant(1)
    g.finalize()
    assert g.finalized
    with g.as_default():
        with pytest.raises(RuntimeError, match="finalized"):
            tf.constant(2)
        with pytest.raises(RuntimeError, match="finalized"):
            tf.add_to_collection("x", 1)
    assert len(g.get_operations()) == 1


def test_devices_scopes_functions_and_colocation():
    with tf.device("/job:ps/task:1"):
        a = tf.constant(1, name="a")
        with tf.device("/cpu:0"):
            b = tf.constant(2, name="b")
        with tf.device("/job:worker"):
            c = tf.constant(3, name="c")
        with tf.device(None):
            d = tf.constant(4, name="d")
        with tf.device(""):
            e = tf.constant(5, name="e")
    assert a.device == "/job:ps/task:1"
    assert b.device == "/job:ps/task:1/device:CPU:0"
    assert c.device == "/job:worker/task:1"
    assert d.device == ""
    assert e.device == "/job:ps/task:1"

    def fn(op):
        return "/device:GPU:1" if op.type == "Const" else "/device:CPU:0"

    with tf.device("/job:worker/task:0"), tf.device(fn):
        f = tf.constant(1.0, name="f")
        g = tf.add(f, f, name="g")
    assert f.device == "/job:worker/task:0/device:GPU:1"
    assert g.device == "/job:worker/task:0/device:CPU:0"

    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="v")
    with tf.device("/job:worker/task:3"):
        with tf.colocate_with(v.op):
            h = tf.identity(v, name="h")
        k = tf.identity(v, name="k")
    assert h.device == "/job:ps/task:0"
    assert h.op.get_attr("_class") == [b"loc:@v"]
    assert k.device == "/job:worker/task:3"
    assert v.value().device == "/job:ps/task:0"
    with pytest.raises(ValueError):
        with tf.device("/foo:bar"):
            pass


def test_op_registry_type_checks_defaults_and_shapes():
    x = tf.constant([1.0, 2.0])
    y = tf.constant(1)
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type int32 that does not "
                                        "match type float32 of argument 'x'"):
        tf.add(x, y)
    with pytest.raises(TypeError, match="not in list of allowed values"):
        tf.add(tf.constant(True), tf.constant(False))
    with pytest.raises(TypeError, match="'Assign' Op requires that input 'ref' be a mutable"):
        tf.assign(x, x)
    assert tf.add(x, 1.5).shape.as_list() == [2]
    m = tf.placeholder(tf.float32, shape=[None, 3])
    assert tf.add(m, tf.constant([[1.0, 2.0, 3.0]])).shape.as_list() == [None, 3]
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.add(m, tf.constant([1.0, 2.0]))
    p = tf.placeholder(tf.float32)
    assert p.shape.ndims is None
    assert p.op.get_attr("shape").unknown_rank
    av = tf.Variable([1, 2], name="av")
    upd = tf.assign_add(av, [1, 1])
    assert upd.op.get_attr("use_locking") is False
    assert upd.dtype == tf.int32_ref


def test_atomic_op_creation_on_error():
    g = tf.get_default_graph()
    x = tf.constant([1.0, 2.0], name="x")
    before = g.version
    with pytest.raises(ValueError):
        tf.add(x, tf.constant([1.0, 2.0, 3.0]))
    # The second constant was added; the failed add was not.
    assert [op.type for op in g.get_operations()] == ["Const", "Const"]
    assert g.version == before + 1
    assert x.consumers() == []


def test_convert_to_tensor_inference_and_registry():
    assert tf.convert_to_tensor(1).dtype == tf.int32
    assert tf.convert_to_tensor(2**40).dtype == tf.int64
    assert tf.convert_to_tensor(1.0).dtype == tf.float32
    assert tf.convert_to_tensor([1, 2.5]).dtype == tf.float32
    assert tf.convert_to_tensor(np.zeros(2)).dtype == tf.float64
    assert tf.convert_to_tensor("s").dtype == tf.string
    assert tf.convert_to_tensor(True).dtype == tf.bool
    assert tf.convert_to_tensor([[1, 2], [3, 4]]).shape.as_list() == [2, 2]
    with pytest.raises(TypeError):
        tf.convert_to_tensor(1.5, dtype=tf.int32)
    with pytest.raises(ValueError):
        tf.convert_to_tensor(tf.constant(1.0), dtype=tf.int32)
    with pytest.raises(TypeError):
        tf.convert_to_tensor(tf.no_op())
    v = tf.Variable(1.0, name="v")
    assert tf.convert_to_tensor(v) is v.value()
    assert tf.convert_to_tensor(v, as_ref=True) is v._ref()

    class Point:
        def __init__(self, x, y):
            self.x, self.y = x, y

    tf.register_tensor_conversion_function(
        Point, lambda p, dtype=None, name=None, as_ref=False: tf.constant(
            [p.x, p.y], dtype=dtype, name=name or "Point"))
    t = tf.convert_to_tensor(Point(1.0, 2.0))
    assert t.op.name == "Point" and t.shape.as_list() == [2]
    assert (tf.constant(1.0) + Point(1.0, 2.0)).shape.as_list() == [2]


def test_tensor_operators_and_repr():
    a = tf.constant(1.0, name="a")
    s = a + 2.0
    assert s.op.type == "AddV2" and s.op.name == "add"
    r = 2.0 + a
    assert r.op.name == "add_1"
    assert [t.op.type for t in r.op.inputs] == ["Const", "Const"]
    v = tf.Variable(3.0, name="v")
    w = v + a
    assert w.op.inputs[0].name == "v/read:0"
    assert repr(a) == "<tf.Tensor 'a:0' shape=() dtype=float32>"
    with pytest.raises(TypeError):
        bool(a)
    p = tf.placeholder(tf.float32, [None, 2], name="p")
    assert str(p) == 'Tensor("p:0", shape=(?, 2), dtype=float32)'
    p.set_shape([4, 2])
    assert p.shape.as_list() == [4, 2]
    with pytest.raises(ValueError):
        p.set_shape([3, 2])


def test_as_graph_def_add_shapes_and_from_version():
    tf.placeholder(tf.float32, [None, 3], name="p")
    g = tf.get_default_graph()
    v = g.version
    tf.constant([1, 2], name="c")
    gd = g.as_graph_def(add_shapes=True)
    shapes = {n.name: n.attr["_output_shapes"].list.shape[0] for n in gd.node}
    assert [d.size for d in shapes["p"].dim] == [-1, 3]
    assert [d.size for d in shapes["c"].dim] == [2]
    assert [n.name for n in g.as_graph_def(from_version=v).node] == ["c"]


def test_graph_def_binary_round_trip():
    _seed_000()
    with tf.device("/job:ps/task:0"):
        p = tf.placeholder_with_default(tf.constant([1.0, 2.0]), [2], name="pwd")
        tf.identity(p, name="ident")
    g = tf.get_default_graph()
    data = g.as_graph_def().SerializeToString(deterministic=True)
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(graph_pb2.GraphDef.FromString(data), name="")
    assert g2.as_graph_def().SerializeToString(deterministic=True) == data
    g3 = tf.Graph()
    with g3.as_default():
        tf.import_graph_def(data, name="imp")
    gd3 = g3.as_graph_def()
    for node in gd3.node:
        assert node.name.startswith("imp/")
        node.name = node.name[len("imp/"):]
        node.input[:] = [("^" + i[5:]) if i.startswith("^") else i[4:] for i in node.input]
        if "_class" in node.attr:
            groups = node.attr["_class"].list.s
            assert all(g.startswith(b"loc:@imp/") for g in groups)
            stripped = [b"loc:@" + g[len(b"loc:@imp/"):] for g in groups]
            del groups[:]
            groups.extend(stripped)
    assert gd3.SerializeToString(deterministic=True) == data


def test_eight_threads_build_one_graph():
    g = tf.Graph()
    errors = []

    def build():
        try:
            with g.as_default():
                for _ in range(1000):
                    tf.constant(1, name="c")
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=build) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    names = [op.name for op in g.get_operations()]
    assert len(names) == 8000 and len(set(names)) == 8000
    assert g.version == 8000
