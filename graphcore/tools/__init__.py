"""TF1's graph tools (``tensorflow.python.tools``): freezing a trained graph with its
checkpoint into one GraphDef of constants (freeze_graph), stripping a GraphDef to what its
outputs need (strip_unused_lib) and rewriting it for inference (optimize_for_inference_lib,
and the optimize_for_inference command)."""
