"""``tf.import_graph_def`` (graphcore/framework/importer.py) and graph-building bad input.

Every bad-input case checks three things: the error is of a clear, typed kind, its
message names the offending node (and op type where relevant), and the graph is left
exactly as it was (same operations, same version), so that a following good import
still works and gets the expected names.
"""

import random

import pytest

import graphcore as tf
from graphcore import errors
from graphcore.framework import op_registry
from graphcore.protobuf import attr_value_pb2, graph_pb2, node_def_pb2, types_pb2

# -- helpers ------------------------------------------------------------------------------


def _graph_def(build) -> graph_pb2.GraphDef:
    """The GraphDef of a fresh graph built by ``build()``."""
    with tf.Graph().as_default() as g:
        build()
    return g.as_graph_def()


def _simple():
    x = tf.placeholder(tf.float32, shape=[None, 2], name="x")
    c = tf.constant([[1.0, 2.0]], name="c")
    tf.add(x, c, name="add")


SIMPLE = _graph_def(_simple)
SIMPLE_NAMES = ["x", "c", "add"]


def _names(graph=None):
    return [op.name for op in (graph or tf.get_default_graph()).get_operations()]


def _node(name, op, inputs=(), device="", **attrs) -> node_def_pb2.NodeDef:
    nd = node_def_pb2.NodeDef(name=name, op=op, input=list(inputs), device=device)
    for k, v in attrs.items():
        nd.attr[k].CopyFrom(v)
    return nd


def _type(dt) -> attr_value_pb2.AttrValue:
    return attr_value_pb2.AttrValue(type=dt.as_datatype_enum)


def _const_node(name, value, dtype=None, **kw) -> node_def_pb2.NodeDef:
    proto = tf.make_tensor_proto(value, dtype=dtype)
    return _node(name, "Const", value=attr_value_pb2.AttrValue(tensor=proto),
                 dtype=attr_value_pb2.AttrValue(type=proto.dtype), **kw)


def _gd(*nodes) -> graph_pb2.GraphDef:
    gd = graph_pb2.GraphDef()
    gd.node.extend(nodes)
    gd.versions.producer = tf.GRAPH_DEF_VERSION
    return gd


class _Unchanged:
    """Snapshot of the default graph: assert it is unchanged after a failed call."""

    def __init__(self):
        self.graph = tf.get_default_graph()
        self.ops = self.graph.get_operations()
        self.version = self.graph.version

    def check(self):
        assert self.graph.get_operations() == self.ops
        assert self.graph.version == self.version
        for op in self.ops:  # no dangling consumers left on pre-existing tensors
            for t in op.outputs:
                assert all(c in self.ops for c in t.consumers())


@pytest.fixture
def base():
    """A default graph already holding a few ops (imports go on top of it)."""
    v = tf.Variable(1.0, name="v")
    tf.constant(3.0, name="k")
    return v


def _assert_good_import_still_works(prefix="import"):
    # graphcore releases the names a failed import took, so the next one is "import"
    # again (TF's Python name_scope keeps it taken and would use "import_1").
    tf.import_graph_def(SIMPLE)
    g = tf.get_default_graph()
    for n in SIMPLE_NAMES:
        assert g.get_operation_by_name(f"{prefix}/{n}").name == f"{prefix}/{n}"


# -- prefixes and names ---------------------------------------------------------------


def test_default_prefix_and_second_import_uniquified():
    assert tf.import_graph_def(SIMPLE) is None
    tf.import_graph_def(SIMPLE)
    assert _names() == [f"import/{n}" for n in SIMPLE_NAMES] + \
        [f"import_1/{n}" for n in SIMPLE_NAMES]
    add = tf.get_default_graph().get_operation_by_name("import_1/add")
    assert add.type == "AddV2"
    assert [t.name for t in add.inputs] == ["import_1/x:0", "import_1/c:0"]
    assert add.outputs[0].shape.as_list() == [None, 2]
    assert add.outputs[0].dtype == tf.float32


