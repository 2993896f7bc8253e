"""The command line: `conformance` and its subcommands, the benchmark, the report writers, the
Windows harness runner and the pytest plugin."""
