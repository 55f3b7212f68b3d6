"""Reference tier: graphcore graphs against TensorFlow's (GraphDef, OpDef, naming).

a. TensorFlow imports (and runs) GraphDefs that graphcore wrote.
b. graphcore imports GraphDefs that TensorFlow wrote and re-exports them unchanged.
c. The same TF1 program built with both libraries gives equal GraphDefs and names.
d. Every OpDef graphcore registers equals TensorFlow's; DataType enums agree.
e. ``constant(v)`` gives byte-identical ``value`` attrs.

Skipped when TensorFlow is not installed.  TF graphs are always built inside
``with tf_ref.Graph().as_default():``, so TF2's eager default does not matter.
"""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402
from graphcore.framework import dtypes as gc_dtypes  # noqa: E402
from graphcore.framework import op_registry  # noqa: E402
from graphcore.protobuf import attr_value_pb2, graph_pb2, node_def_pb2, op_def_pb2  # noqa: E402
from graphcore.protobuf import types_pb2 as gc_types  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
from tensorflow.core.framework import types_pb2 as tf_types  # noqa: E402
from tensorflow.python.framework import op_def_registry  # noqa: E402
from tensorflow.python.util import deprecation  # noqa: E402

# TF1 aliases (initialize_all_variables, colocate_with) log deprecation warnings.
deprecation._PRINT_DEPRECATION_WARNINGS = False

# Attrs TensorFlow 2.x adds for its own bookkeeping, not part of the TF1 graph semantics:
# ``_has_manual_control_dependencies`` marks ops created by RefVariable's initializer for
# tf.function's automatic control dependencies.  graphcore has no tf.function, so it does
# not write it; it is dropped from TF's NodeDefs before comparing builder output (c).  The
# importer (b) keeps whatever attrs it is given, so there it is compared as is.
TF_INTERNAL_ATTRS = frozenset({"_has_manual_control_dependencies"})


# -- helpers ------------------------------------------------------------------------------


def _tf_graph_def(build):
    """(graph, graphcore GraphDef parsed from TF's bytes) of a TF graph built by build."""
    with tf_ref.Graph().as_default() as g:
        build(tf1)
    return g, graph_pb2.GraphDef.FromString(g.as_graph_def().SerializeToString())


def _gc_graph_def(build):
    with tf.Graph().as_default() as g:
        build(tf)
    return g, g.as_graph_def()


def _node_bytes(nd, drop=(), sort_control=False):
    nd2 = node_def_pb2.NodeDef()
    nd2.CopyFrom(nd)
    if sort_control:
        data = [i for i in nd2.input if not i.startswith("^")]
        ctrl = sorted(i for i in nd2.input if i.startswith("^"))
        del nd2.input[:]
        nd2.input.extend(data + ctrl)
    for k in drop:
        if k in nd2.attr:
            del nd2.attr[k]
    return nd2.SerializeToString(deterministic=True)


def _assert_nodes_equal(ours, theirs, drop=(), sort_control=False):
    """Node-for-node equality (order, name, op, inputs, device, every attr)."""
    assert [n.name for n in ours.node] == [n.name for n in theirs.node]
    for a, b in zip(ours.node, theirs.node):
        a_bytes, b_bytes = _node_bytes(a, drop, sort_control), _node_bytes(b, drop, sort_control)
        if a_bytes != b_bytes:
            # A readable diff first, then the byte comparison itself.
            assert str(node_def_pb2.NodeDef.FromString(a_bytes)) == \
                str(node_def_pb2.NodeDef.FromString(b_bytes)), a.name
        assert a_bytes == b_bytes, a.name


def _seed(lib):
    # use_resource=False: TF 2.x's tf1.Variable makes resource variables otherwise; TF1's
    # default (and graphcore's only kind) is the ref variable, VariableV2.
    counter = lib.Variable(0, name="counter", use_resource=False)
    one = lib.constant(1)
    new_value = lib.add(counter, one)
    update = lib.assign(counter, new_value)
    init = lib.initialize_all_variables()
    init.name  # noqa: B018 - marks TF's should-use wrapper as used
    return update, init


