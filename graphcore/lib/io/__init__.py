"""File formats: the V2 checkpoint bundle, TFRecord framing."""
