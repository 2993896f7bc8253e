"""The tolerance models a run judges by (--tolerance-model): d3d, each element within the interval
the Direct3D precision rules allow its formula (judge/d3d.py), and ulp, WebNN's ULP tolerances.
A module of its own so that naming them (the pytest plugin's options) imports nothing else."""
MODELS = ("d3d", "ulp")
DEFAULT_MODEL = "d3d"
