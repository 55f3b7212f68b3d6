"""Gradient functions (registered by op type in graphcore.framework.gradient_registry)."""
