"""Start the worker: `python -m conformance.worker ...`, or `python path/to/worker/__main__.py ...`
where the package cannot be imported by name (the Windows embeddable Python's ._pth file keeps
the script's folder off sys.path, so the folder above the package is added here)."""
import sys

if __package__:
    from .server import main
else:
    import importlib
    import os
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.dirname(_here))
    main = importlib.import_module(os.path.basename(_here) + ".server").main

sys.exit(main())
