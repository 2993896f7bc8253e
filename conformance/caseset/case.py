"""One expanded conformance case."""
import zlib
from dataclasses import dataclass, field

import numpy as np

from conformance.caseset import inputs


@dataclass
class CaseInput:
    """One input of a case of an operator with several inputs."""
    name: str  # the page's name without "Tensor": A, B, Condition
    dtype: str
    shape: tuple  # its own shape: the case's, with 1 in each broadcast dimension
    generator: dict
    broadcast: tuple = ()  # the output dimensions it is broadcast along (zero strides on dml-direct)
    own_values: object = field(default=None, repr=False)
    # An index input: the size of the dimension each element addresses (OperatorSpec.index_bounds)
    bounds: object = field(default=None, repr=False)
    axis: int | None = None  # the dimension distinct indices differ along (OperatorSpec.index_axis)
    # Broadcast where the case names each input's shape (GEMM's C): the Sizes DirectML reads it at, the shape
    # named (its own shape has 1 in the broadcast dimensions); empty: the case's shape
    sizes: tuple = ()

    def make(self, case_seed: int):
        seed = inputs.input_seed(case_seed, self.name)
        if self.generator["kind"] == inputs.INDICES:
            return inputs.fill_indices(self.generator, self.dtype, self.shape, seed, self.bounds, self.axis)
        return inputs.fill_input(self.generator, self.dtype, self.shape, seed, self.own_values)

    def describe(self) -> dict:
        return {"name": self.name, "dtype": self.dtype, "shape": list(self.shape),
                "generator": self.generator, "broadcast": list(self.broadcast),
                **({"sizes": list(self.sizes)} if self.sizes else {})}


@dataclass
class Case:
    id: str
    op: str
    dtype: str
    shape: tuple
    params: dict  # DirectML field names, every field given (defaults filled in)
    generator: dict
    required_level: str  # the lowest feature level whose table includes (dtype, rank)
    tolerance: int  # ULP
    flush_allowed: bool = True
    nan_rule: str = "d3d"
    in_place: bool = False
    source: str = ""  # file:line of the group
    global_seed: int = 0
    own_values: object = field(default=None, repr=False)  # generator's values, if it has its own
    smoke: bool = False  # its case file's `smoke` selects it (the CI smoke suite)
    # Several inputs: CaseInput per input in the page's order (empty: one input, made from generator)
    inputs: tuple = ()
    in_place_input: str | None = None  # several inputs, in place: the input the output aliases
    # The output's strides in elements (dml-direct's DML_BUFFER_TENSOR_DESC; empty: packed). Other
    # routes have no strides: ONNX Runtime's output is packed, and the oracle is unaffected.
    output_strides: tuple = ()
    # The input's strides in elements (a case file's input_strides; empty: packed): the input is the
    # strided view of a packed storage (conformance/caseset/strides.py), which dml-direct binds so
    input_strides: tuple = ()
    # --max-elements cut this streamed sweep to a strided sample: how, in words ("" where it runs whole)
    cut: str = ""
    # Each output's shape, by the spec's shape rule (set at load; empty: one output of the case's shape)
    output_shapes: tuple = ()
    # No input tensor (FILL_VALUE_*, DIAGONAL_MATRIX; DIAGONAL_MATRIX1 without its optional InputTensor): the
    # case's shape is OutputTensor's, make_input() gives (), input_shapes is ()
    no_input: bool = False

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def input_shapes(self) -> tuple:
        """Each input's own shape, in the page's order."""
        if self.no_input:
            return ()
        return tuple(i.shape for i in self.inputs) or (tuple(self.shape),)

    @property
    def outputs(self) -> tuple:
        """Each output's shape."""
        return self.output_shapes or (tuple(self.shape),)

    @property
    def output_tensors(self) -> list:
        """Each output's name (the page's), data type and shape: [{"name", "dtype", "shape"}]."""
        from conformance import specs
        spec = specs.get(self.op)
        return [{"name": o.name, "dtype": spec.tensor_type(o.name, self.dtype, self.params), "shape": list(shape)}
                for o, shape in zip(spec.outputs_for(self.params), self.outputs)]

    @property
    def elements(self) -> int:
        """Output elements, every output's."""
        return sum(int(np.prod(shape, dtype=np.int64)) for shape in self.outputs)

    @property
    def seed(self) -> int:
        """Stable per case: the same id and global seed give the same inputs anywhere."""
        return zlib.crc32(f"{self.global_seed}:{self.id}".encode())

    @property
    def several(self) -> bool:
        return bool(self.inputs)

    def make_input(self):
        """The input tensor, or for several inputs a tuple of them in the page's order (no input: ())."""
        if self.no_input:
            return ()
        if self.inputs and inputs.streamed(self.generator):  # every pair of float16 values, made whole
            return inputs.fill(self.generator, self.dtype, self.shape, self.seed, None)
        if self.inputs:
            return tuple(i.make(self.seed) for i in self.inputs)
        if self.input_strides:
            from conformance.caseset import strides
            stored = inputs.fill(self.generator, self.dtype, (strides.storage_size(self.shape, self.input_strides),),
                                 self.seed, self.own_values)
            return strides.view(stored, self.shape, self.input_strides)
        return inputs.fill(self.generator, self.dtype, self.shape, self.seed, self.own_values)

    def oracle_params(self) -> dict:
        """The oracle's keywords: the fields that say what it computes (not ExecutionFlags), the NaN rule."""
        from conformance.specs.base import computed_fields
        return {**computed_fields(self.params), "nan_rule": self.nan_rule}

    def describe(self) -> dict:
        return {"id": self.id, "op": self.op, "dtype": self.dtype, "shape": list(self.shape),
                "rank": self.rank, "input_shapes": [list(s) for s in self.input_shapes],
                "output_shapes": [list(s) for s in self.outputs], "params": self.params, "generator": self.generator,
                "feature_level": self.required_level, "tolerance": self.tolerance,
                "flush_allowed": self.flush_allowed, "nan_rule": self.nan_rule,
                "in_place": self.in_place, "seed": self.seed, "source": self.source,
                **({"inputs": [i.describe() for i in self.inputs], "in_place_input": self.in_place_input}
                   if self.inputs else {}),
                **({"output_strides": list(self.output_strides)} if self.output_strides else {}),
                **({"input_strides": list(self.input_strides)} if self.input_strides else {}),
                **({"output_tensors": self.output_tensors} if len(self.outputs) > 1 else {}),
                **({"cut": self.cut} if self.cut else {})}
