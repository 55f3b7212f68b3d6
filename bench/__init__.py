"""Benchmarks for graphcore: ``python -m bench`` runs the suite (bench/run.py); each
workload is a module here (overhead = "tiny", mlp, matmul, ps_async, transfer, scaling,
gpu) sharing bench/common.py."""