def test_named_prefix_and_empty_name_keeps_names():
    tf.import_graph_def(SIMPLE, name="mine")
    assert _names() == [f"mine/{n}" for n in SIMPLE_NAMES]
    with tf.Graph().as_default() as g:
        tf.import_graph_def(SIMPLE, name="")
        assert _names(g) == SIMPLE_NAMES
        assert g.as_graph_def().node == SIMPLE.node
        # Names taken by the import are marked as used for later ops.
        assert tf.constant(1.0, name="add").name == "add_1:0"


def test_import_inside_name_scope_and_bytes_input():
    with tf.name_scope("outer"):
        tf.import_graph_def(SIMPLE.SerializeToString())
    assert _names() == [f"outer/import/{n}" for n in SIMPLE_NAMES]


def test_round_trip_is_identical():
    def build():
        v = tf.Variable([1, 2], name="v")
        with tf.control_dependencies([v.initializer]):
            tf.identity(v, name="after")
        tf.assign_add(v, [1, 1])
        tf.group(v.initializer, name="grp")
    gd = _graph_def(build)
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd.SerializeToString(), name="")
        assert g.as_graph_def().node == gd.node
        assert g.get_operation_by_name("after").control_inputs == \
            [g.get_operation_by_name("v/Assign")]
        assert g.get_tensor_by_name("v:0").dtype == tf.int32_ref


# -- input_map ------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["x", "x:0"])
def test_input_map_replaces_placeholder(key):
    y = tf.constant([[5.0, 6.0]], name="y")
    (add,) = tf.import_graph_def(SIMPLE, input_map={key: y}, return_elements=["add:0"])
    assert add.name == "import/add:0"
    assert add.op.inputs[0] is y
    assert add.op.inputs[1].name == "import/c:0"
    assert y.consumers() == [add.op]
    # The placeholder itself is still imported (as TensorFlow does), just unused.
    ph = tf.get_default_graph().get_operation_by_name("import/x")
    assert ph.outputs[0].consumers() == []


def test_input_map_unused_key_is_value_error(base):
    y = tf.constant([[5.0, 6.0]], name="y")
    snap = _Unchanged()
    with pytest.raises(ValueError, match="nope"):
        tf.import_graph_def(SIMPLE, input_map={"nope:0": y})
    snap.check()
    _assert_good_import_still_works()


def test_input_map_non_string_key_is_type_error():
    y = tf.constant([[5.0, 6.0]])
    snap = _Unchanged()
    with pytest.raises(TypeError):
        tf.import_graph_def(SIMPLE, input_map={y: y})
    snap.check()


def test_input_map_dtype_mismatch_is_value_error_naming_node(base):
    bad = tf.constant([[5, 6]], name="ints")
    snap = _Unchanged()
    with pytest.raises(ValueError, match="add") as ei:
        tf.import_graph_def(SIMPLE, input_map={"x:0": bad})
    assert "int32" in str(ei.value)
    snap.check()
    _assert_good_import_still_works()


# -- return_elements ------------------------------------------------------------------


def test_return_elements_ops_and_tensors():
    out = tf.import_graph_def(SIMPLE, return_elements=["c", "add:0", "x:0", "add"])
    g = tf.get_default_graph()
    assert out == [g.get_operation_by_name("import/c"), g.get_tensor_by_name("import/add:0"),
                   g.get_tensor_by_name("import/x:0"), g.get_operation_by_name("import/add")]
    assert isinstance(out[0], tf.Operation) and isinstance(out[1], tf.Tensor)


@pytest.mark.parametrize("elem", ["nope", "nope:0", "add:1", "add:7"])
def test_return_elements_unknown_is_value_error(base, elem):
    snap = _Unchanged()
    with pytest.raises(ValueError, match=elem.split(":")[0]):
        tf.import_graph_def(SIMPLE, return_elements=[elem])
    snap.check()
    _assert_good_import_still_works()


# -- devices --------------------------------------------------------------------------


