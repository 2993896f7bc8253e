"""D3D12 + DirectML from ctypes: one device, one descriptor heap, reusable buffers, many dispatches
per submission. Windows only (natively, or Windows Python under Wine).

Every vtable slot, enum value and struct comes from abi (generated from the headers' tables).
Methods returning a struct (GetCPU/GPUDescriptorHandleForHeapStart, GetBindingProperties) use
MSVC's hidden return pointer, passed right after `this`, even for 8-byte structs.
"""
import ctypes as C
import os
import time

from conformance.dmldirect import abi
from conformance.dmldirect.describe import SENTINEL, OperatorDescription
from conformance.dmldirect.hresult import DEVICE_LOST, HResultError, describe, failed

HRESULT = C.c_long
PV = C.c_void_p
UPLOAD_ALIGNMENT = 256   # binding offsets: DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT (16) or more; 256 is safe
FENCE_TIMEOUT_MS = int(os.environ.get("DMLDIRECT_FENCE_TIMEOUT_MS", "120000"))
# How the work reaches the device (the provider options submit and buffers), the default first:
# docs/dml-direct.md, "Diagnosing a hang"
SUBMIT = ("batch", "each")
BUFFERS = ("shared", "each")


class Com:
    """A raw COM pointer of a known interface: calls by method name through generated vtables."""
    _prototypes = {}

    def __init__(self, pointer, interface: str):
        self.p = pointer.value if isinstance(pointer, C.c_void_p) else pointer
        self.interface = interface
        if not self.p:
            raise OSError(f"NULL {interface}")
        self.slots = abi.VTABLES[interface]

    def call(self, method: str, restype, argtypes, *args):
        key = (restype, tuple(argtypes))
        prototype = Com._prototypes.get(key)
        if prototype is None:
            prototype = Com._prototypes[key] = C.WINFUNCTYPE(restype, PV, *argtypes)
        table = C.cast(C.c_void_p(self.p), C.POINTER(C.POINTER(C.c_void_p)))[0]
        return prototype(table[self.slots[method]])(self.p, *args)

    def hr(self, method: str, argtypes, *args, detail=""):
        result = self.call(method, HRESULT, argtypes, *args)
        if failed(result):
            raise HResultError(f"{self.interface}::{method}", result, detail)
        return result

    def new(self, method: str, argtypes, *args, interface: str, detail=""):
        """A method whose last two parameters are (REFIID riid, void **object)."""
        out = PV()
        self.hr(method, list(argtypes) + [C.POINTER(abi.GUID), C.POINTER(PV)], *args,
                C.byref(abi.IIDS[interface]), C.byref(out), detail=detail)
        return Com(out, interface)

    def release(self):
        if self.p:
            self.call("Release", C.c_ulong, [])
            self.p = None


def _check(result, what):
    if failed(result):
        raise HResultError(what, result)


def default_dll_path() -> str:
    """DirectML.dll of the onnxruntime-directml wheel (1.24.4 ships DirectML 1.15.4), unless DML_DLL says."""
    if os.environ.get("DML_DLL"):
        return os.environ["DML_DLL"]
    import importlib.util
    spec = importlib.util.find_spec("onnxruntime")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("DirectML.dll: set DML_DLL or install onnxruntime-directml")
    return os.path.join(list(spec.submodule_search_locations)[0], "capi", "DirectML.dll")


def adapters():
    """[(index, Com IDXGIAdapter1, description dict)] through CreateDXGIFactory1 / EnumAdapters1."""
    dxgi = C.WinDLL("dxgi.dll")
    create = dxgi.CreateDXGIFactory1
    create.restype, create.argtypes = HRESULT, [C.POINTER(abi.GUID), C.POINTER(PV)]
    out = PV()
    _check(create(C.byref(abi.IIDS["IDXGIFactory1"]), C.byref(out)), "CreateDXGIFactory1")
    factory = Com(out, "IDXGIFactory1")
    found, index = [], 0
    while True:
        pointer = PV()
        result = factory.call("EnumAdapters1", HRESULT, [C.c_uint, C.POINTER(PV)], index, C.byref(pointer))
        if failed(result):  # DXGI_ERROR_NOT_FOUND ends the list
            break
        adapter = Com(pointer, "IDXGIAdapter1")
        desc = abi.DXGI_ADAPTER_DESC1()
        adapter.hr("GetDesc1", [C.POINTER(abi.DXGI_ADAPTER_DESC1)], C.byref(desc))
        name = bytes(desc.Description).decode("utf-16-le", "replace").split("\0", 1)[0]
        found.append((index, adapter, {
            "index": index, "description": name, "vendor_id": f"0x{desc.VendorId:04x}",
            "device_id": f"0x{desc.DeviceId:04x}", "dedicated_video_memory": desc.DedicatedVideoMemory,
            "shared_system_memory": desc.SharedSystemMemory,
            "software": bool(desc.Flags & abi.DXGI_ADAPTER_FLAG_SOFTWARE)}))
        index += 1
    factory.release()
    return found


