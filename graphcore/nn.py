"""tf.nn: neural-network ops."""

# ruff: noqa: F401, F403
from graphcore import nn_experimental as experimental
from graphcore import nn_rnn_cell as rnn_cell
from graphcore.ops.candidate_sampling_ops import *
from graphcore.ops.candidate_sampling_ops import __all__ as _sampling_all
from graphcore.ops.ctc_loss_dense import ctc_loss_v2
from graphcore.ops.ctc_ops import *
from graphcore.ops.ctc_ops import __all__ as _ctc_all
from graphcore.ops.embedding_ops import (
    embedding_lookup,
    embedding_lookup_sparse,
    safe_embedding_lookup_sparse,
)
from graphcore.ops.nn_activation_ops import *
from graphcore.ops.nn_activation_ops import __all__ as _activation_all
from graphcore.ops.nn_conv_ops import *
from graphcore.ops.nn_conv_ops import __all__ as _conv_all
from graphcore.ops.nn_convolution_ops import *
from graphcore.ops.nn_convolution_ops import __all__ as _convolution_all
from graphcore.ops.nn_fractional_pool_ops import *
from graphcore.ops.nn_fractional_pool_ops import __all__ as _fractional_all
from graphcore.ops.nn_impl import *
from graphcore.ops.nn_impl import __all__ as _impl_all
from graphcore.ops.nn_impl_distribute import compute_average_loss, scale_regularization_loss
from graphcore.ops.nn_norm_ops import fused_batch_norm, local_response_normalization, lrn
from graphcore.ops.nn_ops import *
from graphcore.ops.nn_ops import __all__ as _nn_all
from graphcore.ops.nn_ops import dropout_v2
from graphcore.ops.nn_pool_ops import *
from graphcore.ops.nn_pool_ops import __all__ as _pool_all
from graphcore.ops.nn_quantized_ops import *
from graphcore.ops.nn_quantized_ops import __all__ as _quantized_all
from graphcore.ops.rnn import (
    bidirectional_dynamic_rnn,
    dynamic_rnn,
    raw_rnn,
    static_bidirectional_rnn,
    static_rnn,
)
from graphcore.ops.rnn_state_saving import static_state_saving_rnn
from graphcore.ops.sort_ops import approx_max_k, approx_min_k, top_k
from graphcore.ops.space_ops import depth_to_space, space_to_batch, space_to_depth

__all__ = list(_nn_all) + list(_conv_all) + list(_convolution_all) + list(_pool_all)
__all__ += list(_fractional_all) + list(_quantized_all)
__all__ += ["embedding_lookup", "embedding_lookup_sparse", "safe_embedding_lookup_sparse"]
__all__ += list(_activation_all) + list(_impl_all)
__all__ += ["approx_max_k", "approx_min_k", "top_k", "static_state_saving_rnn"]
__all__ += ["depth_to_space", "space_to_batch", "space_to_depth"]
__all__ += ["fused_batch_norm", "local_response_normalization", "lrn"]
__all__ += list(_ctc_all) + ["ctc_loss_v2"]
__all__ += list(_sampling_all) + ["compute_average_loss", "scale_regularization_loss"]
