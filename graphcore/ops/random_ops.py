"""Random ops and graph/op-level seeds."""

__all__: list[str] = []
