"""Judging a device's output: ULP figures and the comparison, its acceleration layer, expected values,
acceptance intervals (the d3d model) and per-operator verdicts."""