def _naming(lib):
    names = [lib.constant(0, name="c").op.name, lib.constant(2, name="c").op.name]
    with lib.name_scope("outer"):
        names.append(lib.constant(2, name="c").op.name)
        with lib.name_scope("inner"):
            names.append(lib.constant(3, name="c").op.name)
        names.append(lib.constant(4, name="c").op.name)
        with lib.name_scope("inner"):
            names.append(lib.constant(5, name="c").op.name)
    return names


CONST_VALUES = {
    "f32": ([[1.5, -2.0], [3.25, 4.0]], None),
    "f16": (np.array([0.5, 1.0, 65504.0], np.float16), None),
    "f64": (np.array([1e-300, 2.0]), None),
    "i8": (np.array([-128, 127], np.int8), None),
    "i16": (np.array([-3, 3], np.int16), None),
    "i32": ([1, 2, 3], None),
    "i64": (np.array([2**40, -1], np.int64), None),
    "u8": (np.array([0, 255], np.uint8), None),
    "u16": (np.array([65535], np.uint16), None),
    "u32": (np.array([4294967295], np.uint32), None),
    "u64": (np.array([2**63], np.uint64), None),
    "bool": ([True, False, True], None),
    "c64": (np.array([1 + 2j, -3j], np.complex64), None),
    "c128": (np.array([1 + 2j], np.complex128), None),
    "str": ([b"a", b"bc", b""], None),
    "ustr": ("h\u00e9llo", None),
    "filled": (7.0, [2, 3]),
    "empty": (np.zeros([0, 2], np.float32), None),
}


def _constants(lib):
    out = {}
    with lib.name_scope("consts"):
        for name, (value, shape) in CONST_VALUES.items():
            out[name] = lib.constant(value, shape=shape, name=name)
    return out


def _expected_const(name):
    value, shape = CONST_VALUES[name]
    arr = np.array(value)
    if shape is not None:
        arr = np.broadcast_to(arr, shape)
    if arr.dtype.kind == "U":
        arr = np.vectorize(lambda s: s.encode())(arr).astype(object)
    return arr


def _rich(lib):
    """Name scopes, device scopes, colocation, control deps, placeholders of all kinds,
    placeholder_with_default, string Add, group, and constants of many dtypes."""
    with lib.name_scope("outer"):
        x = lib.placeholder(lib.float32, shape=[None, 3], name="x")
        y = lib.placeholder(lib.int32, name="y")
        z = lib.placeholder(lib.float16, shape=[2, None, 4], name="z")
        s = lib.placeholder(lib.string, shape=[], name="s")
        with lib.name_scope("inner"):
            c = lib.constant([1.0, 2.0, 3.0], name="c")
    with lib.device("/cpu:0"):
        xa = lib.add(x, c, name="xa")
        with lib.device("/job:localhost/replica:0/task:0"):
            d = lib.placeholder_with_default(lib.constant([[7.0, 8.0, 9.0]]), shape=[None, 3],
                                             name="d")
    with lib.colocate_with(xa.op):
        col = lib.identity(xa, name="col")
    with lib.control_dependencies([col.op]):
        after = lib.identity(d, name="after")
        sa = lib.add(s, lib.constant("!"), name="sa")
    yy = lib.identity(y) + 1
    grp = lib.group(after, sa, yy, name="grp")
    consts = _constants(lib)
    return dict(x=x, y=y, z=z, s=s, xa=xa, d=d, col=col, after=after, sa=sa, yy=yy, grp=grp,
                **consts)


def _variables(lib):
    """Ref variables and the assign ops, on devices, with an initializer group."""
    with lib.device("/cpu:0"):
        v = lib.Variable([1.0, 2.0], name="v", use_resource=False)
    w = lib.Variable(np.arange(6, dtype=np.int64).reshape(2, 3), name="w", use_resource=False)
    with lib.name_scope("upd"):
        a = lib.assign(v, [3.0, 4.0])
        aa = lib.assign_add(v, [1.0, 1.0], use_locking=True)
        asub = lib.assign_sub(w, np.ones([2, 3], np.int64))
        a2 = lib.assign(w, np.zeros([2, 3], np.int64), validate_shape=False)
    init = lib.global_variables_initializer()
    ok = lib.is_variable_initialized(v)
    noop = lib.no_op(name="nothing")
    with lib.control_dependencies([a, noop]):
        after = lib.identity(v, name="after")
    g = lib.group(a.op, aa, asub, a2, name="all_updates")
    for used in (init, g, ok):  # marks TF's should-use wrappers as used
        used.name  # noqa: B018
    return dict(v=v, w=w, init=init, ok=ok, after=after)


