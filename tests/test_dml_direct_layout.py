"""dml-direct's binary interface, checked on Linux: enum values, vtable slots, IIDs, struct sizes
and offsets (x64 layouts), and the descriptions built for the seed operators.

The expected numbers here come from sources independent of the tables in abi.py: values other
header translations print (win32metadata-generated bindings), and the vtable slots and layouts
an earlier dml-direct sketch (not in this repository) used successfully against DirectML.dll 1.15.4.
"""
import ctypes as C
import struct
import subprocess
import sys

import numpy as np
import pytest

from conformance import specs
from conformance.caseset.caseload import load_paths
from conformance.dmldirect import abi, layout
from conformance.dmldirect.describe import OperatorDescription, calc_buffer_tensor_size
from conformance.dmldirect.hresult import HResultError, describe, name
from every import Failures

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
    # DirectML.h (microsoft/DirectX-Headers include/directx/DirectML.h at 9be295b, FL 6.4) declares
    # 178 operator types and the SCATTER alias; the table was compared with it entry for entry.
    assert len(abi.DML_OPERATOR_TYPE_DECL) == 179 and abi.DML_OPERATOR_UNFOLD == 177


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
    names = {name for name, _ in abi.STRUCTS} | {"GUID", "D3D12_RESOURCE_BARRIER", "DML_SCALAR_UNION"}
    assert names <= set(abi.X64_SIZES), names - set(abi.X64_SIZES)
    for name, size in abi.X64_SIZES.items():
        if name in built:
            assert C.sizeof(built[name]) == size, name
        else:  # pinned sizes of operator descriptions, which are built from their specs' fields
            assert name.endswith("_OPERATOR_DESC"), name


def _description(op, dtype="float32", shape=(3,), params=None, spec=None):
    """A case's description exactly as the worker builds it: the request through JSON and back."""
    import json
    request = layout.request(spec or specs.get(op), dtype, shape, params or {})
    return OperatorDescription.from_case(json.loads(json.dumps(request)))


def test_sizes_from_the_sketch():
    # Seen working against DirectML.dll 1.15.4 by that sketch.
    assert C.sizeof(abi.DML_BUFFER_TENSOR_DESC) == 48
    assert C.sizeof(abi.DML_TENSOR_DESC) == C.sizeof(abi.DML_OPERATOR_DESC) == 16
    assert C.sizeof(_description("ELEMENT_WISE_CLIP").struct) == 32
    assert C.sizeof(_description("ELEMENT_WISE_CONSTANT_POW").struct) == 32
    assert C.sizeof(abi.D3D12_RESOURCE_DESC) == 56 and C.sizeof(abi.D3D12_RESOURCE_BARRIER) == 32
    assert C.sizeof(abi.DML_SCALAR_UNION) == 8 and C.alignment(abi.DML_SCALAR_UNION) == 8


def test_the_independent_x64_layout_by_hand():
    """MSVC x64: pointers and DML_SCALAR_UNION 8-aligned, FLOAT, UINT, INT and enums 4; padding where
    a 4-byte field precedes an 8-byte one, and at the end up to the widest alignment."""
    assert abi.x64_layout(["tensor", "tensor", "float"]) == (24, [0, 8, 16])
    assert abi.x64_layout(["tensor", "tensor", "scale_bias", "float", "float"]) == (32, [0, 8, 16, 24, 28])
    assert abi.x64_layout(["tensor", "tensor", "data_type", "scalar"]) == (32, [0, 8, 16, 24])
    assert abi.x64_layout(["tensor", "tensor", "scale_bias", "data_type", "scalar", "scalar"]) == (
        48, [0, 8, 16, 24, 32, 40])
    assert abi.x64_layout(["tensor", "tensor", "enum", "uint", "int"]) == (32, [0, 8, 16, 20, 24])


_SHIPPED = load_paths()


