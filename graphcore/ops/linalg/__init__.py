"""The LinearOperator family of ``tf.linalg`` (TF's tensorflow/python/ops/linalg)."""
