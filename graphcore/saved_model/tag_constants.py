"""The standard MetaGraphDef tags of a SavedModel (TF's ``saved_model.tag_constants``)."""

GPU = "gpu"
SERVING = "serve"
TPU = "tpu"
TRAINING = "train"
