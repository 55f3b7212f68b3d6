"""Neural-network ops (tf.nn)."""

__all__: list[str] = []
