"""tf.keras dot-product attention layers (TF1.15's): Attention (Luong-style, ``q . k``,
optional learned ``scale``) and AdditiveAttention (Bahdanau-style, ``sum(scale *
tanh(q + k))``). Inputs ``[query, value]`` or ``[query, value, key]``; a value mask hides
those positions, a query mask zeroes those outputs; ``causal`` hides the future."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.keras.engine import Layer
from graphcore.layers.base import smart_cond
from graphcore.ops import array_ops, math_ops, nn_ops

__all__ = ["AdditiveAttention", "Attention"]


class _BaseAttention(Layer):
    _supports_masking = True
    _config_keys = ("dropout",)

    def __init__(self, causal: bool = False, dropout: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.causal, self.dropout = causal, dropout

    def _calculate_scores(self, query: Any, key: Any) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict:
        config = super().get_config()
        if self.causal:  # (Keras still takes the TF1 argument)
            config["causal"] = True
        return config

    def call(self, inputs: Any, mask: Any = None, training: Any = None) -> Any:
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise ValueError(f"{type(self).__name__} layer must be called on a list of "
                             f"inputs, namely [query, value] or [query, value, key]. "
                             f"Received: {inputs}.")
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = mask[0] if mask else None
        v_mask = mask[1] if mask else None
        scores = self._calculate_scores(q, k)
        padding = None
        if v_mask is not None:
            padding = math_ops.logical_not(array_ops.expand_dims(v_mask, -2))
        if self.causal:
            # Position i attends to positions j <= i only.
            shape = array_ops.shape(scores)
            ones = array_ops.ones(array_ops.concat([[1], shape[-2:]], 0), dtypes_lib.int32)
            row = math_ops.cumsum(ones, axis=-2)
            col = math_ops.cumsum(ones, axis=-1)
            causal = math_ops.logical_not(math_ops.greater_equal(row, col))
            padding = causal if padding is None else math_ops.logical_or(padding, causal)
        if padding is not None:
            scores -= 1.0e9 * math_ops.cast(padding, scores.dtype)
        weights = nn_ops.softmax(scores)
        if self.dropout:
            weights = smart_cond(training, lambda: nn_ops.dropout(weights, rate=self.dropout),
                                 lambda: array_ops.identity(weights))
        result = math_ops.matmul(weights, v)
        if q_mask is not None:
            result *= math_ops.cast(array_ops.expand_dims(q_mask, -1), result.dtype)
        return result

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if mask:
            q_mask = mask[0]
            return None if q_mask is None else math_ops.cast(q_mask, dtypes_lib.bool)
        return None


class Attention(_BaseAttention):
    """Scores ``query . key`` (times a learned scalar ``scale`` with ``use_scale``)."""

    _config_keys = _BaseAttention._config_keys + ("use_scale", "score_mode")

    def __init__(self, use_scale: bool = False, score_mode: str = "dot",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if score_mode != "dot":
            raise NotImplementedError(f"Attention(score_mode={score_mode!r}) is not "
                                      "implemented in graphcore")
        self.use_scale, self.score_mode = use_scale, score_mode

    def build(self, input_shape: Any) -> None:
        self.scale = self.add_weight("scale", shape=(), initializer="ones") \
            if self.use_scale else None
        self.built = True

    def _calculate_scores(self, query: Any, key: Any) -> Any:
        scores = math_ops.matmul(query, key, transpose_b=True)
        return scores * self.scale if self.scale is not None else scores


class AdditiveAttention(_BaseAttention):
    """Scores ``sum(scale * tanh(query + key), -1)`` (``scale`` a learned vector with
    ``use_scale``)."""

    _config_keys = _BaseAttention._config_keys + ("use_scale",)

    def __init__(self, use_scale: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape: Any) -> None:
        dim = input_shape[1][-1]
        dim = dim if isinstance(dim, int) or dim is None else dim.value \
            if hasattr(dim, "value") else int(dim)
        self.scale = self.add_weight("scale", shape=[dim], initializer="glorot_uniform") \
            if self.use_scale else None
        self.built = True

    def _calculate_scores(self, query: Any, key: Any) -> Any:
        q = array_ops.expand_dims(query, -2)
        k = array_ops.expand_dims(key, -3)
        scale = self.scale if self.scale is not None else 1.0
        return math_ops.reduce_sum(scale * math_ops.tanh(q + k), axis=-1)
