"""``tf.profiler`` (TF1): parameter and float-op counts of a graph by name scope or op type
(:func:`profile`), the option presets of :class:`ProfileOptionBuilder`, and tfprof's protos."""

from graphcore.profiler.model_analyzer import profile, write_op_log
from graphcore.profiler.option_builder import ProfileOptionBuilder
from graphcore.protobuf.tfprof_log_pb2 import OpLogProto
from graphcore.protobuf.tfprof_output_pb2 import AdviceProto, GraphNodeProto, MultiGraphNodeProto

__all__ = ["AdviceProto", "GraphNodeProto", "MultiGraphNodeProto", "OpLogProto",
           "ProfileOptionBuilder", "profile", "write_op_log"]