def test_device_scope_merges_into_imported_devices():
    def build():
        tf.constant(1.0, name="a")
        with tf.device("/device:GPU:1"):
            tf.constant(2.0, name="b")
        with tf.device("/job:worker/task:3"):
            tf.constant(3.0, name="c")
    gd = _graph_def(build)
    with tf.device("/job:ps/task:0/device:CPU:0"):
        tf.import_graph_def(gd)
    g = tf.get_default_graph()
    dev = {op.name: op.device for op in g.get_operations()}
    # The scope fills only what the node's own device leaves unset.
    assert dev == {
        "import/a": "/job:ps/task:0/device:CPU:0",
        "import/b": "/job:ps/task:0/device:GPU:1",
        "import/c": "/job:worker/task:3/device:CPU:0",
    }
    with tf.Graph().as_default() as g2:
        with tf.device(lambda op: "/device:GPU:0"):
            tf.import_graph_def(gd, name="f")
        assert [op.device for op in g2.get_operations()] == ["/device:GPU:0"] * 3


def test_node_devices_are_canonicalized():
    gd = _gd(_const_node("a", 1.0, device="/gpu:0"),
             _const_node("b", 1.0, device="/job:ps/replica:0/task:1/cpu:2"))
    tf.import_graph_def(gd, name="")
    assert [op.device for op in tf.get_default_graph().get_operations()] == [
        "/device:GPU:0", "/job:ps/replica:0/task:1/device:CPU:2"]


def test_colocation_keeps_group_and_device():
    def build():
        a = tf.constant(1.0, name="a")
        with tf.colocate_with(a):
            tf.identity(a, name="b")
    gd = _graph_def(build)
    with tf.device("/job:ps"):
        tf.import_graph_def(gd, name="")
    g = tf.get_default_graph()
    assert g.get_operation_by_name("b").colocation_groups() == [b"loc:@a"]
    assert g.get_operation_by_name("b").device == "/job:ps"


def test_colocation_attr_gets_prefix():
    def build():
        a = tf.constant(1.0, name="a")
        with tf.colocate_with(a):
            tf.identity(a, name="b")
    tf.import_graph_def(_graph_def(build))
    b = tf.get_default_graph().get_operation_by_name("import/b")
    assert b.colocation_groups() == [b"loc:@import/a"]


# -- attr defaults and order ----------------------------------------------------------


def test_attr_defaults_filled_for_nodes_that_omit_them():
    gd = _gd(
        _node("ph", "Placeholder", dtype=_type(tf.float32)),  # no shape attr
        _node("v", "VariableV2", dtype=_type(tf.float32),
              shape=attr_value_pb2.AttrValue(shape=tf.TensorShape([]).as_proto())),
        _const_node("one", 1.0),
        _node("assign", "Assign", ["v", "one"], T=_type(tf.float32)),
        _node("add", "AssignAdd", ["v", "one"], T=_type(tf.float32)),
    )
    tf.import_graph_def(gd, name="d")
    g = tf.get_default_graph()
    ph = g.get_operation_by_name("d/ph")
    assert ph.node_def.attr["shape"].shape.unknown_rank
    assert ph.outputs[0].shape.ndims is None
    v = g.get_operation_by_name("d/v")
    assert v.get_attr("container") == b"" and v.get_attr("shared_name") == b""
    assert "container" in v.node_def.attr and "shared_name" in v.node_def.attr
    assign = g.get_operation_by_name("d/assign")
    assert assign.get_attr("validate_shape") is True
    assert assign.get_attr("use_locking") is True
    assert g.get_operation_by_name("d/add").get_attr("use_locking") is False
    assert assign.outputs[0].dtype == tf.float32_ref
    # Defaults equal the OpDef's.
    reg = op_registry.get("Assign")
    assert assign.node_def.attr["use_locking"] == reg.defaults["use_locking"]


def test_nodes_in_non_topological_order():
    nodes = list(SIMPLE.node)
    gd = _gd(*reversed(nodes))
    out = tf.import_graph_def(gd, return_elements=["add:0"])
    assert out[0].op.inputs[0].name == "import/x:0"
    # Producers are created before consumers.
    names = _names()
    assert names.index("import/add") > names.index("import/x")
    assert names.index("import/add") > names.index("import/c")
    assert sorted(names) == sorted(f"import/{n}" for n in SIMPLE_NAMES)


