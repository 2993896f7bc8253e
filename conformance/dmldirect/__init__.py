"""dmldirect: DirectML driven directly from Python (ctypes), without ONNX Runtime.

Pure standard library plus numpy, so that the Windows CPython that runs under
Wine (or natively on Windows) can import it from the repository:

- abi: enum values, interface vtable indices, IIDs and struct layouts, generated
  from tables transcribed from DirectML.h and d3d12.idl / dxgi.idl, with the
  x64 size of every struct checked at import (checkable on Linux: the layouts are POD).
- hresult: HRESULT decoding (E_INVALIDARG, DXGI_ERROR_DEVICE_REMOVED, ...).
- describe: a case (operator, data type, shape, DirectML fields) -> the
  operator's DML_*_OPERATOR_DESC with every field, ScaleBias included.
- runtime (Windows only): D3D12 + DirectML device on a chosen adapter, feature
  queries, compile / initialise / execute many operators per submission.
- service: the worker-side request handler the dml-direct backend talks to.
"""
