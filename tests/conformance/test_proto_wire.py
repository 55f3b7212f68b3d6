"""Reference tier: our protobuf schema and wire bytes agree with TensorFlow's.

Skipped when TensorFlow is not installed.
"""

import importlib
import os
import pkgutil

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tf = pytest.importorskip("tensorflow")

from google.protobuf import descriptor_pb2, descriptor_pool  # noqa: E402

import graphcore.protobuf as gc_protobuf  # noqa: E402

# config.proto is deliberately a subset of TensorFlow's; every other file is complete.
# Files holding a subset of TF's fields (each present field checked all the same):
# config.proto, and meta_graph.proto without the SavedModel-only object_graph_def and
# composite tensor infos, and tfprof_log.proto without the profile-file messages (ProfileProto
# and its parts).
SUBSET_FILES = {"config", "meta_graph", "tfprof_log"}
TF_PACKAGES = ("tensorflow.core.framework", "tensorflow.core.protobuf", "tensorflow.core.util",
               "tensorflow.core.example", "tensorflow.core.profiler",
               "tensorflow.python.training")

OUR_MODULES = {
    info.name[: -len("_pb2")]: importlib.import_module(f"graphcore.protobuf.{info.name}")
    for info in pkgutil.iter_modules(gc_protobuf.__path__)
    if info.name.endswith("_pb2")
}


def _import_tf_counterpart(stem):
    for package in TF_PACKAGES:
        try:
            return importlib.import_module(f"{package}.{stem}_pb2")
        except ImportError:
            continue
    raise AssertionError(f"no TensorFlow module for {stem}.proto")


TF_MODULES = {stem: _import_tf_counterpart(stem) for stem in OUR_MODULES}
TF_POOL = descriptor_pool.Default()


def _tf_name(full_name):
    assert full_name.startswith("graphcore."), full_name
    return "tensorflow." + full_name[len("graphcore.") :]


def _walk(file_desc):
    """Yield ("message"|"enum", descriptor) for everything defined in a file."""

    def messages(desc):
        yield "message", desc
        for enum in desc.enum_types:
            yield "enum", enum
        for nested in desc.nested_types:
            yield from messages(nested)

    for enum in file_desc.enum_types_by_name.values():
        yield "enum", enum
    for msg in file_desc.message_types_by_name.values():
        yield from messages(msg)


ITEMS = [
    pytest.param(stem, kind, desc, id=f"{stem}:{desc.full_name}")
    for stem, mod in sorted(OUR_MODULES.items())
    for kind, desc in _walk(mod.DESCRIPTOR)
]


def _field_facts(field, in_map_entry=False):
    if field.message_type is not None:
        ref = field.message_type.full_name
    elif field.enum_type is not None:
        ref = field.enum_type.full_name
    else:
        ref = None
    if ref is not None:
        ref = ref.split(".", 1)[1]  # strip the package name
    label = "repeated" if field.is_repeated else "required" if field.is_required else "optional"
    oneof = field.containing_oneof
    if oneof is not None and oneof.name == "_" + field.name and len(oneof.fields) == 1:
        oneof = None  # synthetic oneof of a proto3 `optional` field == proto2 optional
    return {
        "number": field.number,
        "type": field.type,
        "label": label,
        "ref": ref,
        # proto2 map entries report key/value presence; it never affects map bytes.
        "has_presence": None if in_map_entry else field.has_presence,
        "packed": field.is_packed,
        "oneof": oneof.name if oneof is not None else None,
    }


def _reserved(desc):
    proto = descriptor_pb2.DescriptorProto()
    desc.CopyToProto(proto)
    return (
        sorted((r.start, r.end) for r in proto.reserved_range),
        sorted(proto.reserved_name),
    )


def test_every_file_has_a_tensorflow_counterpart():
    assert len(OUR_MODULES) >= 20
    for stem, mod in TF_MODULES.items():
        assert mod.DESCRIPTOR.name.endswith(f"/{stem}.proto") or stem == "summary"


