"""The kernel registry (graphcore/kernels/registry.py)."""

import graphcore as tf
from graphcore import kernels  # noqa: F401 - registers the built-in kernels
from graphcore.kernels import registry
from graphcore.protobuf import attr_value_pb2, node_def_pb2

# Test-only op types: the registry is process-global, so every name here is unique to
# this module and registered once.
_OP = "GraphcoreTestRegistryTyped"
_LIST_OP = "GraphcoreTestRegistryList"
_STEP_OP = "GraphcoreTestRegistryStep"


def _float_kernel(ctx):
    return lambda x: ("float", x)


def _int_kernel(ctx):
    return lambda x: ("int", x)


def _any_kernel(ctx):
    return lambda x: ("any", x)


if (_OP, "CPU") not in registry.registered_kernels():
    registry.register_kernel(_OP, "CPU", constraints={"T": [tf.float32, tf.float64]})(
        _float_kernel)
    registry.register_kernel(_OP, "CPU", constraints={"T": ["int32", tf.int64]})(_int_kernel)
    registry.register_kernel(_OP, "CPU")(_any_kernel)  # fallback, registered last
    registry.register_kernel(_OP, "GPU", constraints={"T": [tf.float32]})(_float_kernel)
    registry.register_kernel(_LIST_OP, "CPU", constraints={"Tlist": [tf.float32, tf.int32]})(
        _any_kernel)
    registry.register_kernel(_STEP_OP, "CPU", needs_step=True)(
        lambda ctx: (lambda step: (step,)))


def _t(dtype):
    return {"T": attr_value_pb2.AttrValue(type=dtype.as_datatype_enum)}


def test_register_kernel_returns_the_factory_and_records_constraints():
    defs = registry.registered_kernels()[(_OP, "CPU")]
    assert [d.factory for d in defs] == [_float_kernel, _int_kernel, _any_kernel]
    assert defs[0].constraints == {"T": frozenset({tf.float32.as_datatype_enum,
                                                   tf.float64.as_datatype_enum})}
    assert defs[1].constraints == {"T": frozenset({tf.int32.as_datatype_enum,
                                                   tf.int64.as_datatype_enum})}
    assert defs[2].constraints == {}
    assert all(d.op_type == _OP and d.device_type == "CPU" and not d.needs_step
               for d in defs)
    assert registry.registered_kernels()[(_STEP_OP, "CPU")][0].needs_step
    # The decorator hands back the function it decorates.
    assert registry.register_kernel("GraphcoreTestRegistryDecorated")(_any_kernel) \
        is _any_kernel


def test_find_kernel_picks_the_first_matching_constraints():
    assert registry.find_kernel(_OP, "CPU", _t(tf.float32)).factory is _float_kernel
    assert registry.find_kernel(_OP, "CPU", _t(tf.float64)).factory is _float_kernel
    assert registry.find_kernel(_OP, "CPU", _t(tf.int32)).factory is _int_kernel
    assert registry.find_kernel(_OP, "CPU", _t(tf.int64)).factory is _int_kernel
    # No constrained kernel takes strings or a missing attr: the fallback does.
    assert registry.find_kernel(_OP, "CPU", _t(tf.string)).factory is _any_kernel
    assert registry.find_kernel(_OP, "CPU", {}).factory is _any_kernel


def test_find_kernel_per_device_type():
    assert registry.find_kernel(_OP, "GPU", _t(tf.float32)).factory is _float_kernel
    assert registry.find_kernel(_OP, "GPU", _t(tf.float64)) is None
    assert registry.find_kernel(_OP, "GPU", {}) is None  # constrained attr missing
    assert registry.find_kernel(_OP, "TPU", _t(tf.float32)) is None
    assert registry.find_kernel("GraphcoreTestRegistryUnknown", "CPU", {}) is None


def test_list_type_constraints_check_every_element():
    ok = attr_value_pb2.AttrValue()
    ok.list.type.extend([tf.float32.as_datatype_enum, tf.int32.as_datatype_enum])
    bad = attr_value_pb2.AttrValue()
    bad.list.type.extend([tf.float32.as_datatype_enum, tf.string.as_datatype_enum])
    assert registry.find_kernel(_LIST_OP, "CPU", {"Tlist": ok}) is not None
    assert registry.find_kernel(_LIST_OP, "CPU", {"Tlist": bad}) is None


def test_supported_device_types():
    assert sorted(registry.supported_device_types(_OP, _t(tf.float32))) == ["CPU", "GPU"]
    assert registry.supported_device_types(_OP, _t(tf.int32)) == ["CPU"]
    assert registry.supported_device_types(_LIST_OP, {}) == []
    assert registry.supported_device_types("GraphcoreTestRegistryUnknown", {}) == []
    assert "CPU" in registry.supported_device_types("Const", {})


def test_registered_kernels_is_a_copy():
    snap = registry.registered_kernels()
    snap[(_OP, "CPU")].clear()
    snap[("GraphcoreTestRegistryFake", "CPU")] = []
    assert len(registry.registered_kernels()[(_OP, "CPU")]) == 3
    assert ("GraphcoreTestRegistryFake", "CPU") not in registry.registered_kernels()


def test_kernel_context_exposes_the_node():
    nd = node_def_pb2.NodeDef(name="n", op="Placeholder")
    nd.attr["dtype"].type = tf.int64.as_datatype_enum
    ctx = registry.KernelContext(nd, "/job:localhost/replica:0/task:0/device:CPU:0", "CPU",
                                 None, [], [tf.int64])
    assert ctx.name == "n" and ctx.op_type == "Placeholder"
    assert ctx.attr("dtype") == tf.int64
    assert ctx.has_attr("dtype") and not ctx.has_attr("shape")
    assert ctx.rendezvous_slots == {}
    assert ctx.output_types == [tf.int64]


def test_built_in_kernels_build_from_a_context():
    nd = node_def_pb2.NodeDef(name="c", op="Const")
    nd.attr["dtype"].type = tf.float32.as_datatype_enum
    nd.attr["value"].tensor.CopyFrom(tf.make_tensor_proto([1.0, 2.0], dtype=tf.float32))
    kdef = registry.find_kernel("Const", "CPU", dict(nd.attr))
    ctx = registry.KernelContext(nd, "cpu", "CPU", None, [], [tf.float32])
    (value,) = kdef.factory(ctx)()
    assert value.tolist() == [1.0, 2.0] and not value.flags.writeable
