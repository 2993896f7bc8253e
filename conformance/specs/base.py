"""What a DirectML operator page says, as data."""
from dataclasses import dataclass, field
from typing import Callable

from conformance import featurelevels


class NotReachable(Exception):
    """The case cannot be expressed through this route (e.g. ONNX Runtime)."""


@dataclass(frozen=True)
class SupportTable:
    level: str  # the table applies from this feature level on
    ranks: tuple
    dtypes: tuple


@dataclass(frozen=True)
class Parameter:
    name: str  # the DirectML field name
    kind: str  # "float", "scale_bias", "uint", "int", "enum", "data_type" or "scalar"
    default: object
    description: str
    choices: tuple = ()  # an enum's value names
    enum_values: dict = field(default_factory=dict)  # an enum's name -> value (DirectML.h)
    typed_by: str | None = None  # a "scalar" field: the "data_type" field that types it
    # tensor data type -> what the description holds for this field when a case leaves it unset
    # (None), where the page gives no default (dml-direct writes every field)
    unset: Callable | None = None


@dataclass(frozen=True)
class OnnxNode:
    op_type: str
    opset: int
    attributes: dict = field(default_factory=dict)
    constant_inputs: tuple = ()  # numpy arrays, passed as initializers after x
    output_type: str | None = None  # the ONNX output's numpy type where it is not the input's (IsNaN: bool)


def same_type(dtype: str) -> str:
    """The output data type of an operator whose output has its input's data type."""
    return dtype


@dataclass(frozen=True)
class OperatorSpec:
    name: str  # e.g. "ACTIVATION_CELU"
    struct: str  # e.g. "DML_ACTIVATION_CELU_OPERATOR_DESC"
    formula: str
    summary: str
    parameters: tuple
    introduced: str
    tables: tuple  # SupportTable, newest first as on the page
    in_place: bool
    constraints: str
    tolerance_ulp: dict  # dtype -> ULP; integer types are exact
    onnx_route: str  # how ONNX Runtime reaches it, in words
    to_onnx: Callable  # (dtype, params) -> OnnxNode, or raises NotReachable
    source: str  # the seed page
    notes: tuple = ()
    # (dtype, params) -> list of inputs that probe this operator's edges
    special_values: Callable | None = None
    # input data type -> output data type, where the page lets them differ (IS_NAN: FLOAT32 -> UINT8)
    output_dtype: Callable[[str], str] = same_type
    # The d3d model: params (FLOAT fields as float32, ScaleBias left out) -> the formula in
    # primitives (conformance/specs/primitives.py) as DirectML's shaders compute it. None: exact.
    d3d: Callable | None = None
    keeps_sign: bool = False  # the result never has the opposite sign to the exact one
    output_range: Callable | None = None  # (params, dtype) -> (lowest, highest) the output may be
    elementwise: bool = True  # each output element depends on its input element alone
    # The integer semantics, where the page has integer types: (params, dtype) -> a function of one
    # Python int giving the exact result (the page's wrap or saturation applied; where the page is
    # silent, the documented choice), or None where the fields make it a float computation
    # (ScaleBias). Written apart from the oracle, which tests/test_registry.py holds to it.
    integers: Callable | None = None

    @property
    def dtypes(self) -> tuple:
        seen = []
        for table in self.tables:
            seen += [d for d in table.dtypes if d not in seen]
        return tuple(seen)

    @property
    def ranks(self) -> tuple:
        return tuple(sorted({r for table in self.tables for r in table.ranks}))

    def parameter(self, name: str) -> Parameter | None:
        return next((p for p in self.parameters if p.name == name), None)

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.parameters}

    def required_level(self, dtype: str, rank: int) -> str | None:
        """The lowest feature level at which the page requires (dtype, rank)."""
        levels = [t.level for t in self.tables if dtype in t.dtypes and rank in t.ranks]
        return min(levels, key=featurelevels.index) if levels else None

    def tolerance(self, dtype: str) -> int:
        return self.tolerance_ulp.get(dtype, 0)


FLOATS = ("float32", "float16")
INTEGERS_32 = ("int32", "int16", "int8", "uint32", "uint16", "uint8")
INTEGERS_64 = ("int64", "uint64")
ONE_TO_EIGHT = tuple(range(1, 9))
SCALE_BIAS = Parameter("ScaleBias", "scale_bias", None,
                       "Optional DML_SCALE_BIAS {Scale, Bias}: g(x) = x * Scale + Bias before the operator.")


def scale_bias_not_reachable(params: dict):
    if params.get("ScaleBias") is not None:
        raise NotReachable("ScaleBias: ONNX Runtime never fills DML_SCALE_BIAS "
                           "(a Mul+Add graph tests other operators)")
