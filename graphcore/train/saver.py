"""Saver: checkpoints of variables."""

__all__: list[str] = []
