"""The binary interface of D3D12, DXGI and DirectML, generated from transcribed header tables.

Nothing here is a hand-counted number. Each table below is a transcription, in
declaration order, of a published header:

- DirectML.h (microsoft/DirectML, DirectML 1.15 / DML_TARGET_VERSION 0x6400):
  enum DML_TENSOR_DATA_TYPE, DML_TENSOR_TYPE, DML_OPERATOR_TYPE (with its
  `#if DML_TARGET_VERSION >= 0xNNNN` blocks), DML_FEATURE, DML_FEATURE_LEVEL,
  DML_BINDING_TYPE, DML_EXECUTION_FLAGS, DML_CREATE_DEVICE_FLAGS; the
  interfaces IDMLObject .. IDMLCommandRecorder and their DML_DECLARE_INTERFACE
  uuids; the structs used here, and union DML_SCALAR_UNION. DML_OPERATOR_TYPE was checked
  entry for entry (178 names and the SCATTER alias, 0x1000 to 0x6400 blocks) against
  include/directx/DirectML.h of microsoft/DirectX-Headers at 9be295b ("Update DirectML header
  to FL6.4", 2024-07-10).
- include/d3d12.idl (Wine, wine-mirror/wine; the same order as the Windows SDK's
  d3d12.h): ID3D12Object .. ID3D12Device and their uuids, D3D12_* enums/structs.
- include/dxgi.idl (Wine; the Windows SDK's dxgi.h): IDXGIObject,
  IDXGIFactory/1, IDXGIAdapter/1, DXGI_ADAPTER_DESC1.

Enum values are computed by counting the declaration list the way a C compiler
does (an entry with `= value` resets the counter; an alias consumes no value);
vtable indices by walking each interface's inheritance chain, IUnknown first.
Struct classes are built from field tables; X64_SIZES holds the size of each
struct under the Windows x64 ABI (MSVC), which Linux x86_64 ctypes reproduces for
these POD structs, and build() checks every one (LayoutMismatch, also under python -O). An
operator's DML_*_OPERATOR_DESC is built from its field list (description_struct: the spec's
parameters after the two tensors), checked against an independent x64 layout computation
(x64_layout) and, where X64_SIZES pins it, against the header's size. tests/test_dml_direct_layout.py
re-checks all of it, and cross-checks values against independent sources.
"""
import ctypes as C
import uuid

# ---------------------------------------------------------------------------------------------
# Enums, in declaration order. ("NAME", value) pins an explicit initialiser; "=ALIAS" entries
# name an alias of the previous entry and take no value of their own.
# ---------------------------------------------------------------------------------------------

# DirectML.h: enum DML_TENSOR_DATA_TYPE
DML_TENSOR_DATA_TYPE_DECL = [
    "DML_TENSOR_DATA_TYPE_UNKNOWN", "DML_TENSOR_DATA_TYPE_FLOAT32", "DML_TENSOR_DATA_TYPE_FLOAT16",
    "DML_TENSOR_DATA_TYPE_UINT32", "DML_TENSOR_DATA_TYPE_UINT16", "DML_TENSOR_DATA_TYPE_UINT8",
    "DML_TENSOR_DATA_TYPE_INT32", "DML_TENSOR_DATA_TYPE_INT16", "DML_TENSOR_DATA_TYPE_INT8",
    "DML_TENSOR_DATA_TYPE_FLOAT64", "DML_TENSOR_DATA_TYPE_UINT64", "DML_TENSOR_DATA_TYPE_INT64",
    # #if DML_TARGET_VERSION >= 0x6300
    "DML_TENSOR_DATA_TYPE_UINT4", "DML_TENSOR_DATA_TYPE_INT4",
]

# DirectML.h: enum DML_TENSOR_TYPE
DML_TENSOR_TYPE_DECL = ["DML_TENSOR_TYPE_INVALID", "DML_TENSOR_TYPE_BUFFER"]

# DirectML.h: enum DML_TENSOR_FLAGS
DML_TENSOR_FLAGS_DECL = [("DML_TENSOR_FLAG_NONE", 0x0), ("DML_TENSOR_FLAG_OWNED_BY_DML", 0x1)]