# -- a. TensorFlow reads graphcore's GraphDefs ----------------------------------------


def _dims(shape):
    return None if shape.ndims is None else shape.as_list()


def _import_into_tf(gd_bytes):
    with tf_ref.Graph().as_default() as g:
        tf1.import_graph_def(tf1.GraphDef.FromString(gd_bytes), name="")
    return g


def test_tf_imports_and_runs_seed_program():
    _, gd = _gc_graph_def(_seed)
    g = _import_into_tf(gd.SerializeToString())
    assert [op.name for op in g.get_operations()] == [n.name for n in gd.node]
    assert g.get_operation_by_name("counter").type == "VariableV2"
    with tf1.Session(graph=g) as sess:
        sess.run("init")
        assert sess.run("Assign:0") == 1
        assert sess.run("Assign:0") == 2
        assert sess.run("counter/read:0") == 2
        assert sess.run("Add:0") == 3


def test_tf_imports_and_runs_rich_graph():
    gg, gd = _gc_graph_def(_rich)
    g = _import_into_tf(gd.SerializeToString())
    by_name = {op.name: op for op in g.get_operations()}
    assert list(by_name) == [n.name for n in gd.node]
    # Devices, colocation and control inputs survive the trip.
    for op in gg.get_operations():
        t = by_name[op.name]
        assert t.type == op.type
        assert t.device == op.device, op.name
        assert t.colocation_groups() == op.colocation_groups(), op.name
        # TF keeps control edges as a set (its GraphDefs list them sorted by name).
        assert sorted(c.name for c in t.control_inputs) == \
            sorted(c.name for c in op.control_inputs), op.name
        assert [i.name for i in t.inputs] == [i.name for i in op.inputs]
        # TF's shape inference agrees with graphcore's.
        for ours, theirs in zip(op.outputs, t.outputs):
            assert ours.dtype.as_datatype_enum == theirs.dtype.as_datatype_enum
            assert _dims(ours.shape) == _dims(theirs.shape), op.name
    assert by_name["outer/z"].outputs[0].shape.as_list() == [2, None, 4]
    assert by_name["outer/y"].outputs[0].shape.ndims is None
    assert by_name["col"].colocation_groups() == [b"loc:@xa"]
    assert by_name["d"].device == "/job:localhost/replica:0/task:0/device:CPU:0"
    feed = {"outer/x:0": np.ones([2, 3], np.float32), "outer/s:0": b"hi",
            "outer/y:0": np.array([1, 2], np.int32)}
    with tf1.Session(graph=g) as sess:
        xa, after, sa, yy = sess.run(["xa:0", "after:0", "sa:0", "add:0"], feed)
        np.testing.assert_array_equal(xa, [[2, 3, 4], [2, 3, 4]])
        np.testing.assert_array_equal(after, [[7, 8, 9]])
        assert sa == b"hi!"
        np.testing.assert_array_equal(yy, [2, 3])
        sess.run("grp", feed)
        d = sess.run("d:0", {"d:0": np.zeros([4, 3], np.float32)})
        assert d.shape == (4, 3)
        nodes = {n.name: n for n in gd.node}
        for name in CONST_VALUES:
            got = sess.run(f"consts/{name}:0")
            if isinstance(got, bytes):  # TF returns a string scalar as bytes
                got = np.array(got, dtype=object)
            ours = tf.make_ndarray(nodes[f"consts/{name}"].attr["value"].tensor)
            assert got.dtype == ours.dtype, name
            assert got.shape == ours.shape, name
            np.testing.assert_array_equal(got, ours, err_msg=name)
            np.testing.assert_array_equal(got, _expected_const(name), err_msg=name)


