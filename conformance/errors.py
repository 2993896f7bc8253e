"""The errors the command line reports in one line: bad input (exit 2), an output it could not write
(exit 5).

Raised where input is validated (an option, a -k expression, a results file); anything else
that escapes a command is a harness bug and is reported with its traceback (exit 4). A
ValueError, so that code that tells good values from bad ones with `except ValueError` works.
"""


class BadInput(ValueError):
    """What the user gave is wrong; the message names the option, file and line, or case."""


class OutputFailed(Exception):
    """An output could not be written once the run had begun (a full disk, /dev/full, a file in /proc):
    one line naming the file and the reason, exit 5. What was written before it is kept: the results
    records already flushed, and any report whose write had finished."""
