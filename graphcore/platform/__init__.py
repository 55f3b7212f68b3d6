"""Program scaffolding below the graph library, as TF's ``tensorflow/python/platform``:
the absl-backed flags and ``app.run``, and the ``tensorflow`` logger (tf.logging)."""