def test_tf_imports_and_runs_variables_graph():
    _, gd = _gc_graph_def(_variables)
    g = _import_into_tf(gd.SerializeToString())
    with tf1.Session(graph=g) as sess:
        assert not sess.run("IsVariableInitialized:0")
        sess.run("init")
        assert sess.run("IsVariableInitialized:0")
        np.testing.assert_array_equal(sess.run("v/read:0"), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run("upd/Assign:0"), [3.0, 4.0])
        np.testing.assert_array_equal(sess.run("upd/AssignAdd:0"), [4.0, 5.0])
        np.testing.assert_array_equal(sess.run("upd/AssignSub:0"), [[-1, 0, 1], [2, 3, 4]])
        np.testing.assert_array_equal(sess.run("after:0"), [3.0, 4.0])


def test_tf_imports_graphcore_bytes_with_prefix_and_devices():
    _, gd = _gc_graph_def(_rich)
    with tf_ref.Graph().as_default() as g:
        with tf1.device("/job:ps/task:1"):
            tf1.import_graph_def(tf1.GraphDef.FromString(gd.SerializeToString()), name="imp")
    assert g.get_operation_by_name("imp/xa").device == "/job:ps/task:1/device:CPU:0"
    assert g.get_operation_by_name("imp/col").colocation_groups() == [b"loc:@imp/xa"]


# -- b. graphcore reads TensorFlow's GraphDefs ----------------------------------------


@pytest.mark.parametrize("build", [_seed, _naming, _rich, _variables],
                         ids=["seed", "naming", "rich", "variables"])
def test_graphcore_imports_tf_graph_def_and_reexports_it_unchanged(build):
    tg, theirs = _tf_graph_def(build)
    data = tg.as_graph_def().SerializeToString()
    with tf.Graph().as_default() as g:
        assert tf.import_graph_def(data, name="") is None
        ours = g.as_graph_def()
    # The importer keeps every attr it is given (TF's internal ones included) and fills
    # only defaults, which TF already wrote out, so the NodeDefs are compared whole.
    # TF writes ``_output_shapes`` only with add_shapes=True (not used here).
    _assert_nodes_equal(ours, theirs)
    assert ours.versions.producer == theirs.versions.producer
    # Each imported tensor has TF's dtype and static shape.
    for op in tg.get_operations():
        gop = g.get_operation_by_name(op.name)
        assert [t.dtype.as_datatype_enum for t in gop.outputs] == \
            [t.dtype.as_datatype_enum for t in op.outputs]
        for ours_t, theirs_t in zip(gop.outputs, op.outputs):
            assert _dims(ours_t.shape) == _dims(theirs_t.shape), ours_t.name


def _add_shapes_pair(build):
    tg, _ = _tf_graph_def(build)
    theirs = graph_pb2.GraphDef.FromString(
        tg.as_graph_def(add_shapes=True).SerializeToString())
    with tf.Graph().as_default() as g:
        tf.import_graph_def(tg.as_graph_def().SerializeToString(), name="")
        ours = g.as_graph_def(add_shapes=True)
    return ours, theirs


@pytest.mark.parametrize("build", [_seed, _rich, _variables], ids=["seed", "rich", "variables"])
def test_output_shapes_with_add_shapes_match_tf(build):
    ours, theirs = _add_shapes_pair(build)
    # Ops without outputs (NoOp) are checked by the test below.
    has_outputs = {n.name for n in theirs.node if n.op != "NoOp"}
    for gd in (ours, theirs):
        kept = [n for n in gd.node if n.name in has_outputs]
        del gd.node[:]
        gd.node.extend(kept)
    _assert_nodes_equal(ours, theirs)


def test_add_shapes_skips_ops_without_outputs_like_tf():
    ours, theirs = _add_shapes_pair(_seed)
    assert "_output_shapes" not in {n.name: n for n in theirs.node}["init"].attr
    _assert_nodes_equal(ours, theirs)