@pytest.mark.parametrize("stem,kind,ours", ITEMS)
def test_schema_matches_tensorflow(stem, kind, ours):
    complete = stem not in SUBSET_FILES
    name = _tf_name(ours.full_name)
    if kind == "enum":
        theirs = TF_POOL.FindEnumTypeByName(name)
        their_values = {v.name: v.number for v in theirs.values}
        for value in ours.values:
            assert their_values.get(value.name) == value.number, value.name
        if complete:
            assert {v.name: v.number for v in ours.values} == their_values
        return

    theirs = TF_POOL.FindMessageTypeByName(name)
    their_fields = theirs.fields_by_name
    for field in ours.fields:
        assert field.name in their_fields, f"{name}.{field.name} not in TensorFlow"
        is_entry = ours.GetOptions().map_entry
        assert _field_facts(field, is_entry) == _field_facts(their_fields[field.name], is_entry), (
            field.name
        )
    if complete:
        missing = sorted(set(their_fields) - set(ours.fields_by_name))
        assert not missing, f"{name} lacks TensorFlow fields {missing}"
        assert {n.name for n in ours.nested_types} == {n.name for n in theirs.nested_types}
        assert {e.name for e in ours.enum_types} == {e.name for e in theirs.enum_types}
    assert ours.GetOptions().map_entry == theirs.GetOptions().map_entry
    assert _reserved(ours) == _reserved(theirs)


# --- wire bytes -----------------------------------------------------------------

from graphcore.protobuf import config_pb2, event_pb2, graph_pb2, summary_pb2  # noqa: E402
from graphcore.protobuf import tensor_pb2 as gc_tensor_pb2  # noqa: E402


def _through_ours(tf_msg, our_cls):
    """TF bytes -> our message -> our bytes; checks nothing was unknown to us."""
    data = tf_msg.SerializeToString(deterministic=True)
    ours = our_cls.FromString(data)
    ours.DiscardUnknownFields()  # anything we failed to model would vanish here
    our_data = ours.SerializeToString(deterministic=True)
    assert our_data == data
    back = type(tf_msg).FromString(our_data)
    assert back == tf_msg
    return ours


@pytest.fixture(scope="module")
def traced_graph():
    """A v1 graph with a variable, run once with full tracing."""
    graph = tf.Graph()
    with graph.as_default():
        c = tf.constant([1.0, 2.0], name="c")
        x = tf.compat.v1.placeholder(tf.float32, shape=[2], name="x")
        y = tf.raw_ops.AddV2(x=c, y=x, name="add")
        v = tf.compat.v1.Variable(tf.zeros([2]), name="v", use_resource=False)
        assign = tf.compat.v1.assign(v, y, name="assign")
        total = tf.reduce_sum(assign, name="total")
        summary_op = tf.compat.v1.summary.scalar("loss", total)
    run_meta = tf.compat.v1.RunMetadata()
    with tf.compat.v1.Session(graph=graph) as sess:
        sess.run(v.initializer)
        options = tf.compat.v1.RunOptions(
            trace_level=tf.compat.v1.RunOptions.FULL_TRACE, output_partition_graphs=True
        )
        summary_bytes = sess.run(
            summary_op, feed_dict={x: [3.0, 4.0]}, options=options, run_metadata=run_meta
        )
    return graph, summary_bytes, run_meta


def test_graph_def_bytes(traced_graph):
    graph, _, _ = traced_graph
    graph_def = graph.as_graph_def(add_shapes=True)
    ops = {node.op for node in graph_def.node}
    assert {"Const", "Placeholder", "AddV2", "VariableV2", "Assign"} <= ops
    ours = _through_ours(graph_def, graph_pb2.GraphDef)
    assert [n.name for n in ours.node] == [n.name for n in graph_def.node]


