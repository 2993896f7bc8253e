"""dml-direct's binary interface, checked on Linux: enum values, vtable slots, IIDs, struct sizes
and offsets (x64 layouts), and the descriptions built for the seed operators.

The expected numbers here come from sources independent of the tables in abi.py: values other
header translations print (win32metadata-generated bindings), and the vtable slots and layouts
the dml-direct sketch (shared/notes/dml-direct-sketch) used successfully against DirectML.dll.
"""
import ctypes as C
import struct

import numpy as np
import pytest

from conformance.dmldirect import abi
from conformance.dmldirect.describe import OperatorDescription, calc_buffer_tensor_size
from conformance.dmldirect.hresult import HResultError, describe, name

pytestmark = pytest.mark.skipif(C.sizeof(C.c_void_p) != 8, reason="x64 layouts need a 64-bit Python")


def test_operator_type_values():
    # The four seed operators, CLIP1 (what ONNX Runtime uses instead of CLIP) and landmarks of each block.
    assert abi.DML_OPERATOR_ELEMENT_WISE_CLIP == 8
    assert abi.DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW == 26
    assert abi.DML_OPERATOR_ACTIVATION_SCALED_ELU == 45      # win32metadata bindings print 45
    assert abi.DML_OPERATOR_GRU == 78 and abi.DML_OPERATOR_RESAMPLE == 96
    assert abi.DML_OPERATOR_SCATTER == abi.DML_OPERATOR_SCATTER_ELEMENTS == 94  # an alias takes no value
    assert abi.DML_OPERATOR_ACTIVATION_CELU == 128           # the sketch's verified value
    assert abi.DML_OPERATOR_ELEMENT_WISE_CLIP1 == 153
    assert abi.DML_OPERATOR_UNFOLD == len([e for e in abi.DML_OPERATOR_TYPE_DECL if not e.startswith("=")]) - 1


def test_other_enums():
    assert [abi.DATA_TYPES[t] for t in ("float32", "float16", "uint32", "uint16", "uint8", "int32", "int16", "int8",
                                        "float64", "uint64", "int64")] == list(range(1, 12))
    assert abi.DML_TENSOR_TYPE_BUFFER == 1 and abi.DML_BINDING_TYPE_BUFFER == 1
    assert abi.DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT == 0 and abi.DML_FEATURE_FEATURE_LEVELS == 1
    assert abi.FEATURE_LEVELS["1_0"] == 0x1000 and abi.FEATURE_LEVELS["2_1"] == 0x2100
    assert abi.FEATURE_LEVELS["6_4"] == 0x6400 and len(abi.FEATURE_LEVELS) == 15
    assert abi.level_name(0x5100) == "5_1"
    assert abi.D3D12_RESOURCE_STATE_GENERIC_READ == 0xAC3


def test_feature_levels_match_the_harness():
    from conformance import featurelevels
    assert tuple(abi.FEATURE_LEVELS) == featurelevels.LEVELS


