"""graphcore: TensorFlow 1.x graph mode, rebuilt in Python, with Ray as its distributed engine.

``import graphcore as tf`` exposes the names TF1 scripts use (``tf.Graph``,
``tf.Variable``, ``tf.placeholder``, ``tf.Session``...), the way ``tf.compat.v1`` does.
"""

# ruff: noqa: F401, F403, E402, I001
from graphcore.framework import dtypes
from graphcore.framework.dtypes import (
    DType, as_dtype, bfloat16, bool, complex64, complex128, double, float16, float32, float64,
    half, int8, int16, int32, int64, qint8, qint16, qint32, quint8, quint16, resource, string,
    uint8, uint16, uint32, uint64, variant,
    bfloat16_ref, bool_ref, complex64_ref, complex128_ref, double_ref, float16_ref,
    float32_ref, float64_ref, half_ref, int8_ref, int16_ref, int32_ref, int64_ref, qint8_ref,
    qint16_ref, qint32_ref, quint8_ref, quint16_ref, resource_ref, string_ref, uint8_ref,
    uint16_ref, uint32_ref, uint64_ref, variant_ref,
)
from graphcore.framework.tensor_shape import Dimension, TensorShape
from graphcore.framework import errors as _framework_errors
from graphcore import errors
from graphcore.framework.device import DeviceSpec
from graphcore.framework.ops import (
    Graph, GraphKeys, Operation, Tensor, add_to_collection, add_to_collections,
    colocate_with, container, control_dependencies, device, get_collection,
    get_collection_ref, get_default_graph, name_scope, reset_default_graph,
)
from graphcore.framework.tensor_conversion import (
    convert_to_tensor, convert_to_tensor_or_indexed_slices, register_tensor_conversion_function,
)
from graphcore.framework.tensor_util import MakeNdarray as make_ndarray
from graphcore.framework.tensor_util import make_tensor_proto
from graphcore.framework.session_stack import get_default_session
from graphcore.client.session import InteractiveSession, Session
from graphcore.runtime import constant_folding as _constant_folding
from graphcore.framework.importer import import_graph_def
from graphcore.ops.array_ops import *
from graphcore.ops.control_flow_ops import *
from graphcore.ops.while_loop import *
from graphcore.ops.math_ops import *
from graphcore.ops.elementwise_ops import *
from graphcore.ops.check_ops import *
from graphcore.ops.clip_ops import *
from graphcore.ops.logging_ops import *
from graphcore.ops.script_ops import *
from graphcore.ops.segment_ops import *
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.sparse_tensor import SparseTensor, SparseTensorValue
from graphcore.ops.scatter_ops import *
from graphcore.ops.sparse_ops import *
from graphcore.ops.sparse_segment_ops import *
from graphcore.ops.manip_ops import *
from graphcore.ops.random_distribution_ops import *
from graphcore.ops.execution_mode import (
    COMPILER_VERSION, CXX11_ABI_FLAG, GIT_VERSION, MONOLITHIC_BUILD, VERSION,
    control_flow_v2_enabled, disable_control_flow_v2, disable_eager_execution,
    disable_tensor_equality, disable_v2_behavior, disable_v2_tensorshape, executing_eagerly,
    executing_eagerly_outside_functions,
)
from graphcore import graph_util
from graphcore.framework import nest
from graphcore.framework.tensor_shape import dimension_at_index, dimension_value
from graphcore.framework.tensor_util import constant_value as get_static_value
from graphcore.framework.tensor_util import is_tensor
from graphcore.framework.gradient_registry import NotDifferentiable as no_gradient
from graphcore.train.optimizer import init_scope
from graphcore.ops.string_ops import *
from graphcore import strings
from graphcore.ops.custom_gradient import *
from graphcore.ops.template import *
from graphcore.ops.spectral_ops import *
from graphcore import signal
from graphcore import signal as spectral
from graphcore.framework.ops import (
    GRAPH_DEF_VERSION_MIN_CONSUMER, GRAPH_DEF_VERSION_MIN_PRODUCER, op_scope,
)
from graphcore.framework.dtypes import QUANTIZED_DTYPES
from graphcore.framework.tensor_util import is_symbolic_tensor
from graphcore.ops.execution_mode import CXX_VERSION
from graphcore.protobuf.meta_graph_pb2 import MetaGraphDef, TensorInfo
from graphcore.ops.functional_ops import *
from graphcore import compat
from graphcore import keras
from graphcore import contrib, debugging, manip, raw_ops, saved_model, version
from graphcore.platform.tf_logging import get_logger
from graphcore.platform import resource_loader
from graphcore.module import Module
from graphcore.framework.type_spec import (
    IndexedSlicesSpec, NoneTensorSpec, SparseTensorSpec, TensorSpec, TypeSpec,
    type_spec_from_value,
)
from graphcore.ops.tensor_array_ops import TensorArraySpec
from graphcore.ops.state_ops import *
from graphcore.ops.variables import *
from graphcore.ops.resource_variable_ops import *
from graphcore.ops.queue_ops import *
from graphcore.ops.reader_ops import *
from graphcore.ops.parsing_ops import *
from graphcore.ops.io_ops import read_file, write_file
from graphcore.ops.count_up_to_ops import *
from graphcore.ops.random_ops import *
from graphcore.ops.stateless_random_ops import random_index_shuffle
from graphcore.ops.tensor_array_ops import TensorArray
from graphcore.ops import array_grad, control_flow_grad, math_grad, nn_grad
import graphcore.ops as _ops_package
from graphcore.framework.registration import load_modules as _load_modules

