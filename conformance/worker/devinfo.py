"""What the worker can say about the device: the DirectML.dll this process has loaded (its path,
file version and sha256), the DXGI adapters, and the highest DirectML feature level the device
reports.

The file version is read from the DLL's PE version resource (pure Python, any OS). The loaded
modules, adapters and feature levels go through kernel32, DXGI, D3D12 and DirectML with ctypes
(Windows or Wine only); every query is optional and reports its own failure instead of raising.
"""
import ctypes
import hashlib
import os
import struct
import sys
import uuid

FIXED_FILE_INFO_SIGNATURE = struct.pack("<I", 0xFEEF04BD)
FEATURE_LEVELS = (0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000, 0x5100, 0x5200,
                  0x6000, 0x6100, 0x6200, 0x6300, 0x6400)


def file_version(path: str) -> str | None:
    """'1.15.4.0' from the VS_FIXEDFILEINFO of a PE file, or None."""
    try:
        with open(path, "rb") as handle:
            return version_of(handle.read())
    except OSError:
        return None


def version_of(data: bytes) -> str | None:
    """file_version() of a PE file's bytes."""
    at = data.find(FIXED_FILE_INFO_SIGNATURE)
    while at >= 0:
        # dwSignature, dwStrucVersion, dwFileVersionMS, dwFileVersionLS
        if at + 16 <= len(data):
            _, struc_version, ms, ls = struct.unpack_from("<IIII", data, at)
            if struc_version == 0x00010000:
                return f"{ms >> 16}.{ms & 0xFFFF}.{ls >> 16}.{ls & 0xFFFF}"
        at = data.find(FIXED_FILE_INFO_SIGNATURE, at + 4)
    return None