# DirectML.h: enum DML_OPERATOR_TYPE. Blocks after the first are gated by DML_TARGET_VERSION;
# DirectML.dll 1.15 (target 0x6400) compiles them all, so all count.
DML_OPERATOR_TYPE_DECL = [
    "DML_OPERATOR_INVALID",
    "DML_OPERATOR_ELEMENT_WISE_IDENTITY", "DML_OPERATOR_ELEMENT_WISE_ABS", "DML_OPERATOR_ELEMENT_WISE_ACOS",
    "DML_OPERATOR_ELEMENT_WISE_ADD", "DML_OPERATOR_ELEMENT_WISE_ASIN", "DML_OPERATOR_ELEMENT_WISE_ATAN",
    "DML_OPERATOR_ELEMENT_WISE_CEIL", "DML_OPERATOR_ELEMENT_WISE_CLIP", "DML_OPERATOR_ELEMENT_WISE_COS",
    "DML_OPERATOR_ELEMENT_WISE_DIVIDE", "DML_OPERATOR_ELEMENT_WISE_EXP", "DML_OPERATOR_ELEMENT_WISE_FLOOR",
    "DML_OPERATOR_ELEMENT_WISE_LOG", "DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND",
    "DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS", "DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN",
    "DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN", "DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT",
    "DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR", "DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR",
    "DML_OPERATOR_ELEMENT_WISE_MAX", "DML_OPERATOR_ELEMENT_WISE_MEAN", "DML_OPERATOR_ELEMENT_WISE_MIN",
    "DML_OPERATOR_ELEMENT_WISE_MULTIPLY", "DML_OPERATOR_ELEMENT_WISE_POW",
    "DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW", "DML_OPERATOR_ELEMENT_WISE_RECIP",
    "DML_OPERATOR_ELEMENT_WISE_SIN", "DML_OPERATOR_ELEMENT_WISE_SQRT", "DML_OPERATOR_ELEMENT_WISE_SUBTRACT",
    "DML_OPERATOR_ELEMENT_WISE_TAN", "DML_OPERATOR_ELEMENT_WISE_THRESHOLD",
    "DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR", "DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR",
    "DML_OPERATOR_ACTIVATION_ELU", "DML_OPERATOR_ACTIVATION_HARDMAX", "DML_OPERATOR_ACTIVATION_HARD_SIGMOID",
    "DML_OPERATOR_ACTIVATION_IDENTITY", "DML_OPERATOR_ACTIVATION_LEAKY_RELU", "DML_OPERATOR_ACTIVATION_LINEAR",
    "DML_OPERATOR_ACTIVATION_LOG_SOFTMAX", "DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU",
    "DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS", "DML_OPERATOR_ACTIVATION_RELU",
    "DML_OPERATOR_ACTIVATION_SCALED_ELU", "DML_OPERATOR_ACTIVATION_SCALED_TANH",
    "DML_OPERATOR_ACTIVATION_SIGMOID", "DML_OPERATOR_ACTIVATION_SOFTMAX", "DML_OPERATOR_ACTIVATION_SOFTPLUS",
    "DML_OPERATOR_ACTIVATION_SOFTSIGN", "DML_OPERATOR_ACTIVATION_TANH",
    "DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU", "DML_OPERATOR_CONVOLUTION", "DML_OPERATOR_GEMM",
    "DML_OPERATOR_REDUCE", "DML_OPERATOR_AVERAGE_POOLING", "DML_OPERATOR_LP_POOLING",
    "DML_OPERATOR_MAX_POOLING", "DML_OPERATOR_ROI_POOLING", "DML_OPERATOR_SLICE", "DML_OPERATOR_CAST",
    "DML_OPERATOR_SPLIT", "DML_OPERATOR_JOIN", "DML_OPERATOR_PADDING", "DML_OPERATOR_VALUE_SCALE_2D",
    "DML_OPERATOR_UPSAMPLE_2D", "DML_OPERATOR_GATHER", "DML_OPERATOR_SPACE_TO_DEPTH",
    "DML_OPERATOR_DEPTH_TO_SPACE", "DML_OPERATOR_TILE", "DML_OPERATOR_TOP_K",
    "DML_OPERATOR_BATCH_NORMALIZATION", "DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION",
    "DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION", "DML_OPERATOR_LP_NORMALIZATION", "DML_OPERATOR_RNN",
    "DML_OPERATOR_LSTM", "DML_OPERATOR_GRU",
    # #if DML_TARGET_VERSION >= 0x2000
    "DML_OPERATOR_ELEMENT_WISE_SIGN", "DML_OPERATOR_ELEMENT_WISE_IS_NAN", "DML_OPERATOR_ELEMENT_WISE_ERF",
    "DML_OPERATOR_ELEMENT_WISE_SINH", "DML_OPERATOR_ELEMENT_WISE_COSH", "DML_OPERATOR_ELEMENT_WISE_TANH",
    "DML_OPERATOR_ELEMENT_WISE_ASINH", "DML_OPERATOR_ELEMENT_WISE_ACOSH", "DML_OPERATOR_ELEMENT_WISE_ATANH",
    "DML_OPERATOR_ELEMENT_WISE_IF", "DML_OPERATOR_ELEMENT_WISE_ADD1", "DML_OPERATOR_ACTIVATION_SHRINK",
    "DML_OPERATOR_MAX_POOLING1", "DML_OPERATOR_MAX_UNPOOLING", "DML_OPERATOR_DIAGONAL_MATRIX",
    "DML_OPERATOR_SCATTER_ELEMENTS", "=DML_OPERATOR_SCATTER", "DML_OPERATOR_ONE_HOT",
    "DML_OPERATOR_RESAMPLE",
    # #if DML_TARGET_VERSION >= 0x2100
    "DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT", "DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT",
    "DML_OPERATOR_ELEMENT_WISE_ROUND", "DML_OPERATOR_ELEMENT_WISE_IS_INFINITY",
    "DML_OPERATOR_ELEMENT_WISE_MODULUS_TRUNCATE", "DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR",
    "DML_OPERATOR_FILL_VALUE_CONSTANT", "DML_OPERATOR_FILL_VALUE_SEQUENCE",
    "DML_OPERATOR_CUMULATIVE_SUMMATION", "DML_OPERATOR_REVERSE_SUBSEQUENCES",
    "DML_OPERATOR_GATHER_ELEMENTS", "DML_OPERATOR_GATHER_ND", "DML_OPERATOR_SCATTER_ND",
    "DML_OPERATOR_MAX_POOLING2", "DML_OPERATOR_SLICE1", "DML_OPERATOR_TOP_K1",
    "DML_OPERATOR_DEPTH_TO_SPACE1", "DML_OPERATOR_SPACE_TO_DEPTH1",
    "DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1", "DML_OPERATOR_RESAMPLE1",
    "DML_OPERATOR_MATRIX_MULTIPLY_INTEGER", "DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY",
    "DML_OPERATOR_CONVOLUTION_INTEGER", "DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION",
    # #if DML_TARGET_VERSION >= 0x3000
    "DML_OPERATOR_ELEMENT_WISE_BIT_AND", "DML_OPERATOR_ELEMENT_WISE_BIT_OR",
    "DML_OPERATOR_ELEMENT_WISE_BIT_XOR", "DML_OPERATOR_ELEMENT_WISE_BIT_NOT",
    "DML_OPERATOR_ELEMENT_WISE_BIT_COUNT", "DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL",
    "DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", "DML_OPERATOR_ACTIVATION_CELU",
    "DML_OPERATOR_ACTIVATION_RELU_GRAD", "DML_OPERATOR_AVERAGE_POOLING_GRAD",
    "DML_OPERATOR_MAX_POOLING_GRAD", "DML_OPERATOR_RANDOM_GENERATOR", "DML_OPERATOR_NONZERO_COORDINATES",
    "DML_OPERATOR_RESAMPLE_GRAD", "DML_OPERATOR_SLICE_GRAD", "DML_OPERATOR_ADAM_OPTIMIZER",
    "DML_OPERATOR_ARGMIN", "DML_OPERATOR_ARGMAX", "DML_OPERATOR_ROI_ALIGN", "DML_OPERATOR_GATHER_ND1",
    # #if DML_TARGET_VERSION >= 0x3100
    "DML_OPERATOR_ELEMENT_WISE_ATAN_YX", "DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD",
    "DML_OPERATOR_ELEMENT_WISE_DIFFERENCE_SQUARE", "DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD",
    "DML_OPERATOR_CUMULATIVE_PRODUCT", "DML_OPERATOR_BATCH_NORMALIZATION_GRAD",
    # #if DML_TARGET_VERSION >= 0x4000
    "DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD", "DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR",
    "DML_OPERATOR_ROI_ALIGN1",
    # #if DML_TARGET_VERSION >= 0x4100
    "DML_OPERATOR_ROI_ALIGN_GRAD", "DML_OPERATOR_BATCH_NORMALIZATION_TRAINING",
    "DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD",
    # #if DML_TARGET_VERSION >= 0x5000
    "DML_OPERATOR_ELEMENT_WISE_CLIP1", "DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1", "DML_OPERATOR_PADDING1",
    "DML_OPERATOR_ELEMENT_WISE_NEGATE",
    # #if DML_TARGET_VERSION >= 0x5100
    "DML_OPERATOR_ACTIVATION_GELU", "DML_OPERATOR_ACTIVATION_SOFTMAX1", "DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1",
    "DML_OPERATOR_ACTIVATION_HARDMAX1", "DML_OPERATOR_RESAMPLE2", "DML_OPERATOR_RESAMPLE_GRAD1",
    "DML_OPERATOR_DIAGONAL_MATRIX1",
    # #if DML_TARGET_VERSION >= 0x6100
    "DML_OPERATOR_MULTIHEAD_ATTENTION",
    # #if DML_TARGET_VERSION >= 0x6200
    "DML_OPERATOR_LP_POOLING1", "DML_OPERATOR_AVERAGE_POOLING1", "DML_OPERATOR_ACTIVATION_SWISH",
    "DML_OPERATOR_ACTIVATION_HARD_SWISH", "DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING",
    "DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT",
    # #if DML_TARGET_VERSION >= 0x6300
    "DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2", "DML_OPERATOR_MULTIHEAD_ATTENTION1",
    "DML_OPERATOR_QUANTIZE", "DML_OPERATOR_DEQUANTIZE",
    # #if DML_TARGET_VERSION >= 0x6400
    "DML_OPERATOR_RESAMPLE3", "DML_OPERATOR_FOLD", "DML_OPERATOR_UNFOLD",
]

