"""The worker: runs ONNX Runtime sessions for the harness in another process (or in this one).

Everything in this package imports only the standard library, numpy and onnxruntime, because
it also runs under Wine's Windows Python, where the harness's other dependencies are absent.
protocol: frames over a socket; engine: sessions and runs; server: the process's main loop;
devinfo: DirectML.dll version, adapters, feature level; onnxmini: hand-encoded check models.
"""