def test_event_summary_bytes(traced_graph):
    _, summary_bytes, _ = traced_graph
    summary = summary_pb2.Summary.FromString(summary_bytes)
    assert summary.value[0].tag == "loss"
    assert summary.value[0].WhichOneof("value") == "simple_value"
    assert summary.value[0].simple_value == pytest.approx(10.0)

    event = tf.compat.v1.Event(wall_time=1234.5, step=7)
    event.summary.ParseFromString(summary_bytes)
    ours = _through_ours(event, event_pb2.Event)
    assert ours.WhichOneof("what") == "summary"

    _through_ours(tf.compat.v1.Event(wall_time=1.0, file_version="brain.Event:2"), event_pb2.Event)
    hist = tf.compat.v1.HistogramProto(
        min=0, max=1, num=2, sum=1, bucket_limit=[0.5, 1], bucket=[1, 1]
    )
    image = tf.compat.v1.Summary.Image(height=1, width=1, colorspace=1, encoded_image_string=b"x")
    _through_ours(
        tf.compat.v1.Summary(
            value=[
                tf.compat.v1.Summary.Value(tag="h", histo=hist),
                tf.compat.v1.Summary.Value(tag="i", image=image),
            ]
        ),
        summary_pb2.Summary,
    )


def test_run_metadata_bytes(traced_graph):
    _, _, run_meta = traced_graph
    assert run_meta.step_stats.dev_stats, "tracing produced no StepStats"
    assert run_meta.partition_graphs
    ours = _through_ours(run_meta, config_pb2.RunMetadata)
    assert ours.step_stats.dev_stats[0].node_stats


def test_config_subset_bytes_parse_in_tensorflow():
    ours = config_pb2.ConfigProto(
        intra_op_parallelism_threads=2,
        inter_op_parallelism_threads=3,
        allow_soft_placement=True,
        log_device_placement=True,
        operation_timeout_in_ms=1000,
        device_filters=["/job:worker"],
        isolate_session_state=True,
    )
    ours.device_count["GPU"] = 0
    ours.gpu_options.per_process_gpu_memory_fraction = 0.5
    ours.gpu_options.allow_growth = True
    ours.gpu_options.visible_device_list = "0"
    ours.graph_options.optimizer_options.opt_level = config_pb2.OptimizerOptions.L0
    ours.graph_options.infer_shapes = True
    ours.session_inter_op_thread_pool.add(num_threads=4, global_name="pool")
    job = ours.cluster_def.job.add(name="worker")
    job.tasks[0] = "localhost:2222"
    theirs = tf.compat.v1.ConfigProto.FromString(ours.SerializeToString())
    assert (
        theirs.gpu_options.allow_growth and theirs.cluster_def.job[0].tasks[0] == "localhost:2222"
    )
    _through_ours(theirs, config_pb2.ConfigProto)

    run_options = config_pb2.RunOptions(
        trace_level=config_pb2.RunOptions.FULL_TRACE,
        timeout_in_ms=5,
        report_tensor_allocations_upon_oom=True,
    )
    theirs = tf.compat.v1.RunOptions.FromString(run_options.SerializeToString())
    assert theirs.trace_level == tf.compat.v1.RunOptions.FULL_TRACE
    _through_ours(theirs, config_pb2.RunOptions)


@pytest.mark.parametrize(
    "value,dtype",
    [
        ([1.5, -2.0], "float32"),
        ([1.5, -2.0], "float64"),
        ([1.5, -2.0], "float16"),
        ([1.5, -2.0], "bfloat16"),
        ([1, -2], "int8"),
        ([1, 2], "uint16"),
        ([1, -2], "int64"),
        ([1, 2], "uint64"),
        ([True, False], "bool"),
        ([b"a", b"bc"], "string"),
        ([1 + 2j], "complex64"),
        ([1 + 2j], "complex128"),
    ],
)
def test_tensor_proto_bytes(value, dtype):
    proto = tf.make_tensor_proto(value, dtype=getattr(tf, dtype))
    _through_ours(proto, gc_tensor_pb2.TensorProto)
    # Also the element-list encoding (no tensor_content).
    list_proto = tf.make_tensor_proto(value, dtype=getattr(tf, dtype))
    list_proto.ClearField("tensor_content")
    _through_ours(list_proto, gc_tensor_pb2.TensorProto)
