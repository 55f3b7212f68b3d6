"""graphcore.runtime."""
