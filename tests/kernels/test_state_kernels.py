"""Ref-variable kernels (graphcore/kernels/state_kernels.py): VariableV2, Assign,
AssignAdd/AssignSub, IsVariableInitialized, on a ResourceStore."""

import threading

import numpy as np
import pytest

import graphcore as tf
from graphcore import kernels  # noqa: F401 - registers the kernels
from graphcore.framework import errors
from graphcore.kernels import registry
from graphcore.protobuf import node_def_pb2
from graphcore.runtime.engine import LocalEngine
from graphcore.runtime.resources import ResourceStore

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


def _kernel(op, resources, name=None, **attrs):
    nd = node_def_pb2.NodeDef(name=name or op.lower(), op=op)
    for k, v in attrs.items():
        if isinstance(v, bool):
            nd.attr[k].b = v
        elif isinstance(v, bytes):
            nd.attr[k].s = v
        elif isinstance(v, tf.DType):
            nd.attr[k].type = v.as_datatype_enum
        elif isinstance(v, tuple):
            for d in v:
                nd.attr[k].shape.dim.add(size=d)
        else:
            raise TypeError(k)
    kdef = registry.find_kernel(op, "CPU", dict(nd.attr))
    assert kdef is not None, op
    ctx = registry.KernelContext(nd, CPU0, "CPU", resources, [], [])
    return kdef.factory(ctx)


def _variable(store, name="v", shape=(2,), dtype=tf.float32, container=b"", shared=b""):
    (state,) = _kernel("VariableV2", store, name=name, shape=shape, dtype=dtype,
                       container=container, shared_name=shared)()
    return state


def _assign(store, validate=True):
    return _kernel("Assign", store, T=tf.float32, validate_shape=validate, use_locking=True)


def test_variable_kernel_uses_the_store():
    store = ResourceStore()
    v = _variable(store)
    assert store.variables() == {("", "v"): v}
    assert v.shape == (2,) and v.dtype == np.float32
    assert _variable(store) is v  # a second step (or node) sees the same state
    assert _variable(store, container=b"c") is not v
    shared = _variable(store, name="other_node", shared=b"v")
    assert shared is v
    unknown = _variable(store, name="u", shape=(-1, 3))
    assert unknown.shape is None


def test_read_before_init_is_failed_precondition():
    store = ResourceStore()
    v = _variable(store)
    (flag,) = _kernel("IsVariableInitialized", store, dtype=tf.float32)(v)
    assert not flag
    with pytest.raises(errors.FailedPreconditionError, match="uninitialized value v"):
        v.read()
    add = _kernel("AssignAdd", store, T=tf.float32)
    with pytest.raises(errors.FailedPreconditionError, match="uninitialized value v"):
        add(v, np.ones(2, np.float32))


def test_assign_copies_converts_and_stores_read_only():
    store = ResourceStore()
    v = _variable(store)
    src = np.array([1, 2], dtype=np.int64)
    (out,) = _assign(store)(v, src)
    assert out is v
    stored = v.read()
    assert stored.dtype == np.float32
    assert not stored.flags.writeable
    src[0] = 99  # the store owns its copy
    np.testing.assert_array_equal(v.read(), [1.0, 2.0])
    value = np.array([5.0, 6.0], dtype=np.float32)
    _assign(store)(v, value)
    assert v.read() is not value and value.flags.writeable
    # As TF's Assign: written into the variable's buffer, which earlier reads share.
    assert v.read() is stored
    np.testing.assert_array_equal(stored, [5.0, 6.0])
    (flag,) = _kernel("IsVariableInitialized", store, dtype=tf.float32)(v)
    assert flag


def test_assign_validate_shape_against_declared_and_current_shape():
    store = ResourceStore()
    v = _variable(store)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"lhs shape= \[2\] rhs shape= \[3\]"):
        _assign(store)(v, np.zeros(3, np.float32))
    assert not v.initialized  # nothing stored
    _assign(store)(v, np.zeros(2, np.float32))
    with pytest.raises(errors.InvalidArgumentError, match=r"rhs shape= \[2,1\]"):
        _assign(store)(v, np.zeros((2, 1), np.float32))
    np.testing.assert_array_equal(v.read(), [0.0, 0.0])


