"""graphcore.summary."""
