"""Every code the `conformance` command can end with (README's "Statuses and exit codes" lists each;
tests/test_core_cli.py holds the two to each other)."""
CONFORMANT = 0
NOT_CONFORMANT = 1  # diff: a regression, or cases B lacks
BAD_INPUT = 2
BACKEND_UNAVAILABLE = 3  # lane: no lane
HARNESS_BUG = 4
OUTPUT_FAILED = 5  # an output could not be written once the run had begun (errors.OutputFailed)
TIMEOUT = 124  # lane windows --timeout
INTERRUPTED = 130
BROKEN_PIPE = 128 + 13  # as a Unix tool killed by SIGPIPE
TERMINATED = 128 + 15  # SIGTERM: handled as Ctrl-C is (results kept, the footer written), its own code