def test_every_spec_has_a_description_layout_asserted_against_x64():
    """Each spec's DML_OPERATOR_TYPE is in DirectML.h's enum, and its description (its input tensors
    and output tensors, then the spec's parameters) has the size and offsets MSVC gives it; where
    X64_SIZES pins the header's struct, that size too. One test over every spec; a failure names it."""
    failures = Failures()
    for op in sorted(specs.SPECS):
        with failures.check(op):
            spec = specs.get(op)
            assert f"DML_OPERATOR_{spec.name}" in abi.ENUMS
            case = next(c for c in _SHIPPED if c.op == op)  # a shipped case's fields, as the loader fills them
            desc_type = type(_description(op, case.dtype, case.shape, case.params).struct)
            # in the struct's order, an array's count field included (layout.layout)
            fields = layout.layout(spec)["fields"]
            size, offsets = abi.x64_layout([kind for _, kind in fields])
            assert C.sizeof(desc_type) == size and desc_type.__name__ == spec.struct
            assert [getattr(desc_type, name).offset for name, _ in desc_type._fields_] == offsets
            assert [name for name, _ in desc_type._fields_] == [name for name, _ in fields]
            arrays = any(p.array for p in spec.fields) or any(t.count for t in (*spec.inputs, *spec.outputs))
            if not spec.struct_order and not arrays:  # an array's count field comes before it
                assert [name for name, _ in fields] == [i.name for i in spec.inputs] + [o.name for o in spec.outputs] + [
                    p.name for p in spec.fields]
            if spec.struct in abi.X64_SIZES:
                assert C.sizeof(desc_type) == abi.X64_SIZES[spec.struct]
    failures.assert_none("operator descriptions differ from the x64 layout")