# DirectML.h: enum DML_FEATURE_LEVEL (explicit values)
DML_FEATURE_LEVEL_DECL = [(f"DML_FEATURE_LEVEL_{major}_{minor}", (major << 12) | (minor << 8))
                          for major, minor in ((1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (4, 0), (4, 1),
                                               (5, 0), (5, 1), (5, 2), (6, 0), (6, 1), (6, 2), (6, 3),
                                               (6, 4))]

# DirectML.h: enum DML_FEATURE
DML_FEATURE_DECL = ["DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT", "DML_FEATURE_FEATURE_LEVELS"]

# DirectML.h: enum DML_BINDING_TYPE
DML_BINDING_TYPE_DECL = ["DML_BINDING_TYPE_NONE", "DML_BINDING_TYPE_BUFFER", "DML_BINDING_TYPE_BUFFER_ARRAY"]

# DirectML.h: enum DML_EXECUTION_FLAGS, DML_CREATE_DEVICE_FLAGS
DML_EXECUTION_FLAGS_DECL = [("DML_EXECUTION_FLAG_NONE", 0), ("DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION", 0x1),
                            ("DML_EXECUTION_FLAG_DISABLE_META_COMMANDS", 0x2),
                            ("DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE", 0x4)]
DML_CREATE_DEVICE_FLAGS_DECL = [("DML_CREATE_DEVICE_FLAG_NONE", 0), ("DML_CREATE_DEVICE_FLAG_DEBUG", 0x1)]

# DirectML.h constants
DML_TENSOR_DIMENSION_COUNT_MAX = 5
DML_TENSOR_DIMENSION_COUNT_MAX1 = 8
DML_TEMPORARY_BUFFER_ALIGNMENT = 256
DML_PERSISTENT_BUFFER_ALIGNMENT = 256
DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16

# d3d12.idl / d3dcommon.idl enums used here (explicit values in the idl)
D3D12_DECL = [
    ("D3D_FEATURE_LEVEL_11_0", 0xB000),          # d3dcommon.idl D3D_FEATURE_LEVEL
    ("D3D12_COMMAND_LIST_TYPE_DIRECT", 0), ("D3D12_COMMAND_LIST_TYPE_COMPUTE", 2),
    ("D3D12_COMMAND_QUEUE_FLAG_NONE", 0), ("D3D12_COMMAND_QUEUE_PRIORITY_NORMAL", 0),
    ("D3D12_HEAP_TYPE_DEFAULT", 1), ("D3D12_HEAP_TYPE_UPLOAD", 2), ("D3D12_HEAP_TYPE_READBACK", 3),
    ("D3D12_CPU_PAGE_PROPERTY_UNKNOWN", 0), ("D3D12_MEMORY_POOL_UNKNOWN", 0), ("D3D12_HEAP_FLAG_NONE", 0),
    ("D3D12_RESOURCE_DIMENSION_BUFFER", 1), ("D3D12_TEXTURE_LAYOUT_ROW_MAJOR", 1),
    ("D3D12_RESOURCE_FLAG_NONE", 0), ("D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS", 0x4),
    ("D3D12_RESOURCE_STATE_COMMON", 0), ("D3D12_RESOURCE_STATE_UNORDERED_ACCESS", 0x8),
    ("D3D12_RESOURCE_STATE_COPY_DEST", 0x400), ("D3D12_RESOURCE_STATE_COPY_SOURCE", 0x800),
    # GENERIC_READ = VERTEX_AND_CONSTANT_BUFFER | INDEX_BUFFER | NON_PIXEL_SHADER_RESOURCE
    #              | PIXEL_SHADER_RESOURCE | INDIRECT_ARGUMENT | COPY_SOURCE
    ("D3D12_RESOURCE_STATE_GENERIC_READ", 0x1 | 0x2 | 0x40 | 0x80 | 0x200 | 0x800),
    ("D3D12_RESOURCE_BARRIER_TYPE_TRANSITION", 0), ("D3D12_RESOURCE_BARRIER_TYPE_ALIASING", 1),
    ("D3D12_RESOURCE_BARRIER_TYPE_UAV", 2), ("D3D12_RESOURCE_BARRIER_FLAG_NONE", 0),
    ("D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES", 0xFFFFFFFF),
    ("D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV", 0), ("D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE", 0x1),
    ("DXGI_FORMAT_UNKNOWN", 0), ("DXGI_ADAPTER_FLAG_SOFTWARE", 0x2),
]


def enum_values(decl) -> dict:
    """Values of a C enum from its declaration list (see the table notes above)."""
    values, counter, last = {}, 0, None
    for entry in decl:
        if isinstance(entry, tuple):
            name, counter = entry
        elif entry.startswith("="):
            values[entry[1:]] = last  # alias: same value, the counter does not move
            continue
        else:
            name = entry
        values[name] = last = counter
        counter += 1
    return values


ENUMS = {}
for _decl in (DML_TENSOR_DATA_TYPE_DECL, DML_TENSOR_TYPE_DECL, DML_TENSOR_FLAGS_DECL, DML_OPERATOR_TYPE_DECL,
              DML_FEATURE_LEVEL_DECL, DML_FEATURE_DECL, DML_BINDING_TYPE_DECL, DML_EXECUTION_FLAGS_DECL,
              DML_CREATE_DEVICE_FLAGS_DECL, D3D12_DECL):
    ENUMS.update(enum_values(_decl))
globals().update(ENUMS)

# numpy dtype name -> DML_TENSOR_DATA_TYPE
DATA_TYPES = {name: ENUMS[f"DML_TENSOR_DATA_TYPE_{name.upper()}"] for name in
              ("float32", "float16", "float64", "int8", "int16", "int32", "int64",
               "uint8", "uint16", "uint32", "uint64")}
FEATURE_LEVELS = {name.removeprefix("DML_FEATURE_LEVEL_"): value for name, value in enum_values(DML_FEATURE_LEVEL_DECL).items()}


def level_name(value: int) -> str:
    return f"{value >> 12}_{(value >> 8) & 0xF}"


# ---------------------------------------------------------------------------------------------
# Interfaces: name -> (parent, uuid, methods in declaration order)
# ---------------------------------------------------------------------------------------------
INTERFACES = {
    "IUnknown": (None, "00000000-0000-0000-c000-000000000046", ["QueryInterface", "AddRef", "Release"]),
    # d3d12.idl
    "ID3D12Object": ("IUnknown", "c4fec28f-7966-4e95-9f94-f431cb56c3b8",
                     ["GetPrivateData", "SetPrivateData", "SetPrivateDataInterface", "SetName"]),
    "ID3D12DeviceChild": ("ID3D12Object", "905db94b-a00c-4140-9df5-2b64ca9ea357", ["GetDevice"]),
    "ID3D12Pageable": ("ID3D12DeviceChild", "63ee58fb-1268-4835-86da-f008ce62f0d6", []),
    "ID3D12Resource": ("ID3D12Pageable", "696442be-a72e-4059-bc79-5b5c98040fad",
                       ["Map", "Unmap", "GetDesc", "GetGPUVirtualAddress", "WriteToSubresource",
                        "ReadFromSubresource", "GetHeapProperties"]),
    "ID3D12CommandList": ("ID3D12DeviceChild", "7116d91c-e7e4-47ce-b8c6-ec8168f437e5", ["GetType"]),
    "ID3D12DescriptorHeap": ("ID3D12Pageable", "8efb471d-616c-4f49-90f7-127bb763fa51",
                             ["GetDesc", "GetCPUDescriptorHandleForHeapStart",
                              "GetGPUDescriptorHandleForHeapStart"]),
    "ID3D12GraphicsCommandList": ("ID3D12CommandList", "5b160d0f-ac1b-4185-8ba8-b3ae42a5a455",
                                  ["Close", "Reset", "ClearState", "DrawInstanced", "DrawIndexedInstanced",
                                   "Dispatch", "CopyBufferRegion", "CopyTextureRegion", "CopyResource",
                                   "CopyTiles", "ResolveSubresource", "IASetPrimitiveTopology",
                                   "RSSetViewports", "RSSetScissorRects", "OMSetBlendFactor",
                                   "OMSetStencilRef", "SetPipelineState", "ResourceBarrier", "ExecuteBundle",
                                   "SetDescriptorHeaps", "SetComputeRootSignature",
                                   "SetGraphicsRootSignature"]),
    "ID3D12CommandQueue": ("ID3D12Pageable", "0ec870a6-5d7e-4c22-8cfc-5baae07616ed",
                           ["UpdateTileMappings", "CopyTileMappings", "ExecuteCommandLists", "SetMarker",
                            "BeginEvent", "EndEvent", "Signal", "Wait", "GetTimestampFrequency",
                            "GetClockCalibration", "GetDesc"]),
    "ID3D12Fence": ("ID3D12Pageable", "0a753dcf-c4d8-4b91-adf6-be5a60d95a76",
                    ["GetCompletedValue", "SetEventOnCompletion", "Signal"]),
    "ID3D12CommandAllocator": ("ID3D12Pageable", "6102dee4-af59-4b09-b999-b44d73f09b24", ["Reset"]),
    "ID3D12Device": ("ID3D12Object", "189819f1-1db6-4b57-be54-1821339b85f7",
                     ["GetNodeCount", "CreateCommandQueue", "CreateCommandAllocator",
                      "CreateGraphicsPipelineState", "CreateComputePipelineState", "CreateCommandList",
                      "CheckFeatureSupport", "CreateDescriptorHeap", "GetDescriptorHandleIncrementSize",
                      "CreateRootSignature", "CreateConstantBufferView", "CreateShaderResourceView",
                      "CreateUnorderedAccessView", "CreateRenderTargetView", "CreateDepthStencilView",
                      "CreateSampler", "CopyDescriptors", "CopyDescriptorsSimple", "GetResourceAllocationInfo",
                      "GetCustomHeapProperties", "CreateCommittedResource", "CreateHeap",
                      "CreatePlacedResource", "CreateReservedResource", "CreateSharedHandle",
                      "OpenSharedHandle", "OpenSharedHandleByName", "MakeResident", "Evict", "CreateFence",
                      "GetDeviceRemovedReason", "GetCopyableFootprints", "CreateQueryHeap",
                      "SetStablePowerState", "CreateCommandSignature", "GetResourceTiling", "GetAdapterLuid"]),
    "ID3D12Device1": ("ID3D12Device", "77acce80-638e-4e65-8895-c1f23386863e",
                      ["CreatePipelineLibrary", "SetEventOnMultipleFenceCompletion", "SetResidencyPriority"]),
    "ID3D12Device2": ("ID3D12Device1", "30baa41e-b15b-475c-a0bb-1af5c5b64328", ["CreatePipelineState"]),
    "ID3D12Device3": ("ID3D12Device2", "81dadc15-2bad-4392-93c5-101345c4aa98",
                      ["OpenExistingHeapFromAddress", "OpenExistingHeapFromFileMapping", "EnqueueMakeResident"]),
    "ID3D12Device4": ("ID3D12Device3", "e865df17-a9ee-46f9-a463-3098315aa2e5",
                      ["CreateCommandList1", "CreateProtectedResourceSession", "CreateCommittedResource1",
                       "CreateHeap1", "CreateReservedResource1", "GetResourceAllocationInfo1"]),
    "ID3D12Device5": ("ID3D12Device4", "8b4f173b-2fea-4b80-8f58-4307191ab95d",
                      ["CreateLifetimeTracker", "RemoveDevice", "EnumerateMetaCommands",
                       "EnumerateMetaCommandParameters", "CreateMetaCommand", "CreateStateObject",
                       "GetRaytracingAccelerationStructurePrebuildInfo", "CheckDriverMatchingIdentifier"]),
    # dxgi.idl
    "IDXGIObject": ("IUnknown", "aec22fb8-76f3-4639-9be0-28eb43a67a2e",
                    ["SetPrivateData", "SetPrivateDataInterface", "GetPrivateData", "GetParent"]),
    "IDXGIFactory": ("IDXGIObject", "7b7166ec-21c7-44ae-b21a-c9ae321ae369",
                     ["EnumAdapters", "MakeWindowAssociation", "GetWindowAssociation", "CreateSwapChain",
                      "CreateSoftwareAdapter"]),
    "IDXGIFactory1": ("IDXGIFactory", "770aae78-f26f-4dba-a829-253c83d1b387", ["EnumAdapters1", "IsCurrent"]),
    "IDXGIAdapter": ("IDXGIObject", "2411e7e1-12ac-4ccf-bd14-9798e8534dc0",
                     ["EnumOutputs", "GetDesc", "CheckInterfaceSupport"]),
    "IDXGIAdapter1": ("IDXGIAdapter", "29038f61-3839-4626-91fd-086879011a05", ["GetDesc1"]),
    # DirectML.h
    "IDMLObject": ("IUnknown", "c8263aac-9e0c-4a2d-9b8e-007521a3317c",
                   ["GetPrivateData", "SetPrivateData", "SetPrivateDataInterface", "SetName"]),
    "IDMLDevice": ("IDMLObject", "6dbd6437-96fd-423f-a98c-ae5e7c2a573f",
                   ["CheckFeatureSupport", "CreateOperator", "CompileOperator", "CreateOperatorInitializer",
                    "CreateCommandRecorder", "CreateBindingTable", "Evict", "MakeResident",
                    "GetDeviceRemovedReason", "GetParentDevice"]),
    "IDMLDeviceChild": ("IDMLObject", "27e83142-8165-49e3-974e-2fd66e4cb69d", ["GetDevice"]),
    "IDMLPageable": ("IDMLDeviceChild", "b1ab0825-4542-4a4b-8617-6dde6e8f6201", []),
    "IDMLOperator": ("IDMLDeviceChild", "26caae7a-3081-4633-9581-226fbe57695d", []),
    "IDMLDispatchable": ("IDMLPageable", "dcb821a8-1039-441e-9f1c-b1759c2f3cec", ["GetBindingProperties"]),
    "IDMLCompiledOperator": ("IDMLDispatchable", "6b15e56a-bf5c-4902-92d8-da3a650afea4", []),
    "IDMLOperatorInitializer": ("IDMLDispatchable", "427c1113-435c-469c-8676-4d5dd072f813", ["Reset"]),
    "IDMLBindingTable": ("IDMLDeviceChild", "29c687dc-de74-4e3b-ab00-1168f2fc3cfc",
                         ["BindInputs", "BindOutputs", "BindTemporaryResource", "BindPersistentResource",
                          "Reset"]),
    "IDMLCommandRecorder": ("IDMLDeviceChild", "e6857a76-2e3e-4fdd-bff4-5d2ba10fb453", ["RecordDispatch"]),
}


def vtable(interface: str) -> dict:
    """method name -> vtable slot, inherited methods first (single inheritance, as COM lays out)."""
    chain = []
    name = interface
    while name is not None:
        chain.append(name)
        name = INTERFACES[name][0]
    slots = {}
    for name in reversed(chain):
        for method in INTERFACES[name][2]:
            if method in slots:
                raise ValueError(f"{interface}: method {method} declared twice in its chain")
            slots[method] = len(slots)
    return slots


VTABLES = {name: vtable(name) for name in INTERFACES}


class GUID(C.Structure):
    _fields_ = [("Data1", C.c_uint32), ("Data2", C.c_uint16), ("Data3", C.c_uint16), ("Data4", C.c_ubyte * 8)]

    @classmethod
    def parse(cls, text: str) -> "GUID":
        return cls.from_buffer_copy(uuid.UUID(text).bytes_le)

    def __str__(self):
        return str(uuid.UUID(bytes_le=bytes(self)))


IIDS = {name: GUID.parse(entry[1]) for name, entry in INTERFACES.items()}

# ---------------------------------------------------------------------------------------------
# Structs: name -> fields. Types: ctypes names, "ptr" (any pointer), "uint*" (const UINT*), another
# struct's name, or (name, count) for an array. Headers as cited per struct.
# ---------------------------------------------------------------------------------------------
_ENUM = "c_int"  # a C enum is a 4-byte int under MSVC
STRUCTS = [
    # DirectML.h
    ("DML_BUFFER_TENSOR_DESC", [("DataType", _ENUM), ("Flags", _ENUM), ("DimensionCount", "c_uint"),
                                ("Sizes", "uint*"), ("Strides", "uint*"), ("TotalTensorSizeInBytes", "c_uint64"),
                                ("GuaranteedBaseOffsetAlignment", "c_uint")]),
    ("DML_TENSOR_DESC", [("Type", _ENUM), ("Desc", "ptr")]),
    ("DML_OPERATOR_DESC", [("Type", _ENUM), ("Desc", "ptr")]),
    ("DML_SCALE_BIAS", [("Scale", "c_float"), ("Bias", "c_float")]),
    ("DML_SIZE_2D", [("Width", "c_uint"), ("Height", "c_uint")]),
    ("DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT", [("DataType", _ENUM)]),
    ("DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT", [("IsSupported", "c_int")]),
    ("DML_FEATURE_QUERY_FEATURE_LEVELS", [("RequestedFeatureLevelCount", "c_uint"), ("RequestedFeatureLevels", "ptr")]),
    ("DML_FEATURE_DATA_FEATURE_LEVELS", [("MaxSupportedFeatureLevel", _ENUM)]),
    ("D3D12_CPU_DESCRIPTOR_HANDLE", [("ptr", "c_size_t")]),      # d3d12.idl: SIZE_T ptr
    ("D3D12_GPU_DESCRIPTOR_HANDLE", [("ptr", "c_uint64")]),      # d3d12.idl: UINT64 ptr
    ("DML_BINDING_TABLE_DESC", [("Dispatchable", "ptr"), ("CPUDescriptorHandle", "D3D12_CPU_DESCRIPTOR_HANDLE"),
                                ("GPUDescriptorHandle", "D3D12_GPU_DESCRIPTOR_HANDLE"),
                                ("SizeInDescriptors", "c_uint")]),
    ("DML_BINDING_PROPERTIES", [("RequiredDescriptorCount", "c_uint"), ("TemporaryResourceSize", "c_uint64"),
                                ("PersistentResourceSize", "c_uint64")]),
    ("DML_BINDING_DESC", [("Type", _ENUM), ("Desc", "ptr")]),
    ("DML_BUFFER_BINDING", [("Buffer", "ptr"), ("Offset", "c_uint64"), ("SizeInBytes", "c_uint64")]),
    ("DML_BUFFER_ARRAY_BINDING", [("BindingCount", "c_uint"), ("Bindings", "ptr")]),
    # d3d12.idl
    ("D3D12_COMMAND_QUEUE_DESC", [("Type", _ENUM), ("Priority", "c_int"), ("Flags", _ENUM), ("NodeMask", "c_uint")]),
    ("D3D12_HEAP_PROPERTIES", [("Type", _ENUM), ("CPUPageProperty", _ENUM), ("MemoryPoolPreference", _ENUM),
                               ("CreationNodeMask", "c_uint"), ("VisibleNodeMask", "c_uint")]),
    ("DXGI_SAMPLE_DESC", [("Count", "c_uint"), ("Quality", "c_uint")]),   # dxgitype.idl
    ("D3D12_RESOURCE_DESC", [("Dimension", _ENUM), ("Alignment", "c_uint64"), ("Width", "c_uint64"),
                             ("Height", "c_uint"), ("DepthOrArraySize", "c_uint16"), ("MipLevels", "c_uint16"),
                             ("Format", _ENUM), ("SampleDesc", "DXGI_SAMPLE_DESC"), ("Layout", _ENUM),
                             ("Flags", _ENUM)]),
    ("D3D12_RESOURCE_TRANSITION_BARRIER", [("pResource", "ptr"), ("Subresource", "c_uint"),
                                           ("StateBefore", _ENUM), ("StateAfter", _ENUM)]),
    ("D3D12_RESOURCE_ALIASING_BARRIER", [("pResourceBefore", "ptr"), ("pResourceAfter", "ptr")]),
    ("D3D12_RESOURCE_UAV_BARRIER", [("pResource", "ptr")]),
    ("D3D12_DESCRIPTOR_HEAP_DESC", [("Type", _ENUM), ("NumDescriptors", "c_uint"), ("Flags", _ENUM),
                                    ("NodeMask", "c_uint")]),
    ("D3D12_RANGE", [("Begin", "c_size_t"), ("End", "c_size_t")]),
    # dxgi.idl
    ("LUID", [("LowPart", "c_uint32"), ("HighPart", "c_int32")]),
    ("DXGI_ADAPTER_DESC1", [("Description", ("c_uint16", 128)), ("VendorId", "c_uint"), ("DeviceId", "c_uint"),
                            ("SubSysId", "c_uint"), ("Revision", "c_uint"), ("DedicatedVideoMemory", "c_size_t"),
                            ("DedicatedSystemMemory", "c_size_t"), ("SharedSystemMemory", "c_size_t"),
                            ("AdapterLuid", "LUID"), ("Flags", "c_uint")]),
]

# DirectML.h: union DML_SCALAR_UNION (a "scalar" field's value, the member its data type names)
SCALAR_UNION_MEMBERS = [("Bytes", ("c_ubyte", 8)), ("Int8", "c_int8"), ("UInt8", "c_uint8"), ("Int16", "c_int16"),
                        ("UInt16", "c_uint16"), ("Int32", "c_int32"), ("UInt32", "c_uint32"), ("Int64", "c_int64"),
                        ("UInt64", "c_uint64"), ("Float32", "c_float"), ("Float64", "c_double")]

# Sizes under the Windows x64 ABI (MSVC natural alignment; pointers, SIZE_T and UINT64 are 8 bytes,
# enums, BOOL, UINT and FLOAT 4, WCHAR 2 -- so WCHAR arrays are c_uint16 here: Linux c_wchar is 4 bytes),
# worked out from the field tables above.
X64_SIZES = {
    "GUID": 16, "DML_BUFFER_TENSOR_DESC": 48, "DML_TENSOR_DESC": 16, "DML_OPERATOR_DESC": 16,
    "DML_SCALE_BIAS": 8, "DML_SCALAR_UNION": 8, "DML_SIZE_2D": 8,
    # operator descriptions (built from their specs; these pin what the header gives)
    "DML_ACTIVATION_CELU_OPERATOR_DESC": 24, "DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC": 24,
    "DML_ELEMENT_WISE_CLIP_OPERATOR_DESC": 32, "DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC": 32,
    "DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC": 24, "DML_ELEMENT_WISE_ADD1_OPERATOR_DESC": 32,
    "DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC": 24,
    "DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT": 4, "DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT": 4,
    "DML_FEATURE_QUERY_FEATURE_LEVELS": 16, "DML_FEATURE_DATA_FEATURE_LEVELS": 4,
    "D3D12_CPU_DESCRIPTOR_HANDLE": 8, "D3D12_GPU_DESCRIPTOR_HANDLE": 8, "DML_BINDING_TABLE_DESC": 32,
    "DML_BINDING_PROPERTIES": 24, "DML_BINDING_DESC": 16, "DML_BUFFER_BINDING": 24, "DML_BUFFER_ARRAY_BINDING": 16,
    "D3D12_COMMAND_QUEUE_DESC": 16, "D3D12_HEAP_PROPERTIES": 20, "DXGI_SAMPLE_DESC": 8, "D3D12_RESOURCE_DESC": 56,
    "D3D12_RESOURCE_TRANSITION_BARRIER": 24, "D3D12_RESOURCE_ALIASING_BARRIER": 16, "D3D12_RESOURCE_UAV_BARRIER": 8,
    "D3D12_RESOURCE_BARRIER": 32, "D3D12_DESCRIPTOR_HEAP_DESC": 16, "D3D12_RANGE": 16, "LUID": 8,
    "DXGI_ADAPTER_DESC1": 312,
}
# Field offsets worth pinning (padding the compiler inserts; a wrong one is a silent bad call).
X64_OFFSETS = {
    ("DML_BUFFER_TENSOR_DESC", "Sizes"): 16, ("DML_BUFFER_TENSOR_DESC", "TotalTensorSizeInBytes"): 32,
    ("DML_BUFFER_TENSOR_DESC", "GuaranteedBaseOffsetAlignment"): 40, ("DML_TENSOR_DESC", "Desc"): 8,
    ("DML_ACTIVATION_CELU_OPERATOR_DESC", "Alpha"): 16, ("DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC", "Gamma"): 20,
    ("DML_ELEMENT_WISE_CLIP_OPERATOR_DESC", "ScaleBias"): 16, ("DML_ELEMENT_WISE_CLIP_OPERATOR_DESC", "Min"): 24,
    ("DML_ELEMENT_WISE_CLIP_OPERATOR_DESC", "Max"): 28, ("DML_ELEMENT_WISE_ADD1_OPERATOR_DESC", "FusedActivation"): 24, ("DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC", "Exponent"): 24,
    ("DML_FEATURE_QUERY_FEATURE_LEVELS", "RequestedFeatureLevels"): 8,
    ("DML_BINDING_PROPERTIES", "TemporaryResourceSize"): 8, ("DML_BINDING_TABLE_DESC", "SizeInDescriptors"): 24,
    ("D3D12_RESOURCE_DESC", "Alignment"): 8, ("D3D12_RESOURCE_DESC", "Format"): 32,
    ("D3D12_RESOURCE_DESC", "Flags"): 48, ("D3D12_RESOURCE_BARRIER", "u"): 8,
    ("DXGI_ADAPTER_DESC1", "VendorId"): 256, ("DXGI_ADAPTER_DESC1", "DedicatedVideoMemory"): 272,
    ("DXGI_ADAPTER_DESC1", "AdapterLuid"): 296, ("DXGI_ADAPTER_DESC1", "Flags"): 304,
}


def _ctype(spec, built):
    if isinstance(spec, tuple):
        return _ctype(spec[0], built) * spec[1]
    if spec == "ptr":
        return C.c_void_p
    if spec == "uint*":
        return C.POINTER(C.c_uint)
    if spec in built:
        return built[spec]
    return getattr(C, spec)


class LayoutMismatch(Exception):
    """A struct's size or a field's offset differs from the x64 header layout: every call that
    passed it would hand DirectML.dll garbage."""


def build() -> dict:
    built = {"GUID": GUID}
    for name, fields in STRUCTS:
        built[name] = type(name, (C.Structure,), {"_fields_": [(f, _ctype(t, built)) for f, t in fields]})
    union = type("D3D12_RESOURCE_BARRIER_UNION", (C.Union,), {"_fields_": [
        ("Transition", built["D3D12_RESOURCE_TRANSITION_BARRIER"]),
        ("Aliasing", built["D3D12_RESOURCE_ALIASING_BARRIER"]), ("UAV", built["D3D12_RESOURCE_UAV_BARRIER"])]})
    # d3d12.idl: struct D3D12_RESOURCE_BARRIER { Type; Flags; union { Transition; Aliasing; UAV; }; }
    built["D3D12_RESOURCE_BARRIER"] = type("D3D12_RESOURCE_BARRIER", (C.Structure,), {
        "_anonymous_": ("u",), "_fields_": [("Type", C.c_int), ("Flags", C.c_int), ("u", union)]})
    built["DML_SCALAR_UNION"] = type("DML_SCALAR_UNION", (C.Union,), {"_fields_": [
        (name, _ctype(kind, built)) for name, kind in SCALAR_UNION_MEMBERS]})
    if C.sizeof(C.c_void_p) == 8:  # the x64 layouts; a 32-bit Python cannot drive a 64-bit DirectML.dll
        for name, size in X64_SIZES.items():
            if name in built:  # the operator descriptions are built from their fields (description_struct)
                _check_size(built[name], size)
        for (name, field), offset in X64_OFFSETS.items():
            if name in built:
                _check_offset(built[name], field, offset)
    return built


def _check_size(struct, size):
    actual = C.sizeof(struct)
    if actual != size:
        raise LayoutMismatch(f"{struct.__name__}: sizeof {actual}, x64 header layout says {size}")


def _check_offset(struct, field, offset):
    actual = getattr(struct, field).offset
    if actual != offset:
        raise LayoutMismatch(f"{struct.__name__}.{field}: offset {actual}, x64 header layout says {offset}")


STRUCT_TYPES = build()
globals().update(STRUCT_TYPES)

# ---------------------------------------------------------------------------------------------
# Operator descriptions. Every DML_*_OPERATOR_DESC of a one-input operator is InputTensor,
# OutputTensor, then the operator's own fields, each of one of these kinds (the spec's
# Parameter.kind): kind -> (ctypes type as in STRUCTS, x64 size, x64 alignment), from the C type
# DirectML.h gives the field.
# ---------------------------------------------------------------------------------------------
DESC_FIELD_KINDS = {
    "tensor": ("ptr", 8, 8),                      # const DML_TENSOR_DESC*
    "tensor_array": ("ptr", 8, 8),                # _Field_size_(count) const DML_TENSOR_DESC*: JOIN's InputTensors
    "absent_tensor": ("ptr", 8, 8),               # _Maybenull_ const DML_TENSOR_DESC*, left NULL by the case
    "scale_bias": ("ptr", 8, 8),                  # _Maybenull_ const DML_SCALE_BIAS*
    "fused_activation": ("ptr", 8, 8),            # _Maybenull_ const DML_OPERATOR_DESC* (its tensors NULL)
    "float": ("c_float", 4, 4),                   # FLOAT
    "uint": ("c_uint32", 4, 4),                   # UINT
    "int": ("c_int32", 4, 4),                     # INT
    "enum": (_ENUM, 4, 4),                        # a DML_* enum
    "data_type": (_ENUM, 4, 4),                   # DML_TENSOR_DATA_TYPE
    "scalar": ("DML_SCALAR_UNION", 8, 8),         # union: its INT64, UINT64 and DOUBLE members align it to 8
    "count": ("c_uint32", 4, 4),                  # UINT AxisCount, DimensionCount: the length of its arrays
    "uint_array": ("ptr", 8, 8),                  # _Field_size_(count) const UINT*
    "size_2d": ("DML_SIZE_2D", 8, 4),             # DML_SIZE_2D by value: UINT Width, UINT Height
    "int_array": ("ptr", 8, 8),                   # _Field_size_(count) const INT*
    "float_array": ("ptr", 8, 8),                 # _Field_size_(count) const FLOAT*
}
ARRAY_ELEMENTS = {"uint_array": "c_uint32", "int_array": "c_int32", "float_array": "c_float"}


def x64_layout(kinds) -> tuple:
    """(size, offsets) of a struct of fields of these kinds under MSVC's x64 rules, worked out from
    DESC_FIELD_KINDS's sizes and alignments alone (no ctypes): each field at the next multiple of
    its alignment, the size rounded up to the largest alignment."""
    offset, offsets, widest = 0, [], 1
    for kind in kinds:
        _, size, align = DESC_FIELD_KINDS[kind]
        offset = -(-offset // align) * align
        offsets.append(offset)
        offset += size
        widest = max(widest, align)
    return -(-offset // widest) * widest, offsets


_DESCRIPTION_STRUCTS = {}


def description_struct(name: str, fields) -> type:
    """The ctypes class of an operator description: name (DML_*_OPERATOR_DESC) and fields
    [(field, kind)] in declaration order. Its size and offsets are checked against x64_layout,
    and against X64_SIZES / X64_OFFSETS where those pin the header's struct."""
    key = (name, tuple((str(f), str(k)) for f, k in fields))
    struct = _DESCRIPTION_STRUCTS.get(key)
    if struct is not None:
        return struct
    unknown = [k for _, k in key[1] if k not in DESC_FIELD_KINDS]
    if unknown:
        raise ValueError(f"{name}: field kind(s) {', '.join(unknown)}; known: {', '.join(DESC_FIELD_KINDS)}")
    struct = type(name, (C.Structure,), {"_fields_": [
        (f, _ctype(DESC_FIELD_KINDS[k][0], STRUCT_TYPES)) for f, k in key[1]]})
    if C.sizeof(C.c_void_p) == 8:
        size, offsets = x64_layout([k for _, k in key[1]])
        _check_size(struct, size)
        for (field, _), offset in zip(key[1], offsets):
            _check_offset(struct, field, offset)
        if name in X64_SIZES:
            _check_size(struct, X64_SIZES[name])
        for (pinned, field), offset in X64_OFFSETS.items():
            if pinned == name:
                _check_offset(struct, field, offset)
    _DESCRIPTION_STRUCTS[key] = struct
    return struct