class Buffer:
    def __init__(self, resource: Com, size: int, state: int):
        self.resource, self.size, self.state = resource, size, state


class Compiled:
    """A compiled operator, its binding properties and persistent resource; initialised once."""

    def __init__(self, compiled: Com, properties, description: OperatorDescription, flags: int = 0):
        self.compiled = compiled
        self.flags = flags  # the DML_EXECUTION_FLAGS CompileOperator got
        self.descriptors = max(int(properties.RequiredDescriptorCount), 1)
        self.temporary = int(properties.TemporaryResourceSize)
        self.persistent_size = int(properties.PersistentResourceSize)
        self.persistent = None
        self.initialised = False
        self.input_bytes = [tensor.total_bytes for tensor in description.inputs]
        self.output_bytes = description.output.total_bytes
        # Each output's bytes (several outputs: TOP_K's values and indices, bound in the page's order)
        self.outputs_bytes = [tensor.total_bytes for tensor in description.outputs]
        self.outputs_dtypes = [tensor.dtype for tensor in description.outputs]
        self.input_slots, self.output_slots = description.input_slots, description.output_slots
        self.output_dtype = description.output_dtype
        self.output_strides = None if description.output.strides is None else list(description.output.strides)
        self.fields = description.fields()


class Device:
    """A D3D12 device on one adapter and a DirectML device on it, with everything reused across runs."""

    def __init__(self, adapter_index=None, min_feature_level: str = "1_0", dll_path=None, heap_descriptors=4096,
                 debug=False, log=lambda message: None, submit=SUBMIT[0], buffers=BUFFERS[0]):
        self.log = log
        # Diagnosis of a submission that never completes (docs/dml-direct.md): submit="each" makes the
        # initializer and each dispatch a submission of its own, logged before it goes; buffers="each"
        # gives each tensor a resource of its own instead of a range of one shared buffer.
        self.submit_each, self.separate_buffers = submit == SUBMIT[1], buffers == BUFFERS[1]
        self.timings = {}
        started = time.perf_counter()
        self.dll_path = dll_path or default_dll_path()
        self.d3d12 = C.WinDLL("d3d12.dll")
        # DirectML.dll loads DirectML.Debug.dll only with the debug flag; load it by full path.
        self.dml_dll = C.WinDLL(self.dll_path)
        self.adapter_info = None
        adapter_pointer = None
        self._adapters = []
        if adapter_index is not None:
            self._adapters = adapters()
            if not 0 <= int(adapter_index) < len(self._adapters):
                raise HResultError(f"adapter {adapter_index} (found {len(self._adapters)})", 0x887A0002)
            _, adapter, self.adapter_info = self._adapters[int(adapter_index)]
            adapter_pointer = adapter.p
        create = self.d3d12.D3D12CreateDevice
        create.restype, create.argtypes = HRESULT, [PV, C.c_int, C.POINTER(abi.GUID), C.POINTER(PV)]
        out = PV()
        _check(create(adapter_pointer, abi.D3D_FEATURE_LEVEL_11_0, C.byref(abi.IIDS["ID3D12Device"]), C.byref(out)),
               "D3D12CreateDevice")
        self.d3d = Com(out, "ID3D12Device")
        self.min_feature_level = min_feature_level
        create = self.dml_dll.DMLCreateDevice1
        create.restype, create.argtypes = HRESULT, [PV, C.c_int, C.c_int, C.POINTER(abi.GUID), C.POINTER(PV)]
        out = PV()
        flags = abi.DML_CREATE_DEVICE_FLAG_DEBUG if debug else abi.DML_CREATE_DEVICE_FLAG_NONE
        _check(create(self.d3d.p, flags, abi.FEATURE_LEVELS[min_feature_level], C.byref(abi.IIDS["IDMLDevice"]),
                      C.byref(out)), f"DMLCreateDevice1(minimum DML_FEATURE_LEVEL_{min_feature_level})")
        self.dml = Com(out, "IDMLDevice")
        self.timings["create_device_s"] = time.perf_counter() - started

        queue_desc = abi.D3D12_COMMAND_QUEUE_DESC(abi.D3D12_COMMAND_LIST_TYPE_DIRECT, 0, 0, 0)
        self.queue = self.d3d.new("CreateCommandQueue", [C.POINTER(abi.D3D12_COMMAND_QUEUE_DESC)],
                                  C.byref(queue_desc), interface="ID3D12CommandQueue")
        self.allocator = self.d3d.new("CreateCommandAllocator", [C.c_int], abi.D3D12_COMMAND_LIST_TYPE_DIRECT,
                                      interface="ID3D12CommandAllocator")
        self.commands = self.d3d.new("CreateCommandList", [C.c_uint, C.c_int, PV, PV], 0,
                                     abi.D3D12_COMMAND_LIST_TYPE_DIRECT, self.allocator.p, None,
                                     interface="ID3D12GraphicsCommandList")
        self.commands.hr("Close", [])  # opened on first use
        self.fence = self.d3d.new("CreateFence", [C.c_uint64, C.c_int], 0, 0, interface="ID3D12Fence")
        self.fence_value = 0
        kernel32 = C.WinDLL("kernel32")
        kernel32.CreateEventW.restype = PV
        kernel32.CreateEventW.argtypes = [PV, C.c_int, C.c_int, PV]
        kernel32.WaitForSingleObject.argtypes = [PV, C.c_uint32]
        kernel32.WaitForSingleObject.restype = C.c_uint32
        kernel32.CloseHandle.argtypes = [PV]
        self.kernel32 = kernel32
        self.event = kernel32.CreateEventW(None, 0, 0, None)
        self.recorder = self.dml.new("CreateCommandRecorder", [], interface="IDMLCommandRecorder")

        # One descriptor heap for the worker's life (vkd3d 1.6 spends ~0.7 s per CreateDescriptorHeap).
        started = time.perf_counter()
        self.heap_size = heap_descriptors
        heap_desc = abi.D3D12_DESCRIPTOR_HEAP_DESC(abi.D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, heap_descriptors,
                                                   abi.D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0)
        self.heap = self.d3d.new("CreateDescriptorHeap", [C.POINTER(abi.D3D12_DESCRIPTOR_HEAP_DESC)],
                                 C.byref(heap_desc), interface="ID3D12DescriptorHeap")
        self.increment = self.d3d.call("GetDescriptorHandleIncrementSize", C.c_uint, [C.c_int],
                                       abi.D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
        cpu, gpu = abi.D3D12_CPU_DESCRIPTOR_HANDLE(), abi.D3D12_GPU_DESCRIPTOR_HANDLE()
        self.heap.call("GetCPUDescriptorHandleForHeapStart", PV, [C.POINTER(abi.D3D12_CPU_DESCRIPTOR_HANDLE)],
                       C.byref(cpu))
        self.heap.call("GetGPUDescriptorHandleForHeapStart", PV, [C.POINTER(abi.D3D12_GPU_DESCRIPTOR_HANDLE)],
                       C.byref(gpu))
        self.cpu0, self.gpu0 = cpu.ptr, gpu.ptr
        self.timings["create_descriptor_heap_s"] = time.perf_counter() - started
        self.binding_table = None  # one IDMLBindingTable, Reset() onto each dispatch's descriptor range
        self.buffers = {}  # role -> Buffer, grown as needed, never shrunk
        self.feature_level_max = self.query_feature_level()
        self.data_types = self.query_data_types()
        self.operators_compiled = 0
        self.submissions = 0
        self.dispatches = 0

    # -- queries ----------------------------------------------------------------------------------
    def query_feature_level(self) -> str:
        """IDMLDevice::CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS) over every level DirectML.h names."""
        levels = list(abi.FEATURE_LEVELS.values())
        array = (C.c_int * len(levels))(*levels)
        query = abi.DML_FEATURE_QUERY_FEATURE_LEVELS(len(levels), C.cast(array, PV))
        data = abi.DML_FEATURE_DATA_FEATURE_LEVELS()
        self.dml.hr("CheckFeatureSupport", [C.c_int, C.c_uint, PV, C.c_uint, PV], abi.DML_FEATURE_FEATURE_LEVELS,
                    C.sizeof(query), C.byref(query), C.sizeof(data), C.byref(data))
        return abi.level_name(data.MaxSupportedFeatureLevel)

    def query_data_types(self) -> dict:
        """IDMLDevice::CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT) for each tensor type."""
        found = {}
        for name, value in abi.DATA_TYPES.items():
            query = abi.DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT(value)
            data = abi.DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT()
            try:
                self.dml.hr("CheckFeatureSupport", [C.c_int, C.c_uint, PV, C.c_uint, PV],
                            abi.DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, C.sizeof(query), C.byref(query),
                            C.sizeof(data), C.byref(data))
                found[name] = bool(data.IsSupported)
            except HResultError as error:
                found[name] = f"query failed: {error}"
        return found

    def removed_reason(self) -> tuple:
        """(ID3D12Device::GetDeviceRemovedReason, IDMLDevice::GetDeviceRemovedReason) as HRESULTs."""
        return (self.d3d.call("GetDeviceRemovedReason", HRESULT, []) & 0xFFFFFFFF,
                self.dml.call("GetDeviceRemovedReason", HRESULT, []) & 0xFFFFFFFF)

    def _device5(self) -> tuple:
        """(ID3D12Device5, None), or (None, why there is none) where the driver lacks it (Wine's vkd3d)."""
        out = PV()
        result = self.d3d.call("QueryInterface", HRESULT, [C.POINTER(abi.GUID), C.POINTER(PV)],
                               C.byref(abi.IIDS["ID3D12Device5"]), C.byref(out))
        if failed(result) or not out.value:
            return None, f"no ID3D12Device5: QueryInterface {describe(result)}"
        return Com(out, "ID3D12Device5"), None

    def metacommands(self) -> dict:
        """ID3D12Device5::EnumerateMetaCommands' count: the driver's own kernels DirectML may use in place
        of its shaders (GEMM, convolution) unless DML_EXECUTION_FLAG_DISABLE_META_COMMANDS."""
        device5, missing = self._device5()
        if device5 is None:
            return {"count": None, "reason": missing}
        try:
            count = C.c_uint(0)
            result = device5.call("EnumerateMetaCommands", HRESULT, [C.POINTER(C.c_uint), PV], C.byref(count), None)
        finally:
            device5.release()
        if failed(result):
            return {"count": None, "reason": f"EnumerateMetaCommands {describe(result)}"}
        return {"count": int(count.value)}

    def remove_device(self) -> dict:
        """ID3D12Device5::RemoveDevice, for testing the worker's recovery (where the driver has it)."""
        device5, missing = self._device5()
        if device5 is None:
            return {"removed": False, "reason": missing}
        device5.call("RemoveDevice", None, [])
        device5.release()
        d3d, dml = self.removed_reason()
        return {"removed": True, "d3d12_reason": describe(d3d), "dml_reason": describe(dml)}

    def check_removed(self, where: str):
        d3d, dml = self.removed_reason()
        if d3d or dml:
            raise HResultError(f"{where}: device removed (ID3D12Device::GetDeviceRemovedReason "
                               f"{describe(d3d)}, IDMLDevice::GetDeviceRemovedReason {describe(dml)})",
                               d3d or dml)

    # -- operators --------------------------------------------------------------------------------
    def compile(self, description: OperatorDescription, flags=0) -> Compiled:
        """CreateOperator + CompileOperator with these DML_EXECUTION_FLAGS; an invalid description raises
        HResultError (refusal)."""
        operator = self.dml.new("CreateOperator", [PV], description.address, interface="IDMLOperator",
                                detail=f"{description.fields()}")
        try:
            compiled = self.dml.new("CompileOperator", [PV, C.c_int], operator.p, flags,
                                    interface="IDMLCompiledOperator")
        finally:
            operator.release()
        self.operators_compiled += 1
        result = Compiled(compiled, self._binding_properties(compiled), description, flags)
        if result.persistent_size:
            result.persistent = self._new_buffer(result.persistent_size, abi.D3D12_HEAP_TYPE_DEFAULT,
                                                 abi.D3D12_RESOURCE_STATE_UNORDERED_ACCESS, True)
        return result

    def _binding_properties(self, dispatchable: Com):
        properties = abi.DML_BINDING_PROPERTIES()
        dispatchable.call("GetBindingProperties", PV, [C.POINTER(abi.DML_BINDING_PROPERTIES)], C.byref(properties))
        return properties

    # -- resources --------------------------------------------------------------------------------
    def _new_buffer(self, size: int, heap_type: int, state: int, uav: bool) -> Buffer:
        heap = abi.D3D12_HEAP_PROPERTIES(heap_type, 0, 0, 1, 1)
        desc = abi.D3D12_RESOURCE_DESC(abi.D3D12_RESOURCE_DIMENSION_BUFFER, 0, max(int(size), 256), 1, 1, 1,
                                       abi.DXGI_FORMAT_UNKNOWN, abi.DXGI_SAMPLE_DESC(1, 0),
                                       abi.D3D12_TEXTURE_LAYOUT_ROW_MAJOR,
                                       abi.D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if uav else 0)
        resource = self.d3d.new("CreateCommittedResource", [C.POINTER(abi.D3D12_HEAP_PROPERTIES), C.c_int,
                                                            C.POINTER(abi.D3D12_RESOURCE_DESC), C.c_int, PV],
                                C.byref(heap), abi.D3D12_HEAP_FLAG_NONE, C.byref(desc), state, None,
                                interface="ID3D12Resource")
        return Buffer(resource, max(int(size), 256), state)

    def _buffer(self, role: str, size: int) -> Buffer:
        """The reusable buffer for a role, grown (to a power of two) when too small."""
        kinds = {"upload": (abi.D3D12_HEAP_TYPE_UPLOAD, abi.D3D12_RESOURCE_STATE_GENERIC_READ, False),
                 "io": (abi.D3D12_HEAP_TYPE_DEFAULT, abi.D3D12_RESOURCE_STATE_COPY_DEST, True),
                 "readback": (abi.D3D12_HEAP_TYPE_READBACK, abi.D3D12_RESOURCE_STATE_COPY_DEST, False),
                 "temporary": (abi.D3D12_HEAP_TYPE_DEFAULT, abi.D3D12_RESOURCE_STATE_UNORDERED_ACCESS, True)}
        current = self.buffers.get(role)
        if current is None or current.size < size:
            if current is not None:
                current.resource.release()
            grown = 1 << max(16, (int(size) - 1).bit_length())
            heap_type, state, uav = kinds[role]
            self.buffers[role] = current = self._new_buffer(grown, heap_type, state, uav)
        return current

    def _map(self, buffer: Buffer, read: int = 0):
        pointer, span = PV(), abi.D3D12_RANGE(0, read)
        buffer.resource.hr("Map", [C.c_uint, C.POINTER(abi.D3D12_RANGE), C.POINTER(PV)], 0, C.byref(span),
                           C.byref(pointer))
        return pointer.value

    def _unmap(self, buffer: Buffer, written: int = 0):
        span = abi.D3D12_RANGE(0, written)
        buffer.resource.call("Unmap", None, [C.c_uint, C.POINTER(abi.D3D12_RANGE)], 0, C.byref(span))

    # -- command list -----------------------------------------------------------------------------
    def _barriers(self, barriers):
        array = (abi.D3D12_RESOURCE_BARRIER * len(barriers))(*barriers)
        self.commands.call("ResourceBarrier", None, [C.c_uint, PV], len(barriers), array)

    def _transition(self, buffer: Buffer, after: int):
        if buffer.state == after:
            return
        barrier = abi.D3D12_RESOURCE_BARRIER()
        barrier.Type, barrier.Flags = abi.D3D12_RESOURCE_BARRIER_TYPE_TRANSITION, 0
        barrier.Transition = abi.D3D12_RESOURCE_TRANSITION_BARRIER(
            buffer.resource.p, abi.D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES, buffer.state, after)
        self._barriers([barrier])
        buffer.state = after

    def _uav_barrier(self):
        barrier = abi.D3D12_RESOURCE_BARRIER()
        barrier.Type, barrier.Flags = abi.D3D12_RESOURCE_BARRIER_TYPE_UAV, 0
        barrier.UAV = abi.D3D12_RESOURCE_UAV_BARRIER(None)
        self._barriers([barrier])

    def _submit_and_wait(self):
        self.commands.hr("Close", [])
        lists = (PV * 1)(self.commands.p)
        self.queue.call("ExecuteCommandLists", None, [C.c_uint, PV], 1, lists)
        self.fence_value += 1
        self.queue.hr("Signal", [PV, C.c_uint64], self.fence.p, self.fence_value)
        self.fence.hr("SetEventOnCompletion", [C.c_uint64, PV], self.fence_value, self.event)
        self.kernel32.WaitForSingleObject(self.event, FENCE_TIMEOUT_MS)
        done = self.fence.call("GetCompletedValue", C.c_uint64, [])
        self.submissions += 1
        if done < self.fence_value:
            self.check_removed("fence wait")
            if done == 0xFFFFFFFFFFFFFFFF:
                raise HResultError("fence reads UINT64_MAX: device removed", 0x887A0005)
            raise HResultError(f"fence not reached after {FENCE_TIMEOUT_MS} ms "
                               f"(completed {done}, waiting for {self.fence_value})", 0x887A0006)
        self.check_removed("after execution")

    def _begin(self):
        self.allocator.hr("Reset", [])
        self.commands.hr("Reset", [PV, PV], self.allocator.p, None)
        heaps = (PV * 1)(self.heap.p)
        self.commands.call("SetDescriptorHeaps", None, [C.c_uint, PV], 1, heaps)

    def _bind(self, dispatchable: Com, first: int, count: int):
        desc = abi.DML_BINDING_TABLE_DESC(dispatchable.p, abi.D3D12_CPU_DESCRIPTOR_HANDLE(self.cpu0 + first * self.increment),
                                          abi.D3D12_GPU_DESCRIPTOR_HANDLE(self.gpu0 + first * self.increment), count)
        if self.binding_table is None:
            self.binding_table = self.dml.new("CreateBindingTable", [C.POINTER(abi.DML_BINDING_TABLE_DESC)],
                                              C.byref(desc), interface="IDMLBindingTable")
        else:
            self.binding_table.hr("Reset", [C.POINTER(abi.DML_BINDING_TABLE_DESC)], C.byref(desc))
        return self.binding_table

    @staticmethod
    def _binding(buffer, offset, size, keep):
        if buffer is None:
            binding = abi.DML_BINDING_DESC(abi.DML_BINDING_TYPE_NONE, None)
            keep.append(binding)
            return binding
        target = abi.DML_BUFFER_BINDING(buffer.resource.p, offset, size)
        binding = abi.DML_BINDING_DESC(abi.DML_BINDING_TYPE_BUFFER, C.addressof(target))
        keep.extend([target, binding])
        return binding

    # -- execution --------------------------------------------------------------------------------
    def execute(self, items):
        """items: [(Compiled, [bytes per input], the input the output aliases or None)] -> [[bytes per output]],
        as few submissions as the
        descriptor heap allows: one upload copy, an initializer for the operators new to it, one
        dispatch per item, one readback copy."""
        results, start = [], 0
        while start < len(items):
            count, descriptors, fresh = 0, 0, set()
            for compiled, _, _ in items[start:]:
                need = compiled.descriptors
                if not compiled.initialised and id(compiled) not in fresh:
                    need += compiled.descriptors + 2  # the initializer's share (upper bound)
                if count and descriptors + need > self.heap_size:
                    break
                if need > self.heap_size:
                    raise RuntimeError(f"one dispatch needs {need} descriptors, the heap holds {self.heap_size} "
                                       "(provider option heap_descriptors)")
                descriptors += need
                if not compiled.initialised:
                    fresh.add(id(compiled))
                count += 1
            results += self._execute(items[start:start + count])
            start += count
        return results

    def _execute(self, items):
        """One submission: upload every input, initialise the operators new to the device, one
        dispatch per item, read every output back."""
        keep = []  # the binding structs DirectML reads until the submission is done
        layout, total = _layout(items)
        upload = self._buffer("upload", total)
        readback = self._buffer("readback", total)
        address = self._map(upload)
        C.memset(address, SENTINEL, total)
        for (compiled, data, _), (in_offsets, _) in zip(items, layout):
            for piece, in_offset in zip(data, in_offsets):
                C.memmove(address + in_offset, piece, len(piece))
        self._unmap(upload, total)

        self._begin()
        places, place = self._places(items, layout, total)
        for offset, (buffer, size) in places.items():
            self._transition(buffer, abi.D3D12_RESOURCE_STATE_COPY_DEST)
            self._copy(buffer, 0, upload, offset, size)
            self._transition(buffer, abi.D3D12_RESOURCE_STATE_UNORDERED_ACCESS)
        fresh, seen = [], set()
        for compiled, _, _ in items:
            if not compiled.initialised and id(compiled) not in seen:
                seen.add(id(compiled))
                fresh.append(compiled)
        temporary_size = max([c.temporary for c, _, _ in items] + [0])
        initializer, cursor = None, 0
        if fresh:
            initializer, properties = self._initializer(fresh)
            temporary_size = max(temporary_size, int(properties.TemporaryResourceSize))
        # one buffer, sized once for the initializer and every dispatch: growing it after the initializer
        # was recorded would release the resource that recorded command still reads
        temporary = self._buffer("temporary", temporary_size) if temporary_size else None
        try:
            if fresh:
                cursor = self._record_initializer(initializer, properties, fresh, temporary, keep)
                if self.submit_each:
                    self._submit_alone(f"initializer of {len(fresh)} operator(s): "
                                       f"{properties.RequiredDescriptorCount} descriptor(s), temporary "
                                       f"{properties.TemporaryResourceSize} B, persistent "
                                       f"{[c.persistent_size for c in fresh]} B")
            self._record_dispatches(items, layout, place, temporary, cursor, keep)
            self._uav_barrier()
            for offset, (buffer, size) in places.items():
                self._transition(buffer, abi.D3D12_RESOURCE_STATE_COPY_SOURCE)
                self._copy(readback, offset, buffer, 0, size)
            if self.submit_each:
                self.log("submitting the read-back copy")
            self._submit_and_wait()
        finally:
            if initializer is not None:
                initializer.release()
            if self.separate_buffers:
                for buffer, _ in places.values():
                    buffer.resource.release()
        for compiled in fresh:
            compiled.initialised = True
        address = self._map(readback, total)
        try:
            return [[C.string_at(address + offset, size) for offset, size in zip(out_offsets, compiled.outputs_bytes)]
                    for (compiled, _, _), (_, out_offsets) in zip(items, layout)]
        finally:
            self._unmap(readback, 0)

    def _places(self, items, layout, total):
        """({offset in the upload buffer: (the buffer its bytes go to, how many)}, place: offset ->
        (buffer, offset in it)): the one shared io buffer, or (buffers=each) a buffer per tensor (an
        in-place output's is its input's)."""
        if not self.separate_buffers:
            io = self._buffer("io", total)
            return {0: (io, total)}, lambda offset: (io, offset)
        places = {}
        for (compiled, _, _), (in_offsets, out_offsets) in zip(items, layout):
            for offset, size in [*zip(in_offsets, compiled.input_bytes), *zip(out_offsets, compiled.outputs_bytes)]:
                if offset not in places:
                    buffer = self._new_buffer(_align(max(size, 4)), abi.D3D12_HEAP_TYPE_DEFAULT,
                                              abi.D3D12_RESOURCE_STATE_COPY_DEST, True)
                    places[offset] = (buffer, buffer.size)
        return places, lambda offset: (places[offset][0], 0)

    def _copy(self, target: Buffer, target_offset: int, source: Buffer, source_offset: int, size: int):
        self.commands.call("CopyBufferRegion", None, [PV, C.c_uint64, PV, C.c_uint64, C.c_uint64],
                           target.resource.p, target_offset, source.resource.p, source_offset, size)

    def _submit_alone(self, what: str):
        """submit=each: what is recorded so far goes now, said first (a hang's last words), and recording
        goes on in a fresh command list."""
        self.log(f"submitting {what}")
        self._submit_and_wait()
        self._begin()

    def _initializer(self, fresh):
        """The initializer of the operators new to the device, and its binding properties."""
        operators = (PV * len(fresh))(*[c.compiled.p for c in fresh])
        initializer = self.dml.new("CreateOperatorInitializer", [C.c_uint, PV], len(fresh), operators,
                                   interface="IDMLOperatorInitializer")
        return initializer, self._binding_properties(initializer)

    def _record_initializer(self, initializer, properties, fresh, temporary, keep) -> int:
        """Record the initializer (its outputs are the operators' persistent resources; temporary holds
        at least the bytes it needs) -> the descriptors it took."""
        count = max(int(properties.RequiredDescriptorCount), 1)
        table = self._bind(initializer, 0, count)
        if properties.TemporaryResourceSize:
            table.call("BindTemporaryResource", None, [PV],
                       C.byref(self._binding(temporary, 0, int(properties.TemporaryResourceSize), keep)))
        outputs = (abi.DML_BINDING_DESC * len(fresh))(*[  # NONE where an operator has no persistent resource
            self._binding(c.persistent, 0, c.persistent_size, keep) for c in fresh])
        table.call("BindOutputs", None, [C.c_uint, PV], len(fresh), outputs)
        self.recorder.call("RecordDispatch", None, [PV, PV, PV], self.commands.p, initializer.p, table.p)
        self._uav_barrier()
        return count

    def _record_dispatches(self, items, layout, place, temporary, cursor, keep):
        """One dispatch per item, its descriptors from cursor on, its inputs and outputs where place puts
        their offsets."""
        for number, ((compiled, _, _), (in_offsets, out_offsets)) in enumerate(zip(items, layout)):
            table = self._bind(compiled.compiled, cursor, compiled.descriptors)
            cursor += compiled.descriptors
            if compiled.temporary:
                table.call("BindTemporaryResource", None, [PV],
                           C.byref(self._binding(temporary, 0, compiled.temporary, keep)))
            if compiled.persistent is not None:
                table.call("BindPersistentResource", None, [PV],
                           C.byref(self._binding(compiled.persistent, 0, compiled.persistent_size, keep)))
            none = self._binding(None, 0, 0, keep)
            inputs = _slots(compiled.input_slots, [self._binding(*place(in_offset), _align4(size), keep)
                                                   for in_offset, size in zip(in_offsets, compiled.input_bytes)], none)
            table.call("BindInputs", None, [C.c_uint, PV], len(inputs), inputs)
            outputs = _slots(compiled.output_slots, [self._binding(*place(offset), _align4(size), keep)
                                                     for offset, size in zip(out_offsets, compiled.outputs_bytes)], none)
            table.call("BindOutputs", None, [C.c_uint, PV], len(outputs), outputs)
            self.recorder.call("RecordDispatch", None, [PV, PV, PV], self.commands.p, compiled.compiled.p, table.p)
            if compiled.temporary:
                self._uav_barrier()  # the next dispatch reuses the temporary buffer
            self.dispatches += 1
            if self.submit_each:
                self._submit_alone(f"dispatch {number + 1} of {len(items)}: {compiled.descriptors} descriptor(s), "
                                   f"temporary {compiled.temporary} B, persistent {compiled.persistent_size} B")

    def close(self):
        for buffer in self.buffers.values():
            buffer.resource.release()
        self.buffers = {}
        for name in ("binding_table", "recorder", "heap", "fence", "commands", "allocator", "queue", "dml", "d3d"):
            item = getattr(self, name, None)
            if item is not None:
                try:
                    item.release()
                except OSError:
                    pass
                setattr(self, name, None)
        if getattr(self, "event", None):
            self.kernel32.CloseHandle(self.event)
            self.event = None


def _layout(items) -> tuple:
    """([([input offsets], [output offsets])] per item in one buffer, its total size); an in-place
    item's output is the input it aliases."""
    layout, offset = [], 0
    for compiled, _, aliased in items:
        in_offsets = []
        for size in compiled.input_bytes:
            in_offsets.append(offset)
            offset += _align(max(size, 4))
        if aliased is not None and aliased is not False:
            out_offsets = [in_offsets[int(aliased)]]
        else:
            out_offsets = []
            for size in compiled.outputs_bytes:
                out_offsets.append(offset)
                offset += _align(max(size, 4))
        layout.append((in_offsets, out_offsets))
    return layout, max(offset, 256)


def _align(size: int) -> int:
    return (int(size) + UPLOAD_ALIGNMENT - 1) // UPLOAD_ALIGNMENT * UPLOAD_ALIGNMENT


def _align4(size: int) -> int:
    return max((int(size) + 3) & ~3, 4)



def _slots(slots, bound, none):
    """The binding of every tensor slot in order: the next of `bound` for a bound one, `none`
    (DML_BINDING_TYPE_NONE) for one a case leaves NULL."""
    given = iter(bound)
    return (abi.DML_BINDING_DESC * len(slots))(*[next(given) if slot else none for slot in slots])


__all__ = ["Device", "Compiled", "adapters", "default_dll_path", "DEVICE_LOST", "SUBMIT", "BUFFERS"]
