"""Benchmarks for graphcore (run as ``python -m bench.<name>``)."""