def identify(path: str) -> dict:
    """{path, file_version, sha256, size} of a file (a DLL as loaded: what was run, not what was asked for)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return {"path": path, "file_version": file_version(path), "sha256": digest.hexdigest(),
            "size": os.path.getsize(path)}


def loaded_modules() -> list:
    """Paths of every module loaded in this process (K32EnumProcessModules; Windows and Wine)."""
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    process = kernel32.GetCurrentProcess
    process.restype = ctypes.c_void_p
    enum = kernel32.K32EnumProcessModules
    enum.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint32)]
    name = kernel32.K32GetModuleFileNameExW
    name.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_wchar_p, ctypes.c_uint32]
    handle, count = process(), 256
    while True:
        modules, needed = (ctypes.c_void_p * count)(), ctypes.c_uint32()
        if not enum(handle, modules, ctypes.sizeof(modules), ctypes.byref(needed)):
            raise OSError(f"K32EnumProcessModules failed: {ctypes.get_last_error()}")
        if needed.value <= ctypes.sizeof(modules):
            break
        count = needed.value // ctypes.sizeof(ctypes.c_void_p) + 16
    paths = []
    for module in modules[:needed.value // ctypes.sizeof(ctypes.c_void_p)]:
        buffer = ctypes.create_unicode_buffer(32768)
        if name(handle, module, buffer, len(buffer)):
            paths.append(buffer.value)
    return paths


def loaded_dll(basename: str = "DirectML.dll") -> dict | None:
    """identify() of the module of that name this process has loaded, or None (not loaded, or not
    Windows). Where two are loaded (another DirectML.dll loaded first, by path), the others are
    listed under "also_loaded": which one a caller uses is then not known from here."""
    if sys.platform != "win32":
        return None
    found = [path for path in loaded_modules() if os.path.basename(path).lower() == basename.lower()]
    if not found:
        return None
    info = identify(found[0])
    if len(found) > 1:
        info["also_loaded"] = found[1:]
    return info


def directml_dll(onnxruntime_module) -> str | None:
    path = os.path.join(os.path.dirname(onnxruntime_module.__file__), "capi", "DirectML.dll")
    return path if os.path.exists(path) else None


def feature_level_name(value: int) -> str:
    return f"{value >> 12}_{(value >> 8) & 0xF}"


# ---- DXGI / D3D12 / DirectML through ctypes (Windows x64 ABI) ------------------------------------
class _GUID(ctypes.Structure):
    _fields_ = [("Data1", ctypes.c_uint32), ("Data2", ctypes.c_uint16), ("Data3", ctypes.c_uint16),
                ("Data4", ctypes.c_ubyte * 8)]


def _guid(text):
    return _GUID.from_buffer_copy(uuid.UUID(text).bytes_le)


class _AdapterDesc1(ctypes.Structure):  # DXGI_ADAPTER_DESC1
    _fields_ = [("Description", ctypes.c_wchar * 128), ("VendorId", ctypes.c_uint), ("DeviceId", ctypes.c_uint),
                ("SubSysId", ctypes.c_uint), ("Revision", ctypes.c_uint),
                ("DedicatedVideoMemory", ctypes.c_size_t), ("DedicatedSystemMemory", ctypes.c_size_t),
                ("SharedSystemMemory", ctypes.c_size_t), ("AdapterLuid", ctypes.c_uint32 * 2),
                ("Flags", ctypes.c_uint)]


class _FeatureLevelsQuery(ctypes.Structure):  # DML_FEATURE_QUERY_FEATURE_LEVELS
    _fields_ = [("RequestedFeatureLevelCount", ctypes.c_uint), ("RequestedFeatureLevels", ctypes.c_void_p)]


_IID_IDXGIFactory1 = "770aae78-f26f-4dba-a829-253c83d1b387"
_IID_ID3D12Device = "189819f1-1db6-4b57-be54-1821339b85f7"
_IID_IDMLDevice = "6dbd6437-96fd-423f-a98c-ae5e7c2a573f"
# vtable slots: IUnknown 0-2 (Release 2); IDXGIFactory1::EnumAdapters1 12; IDXGIAdapter1::GetDesc1 10;
# IDMLDevice::CheckFeatureSupport 7 (IDMLObject 3-6).
_RELEASE, _ENUM_ADAPTERS1, _GET_DESC1, _DML_CHECK_FEATURE_SUPPORT = 2, 12, 10, 7
_DXGI_ADAPTER_FLAG_SOFTWARE = 2
_D3D_FEATURE_LEVEL_11_0 = 0xB000
_DML_FEATURE_FEATURE_LEVELS = 1


def _method(pointer, slot, restype, *argtypes):
    vtable = ctypes.cast(ctypes.c_void_p(pointer), ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p)))[0]
    prototype = ctypes.WINFUNCTYPE(restype, ctypes.c_void_p, *argtypes)
    function = prototype(vtable[slot])
    return lambda *args: function(pointer, *args)


def _release(pointer):
    if pointer:
        _method(pointer, _RELEASE, ctypes.c_ulong)()


def adapters() -> list:
    """[{index, description, vendor_id, device_id, dedicated_video_memory, software}] in DXGI order
    (device_id=N of the DirectML EP is index N of this list)."""
    if sys.platform != "win32":
        return []
    dxgi = ctypes.WinDLL("dxgi.dll")
    create = dxgi.CreateDXGIFactory1
    create.restype, create.argtypes = ctypes.c_long, [ctypes.POINTER(_GUID), ctypes.POINTER(ctypes.c_void_p)]
    factory = ctypes.c_void_p()
    iid = _guid(_IID_IDXGIFactory1)
    if create(ctypes.byref(iid), ctypes.byref(factory)) < 0:
        raise OSError("CreateDXGIFactory1 failed")
    found = []
    try:
        enum = _method(factory.value, _ENUM_ADAPTERS1, ctypes.c_long, ctypes.c_uint,
                       ctypes.POINTER(ctypes.c_void_p))
        for index in range(16):
            adapter = ctypes.c_void_p()
            if enum(index, ctypes.byref(adapter)) < 0:  # DXGI_ERROR_NOT_FOUND ends the list
                break
            try:
                desc = _AdapterDesc1()
                if _method(adapter.value, _GET_DESC1, ctypes.c_long, ctypes.POINTER(_AdapterDesc1))(
                        ctypes.byref(desc)) >= 0:
                    found.append({"index": index, "description": desc.Description,
                                  "vendor_id": f"0x{desc.VendorId:04x}", "device_id": f"0x{desc.DeviceId:04x}",
                                  "dedicated_video_memory": int(desc.DedicatedVideoMemory),
                                  "software": bool(desc.Flags & _DXGI_ADAPTER_FLAG_SOFTWARE)})
            finally:
                _release(adapter.value)
    finally:
        _release(factory.value)
    return found


def max_feature_level(dll_path: str) -> str | None:
    """The highest DML_FEATURE_LEVEL a DirectML device on the default D3D12 adapter reports."""
    if sys.platform != "win32" or not dll_path:
        return None
    d3d12 = ctypes.WinDLL("d3d12.dll")
    directml = ctypes.WinDLL(dll_path)
    create_device = d3d12.D3D12CreateDevice
    create_device.restype = ctypes.c_long
    create_device.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(_GUID), ctypes.POINTER(ctypes.c_void_p)]
    device, dml = ctypes.c_void_p(), ctypes.c_void_p()
    iid_device, iid_dml = _guid(_IID_ID3D12Device), _guid(_IID_IDMLDevice)
    result = create_device(None, _D3D_FEATURE_LEVEL_11_0, ctypes.byref(iid_device), ctypes.byref(device))
    if result < 0:
        raise OSError(f"D3D12CreateDevice failed: 0x{result & 0xFFFFFFFF:08X}")
    try:
        create_dml = directml.DMLCreateDevice1
        create_dml.restype = ctypes.c_long
        create_dml.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.POINTER(_GUID),
                               ctypes.POINTER(ctypes.c_void_p)]
        result = create_dml(device.value, 0, FEATURE_LEVELS[0], ctypes.byref(iid_dml), ctypes.byref(dml))
        if result < 0:
            raise OSError(f"DMLCreateDevice1 failed: 0x{result & 0xFFFFFFFF:08X}")
        levels = (ctypes.c_int * len(FEATURE_LEVELS))(*FEATURE_LEVELS)
        query = _FeatureLevelsQuery(len(FEATURE_LEVELS), ctypes.cast(levels, ctypes.c_void_p))
        answer = ctypes.c_int(0)
        check = _method(dml.value, _DML_CHECK_FEATURE_SUPPORT, ctypes.c_long, ctypes.c_int, ctypes.c_uint,
                        ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p)
        result = check(_DML_FEATURE_FEATURE_LEVELS, ctypes.sizeof(query), ctypes.byref(query),
                       ctypes.sizeof(answer), ctypes.byref(answer))
        if result < 0:
            raise OSError(f"IDMLDevice::CheckFeatureSupport failed: 0x{result & 0xFFFFFFFF:08X}")
        return feature_level_name(answer.value)
    finally:
        _release(dml.value)
        _release(device.value)


def describe(onnxruntime_module, probe_device=True) -> dict:
    """Everything above, each piece either a value or an 'error: ...' string. directml_dll_path is
    the wheel's DirectML.dll; where this process has loaded a DirectML.dll (the caller makes ONNX
    Runtime load it first), directml_loaded identifies that file, and directml_dll (its version)
    and dml_max_feature_level come from it."""
    info = {"directml_dll_path": directml_dll(onnxruntime_module)}
    info["directml_dll"] = file_version(info["directml_dll_path"]) if info["directml_dll_path"] else None
    if probe_device and sys.platform == "win32":
        try:
            info["directml_loaded"] = loaded_dll()
        except Exception as error:
            info["directml_loaded"] = f"error: {type(error).__name__}: {error}"
        loaded = info["directml_loaded"]
        if isinstance(loaded, dict):
            info["directml_dll"] = loaded["file_version"]
        dll = loaded["path"] if isinstance(loaded, dict) else info["directml_dll_path"]
        for key, query in (("adapters", adapters), ("dml_max_feature_level", lambda: max_feature_level(dll))):
            try:
                info[key] = query()
            except Exception as error:  # a missing DLL or export must not stop the worker
                info[key] = f"error: {type(error).__name__}: {error}"
    return info
