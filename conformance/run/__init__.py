"""Running cases on a backend: the runner, its results files, repro folders and progress."""
