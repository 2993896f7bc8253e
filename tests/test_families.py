"""Operator families (conformance/specs/families.py): a spec declares one, and what the judge decides
by it (the chunked, grouped and tabulated paths) asks the family, not the operator."""
from dataclasses import replace

import numpy as np

from conformance import specs
from conformance.caseset.caseload import load_file
from conformance.judge import fast
from conformance.specs import families


def test_every_shipped_operator_declares_a_known_family():
    assert len({f.name for f in families.FAMILIES}) == len(families.FAMILIES)
    for spec in specs.SPECS.values():
        assert spec.family in families.FAMILIES, spec.name
        # a family without a default shape rule: the spec gives its own; a copying family names its sources
        assert spec.family.output_shapes is not None or spec.output_shapes_rule is not None, spec.name
        assert spec.source_index is not None or not spec.family.copies, spec.name
    assert specs.get("TILE").family is families.DATA_MOVEMENT


def test_a_family_that_is_not_pointwise_takes_the_plain_path(tmp_path, monkeypatch):
    path = tmp_path / "exp.yaml"
    path.write_text("operator: ELEMENT_WISE_EXP\ngroups:\n  - dtypes: [float32]\n    shapes: [[4, 4]]\n"
                    "    inputs: [{kind: uniform}]\n")
    case, = load_file(path)
    x = case.make_input()
    actual = np.exp(x)
    verifier = fast.Verifier()
    assert fast.elementwise(case) and verifier.accelerated(case, x, actual)
    moved = replace(specs.get(case.op), family=families.DATA_MOVEMENT)
    monkeypatch.setitem(specs.SPECS, case.op, moved)
    assert not fast.elementwise(case) and not verifier.accelerated(case, x, actual)
