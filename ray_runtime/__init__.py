"""ray_runtime: the distributed engine on Ray (not built yet; see issue 5)."""
