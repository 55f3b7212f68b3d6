"""TF1's graph tools (``tensorflow.python.tools``): freezing a trained graph with its
checkpoint into one GraphDef of constants."""