def test_the_seed_operators_sizes_stay_pinned():
    for op in ("ACTIVATION_CELU", "ACTIVATION_SCALED_ELU", "ELEMENT_WISE_CLIP", "ELEMENT_WISE_CONSTANT_POW"):
        assert specs.get(op).struct in abi.X64_SIZES


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
    d = _description("ELEMENT_WISE_CLIP", "float16", (2, 3, 4, 5, 1, 1, 1, 7),
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
    celu = _description("ACTIVATION_CELU", "float16", (7,), {"Alpha": 0.5})
    assert celu.desc.Type == 128 and celu.fields()["Alpha"] == 0.5 and celu.fields()["DimensionCount"] == 1
    assert "ScaleBias" not in celu.fields()
    selu = _description("ACTIVATION_SCALED_ELU", "float32", (3,), {"Alpha": 1.6732, "Gamma": 1.0507})
    assert struct.unpack_from("<ff", C.string_at(selu.desc.Desc, 24), 16) == (
        float(np.float32(1.6732)), float(np.float32(1.0507)))
    pow_ = _description("ELEMENT_WISE_CONSTANT_POW", "float32", (6,), {"ScaleBias": None, "Exponent": 0.5})
    raw = C.string_at(pow_.desc.Desc, 32)
    assert struct.unpack_from("<Q", raw, 16)[0] == 0  # a null ScaleBias pointer: the page's _Maybenull_
    assert struct.unpack_from("<f", raw, 24)[0] == 0.5
    clip = _description("ELEMENT_WISE_CLIP", "int64", (11,), {"ScaleBias": None, "Min": -3.7, "Max": 5.9})
    assert clip.fields()["DataType"] == abi.DML_TENSOR_DATA_TYPE_INT64 == 11
    assert clip.key != _description("ELEMENT_WISE_CLIP", "int64", (11,),
                                    {"ScaleBias": {"Scale": 1.0, "Bias": 0.0}, "Min": -3.7, "Max": 5.9}).key


def _spec(name, parameters, **changes):
    """A spec of another DirectML operator (not a shipped one): the kinds the seed operators lack."""
    import dataclasses
    return dataclasses.replace(specs.get("ACTIVATION_CELU"), name=name, struct=f"DML_{name}_OPERATOR_DESC",
                               parameters=parameters, **changes)


def test_enum_field_and_an_output_type_of_its_own():
    from conformance.specs.base import Parameter
    modes = {"DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN": 0, "DML_ROUNDING_MODE_TOWARD_ZERO": 1,
             "DML_ROUNDING_MODE_TOWARD_INFINITY": 2}  # DirectML.h, enum DML_ROUNDING_MODE
    rounding = _spec("ELEMENT_WISE_ROUND", (Parameter("RoundingMode", "enum", "DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN",
                                                      "", choices=tuple(modes), enum_values=modes),))
    d = _description(None, "float16", (5,), {"RoundingMode": "DML_ROUNDING_MODE_TOWARD_INFINITY"}, spec=rounding)
    assert d.desc.Type == abi.DML_OPERATOR_ELEMENT_WISE_ROUND and C.sizeof(d.struct) == 24
    assert struct.unpack_from("<i", C.string_at(d.desc.Desc, 24), 16)[0] == 2
    with pytest.raises(ValueError, match="not one of"):
        _description(None, "float16", (5,), {"RoundingMode": "DML_ROUNDING_MODE_UP"}, spec=rounding)
    is_nan = _spec("ELEMENT_WISE_IS_NAN", (), output_dtype=lambda dtype: "uint8")
    d = _description(None, "float32", (2, 5), spec=is_nan)
    assert C.sizeof(d.struct) == 16 and d.fields()["OutputDataType"] == abi.DML_TENSOR_DATA_TYPE_UINT8
    assert d.input.buffer.DataType == abi.DML_TENSOR_DATA_TYPE_FLOAT32
    assert d.output.total_bytes == calc_buffer_tensor_size("uint8", (2, 5)) == 12 and d.input.total_bytes == 40
    assert d.key != _description(None, "float32", (2, 5), spec=_spec("ELEMENT_WISE_IS_NAN", ())).key


def test_typed_scalar_fields_hold_their_type_exactly():
    """DML_SCALAR_UNION fields typed by a DML_TENSOR_DATA_TYPE field: an int64 bound no double holds,
    a float16 bound in the union's first two bytes; an unset one takes what Parameter.unset says."""
    from conformance.specs.base import SCALE_BIAS, Parameter
    clip1 = _spec("ELEMENT_WISE_CLIP1", (
        SCALE_BIAS, Parameter("MinMaxDataType", "data_type", None, "", unset=lambda dtype: dtype),
        Parameter("Min", "scalar", None, "", typed_by="MinMaxDataType",
                  unset=lambda dtype: int(np.iinfo(dtype).min)),
        Parameter("Max", "scalar", None, "", typed_by="MinMaxDataType")))
    d = _description(None, "int64", (4,), {"Max": 9007199254740993}, spec=clip1)
    raw = C.string_at(d.desc.Desc, 48)
    assert C.sizeof(d.struct) == 48 and struct.unpack_from("<Q", raw, 16)[0] == 0
    assert struct.unpack_from("<i", raw, 24)[0] == abi.DML_TENSOR_DATA_TYPE_INT64
    assert struct.unpack_from("<qq", raw, 32) == (-(1 << 63), 9007199254740993)
    assert d.fields()["Min"] == -(1 << 63) and d.fields()["Max"] == 9007199254740993
    half = _description(None, "float16", (4,), {"MinMaxDataType": "float16", "Min": -1.5, "Max": 0.1},
                        spec=clip1)
    raw = C.string_at(half.desc.Desc, 48)
    assert raw[32:40] == np.float16(-1.5).tobytes() + bytes(6) and raw[40:42] == np.float16(0.1).tobytes()
    with pytest.raises(ValueError, match="not a uint8 value"):
        _description(None, "uint8", (4,), {"Min": 0, "Max": 256}, spec=clip1)
    with pytest.raises(ValueError, match="Max is unset"):
        _description(None, "int8", (4,), {}, spec=clip1)


def test_uint_and_int_fields():
    from conformance.specs.base import Parameter
    op = _spec("ELEMENT_WISE_BIT_COUNT", (Parameter("Count", "uint", 3, ""), Parameter("Offset", "int", -2, "")))
    d = _description(None, "uint32", (4,), {}, spec=op)
    assert struct.unpack_from("<Ii", C.string_at(d.desc.Desc, 24), 16) == (3, -2)
    for wrong in ({"Count": -1}, {"Count": 1 << 32}, {"Offset": 1 << 31}, {"Count": 2.5}):
        with pytest.raises(ValueError, match="is not a U?INT"):
            _description(None, "uint32", (4,), wrong, spec=op)


def test_an_operator_directml_h_lacks_is_not_reachable():
    with pytest.raises(layout.NoDescription, match="DML_OPERATOR_ELEMENT_WISE_NOT_IN_THE_HEADER"):
        _description(None, spec=_spec("ELEMENT_WISE_NOT_IN_THE_HEADER", ()))


def test_description_refuses_unknown_fields():
    with pytest.raises(KeyError):
        _description("ACTIVATION_CELU", "float32", (3,), {"Alpha": 1.0, "ScaleBias": {"Scale": 1, "Bias": 0}})
    with pytest.raises(KeyError):
        _description("NOT_AN_OPERATOR", "float32", (3,), {})
    request = layout.request(specs.get("ACTIVATION_CELU"), "float32", (3,), {})
    with pytest.raises(KeyError, match="no field"):
        OperatorDescription.from_case({**request, "params": {"Alpha": 1.0, "Beta": 2.0}})
    with pytest.raises(KeyError, match="no value for Alpha"):
        OperatorDescription.from_case({**request, "params": {}})


def test_hresult_names():
    assert describe(0x80070057) == "E_INVALIDARG (0x80070057)"
    assert name(-2147024809) == "E_INVALIDARG"  # the signed value ctypes returns
    assert name(0x887A0005) == "DXGI_ERROR_DEVICE_REMOVED"
    error = HResultError("IDMLDevice::CreateOperator", -2147024809)
    assert error.refusal and not error.device_lost and "E_INVALIDARG" in str(error)
    assert HResultError("x", 0x887A0006).device_lost


def test_a_wrong_layout_stops_the_import_even_under_python_O():
    """build() checks the x64 layouts with real checks, not asserts that `python -O` removes."""
    code = "from conformance.dmldirect import abi; abi.X64_SIZES['LUID'] = 12; abi.build()"
    done = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True)
    assert done.returncode != 0
    assert "LayoutMismatch: LUID: sizeof 8, x64 header layout says 12" in done.stderr, done.stderr


