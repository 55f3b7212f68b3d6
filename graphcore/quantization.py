"""tf.quantization: fake quantization, quantize / dequantize between float and the
quantized dtypes, quantize_and_dequantize and quantized_concat."""

# ruff: noqa: F401
from graphcore.ops.quantization_ops import (
    dequantize,
    fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient,
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient,
    quantize,
    quantize_and_dequantize,
    quantize_and_dequantize_v2,
    quantized_concat,
)
