"""Reference tier: tf.quantization (graphcore/ops/quantization_ops.py) against TensorFlow's
compat.v1 — fake quantization (args/vars/per-channel, their Gradient ops and gradients),
QuantizeV2 and Dequantize in every mode, QuantizeAndDequantizeV2/V3/V4 and QuantizedConcat:
GraphDefs (node names and op types, gradients included), output dtypes, and values
bit-exact (the min/max gradients, float32 sums whose order follows Eigen's vectorization,
within 1e-6); errors and shape checks. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402
from graphcore.framework.op_def_library import apply_op  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

F = np.float32
X = np.concatenate([np.linspace(-7.3, 7.3, 37), [0.0, -0.0, 1e-6, 2.5, -2.5, 100.0]]).astype(F)
X2 = np.stack([X[:40], X[:40] * 0.3, X[:40] * 2.0], axis=1).astype(F)


def _raw_op(lib, op_type, **kwargs):
    if lib is tf:
        return apply_op(op_type, **kwargs).outputs
    out = getattr(tf_ref.raw_ops, op_type)(**kwargs)
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _fake_quant_cases():
    cases = {}
    for i, (lo, hi, bits, narrow) in enumerate([(-6.0, 6.0, 8, False), (-1.0, 3.5, 8, True),
                                                (0.5, 4.0, 4, False), (-3.0, -0.5, 6, True),
                                                (-0.1, 7.3, 16, False)]):
        def args(lib, lo=lo, hi=hi, bits=bits, narrow=narrow):
            x = lib.constant(X)
            y = lib.quantization.fake_quant_with_min_max_args(x, lo, hi, bits, narrow)
            g = lib.quantization.fake_quant_with_min_max_args_gradient(
                lib.constant(X * 2), x, lo, hi, bits, narrow)
            return [y, g, lib.gradients(y * X, x)[0]]

        def var(lib, lo=lo, hi=hi, bits=bits, narrow=narrow):
            x, mn, mx = lib.constant(X), lib.constant(F(lo)), lib.constant(F(hi))
            y = lib.fake_quant_with_min_max_vars(x, mn, mx, num_bits=bits, narrow_range=narrow)
            g = lib.fake_quant_with_min_max_vars_gradient(lib.constant(X * 2), x, mn, mx,
                                                          num_bits=bits, narrow_range=narrow)
            return [y, *g, *lib.gradients(y * X, [x, mn, mx])]

        def per_channel(lib, lo=lo, hi=hi, bits=bits, narrow=narrow):
            x = lib.constant(X2)
            mn = lib.constant(F([lo, lo * 0.5, lo - 1.0]))
            mx = lib.constant(F([hi, hi * 0.5, hi + 1.0]))
            y = lib.fake_quant_with_min_max_vars_per_channel(x, mn, mx, bits, narrow)
            g = lib.fake_quant_with_min_max_vars_per_channel_gradient(
                lib.constant(X2 * 2), x, mn, mx, bits, narrow)
            return [y, *g, *lib.gradients(y * X2, [x, mn, mx])]

        cases[f"fake_quant_args_{i}"] = args
        cases[f"fake_quant_vars_{i}"] = var
        cases[f"fake_quant_per_channel_{i}"] = per_channel
    return cases


def _quantize_cases():
    cases = {}
    configs = [("qint8", "MIN_COMBINED", "HALF_AWAY_FROM_ZERO", False, (-6.0, 6.0)),
               ("quint8", "MIN_COMBINED", "HALF_AWAY_FROM_ZERO", False, (-1.0, 7.0)),
               ("qint32", "MIN_COMBINED", "HALF_AWAY_FROM_ZERO", False, (-3.0, 2.0)),
               ("qint16", "MIN_COMBINED", "HALF_AWAY_FROM_ZERO", False, (-5.0, 5.0)),
               ("quint16", "MIN_COMBINED", "HALF_AWAY_FROM_ZERO", False, (0.0, 1e-4)),
               ("quint8", "MIN_FIRST", "HALF_AWAY_FROM_ZERO", False, (-2.0, 6.0)),
               ("qint8", "MIN_FIRST", "HALF_AWAY_FROM_ZERO", False, (-6.0, 6.0)),
               ("qint32", "MIN_FIRST", "HALF_AWAY_FROM_ZERO", False, (-7.0, 9.0)),
               ("qint8", "SCALED", "HALF_AWAY_FROM_ZERO", False, (-6.0, 3.0)),
               ("qint8", "SCALED", "HALF_TO_EVEN", True, (-2.0, 7.0)),
               ("quint8", "SCALED", "HALF_TO_EVEN", False, (0.0, 5.0)),
               ("qint32", "SCALED", "HALF_AWAY_FROM_ZERO", True, (-1.0, 1.0))]
    for t, mode, round_mode, narrow, (lo, hi) in configs:
        def build(lib, t=t, mode=mode, round_mode=round_mode, narrow=narrow, lo=lo, hi=hi):
            q = lib.quantization.quantize(lib.constant(X), lo, hi, getattr(lib, t), mode=mode,
                                          round_mode=round_mode, narrow_range=narrow)
            back = lib.quantization.dequantize(q.output, q.output_min, q.output_max,
                                               mode=mode, narrow_range=narrow)
            return [*q, back]

        cases[f"quantize_{t}_{mode}_{round_mode}_{narrow}"] = build

    def per_axis(lib):
        x = lib.constant(X2)
        q = lib.quantize_v2(x, F([-6.0, -1.0, 0.0]), F([6.0, 2.0, 9.0]), lib.qint8,
                            mode="SCALED", axis=1)
        q2 = lib.quantize_v2(x, F([-6.0, -1.0, 0.0]), F([6.0, 2.0, 9.0]), lib.quint8, axis=-1,
                             ensure_minimum_range=0.5)
        return [*q, lib.dequantize(q.output, q.output_min, q.output_max, mode="SCALED",
                                   axis=1), *q2,
                lib.dequantize(q2.output, q2.output_min, q2.output_max, axis=-1)]

    cases["quantize_per_axis"] = per_axis
    cases["dequantize_bfloat16"] = lambda lib: [lib.dequantize(
        *lib.quantize(X, -6.0, 6.0, lib.qint8), dtype=lib.bfloat16)]
    return cases


def _qdq_cases():
    cases = {}
    configs = [(True, 8, False, "HALF_TO_EVEN", False, (-6.0, 6.0)),
               (True, 8, True, "HALF_TO_EVEN", True, (-2.0, 5.0)),
               (False, 4, True, "HALF_UP", False, (0.0, 3.0)),
               (True, 3, True, "HALF_UP", False, (-1.0, 0.5)),
               (False, 8, False, "HALF_UP", False, (0.0, 1.0))]
    for i, (signed, bits, given, round_mode, narrow, (lo, hi)) in enumerate(configs):
        def build(lib, signed=signed, bits=bits, given=given, round_mode=round_mode,
                  narrow=narrow, lo=lo, hi=hi):
            x = lib.constant(X if signed else np.abs(X))
            kw = dict(signed_input=signed, num_bits=bits, range_given=given,
                      round_mode=round_mode, narrow_range=narrow)
            y2 = lib.quantization.quantize_and_dequantize(x, lo, hi, **kw)
            y4 = lib.quantization.quantize_and_dequantize_v2(x, lo, hi, **kw)
            (y3,) = _raw_op(lib, "QuantizeAndDequantizeV3", input=x, input_min=F(lo),
                            input_max=F(hi), num_bits=bits, signed_input=signed,
                            range_given=given, narrow_range=narrow)
            return [y2, y4, y3, *lib.gradients([y2 * X, y4 * X], x)]

        cases[f"quantize_and_dequantize_{i}"] = build

    def per_axis(lib):
        x = lib.constant(X2)
        y = lib.quantization.quantize_and_dequantize_v2(x, F([0.0] * 3), F([0.0] * 3), axis=1,
                                                        num_bits=4)
        z = lib.quantization.quantize_and_dequantize(x, F([0.0] * 3), F([0.0] * 3), axis=-1)
        (v3,) = _raw_op(lib, "QuantizeAndDequantizeV3", input=x,
                        input_min=F([-6.0, -1.0, -3.0]), input_max=F([6.0, 2.0, 9.0]),
                        num_bits=5, axis=1, range_given=True)
        return [y, z, v3, lib.gradients(y * X2, x)[0]]

    cases["quantize_and_dequantize_per_axis"] = per_axis
    return cases


def _concat_cases():
    def build(lib, t):
        parts = [lib.quantize(lib.constant(X2[:4] * s), lo, hi, getattr(lib, t))
                 for s, (lo, hi) in [(1.0, (-6.0, 6.0)), (0.5, (-1.0, 2.0)), (2.0, (0.0, 9.0))]]
        c = lib.quantized_concat(1, [p.output for p in parts], [p.output_min for p in parts],
                                 [p.output_max for p in parts])
        same = lib.quantization.quantized_concat(0, [parts[0].output, parts[0].output],
                                                 [parts[0].output_min] * 2,
                                                 [parts[0].output_max] * 2)
        return [*c, *same]

    return {f"quantized_concat_{t}": (lambda lib, t=t: build(lib, t))
            for t in ("quint8", "qint32")}


# Outputs that are float32 sums (backprop wrt min/max): equal to TF within rounding.
REDUCED_OUTPUTS = {"fake_quant_vars": (2, 3, 5, 6), "fake_quant_per_channel": (2, 3, 5, 6)}
CASES = {**_fake_quant_cases(), **_quantize_cases(), **_qdq_cases(), **_concat_cases()}


def _as_plain(value):
    value = np.asarray(value)
    if value.dtype.fields:
        return value.view(next(iter(value.dtype.fields.values()))[0])
    return value


def _run(lib, case):
    with lib.Graph().as_default() as g:
        fetches = CASES[case](lib)
        with lib.Session() as sess:
            values = sess.run(fetches)
        ops = sorted((n.name, n.op) for n in g.as_graph_def().node)
    return values, [t.dtype.name for t in fetches], ops


@pytest.mark.parametrize("case", sorted(CASES))
def test_quantization_matches_tf(case):
    ours, our_dtypes, our_ops = _run(tf, case)
    theirs, their_dtypes, their_ops = _run(tf1, case)
    assert our_dtypes == their_dtypes
    assert our_ops == their_ops
    reduced = next((v for k, v in REDUCED_OUTPUTS.items() if case.startswith(k)), ())
    for i, (a, b) in enumerate(zip(ours, theirs)):
        a, b = _as_plain(a), _as_plain(b)
        assert a.shape == b.shape and a.dtype == b.dtype, i
        if i in reduced:
            np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=f"output {i}")
        else:
            np.testing.assert_array_equal(a, b, err_msg=f"output {i}")


@pytest.mark.parametrize("build, message", [
    (lambda lib: lib.fake_quant_with_min_max_args(X, min=2.0, max=1.0), "min has to be"),
    (lambda lib: lib.quantize(X, 3.0, 1.0, lib.qint8)[0], "input_max_range must be larger"),
    (lambda lib: lib.quantize(X, -1.0, 1.0, lib.qint8, round_mode="HALF_TO_EVEN")[0],
     "only supported for mode 'SCALED'"),
    (lambda lib: lib.quantization.quantize_and_dequantize(X, 2.0, 1.0, range_given=True),
     "Invalid range"),
    # TF 2.21's V2/V4 kernels refuse a given range per axis, whatever its shape.
    (lambda lib: lib.quantization.quantize_and_dequantize_v2(
        X2, F([-1.0] * 3), F([1.0] * 3), range_given=True, axis=1), "must be a scalar"),
    # QuantizedConcat has kernels for quint8 and qint32 only.
    (lambda lib: lib.quantized_concat(0, [lib.quantize(X, -1.0, 1.0, lib.qint8)[0]] * 2,
                                      [-1.0, -1.0], [1.0, 1.0])[0], "QuantizedConcat"),
])
def test_invalid_arguments_match_tf(build, message):
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            with pytest.raises((lib.errors.InvalidArgumentError,), match=message):
                with lib.Session() as sess:
                    sess.run(build(lib))


@pytest.mark.parametrize("build", [
    lambda lib: lib.quantization.quantize_and_dequantize(X2, F(-1.0), F(1.0), axis=1),
    lambda lib: lib.quantization.quantize_and_dequantize_v2(X2, F([-1.0] * 2), F([1.0] * 2),
                                                            axis=1),
    lambda lib: lib.quantize(X2, F([-1.0] * 3), F([1.0] * 3), lib.qint8),
    lambda lib: lib.dequantize(lib.quantize(X2, -1.0, 1.0, lib.qint8)[0], F(-1.0), F(1.0),
                               axis=0),
])
def test_min_max_shapes_checked_at_construction_as_tf(build):
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match="rank|[Dd]imension"):
                build(lib)


def test_no_gradient_for_quantize_and_names():
    with tf.Graph().as_default():
        x = tf.constant(X)
        q = tf.quantize(x, -1.0, 1.0, tf.quint8, name="q")
        assert q.output.name == "q:0" and q.output.dtype == tf.quint8
        assert type(q).__name__ == "QuantizeV2" and q._fields == ("output", "output_min",
                                                                 "output_max")
        with pytest.raises(LookupError):
            tf.gradients(tf.dequantize(q.output, q.output_min, q.output_max), x)