def test_graphcore_imports_tf_graph_with_prefix_input_map_and_return_elements():
    def build(lib):
        x = lib.placeholder(lib.float32, shape=[2], name="x")
        lib.add(x, lib.constant([1.0, 2.0], name="c"), name="out")
    tg, _ = _tf_graph_def(build)
    data = tg.as_graph_def().SerializeToString()
    with tf.Graph().as_default():
        feed = tf.constant([10.0, 20.0], name="feed")
        out, op = tf.import_graph_def(data, input_map={"x:0": feed},
                                      return_elements=["out:0", "c"])
        assert out.name == "import/out:0" and op.name == "import/c"
        assert out.op.inputs[0] is feed
    with tf_ref.Graph().as_default():
        feed_t = tf1.constant([10.0, 20.0], name="feed")
        out_t, op_t = tf1.import_graph_def(tg.as_graph_def(), input_map={"x:0": feed_t},
                                           return_elements=["out:0", "c"])
        assert (out_t.name, op_t.name) == (out.name, op.name)
        assert out_t.op.inputs[0] is feed_t


def _import_scenario(lib, gd_bytes, graph_def_cls):
    """Two imports (with a device scope) and a name="" import over existing ops."""
    lib.constant(0, name="import/a")
    with lib.device("/job:ps/device:CPU:0"):
        lib.import_graph_def(graph_def_cls.FromString(gd_bytes))
    lib.import_graph_def(graph_def_cls.FromString(gd_bytes))
    lib.import_graph_def(graph_def_cls.FromString(gd_bytes), name="")
    lib.constant(3, name="import/b")
    lib.constant(3, name="a")
    lib.constant(3, name="import")


def _colocated_source(lib):
    a = lib.constant(1.0, name="a")
    with lib.colocate_with(a):
        lib.identity(a, name="b")
    with lib.device("/device:GPU:1"):
        lib.identity(a, name="c")


def _import_scenario_results(colocation):
    _, gd = _gc_graph_def(_colocated_source)
    data = gd.SerializeToString()
    out = []
    for lib, graph_cls, gd_cls in ((tf1, tf_ref.Graph, tf1.GraphDef),
                                   (tf, tf.Graph, tf.GraphDef)):
        with graph_cls().as_default() as g:
            _import_scenario(lib, data, gd_cls)
        out.append([(op.name, op.device) + ((op.colocation_groups(),) if colocation else ())
                    for op in g.get_operations()])
    return out


def test_import_names_and_devices_match_tf():
    theirs, ours = _import_scenario_results(colocation=False)
    assert ours == theirs


def test_import_colocation_groups_match_tf():
    theirs, ours = _import_scenario_results(colocation=True)
    assert ours == theirs


def test_import_name_collisions_are_case_sensitive_like_tf():
    def source(lib):
        lib.constant(1.0, name="A")
    _, gd = _gc_graph_def(source)
    data = gd.SerializeToString()
    names = []
    for lib, graph_cls, gd_cls in ((tf1, tf_ref.Graph, tf1.GraphDef),
                                   (tf, tf.Graph, tf.GraphDef)):
        with graph_cls().as_default() as g:
            lib.constant(0.0, name="a")
            lib.import_graph_def(gd_cls.FromString(data), name="")
        names.append([op.name for op in g.get_operations()])
    assert names[0] == ["a", "A"]
    assert names[1] == names[0]


def test_tf_rejects_attr_of_wrong_kind_like_graphcore_should():
    # Documents TF's behavior that tests/framework/test_importer.py checks for us
    # test_attr_of_wrong_kind_is_value_error.
    gd = tf1.GraphDef()
    nd = gd.node.add(name="ph", op="Placeholder")
    nd.attr["dtype"].type = 1
    nd.attr["shape"].s = b"not a shape"
    with tf_ref.Graph().as_default():
        with pytest.raises(ValueError, match="shape"):
            tf1.import_graph_def(gd)


# -- c. the same program built with both libraries ------------------------------------


@pytest.mark.parametrize("build", [_seed, _naming, _rich, _variables],
                         ids=["seed", "naming", "rich", "variables"])
