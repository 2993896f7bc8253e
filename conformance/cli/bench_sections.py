"""The sections of `conformance bench`, --only's choices (a module of its own: the command line
reads them without importing the benchmark, which imports numpy)."""
SECTIONS = ("small-cases", "verification", "sweep", "end-to-end")
