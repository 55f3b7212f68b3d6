"""Reference tier: APIs whose TF wrapper returns several outputs give the same kind of
result as TF's (a namedtuple named after the op with the OpDef's output names, a tuple or
a list): scripts read ``tf.unique(x).y``, ``box.begin``... Skipped without TensorFlow."""

import numpy as np
import pytest

import graphcore as gc

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def probes(tf):
    f = tf.constant(np.arange(16, dtype=np.float32).reshape(4, 4) + np.eye(4, dtype=np.float32) * 10)
    img = tf.ones([1, 4, 4, 1])
    true = tf.constant([[1], [2]], tf.int64)
    return {
        "unique": lambda: tf.unique([1, 2, 1]),
        "unique_with_counts": lambda: tf.unique_with_counts([1, 2, 1]),
        "setdiff1d": lambda: tf.setdiff1d([1, 2, 3], [1]),
        "lu": lambda: tf.linalg.lu(f),
        "qr": lambda: tf.linalg.qr(f),
        "max_pool_with_argmax": lambda: tf.nn.max_pool_with_argmax(img, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
        "fractional_max_pool": lambda: tf.nn.fractional_max_pool(img, [1.0, 1.5, 1.5, 1.0]),
        "fractional_avg_pool": lambda: tf.nn.fractional_avg_pool(img, [1.0, 1.5, 1.5, 1.0]),
        "top_k": lambda: tf.nn.top_k([1.0, 3.0, 2.0], 2),
        "math.top_k": lambda: tf.math.top_k([1.0, 3.0, 2.0], 2),
        "svd": lambda: tf.svd(f),
        "eigh": lambda: tf.linalg.eigh(f),
        "self_adjoint_eig": lambda: tf.self_adjoint_eig(f),
        "fused_batch_norm": lambda: tf.nn.fused_batch_norm(img, [1.0], [0.0]),
        "moments": lambda: tf.nn.moments(f, [0]),
        "ctc_greedy": lambda: tf.nn.ctc_greedy_decoder(tf.ones([3, 1, 4]), [3]),
        "quantize": lambda: tf.quantize(f, 0.0, 30.0, tf.quint8),
        "quantization.quantize": lambda: tf.quantization.quantize(f, 0.0, 30.0, tf.quint8),
        "sample_distorted_bounding_box": lambda: tf.image.sample_distorted_bounding_box([4, 4, 1], tf.constant([[[0.0, 0.0, 1.0, 1.0]]]), seed=1),
        "compute_accidental_hits": lambda: tf.nn.compute_accidental_hits(true, tf.constant([1, 3], tf.int64), 1),
        "uniform_candidate_sampler": lambda: tf.nn.uniform_candidate_sampler(true, 1, 2, True, 5),
        "log_uniform_candidate_sampler": lambda: tf.nn.log_uniform_candidate_sampler(true, 1, 2, True, 5),
        "learned_unigram_candidate_sampler": lambda: tf.nn.learned_unigram_candidate_sampler(true, 1, 2, True, 5),
        "fixed_unigram_candidate_sampler": lambda: tf.nn.fixed_unigram_candidate_sampler(true, 1, 2, True, 5, unigrams=[1, 1, 1, 1, 1]),
        "all_candidate_sampler": lambda: tf.nn.all_candidate_sampler(true, 1, 5, True),
        "combined_nms": lambda: tf.image.combined_non_max_suppression(tf.ones([1, 2, 1, 4]), tf.ones([1, 2, 1]), 2, 2),
        "sparse_fill_empty_rows": lambda: tf.sparse.fill_empty_rows(tf.SparseTensor([[0, 0]], [1.0], [2, 2]), 0.0),
        "sparse_split": lambda: tf.sparse.split(sp_input=tf.SparseTensor([[0, 0]], [1.0], [2, 2]), num_split=2, axis=0),
        "nms_padded": lambda: tf.image.non_max_suppression_padded(tf.ones([2, 4]), tf.ones([2]), 2),
        "nms_with_scores": lambda: tf.image.non_max_suppression_with_scores(tf.ones([2, 4]), tf.ones([2]), 2),
        "unique_v2?": lambda: tf.unique([1, 2, 1], out_idx=tf.int64),
        "decode_csv": lambda: tf.io.decode_csv(["1,2"], [[0], [0]]),
        "unicode_decode_with_offsets": lambda: tf.strings.unicode_decode_with_offsets(["ab"], "UTF-8"),
        "sufficient_statistics": lambda: tf.nn.sufficient_statistics(f, [0]),
        "broadcast_gradient_args": lambda: tf.raw_ops.BroadcastGradientArgs(s0=[1, 2], s1=[2]),
        "meshgrid": lambda: tf.meshgrid([1, 2], [3]),
        "quantized_relu_x?": lambda: tf.nn.quantized_relu_x(tf.quantize(f, 0.0, 30.0, tf.quint8)[0], 6.0, 0.0, 30.0),
        "quantized_max_pool": lambda: tf.nn.quantized_max_pool(tf.quantize(img, 0.0, 30.0, tf.quint8)[0], 0.0, 30.0, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
        "quantized_avg_pool": lambda: tf.nn.quantized_avg_pool(tf.quantize(img, 0.0, 30.0, tf.quint8)[0], 0.0, 30.0, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
    }


def _kind(result):
    if isinstance(result, tuple) and hasattr(result, "_fields"):
        return type(result).__name__, result._fields
    if isinstance(result, (tuple, list)):
        return type(result).__name__, len(result)
    return type(result).__name__, None


def test_multi_output_apis_return_what_tf_returns():
    with tf1.Graph().as_default():
        theirs = {k: _kind(fn()) for k, fn in probes(tf1).items()}
    with gc.Graph().as_default():
        ours = {k: _kind(fn()) for k, fn in probes(gc).items()}
    assert ours == theirs