def test_same_program_gives_equal_graph_defs(build):
    _, theirs = _tf_graph_def(build)
    _, ours = _gc_graph_def(build)
    # Names, ops, inputs (incl. ^control), devices and every attr; only TF-internal
    # bookkeeping attrs are dropped (see TF_INTERNAL_ATTRS).
    # TF's GraphDefs list control inputs sorted by source name, graphcore's in the order
    # they were added (see test_graph_def_control_inputs_sorted_like_tf): sorted here.
    _assert_nodes_equal(ours, theirs, drop=TF_INTERNAL_ATTRS, sort_control=True)


def test_graph_def_control_inputs_sorted_like_tf():
    _, theirs = _tf_graph_def(_variables)
    _, ours = _gc_graph_def(_variables)
    _assert_nodes_equal(ours, theirs, drop=TF_INTERNAL_ATTRS)


def test_seed_program_ops_and_names():
    _, theirs = _tf_graph_def(_seed)
    assert [(n.name, n.op) for n in theirs.node] == [
        ("counter/initial_value", "Const"), ("counter", "VariableV2"),
        ("counter/Assign", "Assign"), ("counter/read", "Identity"), ("Const", "Const"),
        ("Add", "AddV2"), ("Assign", "Assign"), ("init", "NoOp")]
    _, ours = _gc_graph_def(_seed)
    assert [(n.name, n.op) for n in ours.node] == [(n.name, n.op) for n in theirs.node]


def test_naming_example():
    expected = ["c", "c_1", "outer/c", "outer/inner/c", "outer/c_1", "outer/inner_1/c"]
    with tf_ref.Graph().as_default():
        assert _naming(tf1) == expected
    with tf.Graph().as_default():
        assert _naming(tf) == expected


def _case_insensitive(lib):
    out = [lib.constant(1, name=n).op.name for n in ("Foo", "foo", "FOO")]
    with lib.name_scope("fOo") as sc:
        out.append(sc)
    return out


def _preexisting_suffix(lib):
    return [lib.constant(1, name=n).op.name for n in ("foo_1", "foo", "foo", "foo", "foo_2")]


def _reentered_scopes(lib):
    out = []
    for _ in range(3):
        with lib.name_scope("s") as sc:
            out.append(sc)
            with lib.name_scope("s") as sc2:
                out.append(sc2)
                out.append(lib.constant(1).op.name)
    return out


def _absolute_scopes(lib):
    out = []
    with lib.name_scope("a") as sc:
        out.append(lib.constant(1, name="c").op.name)
    with lib.name_scope(sc):
        out.append(lib.constant(1, name="c").op.name)
    with lib.name_scope("a/"):
        out.append(lib.constant(1, name="c").op.name)
        with lib.name_scope("b") as sb:
            out.append(sb)
    with lib.name_scope("x/y/"):
        out.append(lib.constant(1, name="c").op.name)
    with lib.name_scope("a") as sc3:
        out.append(sc3)
    out.append(lib.constant(1, name="abs/").op.name)
    with lib.name_scope("q"):
        out.append(lib.constant(1, name="top/").op.name)
    return out


def _none_scope(lib):
    out = []
    with lib.name_scope("outer"):
        with lib.name_scope(None) as sc:
            out.append(sc)
            out.append(lib.constant(1, name="c").op.name)
        with lib.name_scope("") as sc:
            out.append(sc)
            out.append(lib.constant(1, name="c").op.name)
        out.append(lib.constant(1, name="c").op.name)
    return out


def _default_names(lib):
    with lib.name_scope(None, "dflt") as a, lib.name_scope(None, "dflt") as b:
        out = [a, b]
    with lib.name_scope("given", "dflt") as c:
        out.append(c)
    x = lib.placeholder(lib.float32)
    y = lib.placeholder(lib.float32)
    out += [x.op.name, y.op.name]
    out += [lib.identity(x).op.name, lib.identity(x).op.name]
    out += [lib.add(x, y).op.name, lib.add(x, y).op.name, (x + y).op.name, (x + 1.0).op.name]
    out += [lib.no_op().name, lib.group(x, y).name, lib.group(x).name]
    v1 = lib.Variable(1, use_resource=False)
    v2 = lib.Variable(2, use_resource=False)
    out += [v1.op.name, v2.op.name, v2.initializer.name]
    return out


