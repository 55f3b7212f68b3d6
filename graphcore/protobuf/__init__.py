"""Generated protobuf modules (wire-compatible with TensorFlow's); see scripts/gen_protos.py."""
