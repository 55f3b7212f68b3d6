"""The candidate samplers of tf.nn / tf.random (TF's ``candidate_sampling_ops.py``): the
Uniform, LogUniform, LearnedUnigram, FixedUnigram and All samplers and
ComputeAccidentalHits, seeded as TF's (graph seed, op seed). Kernels in
:mod:`graphcore.kernels.candidate_sampling_kernels`; none is differentiable."""

from __future__ import annotations

import collections
from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import random_ops

__all__ = ["all_candidate_sampler", "compute_accidental_hits",
           "fixed_unigram_candidate_sampler", "learned_unigram_candidate_sampler",
           "log_uniform_candidate_sampler", "uniform_candidate_sampler"]

SAMPLERS = ("UniformCandidateSampler", "LogUniformCandidateSampler",
            "LearnedUnigramCandidateSampler", "FixedUnigramCandidateSampler",
            "AllCandidateSampler")
_OUTPUTS = {t: collections.namedtuple(t, ["sampled_candidates", "true_expected_count",
                                          "sampled_expected_count"]) for t in SAMPLERS}
_AccidentalHits = collections.namedtuple("ComputeAccidentalHits", ["indices", "ids", "weights"])


def _true_classes(op: ops_lib.Operation) -> shape_lib.TensorShape:
    shape = op.inputs[0].shape
    num_true = op.get_attr("num_true")
    if shape.ndims is None:
        return shape_lib.TensorShape([None, num_true])
    if shape.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {shape.ndims}")
    # As TF's: the column count is checked when the kernel runs.
    return shape_lib.TensorShape([shape.as_list()[0], num_true])


def _sampler_shape(op: ops_lib.Operation) -> list:
    sampled = shape_lib.TensorShape([op.get_attr("num_sampled")])
    return [sampled, _true_classes(op), sampled]


def _accidental_hits_shape(op: ops_lib.Operation) -> list:
    _true_classes(op)
    if op.inputs[1].shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {op.inputs[1].shape.ndims}")
    vector = shape_lib.TensorShape([None])
    return [vector, vector, vector]


for _op_type in SAMPLERS:
    _builder = op_registry.register_op(_op_type).input("true_classes: int64") \
        .output("sampled_candidates: int64").output("true_expected_count: float") \
        .output("sampled_expected_count: float").attr("num_true: int >= 1") \
        .attr("num_sampled: int >= 1").attr("unique: bool")
    if _op_type != "AllCandidateSampler":
        _builder.attr("range_max: int >= 1")
    if _op_type == "FixedUnigramCandidateSampler":
        _builder.attr("vocab_file: string = ''").attr("distortion: float = 1") \
            .attr("num_reserved_ids: int = 0").attr("num_shards: int >= 1 = 1") \
            .attr("shard: int >= 0 = 0").attr("unigrams: list(float) = []")
    _builder.attr("seed: int = 0").attr("seed2: int = 0").stateful() \
        .shape_fn(_sampler_shape)
    NotDifferentiable(_op_type)
op_registry.register_op("ComputeAccidentalHits").input("true_classes: int64") \
    .input("sampled_candidates: int64").output("indices: int32").output("ids: int64") \
    .output("weights: float").attr("num_true: int").attr("seed: int = 0") \
    .attr("seed2: int = 0").shape_fn(_accidental_hits_shape)
NotDifferentiable("ComputeAccidentalHits")


def _sample(op_type: str, true_classes: Any, seed: Any, name: str | None,
            **attrs: Any) -> Any:
    seed1, seed2 = random_ops.get_seed(seed)
    op = apply_op(op_type, name=name, true_classes=true_classes, seed=seed1, seed2=seed2,
                  **attrs)
    return _OUTPUTS[op_type](*op.outputs)


def uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                              unique: bool, range_max: int, seed: Any = None,
                              name: str | None = None) -> Any:
    """``num_sampled`` classes drawn uniformly from [0, range_max)."""
    return _sample("UniformCandidateSampler", true_classes, seed, name, num_true=num_true,
                   num_sampled=num_sampled, unique=unique, range_max=range_max)


def log_uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                  unique: bool, range_max: int, seed: Any = None,
                                  name: str | None = None) -> Any:
    """Classes drawn from the Zipfian P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)."""
    return _sample("LogUniformCandidateSampler", true_classes, seed, name,
                   num_true=num_true, num_sampled=num_sampled, unique=unique,
                   range_max=range_max)


def learned_unigram_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                      unique: bool, range_max: int, seed: Any = None,
                                      name: str | None = None) -> Any:
    """Classes drawn from the unigram distribution of the true classes seen so far."""
    if range_max > 2147483647:
        raise ValueError(f"Value of range_max:{range_max} is too large to handle")
    return _sample("LearnedUnigramCandidateSampler", true_classes, seed, name,
                   num_true=num_true, num_sampled=num_sampled, unique=unique,
                   range_max=range_max)


def fixed_unigram_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                    unique: bool, range_max: int, vocab_file: str = "",
                                    distortion: float = 1.0, num_reserved_ids: int = 0,
                                    num_shards: int = 1, shard: int = 0,
                                    unigrams: Any = (), seed: Any = None,
                                    name: str | None = None) -> Any:
    """Classes drawn from given unigram counts (``unigrams`` or a CSV ``vocab_file``),
    raised to ``distortion``."""
    return _sample("FixedUnigramCandidateSampler", true_classes, seed, name,
                   num_true=num_true, num_sampled=num_sampled, unique=unique,
                   range_max=range_max, vocab_file=vocab_file, distortion=distortion,
                   num_reserved_ids=num_reserved_ids, num_shards=num_shards, shard=shard,
                   unigrams=list(unigrams))


def all_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                          seed: Any = None, name: str | None = None) -> Any:
    """All classes [0, num_sampled), each with expected count 1."""
    return _sample("AllCandidateSampler", true_classes, seed, name, num_true=num_true,
                   num_sampled=num_sampled, unique=unique)


def compute_accidental_hits(true_classes: Any, sampled_candidates: Any, num_true: int,
                            seed: Any = None, name: str | None = None) -> Any:
    """(indices, ids, weights) of the sampled candidates that equal a true class of their
    row; weights are -FLT_MAX, to be added to those logits."""
    seed1, seed2 = random_ops.get_seed(seed)
    op = apply_op("ComputeAccidentalHits", name=name, true_classes=true_classes,
                  sampled_candidates=sampled_candidates, num_true=num_true, seed=seed1,
                  seed2=seed2)
    return _AccidentalHits(*op.outputs)
