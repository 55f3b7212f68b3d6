"""Low-level libraries below the graph: file formats (TF's ``core/lib`` and ``core/util``)."""
