"""Renderers of results: a plain-text summary and markdown (tabulate)."""
