"""VariableState and ResourceStore (graphcore/runtime/resources.py)."""

import threading

import numpy as np
import pytest

from graphcore.framework import errors
from graphcore.runtime.resources import ResourceStore, VariableState


def test_read_before_init_is_failed_precondition():
    state = VariableState("my_var", np.dtype(np.float32), (2,))
    assert not state.initialized
    with pytest.raises(errors.FailedPreconditionError,
                       match="Attempting to use uninitialized value my_var"):
        state.read()


def test_set_stores_read_only_values_and_returns_them():
    state = VariableState("v", np.dtype(np.float32), (2,))
    value = np.array([1.0, 2.0], dtype=np.float32)
    assert state.set(value) is value
    assert state.initialized
    got = state.read()
    assert got is value
    assert not got.flags.writeable
    with pytest.raises(ValueError):
        got[0] = 5.0
    # A later write swaps in a new array; the value handed out earlier is unchanged.
    state.set(np.array([7.0, 8.0], dtype=np.float32))
    np.testing.assert_array_equal(got, [1.0, 2.0])
    np.testing.assert_array_equal(state.read(), [7.0, 8.0])


def test_set_accepts_numpy_scalars():
    state = VariableState("s", np.dtype(np.int32), ())
    state.set(np.int32(3))
    assert state.read() == 3


def test_store_keys_by_container_and_shared_name():
    store = ResourceStore()
    a = store.variable("", "v", np.dtype(np.float32), (2,))
    assert store.variable("", "v", np.dtype(np.float32), (2,)) is a
    b = store.variable("other", "v", np.dtype(np.float32), (2,))
    c = store.variable("", "w", np.dtype(np.float32), (2,))
    assert len({id(a), id(b), id(c)}) == 3
    assert set(store.variables()) == {("", "v"), ("other", "v"), ("", "w")}
    assert a.name == "v" and a.shape == (2,) and a.dtype == np.float32


def test_variables_returns_a_snapshot():
    store = ResourceStore()
    store.variable("", "v", np.dtype(np.float32), None)
    snap = store.variables()
    store.variable("", "w", np.dtype(np.float32), None)
    assert set(snap) == {("", "v")}


def test_clear_all_or_some_containers():
    store = ResourceStore()
    old = store.variable("", "v", np.dtype(np.float32), ())
    old.set(np.array(1.0, dtype=np.float32))
    store.variable("c1", "v", np.dtype(np.float32), ())
    store.variable("c2", "v", np.dtype(np.float32), ())
    store.clear(["c1"])
    assert set(store.variables()) == {("", "v"), ("c2", "v")}
    store.clear()
    assert store.variables() == {}
    fresh = store.variable("", "v", np.dtype(np.float32), ())
    assert fresh is not old and not fresh.initialized


def test_concurrent_lookups_create_one_variable():
    store = ResourceStore()
    barrier = threading.Barrier(16)
    got = []

    def worker():
        barrier.wait()
        for i in range(50):
            got.append(store.variable("", f"v{i}", np.dtype(np.float32), ()))

    threads = [threading.Thread(target=worker) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(s) for s in got}) == 50
    assert len(store.variables()) == 50


def test_task_name():
    assert ResourceStore().task == "/job:localhost/replica:0/task:0"
    assert ResourceStore("/job:ps/replica:0/task:1").task == "/job:ps/replica:0/task:1"


def _stored(value) -> VariableState:
    state = VariableState("v", np.dtype(np.float32), value.shape)
    state.set(value)
    return state


def test_value_to_update_reuses_an_array_nobody_else_holds():
    state = _stored(np.arange(4, dtype=np.float32))
    ident = id(state.value)
    owned = state.value_to_update()
    assert id(owned) == ident and owned.flags.writeable
    owned += 1
    assert state.set(owned) is owned and not owned.flags.writeable
    np.testing.assert_array_equal(state.read(), [1, 2, 3, 4])


@pytest.mark.parametrize("holder", ["reader", "view"])
def test_an_update_is_seen_by_readers_of_the_stored_array(holder):
    """TF's ref-variable reads share the variable's buffer: a read taken before an update
    in the same step sees it."""
    state = _stored(np.arange(4, dtype=np.float32))
    held = {"reader": lambda v: v, "view": lambda v: v[1:]}[holder](state.read())
    owned = state.value_to_update()
    assert owned is state.value and owned.flags.writeable
    owned += 10
    state.set(owned)
    np.testing.assert_array_equal(held, [10, 11, 12, 13][4 - held.size:])
    assert not held.flags.writeable


def test_assign_writes_into_the_stored_array_of_the_same_shape():
    state = _stored(np.zeros(3, dtype=np.float32))
    read = state.read()
    assert state.assign([1, 2, 3]) is read
    np.testing.assert_array_equal(read, [1, 2, 3])
    assert read.dtype == np.float32 and not read.flags.writeable
    bigger = state.assign(np.ones(4))
    assert bigger is not read and bigger.dtype == np.float32 and bigger.shape == (4,)
    np.testing.assert_array_equal(read, [1, 2, 3])


def test_value_to_update_copies_a_view_of_another_array():
    base = np.arange(6, dtype=np.float32)
    state = _stored(base.reshape(2, 3))
    del base
    owned = state.value_to_update()
    assert owned.base is None and owned is not state.value
