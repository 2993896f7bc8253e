"""dml-conformance: certifies DirectML operators against their specification."""
__version__ = "0.1.0"
