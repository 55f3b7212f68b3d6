"""tf.layers."""

__all__: list[str] = []