class _Tile(C.Structure):
    """DirectML.h's DML_TILE_OPERATOR_DESC, written here from the header, not from abi.py."""
    _fields_ = [("InputTensor", C.c_void_p), ("OutputTensor", C.c_void_p), ("RepeatsCount", C.c_uint),
                ("Repeats", C.POINTER(C.c_uint))]


class _Reduce(C.Structure):
    """DirectML.h's DML_REDUCE_OPERATOR_DESC: Function before the tensors, then AxisCount and Axes."""
    _fields_ = [("Function", C.c_int), ("InputTensor", C.c_void_p), ("OutputTensor", C.c_void_p),
                ("AxisCount", C.c_uint), ("Axes", C.POINTER(C.c_uint))]


def test_an_array_field_is_count_and_pointer_byte_for_byte_as_the_header_lays_out_tile():
    from conformance.specs.base import Parameter
    tile = _spec("TILE", (Parameter("Repeats", "uint_array", None, "", count="RepeatsCount"),),
                 output_shapes_rule=lambda shapes, p: (tuple(n * r for n, r in zip(shapes[0], p["Repeats"])),))
    assert layout.layout(tile)["fields"] == [["InputTensor", "tensor"], ["OutputTensor", "tensor"],
                                             ["RepeatsCount", "count"], ["Repeats", "uint_array"]]
    d = _description(None, "float32", (2, 3), {"Repeats": [2, 3]}, spec=tile)
    assert d.desc.Type == abi.DML_OPERATOR_TILE and C.sizeof(d.struct) == C.sizeof(_Tile) == 32
    repeats = (C.c_uint * 2)(2, 3)
    header = _Tile(d.inputs[0].address, d.output.address, 2, C.cast(repeats, C.POINTER(C.c_uint)))
    raw = C.string_at(d.desc.Desc, 32)
    pointer = struct.unpack_from("<Q", raw, 24)[0]
    assert raw[:24] == bytes(header)[:24] and raw[20:24] == bytes(4)  # the padding before the pointer
    assert list((C.c_uint * 2).from_address(pointer)) == [2, 3] == d.fields()["Repeats"]
    assert d.fields()["RepeatsCount"] == 2
    shaped = OperatorDescription.from_case(layout.request(tile, "float32", (2, 3), {"Repeats": [2, 3]},
                                                          output_shape=(4, 9)))
    assert list(shaped.output.buffer.Sizes[:2]) == [4, 9] and shaped.output.total_bytes == 4 * 36
    assert shaped.key != d.key
    empty = _description(None, "float32", (2, 3), {"Repeats": []}, spec=tile)
    assert struct.unpack_from("<IIQ", C.string_at(empty.desc.Desc, 32), 16) == (0, 0, 0)  # count 0, NULL


def test_fields_in_the_header_s_order_with_tensors_not_first_as_reduce():
    from conformance.specs.base import Parameter
    functions = {"DML_REDUCE_FUNCTION_ARGMAX": 0, "DML_REDUCE_FUNCTION_SUM": 10}  # DirectML.h, DML_REDUCE_FUNCTION
    reduce = _spec("REDUCE", (Parameter("Function", "enum", "DML_REDUCE_FUNCTION_SUM", "", choices=tuple(functions),
                                        enum_values=functions),
                              Parameter("Axes", "uint_array", None, "", count="AxisCount")),
                   struct_order=("Function", "InputTensor", "OutputTensor", "AxisCount", "Axes"))
    d = _description(None, "float32", (2, 3, 4), {"Axes": [1, 2]}, spec=reduce)
    assert C.sizeof(d.struct) == C.sizeof(_Reduce) == 40
    axes = (C.c_uint * 2)(1, 2)
    header = _Reduce(10, d.inputs[0].address, d.output.address, 2, C.cast(axes, C.POINTER(C.c_uint)))
    raw = C.string_at(d.desc.Desc, 40)
    assert raw[:32] == bytes(header)[:32]
    assert list((C.c_uint * 2).from_address(struct.unpack_from("<Q", raw, 32)[0])) == [1, 2]
    with pytest.raises(ValueError, match="struct_order"):
        layout.layout(_spec("REDUCE", reduce.parameters, struct_order=("Function", "InputTensor", "Axes")))