def _reverse_operator(lib):
    x = lib.placeholder(lib.float32, name="x")
    return [(1.0 + x).op.name, (2.0 + x).op.name]


def _scope_vs_op_names(lib):
    out = [lib.constant(1, name="s").op.name]
    with lib.name_scope("s") as sc:
        out.append(sc)
    with lib.name_scope("t_1") as sc:
        out.append(sc)
    for _ in range(2):
        with lib.name_scope("t") as sc:
            out.append(sc)
    out.append(lib.constant(1, name="t").op.name)
    return out


def _unique_name_api(lib):
    g = lib.get_default_graph()
    out = [g.unique_name("u"), g.unique_name("u", mark_as_used=False),
           g.unique_name("u", mark_as_used=False), g.unique_name("u"), g.unique_name("U")]
    with lib.name_scope("s"):
        out += [g.unique_name("u"), g.get_name_scope()]
        with lib.name_scope("t"):
            out.append(g.get_name_scope())
    out.append(lib.constant(1, name="u").op.name)
    return out


def _variables_in_scopes(lib):
    with lib.name_scope("s"):
        a = lib.Variable(1.0, name="v", use_resource=False)
    b = lib.Variable(1.0, name="v", use_resource=False)
    c = lib.Variable(1.0, name="v", use_resource=False)
    with lib.name_scope("v"):
        d = lib.constant(1, name="x")
    return [a.op.name, b.op.name, c.op.name, c._snapshot.op.name, d.op.name]


NAME_CASES = {
    "naming_example": _naming,
    "case_insensitive": _case_insensitive,
    "preexisting_suffix": _preexisting_suffix,
    "reentered_scopes": _reentered_scopes,
    "absolute_scopes": _absolute_scopes,
    "none_scope": _none_scope,
    "default_names": _default_names,
    "reverse_operator": _reverse_operator,
    "scope_vs_op_names": _scope_vs_op_names,
    "unique_name_api": _unique_name_api,
    "variables_in_scopes": _variables_in_scopes,
}


@pytest.mark.parametrize("fn", list(NAME_CASES.values()), ids=list(NAME_CASES))
def test_unique_name_edge_cases_match_tf(fn):
    with tf_ref.Graph().as_default() as tg:
        theirs = fn(tf1)
    with tf.Graph().as_default() as g:
        ours = fn(tf)
    assert ours == theirs
    assert [op.name for op in g.get_operations()] == [op.name for op in tg.get_operations()]


# -- d. OpDefs and DataType enums -----------------------------------------------------


def _attr_bytes(av):
    return attr_value_pb2.AttrValue.FromString(av.SerializeToString()).SerializeToString(
        deterministic=True)


@pytest.mark.parametrize("op_type", sorted(op_registry.registered_ops()))
def test_op_def_matches_tf(op_type):
    ours = op_registry.registered_ops()[op_type].op_def
    tf_def = op_def_registry.get(op_type)
    assert tf_def is not None, f"TF has no op {op_type}"
    theirs = op_def_pb2.OpDef.FromString(tf_def.SerializeToString())
    assert ours.name == theirs.name

    def args(lst):
        return [(a.name, a.type, a.type_attr, a.number_attr, a.type_list_attr, a.is_ref)
                for a in lst]

    assert args(ours.input_arg) == args(theirs.input_arg)
    assert args(ours.output_arg) == args(theirs.output_arg)
    ours_attrs = {a.name: a for a in ours.attr}
    theirs_attrs = {a.name: a for a in theirs.attr}
    assert list(ours_attrs) == list(theirs_attrs)
    for name, t in theirs_attrs.items():
        o = ours_attrs[name]
        assert o.type == t.type, name
        assert o.HasField("default_value") == t.HasField("default_value"), name
        if t.HasField("default_value"):
            assert _attr_bytes(o.default_value) == _attr_bytes(t.default_value), name
        assert (o.has_minimum, o.minimum) == (t.has_minimum, t.minimum), name
        assert o.HasField("allowed_values") == t.HasField("allowed_values"), name
        assert set(o.allowed_values.list.type) == set(t.allowed_values.list.type), name
        assert set(o.allowed_values.list.s) == set(t.allowed_values.list.s), name
    for flag in ("is_stateful", "is_commutative", "is_aggregate",
                 "allows_uninitialized_input"):
        assert getattr(ours, flag) == getattr(theirs, flag), flag
    # The registry's defaults table is the OpDef's.
    reg = op_registry.registered_ops()[op_type]
    assert set(reg.defaults) == {a.name for a in ours.attr if a.HasField("default_value")}


