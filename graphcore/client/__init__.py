"""graphcore.client."""
