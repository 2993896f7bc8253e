"""The DML_EXECUTION_FLAGS ONNX Runtime's DirectML provider compiles a case's operator with, and which
cases its routes (dml-wine, dml-worker, dml) can therefore reach. docs/execution-flags.md quotes the
provider's source; in short, a node of dynamic shapes (every node this harness builds) is never
fused, so its kernel compiles it alone (DmlOperator::SetDmlOperatorDesc) with
DmlOperator::GetExecutionFlags(): ALLOW_HALF_PRECISION_COMPUTATION where the operator has a float16
tensor and no float32 one, DISABLE_META_COMMANDS where the provider option disable_metacommands is
true. The CPU provider is no DirectML: it runs every case, whatever its ExecutionFlags."""
from dataclasses import replace

from conformance import specs
from conformance.backends.base import NOT_REACHABLE, OK, Outcome
from conformance.specs.base import ALLOW_HALF_PRECISION, DISABLE_META_COMMANDS, EXECUTION_FLAGS, flags_of, flags_word

OPTION = "disable_metacommands"  # the provider option; its parser (ParseBoolean) takes True, true, False, false


class ProviderFlags:
    """The flags of one DirectML provider, given its provider options."""

    def __init__(self, provider_options: dict):
        self.metacommands_disabled = str((provider_options or {}).get(OPTION, "")) in ("True", "true")

    def of(self, case) -> set:
        """The flags the provider passes to CompileOperator for the case's operator."""
        spec = specs.get(case.op)
        tensors = (*spec.input_tensors(case.params), *spec.outputs_for(case.params))
        types = {spec.tensor_type(t.name, case.dtype, case.params) for t in tensors}
        flags = {ALLOW_HALF_PRECISION} if "float16" in types and "float32" not in types else set()
        return flags | ({DISABLE_META_COMMANDS} if self.metacommands_disabled else set())

    def refusal(self, case) -> Outcome | None:
        """not-reachable where the case chooses its ExecutionFlags (its spec has them) and chose other
        flags than the provider's; else None."""
        if specs.get(case.op).parameter(EXECUTION_FLAGS) is None:
            return None
        chosen, given = flags_of(case.params), self.of(case)
        if chosen == given:
            return None
        return Outcome(NOT_REACHABLE, message=(
            f"ExecutionFlags {flags_word(chosen)}: ONNX Runtime's DirectML provider compiles this operator with "
            f"{flags_word(given)} (ALLOW_HALF_PRECISION_COMPUTATION where its tensors are float16 and none float32; "
            f"DISABLE_META_COMMANDS with the provider option {OPTION}=true): docs/execution-flags.md"))

    def stamp(self, case, outcome: Outcome) -> Outcome:
        """The outcome, saying which flags the provider compiled the case's operator with where it ran
        there (OK: its placement proven)."""
        if outcome.status != OK:
            return outcome
        return replace(outcome, execution_flags=flags_word(self.of(case)))


__all__ = ["OPTION", "ProviderFlags"]
