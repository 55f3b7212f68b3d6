"""tf.losses."""

__all__: list[str] = []
