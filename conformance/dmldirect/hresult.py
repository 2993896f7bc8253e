"""HRESULT decoding: the names D3D12, DXGI and DirectML return (winerror.h, dxgi/d3d12 headers)."""

NAMES = {
    0x00000000: "S_OK",
    0x00000001: "S_FALSE",
    0x80004001: "E_NOTIMPL",
    0x80004002: "E_NOINTERFACE",
    0x80004003: "E_POINTER",
    0x80004004: "E_ABORT",
    0x80004005: "E_FAIL",
    0x8000FFFF: "E_UNEXPECTED",
    0x80070005: "E_ACCESSDENIED",
    0x80070006: "E_HANDLE",
    0x8007000E: "E_OUTOFMEMORY",
    0x80070057: "E_INVALIDARG",
    0x887A0001: "DXGI_ERROR_INVALID_CALL",
    0x887A0002: "DXGI_ERROR_NOT_FOUND",
    0x887A0004: "DXGI_ERROR_UNSUPPORTED",
    0x887A0005: "DXGI_ERROR_DEVICE_REMOVED",
    0x887A0006: "DXGI_ERROR_DEVICE_HUNG",
    0x887A0007: "DXGI_ERROR_DEVICE_RESET",
    0x887A000A: "DXGI_ERROR_WAS_STILL_DRAWING",
    0x887A0020: "DXGI_ERROR_DRIVER_INTERNAL_ERROR",
    0x887A002D: "DXGI_ERROR_SDK_COMPONENT_MISSING",
    0x887E0001: "D3D12_ERROR_ADAPTER_NOT_FOUND",
    0x887E0002: "D3D12_ERROR_DRIVER_VERSION_MISMATCH",
}

# A device in one of these states must be recreated; the worker does so and goes on.
DEVICE_LOST = {0x887A0005, 0x887A0006, 0x887A0007, 0x887A0020}
# What a description the device refuses comes back as (CreateOperator, CompileOperator).
REFUSALS = {0x80070057, 0x80004001, 0x887A0004}


def unsigned(hr: int) -> int:
    return hr & 0xFFFFFFFF


def name(hr: int) -> str:
    value = unsigned(hr)
    known = NAMES.get(value)
    if known:
        return known
    if value & 0xFFFF0000 == 0x80070000:
        return f"HRESULT_FROM_WIN32({value & 0xFFFF})"
    return "unknown HRESULT"


def describe(hr: int) -> str:
    """'E_INVALIDARG (0x80070057)'."""
    return f"{name(hr)} (0x{unsigned(hr):08X})"


def failed(hr: int) -> bool:
    return unsigned(hr) & 0x80000000 != 0


class HResultError(OSError):
    """A COM call failed: what was called, and the HRESULT it returned."""

    def __init__(self, what: str, hr: int, detail: str = ""):
        self.what, self.hr = what, unsigned(hr)
        super().__init__(f"{what} returned {describe(hr)}" + (f": {detail}" if detail else ""))

    @property
    def device_lost(self) -> bool:
        return self.hr in DEVICE_LOST

    @property
    def refusal(self) -> bool:
        return self.hr in REFUSALS
