"""Judging a device's output: acceptance intervals (the d3d model) and ULP figures."""