# Every op family's modules (gen_*_ops, *_ops, *_grad) register their op definitions and
# gradients on import: loading the whole package makes a new family one module per concern.
_load_modules(_ops_package, ("_ops", "_grad"))
from graphcore.ops.gradients_impl import *
from graphcore.ops.init_ops import *
from graphcore.ops.variable_scope import *
from graphcore.ops.partitioned_variables import *
from graphcore import initializers
from graphcore import random
from graphcore import test
from graphcore.framework.gradient_registry import (
    NoGradient, NotDifferentiable, RegisterGradient,
)
from graphcore import layers, losses, nn, summary, train
from graphcore import metrics
from graphcore import app, flags, gfile, io, logging, python_io
from graphcore import sparse
from graphcore import sets
from graphcore.framework.sparse_tensor import convert_to_tensor_or_sparse_tensor
from graphcore.ops.accumulator_ops import (
    ConditionalAccumulator, ConditionalAccumulatorBase, SparseConditionalAccumulator,
)
from graphcore.ops.ragged_tensor import RaggedTensor
from graphcore.ops.ragged_fill_ops import ragged_fill_empty_rows, ragged_fill_empty_rows_grad
from graphcore.ops.sequence_example_ops import parse_single_sequence_example
from graphcore.ops.sets_ops import edit_distance
from graphcore.ops.string_hash_ops import (
    fingerprint, string_to_hash_bucket, string_to_hash_bucket_strong,
)
from graphcore.ops.string_split_ops import string_split
from graphcore.ops.sparse_compose_ops import sparse_reset_shape, sparse_to_indicator
from graphcore.ops.sparse_matmul_ops import sparse_matmul
from graphcore.ops.sparse_reduce_ops import (
    sparse_maximum, sparse_minimum, sparse_reduce_max, sparse_reduce_max_sparse,
    sparse_reduce_sum_sparse,
)
from graphcore.ops.sparse_serialize_ops import (
    deserialize_many_sparse, serialize_many_sparse, serialize_sparse,
)
from graphcore import data, queue
from graphcore import lookup
from graphcore import feature_column
from graphcore.ops.lookup_ops import initialize_all_tables, tables_initializer
from graphcore import audio, bitwise, config, linalg, math, mixed_precision, profiler, types
from graphcore import image
from graphcore import distributions
from graphcore import quantization
from graphcore.ops.quantization_ops import *
from graphcore.ops.math_compat import *
from graphcore.ops.math_ops import conj
from graphcore.ops.sort_ops import approx_top_k, argsort, sort
from graphcore.ops.pinned_memory_ops import check_pinned
from graphcore.ops.session_ops import (
    delete_session_tensor, get_session_handle, get_session_tensor,
)
from graphcore.ops.linalg_ops import sqrtm as matrix_square_root
from graphcore.ops.confusion_matrix import confusion_matrix
from graphcore.ops.space_ops import *
from graphcore.ops.nn_conv_ops import (
    conv, conv2d_backprop_filter_v2, conv2d_backprop_input_v2, extract_volume_patches,
)
from graphcore.ops.linalg_ops import (
    cholesky, cholesky_solve, cross, diag, diag_part, einsum, eye, matrix_band_part,
    matrix_determinant, matrix_diag, matrix_diag_part, matrix_inverse, matrix_set_diag,
    matrix_solve, matrix_solve_ls, matrix_transpose, matrix_triangular_solve, norm, qr,
    self_adjoint_eig, self_adjoint_eigvals, svd, tensordot, trace,
)
from graphcore.protobuf.attr_value_pb2 import AttrValue, NameAttrList
from graphcore.protobuf.config_pb2 import (
    ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RunMetadata, RunOptions,
)
from graphcore.protobuf.event_pb2 import Event, LogMessage, SessionLog
from graphcore.protobuf.graph_pb2 import GraphDef
from graphcore.protobuf.node_def_pb2 import NodeDef
from graphcore.protobuf.op_def_pb2 import OpDef
from graphcore.protobuf.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from graphcore.protobuf.tensor_pb2 import TensorProto
from graphcore.protobuf.versions_pb2 import VersionDef

GRAPH_DEF_VERSION = __import__("graphcore.framework.ops", fromlist=["x"]).GRAPH_DEF_VERSION
OpError = _framework_errors.OpError

__version__ = "0.1.0"
