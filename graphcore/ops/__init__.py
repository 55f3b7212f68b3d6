"""graphcore.ops."""