@pytest.mark.parametrize("interface, method, slot", [
    # the sketch's hand-counted slots, each of which it called successfully
    ("ID3D12Device", "CreateCommandQueue", 8), ("ID3D12Device", "CreateCommandAllocator", 9),
    ("ID3D12Device", "CreateCommandList", 12), ("ID3D12Device", "CheckFeatureSupport", 13),
    ("ID3D12Device", "CreateDescriptorHeap", 14), ("ID3D12Device", "GetDescriptorHandleIncrementSize", 15),
    ("ID3D12Device", "CreateCommittedResource", 27), ("ID3D12Device", "CreateFence", 36),
    ("ID3D12Device", "GetDeviceRemovedReason", 37), ("ID3D12Resource", "Map", 8), ("ID3D12Resource", "Unmap", 9),
    ("ID3D12DescriptorHeap", "GetCPUDescriptorHandleForHeapStart", 9),
    ("ID3D12DescriptorHeap", "GetGPUDescriptorHandleForHeapStart", 10),
    ("ID3D12Fence", "GetCompletedValue", 8), ("ID3D12Fence", "SetEventOnCompletion", 9),
    ("ID3D12GraphicsCommandList", "Close", 9), ("ID3D12GraphicsCommandList", "Reset", 10),
    ("ID3D12GraphicsCommandList", "CopyBufferRegion", 15), ("ID3D12GraphicsCommandList", "ResourceBarrier", 26),
    ("ID3D12GraphicsCommandList", "SetDescriptorHeaps", 28), ("ID3D12CommandQueue", "ExecuteCommandLists", 10),
    ("ID3D12CommandQueue", "Signal", 14), ("ID3D12CommandAllocator", "Reset", 8),
    ("IDMLDevice", "CheckFeatureSupport", 7), ("IDMLDevice", "CreateOperator", 8),
    ("IDMLDevice", "CompileOperator", 9), ("IDMLDevice", "CreateOperatorInitializer", 10),
    ("IDMLDevice", "CreateCommandRecorder", 11), ("IDMLDevice", "CreateBindingTable", 12),
    ("IDMLDevice", "GetDeviceRemovedReason", 15), ("IDMLCompiledOperator", "GetBindingProperties", 8),
    ("IDMLOperatorInitializer", "GetBindingProperties", 8), ("IDMLBindingTable", "BindInputs", 8),
    ("IDMLBindingTable", "BindOutputs", 9), ("IDMLBindingTable", "BindTemporaryResource", 10),
    ("IDMLBindingTable", "BindPersistentResource", 11), ("IDMLBindingTable", "Reset", 12),
    ("IDMLCommandRecorder", "RecordDispatch", 8), ("IDXGIFactory1", "EnumAdapters1", 12),
    ("IDXGIAdapter1", "GetDesc", 8), ("IDXGIAdapter1", "GetDesc1", 10),
    ("IDMLOperatorInitializer", "Reset", 9), ("ID3D12Device5", "RemoveDevice", 58),
])
def test_vtable_slots(interface, method, slot):
    assert abi.VTABLES[interface][method] == slot


def test_every_interface_starts_with_iunknown():
    for name in abi.INTERFACES:
        slots = abi.VTABLES[name]
        assert (slots["QueryInterface"], slots["AddRef"], slots["Release"]) == (0, 1, 2)
        assert sorted(slots.values()) == list(range(len(slots)))


@pytest.mark.parametrize("interface, text", [
    ("ID3D12Device", "189819f1-1db6-4b57-be54-1821339b85f7"), ("IDMLDevice", "6dbd6437-96fd-423f-a98c-ae5e7c2a573f"),
    ("IDMLCompiledOperator", "6b15e56a-bf5c-4902-92d8-da3a650afea4"),
    ("IDXGIFactory1", "770aae78-f26f-4dba-a829-253c83d1b387"),
])
def test_iids(interface, text):
    guid = abi.IIDS[interface]
    assert C.sizeof(guid) == 16 and str(guid) == text
    data1 = int(text[:8], 16)
    assert struct.unpack_from("<I", bytes(guid))[0] == data1  # Data1 little-endian, as GUID in memory


def test_every_struct_size_is_asserted():
    built = abi.build()  # raises on any mismatch
    names = {name for name, _ in abi.STRUCTS} | {"GUID", "D3D12_RESOURCE_BARRIER"}
    assert names <= set(abi.X64_SIZES), names - set(abi.X64_SIZES)
    for name, size in abi.X64_SIZES.items():
        assert C.sizeof(built[name]) == size, name


def test_sizes_from_the_sketch():
    # Seen working against DirectML.dll 1.15.4 (shared/notes/dml-direct-sketch/README.md).
    assert C.sizeof(abi.DML_BUFFER_TENSOR_DESC) == 48
    assert C.sizeof(abi.DML_TENSOR_DESC) == C.sizeof(abi.DML_OPERATOR_DESC) == 16
    assert C.sizeof(abi.DML_ELEMENT_WISE_CLIP_OPERATOR_DESC) == 32
    assert C.sizeof(abi.DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC) == 32
    assert C.sizeof(abi.D3D12_RESOURCE_DESC) == 56 and C.sizeof(abi.D3D12_RESOURCE_BARRIER) == 32


def test_calc_buffer_tensor_size():
    assert calc_buffer_tensor_size("float16", [7]) == 16        # 14 bytes, rounded up to 4
    assert calc_buffer_tensor_size("float32", [2, 3, 4, 5]) == 480
    assert calc_buffer_tensor_size("int8", [3]) == 4
    assert calc_buffer_tensor_size("uint64", [1, 2, 1, 2, 1, 2, 1, 3]) == 192
    assert calc_buffer_tensor_size("float32", [2, 0, 3]) == 0
    assert calc_buffer_tensor_size("float32", [2, 3], strides=[0, 1]) == 12   # broadcast rows