def test_assign_without_validate_shape_changes_the_shape():
    store = ResourceStore()
    v = _variable(store)
    _assign(store, validate=False)(v, np.zeros((3, 4), np.float32))
    assert v.read().shape == (3, 4)
    # Unknown declared shape: the first assign sets it, later ones are checked.
    u = _variable(store, name="u", shape=(-1,))
    _assign(store)(u, np.zeros(5, np.float32))
    with pytest.raises(errors.InvalidArgumentError):
        _assign(store)(u, np.zeros(6, np.float32))


def test_assign_add_and_sub():
    store = ResourceStore()
    v = _variable(store)
    _assign(store)(v, np.array([1.0, 2.0], np.float32))
    before = v.read()
    (out,) = _kernel("AssignAdd", store, T=tf.float32)(v, np.array([10.0, 20.0], np.float32))
    assert out is v
    np.testing.assert_array_equal(v.read(), [11.0, 22.0])
    _kernel("AssignSub", store, T=tf.float32)(v, np.array([1.0, 1.0], np.float32))
    np.testing.assert_array_equal(v.read(), [10.0, 21.0])
    assert v.read().dtype == np.float32 and not v.read().flags.writeable
    assert v.read() is before  # updated in place, as TF's AssignAdd/AssignSub


@pytest.mark.parametrize("op", ["AssignAdd", "AssignSub"])
@pytest.mark.parametrize("shape", [(3,), (2, 1), ()])
def test_assign_update_shape_mismatch(op, shape):
    store = ResourceStore()
    v = _variable(store)
    _assign(store)(v, np.array([1.0, 2.0], np.float32))
    with pytest.raises(errors.InvalidArgumentError, match="shapes must be equal"):
        _kernel(op, store, T=tf.float32)(v, np.ones(shape, np.float32))
    np.testing.assert_array_equal(v.read(), [1.0, 2.0])


def test_concurrent_assign_add_counts_exactly():
    store = ResourceStore()
    v = _variable(store, shape=())
    _assign(store)(v, np.float32(0))
    add = _kernel("AssignAdd", store, T=tf.float32)
    n_threads, n_iter = 8, 400
    barrier = threading.Barrier(n_threads)
    one = np.float32(1)

    def worker():
        barrier.wait()
        for _ in range(n_iter):
            add(v, one)

    threads = [threading.Thread(target=worker) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert v.read() == n_threads * n_iter


def test_two_variable_nodes_with_the_same_shared_name_share_state():
    a = tf.Variable([1.0, 2.0], name="a")
    b = tf.Variable([0.0, 0.0], name="b")
    gd = tf.get_default_graph().as_graph_def()
    for nd in gd.node:
        if nd.op == "VariableV2":
            nd.attr["shared_name"].s = b"common"
    del a, b
    engine = LocalEngine()
    engine.extend(gd.SerializeToString())
    engine.run(engine.plan((), (), ("a/Assign",)), [])
    (b_value,) = engine.run(engine.plan((), ("b/read:0",), ()), [])
    np.testing.assert_array_equal(b_value, [1.0, 2.0])
    engine.run(engine.plan((), (), ("b/Assign",)), [])
    (a_value,) = engine.run(engine.plan((), ("a/read:0",), ()), [])
    np.testing.assert_array_equal(a_value, [0.0, 0.0])
    assert set(engine.resources.variables()) == {("", "common")}
    engine.close()


def test_engine_assign_add_from_threads_counts_exactly():
    v = tf.Variable(0, dtype=tf.int32, name="counter")
    inc = tf.assign_add(v, 1, name="inc")
    engine = LocalEngine()
    engine.extend(tf.get_default_graph().as_graph_def().SerializeToString())
    engine.run(engine.plan((), (), (v.initializer.name,)), [])
    plan = engine.plan((), (), (inc.op.name,))
    barrier = threading.Barrier(6)

    def worker():
        barrier.wait()
        for _ in range(200):
            engine.run(plan, [])

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (value,) = engine.run(engine.plan((), ("counter:0",), ()), [])
    assert value == 1200
    engine.close()
