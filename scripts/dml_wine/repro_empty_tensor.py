"""Reproduce a DirectML (ONNX Runtime DirectML EP) fault seen under Wine + lavapipe: when one node
of a graph gets an empty tensor, another node of the same run() (both outputs fetched) with a rank-8 input returns
garbage; the next run() is right again. The dml-wine backend therefore runs empty tensors alone.

    python scripts/dml_wine/repro_empty_tensor.py --operator OP [--params JSON] [--params2 JSON] [--backend dml-wine]

Two nodes of OP (fields --params and --params2, the spec's defaults where left out), x0 rank 8.
Exit code 0: the fault is there (as documented); 1: it is gone (update docs/dml-wine-lavapipe.md).
"""
import argparse
import json
import sys

import numpy as np

import oracle
from conformance import backends, specs
from conformance.backends.ort import multi_node_model
from conformance.worker import protocol


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--operator", required=True, help="an operator with a float32 ONNX route")
    parser.add_argument("--params", type=json.loads, default={}, help="the first node's fields, as JSON")
    parser.add_argument("--params2", type=json.loads, default={}, help="the second node's fields, as JSON")
    parser.add_argument("--backend", default="dml-wine")
    args = parser.parse_args(argv)
    spec = specs.get(args.operator)
    first, second = ({**spec.defaults(), **given} for given in (args.params, args.params2))
    nodes = [spec.to_onnx("float32", first), spec.to_onnx("float32", second)]
    x0 = np.linspace(-3, 3, 31, dtype=np.float32).reshape(1, 1, 1, 1, 1, 1, 1, 31)
    expected = oracle.evaluate(spec.name, x0, "float32", **first)
    backend = backends.create(args.backend, announce=lambda m: None)
    session = {"key": "repro", "model": 0, "provider": backend.provider, "provider_options": backend.provider_options,
               "config": backend.config, "sequential_no_mem_pattern": True, "profile": False}
    results = []
    try:
        for number, (x1, create) in enumerate([(np.ones(3, np.float32), True), (np.zeros(0, np.float32), False),
                                               (np.ones(3, np.float32), False)]):
            out = protocol.Buffers()
            if create:
                out.items.append(multi_node_model(nodes, "float32"))
            feeds = {"x0": out.put(x0), "x1": out.put(x1)}
            header = {"op": "batch", "id": number, "sessions": [session] if create else [],
                      "runs": [{"session": "repro", "feeds": feeds, "fetch": ["y0", "y1"]}]}
            reply, buffers = backend.request(header, out.items, 300)
            run = reply["runs"][0]
            if not run["ok"]:
                print(f"run {number}: {run['error']}")
                return 2
            y0 = protocol.take(run["outputs"]["y0"], buffers)
            if number == 0:  # the first run against the oracle, the next ones against the first
                first_output = y0
                right = np.allclose(y0, expected, rtol=1e-3, atol=1e-6, equal_nan=True)
            else:
                right = np.array_equal(y0, first_output, equal_nan=True)
            results.append(right)
            print(f"run {number}: x0 rank 8 {list(x0.shape)}, x1 {list(x1.shape)} -> y0 "
                  f"{'right' if right else 'WRONG: ' + np.array2string(y0.ravel()[:6])}")
    finally:
        backend.close()
    return 0 if results == [True, False, True] else 1


if __name__ == "__main__":
    sys.exit(main())