def test_every_registered_op_has_a_tf_counterpart():
    # Test-only ops other test modules register (GraphcoreTest*) have no TF counterpart.
    missing = [n for n in op_registry.registered_ops()
               if op_def_registry.get(n) is None and not n.startswith("GraphcoreTest")]
    assert missing == []


def test_dtype_enums_match_tf():
    seen = set()
    for enum, dt in gc_dtypes._INTERN_TABLE.items():
        theirs = tf_ref.as_dtype(enum)
        assert dt.as_datatype_enum == theirs.as_datatype_enum == enum
        assert dt.name == theirs.name
        seen.add(dt.name)
    # Every public DType object of graphcore, and TF's own enum numbers by name.
    for name in dir(tf):
        obj = getattr(tf, name)
        if isinstance(obj, tf.DType):
            theirs = tf_ref.as_dtype(obj.as_datatype_enum)
            assert obj.name == theirs.name, name
            if hasattr(tf_ref, name):
                assert getattr(tf_ref, name).as_datatype_enum == obj.as_datatype_enum, name
    assert dict(gc_types.DataType.items()) == dict(tf_types.DataType.items())
    assert {tf_ref.as_dtype(e).name for e in gc_dtypes._INTERN_TABLE} == seen


# -- e. constants ---------------------------------------------------------------------

CONSTANT_CASES = [
    (0, {}), (1.5, {}), (-3, {}), (True, {}), ("str", {}), (b"bytes", {}),
    ([1, 2, 3], {}), ([[1.0, 2.0], [3.0, 4.0]], {}), (2**40, {}), (1 + 2j, {}),
    (np.array([1.0, 2.0], np.float16), {}), (np.arange(24, dtype=np.int64).reshape(2, 3, 4), {}),
    (np.array([], np.float32), {}), (np.uint8(7), {}), ([b"a", "b\u00e9"], {}),
    ([True, False], {}), (5, {"shape": [2, 3]}), (1, {"dtype": "float32"}),
    (7, {"dtype": "int64", "shape": [3]}), ([1, 2], {"dtype": "float64"}),
    (np.full([3, 3], 2.5, np.float32), {}), (np.array([[1 + 1j]], np.complex128), {}),
    ([[1, 2, 3, 4]], {"shape": [2, 2]}), (np.float64(0.1), {"dtype": "half"}),
]


@pytest.mark.parametrize("case", range(len(CONSTANT_CASES)))
def test_constant_value_attr_bytes_match_tf(case):
    value, kw = CONSTANT_CASES[case]
    with tf_ref.Graph().as_default():
        t = tf1.constant(value, **kw)
        theirs = t.op.node_def
    with tf.Graph().as_default():
        ours = tf.constant(value, **kw).op.node_def
    assert ours.attr["value"].SerializeToString(deterministic=True) == \
        attr_value_pb2.AttrValue.FromString(
            theirs.attr["value"].SerializeToString()).SerializeToString(deterministic=True)
    assert ours.attr["dtype"].type == theirs.attr["dtype"].type
    assert _node_bytes(ours) == _node_bytes(
        node_def_pb2.NodeDef.FromString(theirs.SerializeToString()))


def test_empty_variable_scope_opens_no_name_scope_as_tf():
    def names(lib):
        with lib.Graph().as_default():
            with lib.variable_scope("scope"):
                with lib.variable_scope("") as inner:
                    v = lib.get_variable("emb", [2], use_resource=False)
                    c = lib.constant(1.0, name="c")
            with lib.variable_scope("") as top:
                d = lib.constant(1.0, name="d")
            return v.name, c.name, d.name, inner.original_name_scope, top.original_name_scope

    assert names(tf) == names(tf_ref.compat.v1)
