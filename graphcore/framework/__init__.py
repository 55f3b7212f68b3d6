"""graphcore.framework."""