def test_control_inputs_and_forward_control_reference():
    gd = _gd(
        _node("last", "NoOp", ["^first", "^c"]),
        _const_node("c", 1.0, inputs=["^first"]),
        _node("first", "NoOp"),
    )
    tf.import_graph_def(gd)
    g = tf.get_default_graph()
    assert [op.name for op in g.get_operation_by_name("import/last").control_inputs] == \
        ["import/first", "import/c"]
    assert [op.name for op in g.get_operation_by_name("import/c").control_inputs] == \
        ["import/first"]


def test_empty_graph_def_imports_nothing():
    assert tf.import_graph_def(graph_pb2.GraphDef()) is None
    assert tf.import_graph_def(b"") is None
    assert _names() == []


# -- bad input: bytes -----------------------------------------------------------------


def _garbage_cases():
    good = SIMPLE.SerializeToString()
    rnd = random.Random(1234)
    tensor = tf.make_tensor_proto([1, 2, 3]).SerializeToString()
    op_def = op_registry.get("AddV2").op_def.SerializeToString()
    return {
        "random_bytes": bytes(rnd.randrange(256) for _ in range(64)) + b"\xff\xff",
        "bad_tag": b"\xff\xff\xff",
        "text": b"hello world garbage",
        "truncated_half": good[: len(good) // 2],
        "truncated_tail": good[:-3],
        "tensor_proto": tensor,
        "op_def_proto": op_def,
        "length_overrun": b"\x0a\x05hel",
    }


@pytest.mark.parametrize("case", sorted(_garbage_cases()))
def test_garbage_bytes_are_invalid_argument(base, case):
    data = _garbage_cases()[case]
    snap = _Unchanged()
    with pytest.raises(errors.InvalidArgumentError, match="GraphDef") as ei:
        tf.import_graph_def(data)
    assert ei.value.error_code == errors.INVALID_ARGUMENT
    snap.check()
    _assert_good_import_still_works()


def test_non_graph_def_object_is_type_error():
    snap = _Unchanged()
    with pytest.raises(TypeError, match="GraphDef"):
        tf.import_graph_def(12345)
    snap.check()


# -- bad input: nodes -----------------------------------------------------------------


def test_unknown_op_type_is_not_found_naming_op_and_node(base):
    gd = _gd(_const_node("c", 1.0), _node("weird", "NoSuchOpXYZ", ["c"]))
    snap = _Unchanged()
    with pytest.raises(errors.NotFoundError) as ei:
        tf.import_graph_def(gd)
    assert "NoSuchOpXYZ" in str(ei.value) and "weird" in str(ei.value)
    assert ei.value.error_code == errors.NOT_FOUND
    snap.check()
    _assert_good_import_still_works()


def test_dtype_mismatch_is_value_error_naming_node(base):
    gd = _gd(_const_node("f", 1.0), _const_node("i", 1, dtype=tf.int32),
             _node("bad_add", "AddV2", ["f", "i"], T=_type(tf.float32)))
    snap = _Unchanged()
    with pytest.raises(ValueError, match="bad_add") as ei:
        tf.import_graph_def(gd)
    assert "int32" in str(ei.value) and "float32" in str(ei.value)
    snap.check()
    _assert_good_import_still_works()


def test_type_attr_not_allowed_is_value_error(base):
    gd = _gd(_const_node("s", "a"), _const_node("t", "b"),
             _node("sadd", "AddV2", ["s", "t"], T=_type(tf.string)))
    snap = _Unchanged()
    with pytest.raises(ValueError, match="sadd"):
        tf.import_graph_def(gd)
    snap.check()


def test_missing_input_node_is_value_error(base):
    gd = _gd(_const_node("c", 1.0), _node("idt", "Identity", ["ghost"], T=_type(tf.float32)))
    snap = _Unchanged()
    with pytest.raises(ValueError, match="ghost") as ei:
        tf.import_graph_def(gd)
    assert "idt" in str(ei.value)
    snap.check()
    _assert_good_import_still_works()


def test_missing_control_input_node_is_value_error(base):
    gd = _gd(_node("n", "NoOp", ["^ghost"]))
    snap = _Unchanged()
    with pytest.raises(ValueError, match="ghost"):
        tf.import_graph_def(gd)
    snap.check()


def test_bad_output_index_is_value_error(base):
    gd = _gd(_const_node("c", 1.0), _node("idt", "Identity", ["c:3"], T=_type(tf.float32)))
    snap = _Unchanged()
    with pytest.raises(ValueError, match="idt"):
        tf.import_graph_def(gd)
    snap.check()


def test_wrong_number_of_inputs_is_value_error(base):
    gd = _gd(_const_node("c", 1.0), _node("idt", "Identity", ["c", "c"], T=_type(tf.float32)))
    snap = _Unchanged()
    with pytest.raises(ValueError, match="idt"):
        tf.import_graph_def(gd)
    snap.check()


def test_missing_required_attr_is_value_error(base):
    proto = tf.make_tensor_proto(1.0)
    gd = _gd(_node("c", "Const", value=attr_value_pb2.AttrValue(tensor=proto)))  # no dtype
    snap = _Unchanged()
    with pytest.raises(ValueError, match="dtype") as ei:
        tf.import_graph_def(gd)
    assert "'c'" in str(ei.value) and "Const" in str(ei.value)
    snap.check()
    _assert_good_import_still_works()


def test_malformed_device_on_node_is_value_error(base):
    gd = graph_pb2.GraphDef()
    gd.CopyFrom(SIMPLE)
    gd.node[2].device = "/foo:bar"
    snap = _Unchanged()
    with pytest.raises(ValueError, match="/foo:bar") as ei:
        tf.import_graph_def(gd)
    assert "add" in str(ei.value)
    snap.check()
    _assert_good_import_still_works()


def test_duplicate_node_names_is_value_error(base):
    gd = _gd(_const_node("c", 1.0), _const_node("c", 2.0))
    snap = _Unchanged()
    with pytest.raises(ValueError, match="'c'"):
        tf.import_graph_def(gd)
    snap.check()
    _assert_good_import_still_works()


def test_cycle_is_value_error(base):
    gd = _gd(_const_node("c", 1.0),
             _node("a", "AddV2", ["c", "b"], T=_type(tf.float32)),
             _node("b", "AddV2", ["a", "c"], T=_type(tf.float32)))
    snap = _Unchanged()
    with pytest.raises(ValueError, match="cycle") as ei:
        tf.import_graph_def(gd)
    assert "a" in str(ei.value) and "b" in str(ei.value)
    snap.check()
    _assert_good_import_still_works()


def test_control_cycle_is_value_error(base):
    gd = _gd(_node("p", "NoOp", ["^q"]), _node("q", "NoOp", ["^p"]))
    snap = _Unchanged()
    with pytest.raises(ValueError, match="cycle"):
        tf.import_graph_def(gd)
    snap.check()


def test_failure_on_late_node_rolls_back_earlier_nodes(base):
    # Many good nodes first, then one bad: none of the good ones may remain.
    nodes = [_const_node(f"c{i}", float(i)) for i in range(20)]
    nodes.append(_node("bad", "Identity", ["c0", "c1"], T=_type(tf.float32)))
    snap = _Unchanged()
    with pytest.raises(ValueError, match="bad"):
        tf.import_graph_def(_gd(*nodes), name="")
    snap.check()
    # Names taken during the failed import were released.
    assert tf.constant(0.0, name="c0").name == "c0:0"


def test_import_into_finalized_graph_is_runtime_error(base):
    g = tf.get_default_graph()
    g.finalize()
    snap = _Unchanged()
    with pytest.raises(RuntimeError, match="finalized"):
        tf.import_graph_def(SIMPLE)
    snap.check()
    g._unsafe_unfinalize()
    _assert_good_import_still_works()


def test_unknown_dtype_enum_in_attr_is_value_error(base):
    gd = _gd(_node("ph", "Placeholder", dtype=attr_value_pb2.AttrValue(type=999)))
    snap = _Unchanged()
    with pytest.raises((ValueError, TypeError), match="ph|999"):
        tf.import_graph_def(gd)
    snap.check()


def test_attr_of_wrong_kind_is_value_error(base):
    # A 'shape' attr given as a string: TF rejects the NodeDef.
    gd = _gd(_node("ph", "Placeholder", dtype=_type(tf.float32),
                   shape=attr_value_pb2.AttrValue(s=b"not a shape")))
    snap = _Unchanged()
    with pytest.raises((ValueError, TypeError), match="ph"):
        tf.import_graph_def(gd)
    snap.check()


# -- graph-building bad input ---------------------------------------------------------


@pytest.mark.parametrize("spec", ["/foo:bar", "/job:a/b", "/task:x", "/device:GPU:x"])
def test_malformed_device_scope_is_value_error(base, spec):
    snap = _Unchanged()
    with pytest.raises(ValueError):  # TF's own messages (e.g. int() parse) for some specs
        with tf.device(spec):
            tf.constant(1.0, name="never")
    snap.check()
    assert tf.constant(1.0, name="never").name == "never:0"


def test_dtype_mismatch_at_op_creation_is_type_error(base):
    f = tf.constant(1.0, name="f")
    i = tf.constant(1, name="i")
    snap = _Unchanged()
    with pytest.raises(TypeError) as ei:
        tf.add(f, i, name="mixed")
    msg = str(ei.value)
    assert "AddV2" in msg and "'y'" in msg and "int32" in msg and "float32" in msg
    snap.check()
    with pytest.raises(TypeError) as ei:
        tf.assign(tf.get_default_graph().get_tensor_by_name("v:0"), i)
    assert "Assign" in str(ei.value) and "value" in str(ei.value)
    snap.check()
    # As in TF, the wrapper's name_scope already took "mixed" (no op was added though).
    assert tf.add(f, f, name="mixed").name == "mixed_1:0"


def test_ref_input_required_is_type_error(base):
    snap = _Unchanged()
    with pytest.raises(TypeError, match="Assign"):
        tf.assign(tf.constant(1.0), 2.0)
    # The constant converted for the failed call is the only op added: TF's wrappers
    # convert inputs before validating too. Compare against that one op.
    added = [op.name for op in tf.get_default_graph().get_operations()[len(snap.ops):]]
    assert all(n.startswith("Const") for n in added)


def test_adding_to_finalized_graph_is_runtime_error(base):
    g = tf.get_default_graph()
    g.finalize()
    snap = _Unchanged()
    for make in (lambda: tf.constant(1.0), lambda: tf.placeholder(tf.float32),
                 lambda: tf.no_op(), lambda: tf.Variable(2.0),
                 lambda: tf.add(g.get_tensor_by_name("k:0"), 1.0)):
        with pytest.raises(RuntimeError, match="finalized"):
            make()
        snap.check()
    with pytest.raises(RuntimeError):
        tf.add_to_collection("x", 1)
    g._unsafe_unfinalize()
    assert tf.constant(1.0, name="after").name == "after:0"


def test_types_pb2_enum_matches_dtype():
    # The importer relies on DataType enum numbers of the shared protos.
    assert types_pb2.DT_FLOAT == tf.float32.as_datatype_enum
    assert types_pb2.DT_INT32_REF == tf.int32_ref.as_datatype_enum


def test_while_loop_round_trips_through_graph_def():
    """A loop's Merge takes its NextIteration back edge: importing our own loop
    GraphDef rewires it, and the imported loop runs to the same value."""
    with tf.Graph().as_default() as g:
        _, x = tf.while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, x * 2.0),
                             [tf.constant(0), tf.constant(1.5)])
        data = g.as_graph_def().SerializeToString()
    with tf.Graph().as_default() as g2:
        (y,) = tf.import_graph_def(tf.GraphDef.FromString(data), return_elements=[x.name],
                                   name="copy")
        merge = g2.get_operation_by_name("copy/while/Merge_1")
        assert [t.op.type for t in merge.inputs] == ["Enter", "NextIteration"]
        assert merge in g2.get_operation_by_name("copy/while/NextIteration_1").outputs[0] \
            .consumers()
        with tf.Session() as sess:
            assert sess.run(y) == 48.0


def test_cycle_without_next_iteration_is_still_an_error():
    gd = tf.GraphDef()
    for name, src in (("a", "b"), ("b", "a")):
        nd = gd.node.add(name=name, op="Identity", input=[src])
        nd.attr["T"].type = tf.float32.as_datatype_enum
    with tf.Graph().as_default(), pytest.raises(ValueError, match="cycle"):
        tf.import_graph_def(gd)