def _read(address, ctype):
    return ctype.from_address(address)


def test_clip_description_bytes_with_scale_bias():
    d = OperatorDescription("ELEMENT_WISE_CLIP", "float16", (2, 3, 4, 5, 1, 1, 1, 7),
                            {"ScaleBias": {"Scale": 2.0, "Bias": -0.1}, "Min": -3.7, "Max": 1e30})
    assert d.desc.Type == abi.DML_OPERATOR_ELEMENT_WISE_CLIP == 8
    raw = C.string_at(d.desc.Desc, 32)
    input_tensor, output_tensor, scale_bias = struct.unpack_from("<QQQ", raw)
    minimum, maximum = struct.unpack_from("<ff", raw, 24)
    assert minimum == np.float32(-3.7) and maximum == np.float32(1e30)
    assert input_tensor != output_tensor and scale_bias
    assert struct.unpack("<ff", C.string_at(scale_bias, 8)) == (2.0, float(np.float32(-0.1)))
    tensor = _read(input_tensor, abi.DML_TENSOR_DESC)
    assert tensor.Type == abi.DML_TENSOR_TYPE_BUFFER
    buffer = _read(tensor.Desc, abi.DML_BUFFER_TENSOR_DESC)
    assert buffer.DataType == abi.DML_TENSOR_DATA_TYPE_FLOAT16 and buffer.DimensionCount == 8  # no padding
    assert list(buffer.Sizes[:8]) == [2, 3, 4, 5, 1, 1, 1, 7] and not buffer.Strides
    assert buffer.TotalTensorSizeInBytes == 2 * 3 * 4 * 5 * 7 * 2


def test_descriptions_of_every_seed_operator():
    celu = OperatorDescription("ACTIVATION_CELU", "float16", (7,), {"Alpha": 0.5})
    assert celu.desc.Type == 128 and celu.fields()["Alpha"] == 0.5 and celu.fields()["DimensionCount"] == 1
    assert "ScaleBias" not in celu.fields()
    selu = OperatorDescription("ACTIVATION_SCALED_ELU", "float32", (3,), {"Alpha": 1.6732, "Gamma": 1.0507})
    assert struct.unpack_from("<ff", C.string_at(selu.desc.Desc, 24), 16) == (
        float(np.float32(1.6732)), float(np.float32(1.0507)))
    pow_ = OperatorDescription("ELEMENT_WISE_CONSTANT_POW", "float32", (6,), {"ScaleBias": None, "Exponent": 0.5})
    raw = C.string_at(pow_.desc.Desc, 32)
    assert struct.unpack_from("<Q", raw, 16)[0] == 0  # a null ScaleBias pointer: the page's _Maybenull_
    assert struct.unpack_from("<f", raw, 24)[0] == 0.5
    clip = OperatorDescription("ELEMENT_WISE_CLIP", "int64", (11,), {"ScaleBias": None, "Min": -3.7, "Max": 5.9})
    assert clip.fields()["DataType"] == abi.DML_TENSOR_DATA_TYPE_INT64 == 11
    assert clip.key != OperatorDescription("ELEMENT_WISE_CLIP", "int64", (11,),
                                           {"ScaleBias": {"Scale": 1.0, "Bias": 0.0}, "Min": -3.7, "Max": 5.9}).key


def test_description_refuses_unknown_fields():
    with pytest.raises(KeyError):
        OperatorDescription("ACTIVATION_CELU", "float32", (3,), {"Alpha": 1.0, "ScaleBias": {"Scale": 1, "Bias": 0}})
    with pytest.raises(KeyError):
        OperatorDescription("ELEMENT_WISE_IDENTITY", "float32", (3,), {})


def test_hresult_names():
    assert describe(0x80070057) == "E_INVALIDARG (0x80070057)"
    assert name(-2147024809) == "E_INVALIDARG"  # the signed value ctypes returns
    assert name(0x887A0005) == "DXGI_ERROR_DEVICE_REMOVED"
    error = HResultError("IDMLDevice::CreateOperator", -2147024809)
    assert error.refusal and not error.device_lost and "E_INVALIDARG" in str(error)
    assert HResultError("x", 0x887A0006).device_lost
