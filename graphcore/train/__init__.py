"""graphcore.train."""
