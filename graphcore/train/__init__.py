"""tf.train: optimizers, Saver, and training utilities."""

# ruff: noqa: F401, F403
from graphcore.framework.graph_io import write_graph
from graphcore.ops.sdca_ops import sdca_fprint, sdca_optimizer, sdca_shrink_l1
from graphcore.protobuf.cluster_pb2 import ClusterDef, JobDef
from graphcore.protobuf.example_pb2 import Example, SequenceExample
from graphcore.protobuf.feature_pb2 import (
    BytesList,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
)
from graphcore.summary.record_writer import summary_iterator
from graphcore.train import experimental, slot_creator, training_ops  # noqa: F401 - registers the ops
from graphcore.train.adadelta import *
from graphcore.train.adagrad import *
from graphcore.train.adagrad_da import *
from graphcore.train.adam import *
from graphcore.train.basic_loops import *
from graphcore.train.basic_session_run_hooks import *
from graphcore.train.checkpoint import *
from graphcore.train.checkpoint_management import *
from graphcore.train.checkpoint_utils import *
from graphcore.train.coordinator import *
from graphcore.train.device_setter import *
from graphcore.train.ftrl import *
from graphcore.train.gradient_descent import *
from graphcore.train.input import *
from graphcore.train.learning_rate_decay import *
from graphcore.train.meta_graph import *
from graphcore.train.momentum import *
from graphcore.train.monitored_session import *
from graphcore.train.moving_averages import *
from graphcore.train.optimizer import *
from graphcore.train.proximal_adagrad import *
from graphcore.train.proximal_gradient_descent import *
from graphcore.train.queue_runner import *
from graphcore.train.rmsprop import *
from graphcore.train.saver import *
from graphcore.train.server_lib import *
from graphcore.train.session_manager import *
from graphcore.train.session_run_hook import *
from graphcore.train.supervisor import *
from graphcore.train.sync_replicas_optimizer import *
from graphcore.train.training_util import *
from graphcore.train.warm_starting_util import *
