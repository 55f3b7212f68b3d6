"""FunctionLibraryRuntime and function_to_graph_def (graphcore/runtime/function.py) on
FunctionDefs traced by graphcore.framework.function and written by hand; and the
store's named resources that queues, readers and iterators live in."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.framework import errors
from graphcore.framework import function as function_lib
from graphcore.protobuf import function_pb2
from graphcore.runtime.devices import local_devices
from graphcore.runtime.function import FunctionLibraryRuntime, function_to_graph_def
from graphcore.runtime.graph_view import GraphView
from graphcore.runtime.resources import ResourceStore


def _runtime(graph):
    view = GraphView()
    view.extend(graph.as_graph_def())
    return FunctionLibraryRuntime(view, local_devices()[0], ResourceStore())


def test_traced_function_runs_and_keeps_tf_input_names():
    with tf.Graph().as_default() as g:
        name, outputs, _, captured = function_lib.trace(
            lambda x, y: (x * y, tf.reduce_sum(x)), [(tf.float32, [2]), (tf.float32, [])], "f")
    fdef = {f.signature.name: f for f in g.as_graph_def().library.function}[name]
    assert [a.name for a in fdef.signature.input_arg] == ["args_0", "args_1"]
    assert dict(fdef.ret) == {"identity": "Identity:output:0",
                              "identity_1": "Identity_1:output:0"}
    assert [o.shape.as_list() for o in outputs] == [[2], []]
    assert captured == []  # (no outer tensors)
    call = _runtime(g).instantiate(name)
    prod, total = call(np.array([1.0, 2.0], np.float32), np.float32(3.0))
    assert prod.tolist() == [3.0, 6.0] and float(total) == 3.0


def test_hand_written_function_def():
    fdef = function_pb2.FunctionDef()
    fdef.signature.name = "add_one"
    fdef.signature.input_arg.add(name="x", type=tf.int32.as_datatype_enum)
    fdef.signature.output_arg.add(name="y", type=tf.int32.as_datatype_enum)
    one = fdef.node_def.add(name="one", op="Const")
    one.attr["dtype"].type = tf.int32.as_datatype_enum
    one.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(1, tf.int32))
    add = fdef.node_def.add(name="add", op="AddV2", input=["x", "one:output:0"])
    add.attr["T"].type = tf.int32.as_datatype_enum
    fdef.ret["y"] = "add:z:0"
    gd = function_to_graph_def(fdef)
    assert [(n.name, n.op, list(n.input)) for n in gd.node] == [
        ("x", "_Arg", []), ("one", "Const", []), ("add", "AddV2", ["x", "one:0"]),
        ("_retval_y_0", "_Retval", ["add:0"])]
    with tf.Graph().as_default() as g:
        function_lib.add_function(g, fdef)
        tf.constant(0)
    assert _runtime(g).instantiate("add_one")(np.int32(41)) == [42]


def test_unknown_function_is_not_found():
    with tf.Graph().as_default() as g:
        tf.constant(0)
    with pytest.raises(errors.NotFoundError, match="Function nope is not defined"):
        _runtime(g).instantiate("nope")


class _Cancellable:
    def __init__(self, unique_id):
        self.unique_id = unique_id
        self.cancelled = False

    def cancel(self):
        self.cancelled = True


def test_store_resources_are_shared_numbered_and_cancelled_on_clear():
    store = ResourceStore()
    a = store.resource("", "q", _Cancellable)
    assert store.resource("", "q", _Cancellable) is a
    b = store.resource("c", "q", _Cancellable)
    assert (a.unique_id, b.unique_id) == (0, 1)
    store.clear(["c"])
    assert b.cancelled and not a.cancelled
    assert set(store.resources()) == {("", "q")}
    store.clear()
    assert a.cancelled and store.resources() == {}
