"""The error the command line reports as bad input: one line, exit 2.

Raised where input is validated (an option, a -k expression, a results file); anything else
that escapes a command is a harness bug and is reported with its traceback (exit 4). A
ValueError, so that code that tells good values from bad ones with `except ValueError` works.
"""


class BadInput(ValueError):
    """What the user gave is wrong; the message names the option, file and line, or case."""