class _Upsample2D(C.Structure):
    """DirectML.h's DML_UPSAMPLE_2D_OPERATOR_DESC: a DML_SIZE_2D {UINT Width; UINT Height} held by value."""
    _fields_ = [("InputTensor", C.c_void_p), ("OutputTensor", C.c_void_p), ("ScaleWidth", C.c_uint),
                ("ScaleHeight", C.c_uint), ("InterpolationMode", C.c_int)]


class _Resample3(C.Structure):
    """DirectML.h's DML_RESAMPLE3_OPERATOR_DESC: two enums, a count, three FLOAT arrays, a BOOL last."""
    _fields_ = [("InputTensor", C.c_void_p), ("OutputTensor", C.c_void_p), ("InterpolationMode", C.c_int),
                ("RoundingDirection", C.c_int), ("DimensionCount", C.c_uint), ("Scales", C.POINTER(C.c_float)),
                ("InputPixelOffsets", C.POINTER(C.c_float)), ("OutputPixelOffsets", C.POINTER(C.c_float)),
                ("Antialiased", C.c_int)]


def test_a_struct_held_by_value_and_float_arrays_byte_for_byte_as_the_header_lays_out_resampling():
    up = _description("UPSAMPLE_2D", "float32", (1, 1, 2, 3), {"ScaleSize": [3, 2]})
    assert C.sizeof(up.struct) == C.sizeof(_Upsample2D) == 32 and up.desc.Type == abi.DML_OPERATOR_UPSAMPLE_2D
    header = _Upsample2D(up.inputs[0].address, up.output.address, 3, 2, 0)
    assert C.string_at(up.desc.Desc, 28) == bytes(header)[:28] and up.fields()["ScaleSize"] == [3, 2]
    params = {"RoundingDirection": "DML_AXIS_DIRECTION_DECREASING", "Scales": [2.0, 0.5],
              "InputPixelOffsets": [0.5, 0.25], "OutputPixelOffsets": [-0.5, 0.0]}
    d = _description("RESAMPLE3", "float32", (3, 4), {**params, "OutputSizes": [6, 2]})
    assert C.sizeof(d.struct) == C.sizeof(_Resample3) == 64 and d.desc.Type == abi.DML_OPERATOR_RESAMPLE3
    raw = C.string_at(d.desc.Desc, 64)
    assert struct.unpack_from("<iiI", raw, 16) == (0, 1, 2) and struct.unpack_from("<i", raw, 56) == (0,)
    for offset, name in ((32, "Scales"), (40, "InputPixelOffsets"), (48, "OutputPixelOffsets")):
        assert list((C.c_float * 2).from_address(struct.unpack_from("<Q", raw, offset)[0])) == params[name]
    assert "OutputSizes" not in d.fields()  # no field: the output tensor's sizes


def test_which_optional_tensor_is_null_is_part_of_the_compiled_operator_s_key():
    """MEAN_VARIANCE_NORMALIZATION1 with ScaleTensor bound and BiasTensor NULL, and the reverse: tensors of one
    type and shape, other binding slots. One key for both reused the first's compiled operator for the
    second, which then read its Bias as the Scale (seen on lavapipe: every output Scale * normalized)."""
    from pathlib import Path
    cases = {c.params["ScaleTensor"] + c.params["BiasTensor"]: c
             for c in load_paths([Path(__file__).resolve().parents[1] / "cases/mean_variance_normalization1.yaml"])
             if c.dtype == "float32" and c.shape == (2, 3, 4, 5) and c.params["ScaleTensor"] != c.params["BiasTensor"]}
    keys = {name: OperatorDescription.from_case(layout.request(c.op, c.dtype, c.shape, c.params, inputs=c.inputs)).key
            for name, c in cases.items()}
    assert set(keys) == {"presentabsent", "absentpresent"}, sorted(keys)
    assert keys["presentabsent"] != keys["absentpresent"]
