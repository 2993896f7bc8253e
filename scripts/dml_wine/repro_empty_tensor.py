"""Reproduce a DirectML (ONNX Runtime DirectML EP) fault seen under Wine + lavapipe: when one node
of a graph gets an empty tensor, another node of the same run() (both outputs fetched) with a rank-8 input returns
garbage; the next run() is right again. The dml-wine backend therefore runs empty tensors alone.

    python scripts/dml_wine/repro_empty_tensor.py [--backend dml-wine]
Exit code 0: the fault is there (as documented); 1: it is gone (update docs/dml-wine-lavapipe.md).
"""
import argparse
import sys

import numpy as np

from conformance import backends, specs
from conformance.backends.ort import multi_node_model
from conformance.worker import protocol


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="dml-wine")
    args = parser.parse_args(argv)
    backend = backends.create(args.backend, announce=lambda m: None)
    clip = specs.get("ELEMENT_WISE_CLIP")
    nodes = [clip.to_onnx("float32", {"Min": -1.0, "Max": 1.0, "ScaleBias": None}),
             clip.to_onnx("float32", {"Min": -2.0, "Max": 2.0, "ScaleBias": None})]
    x0 = np.linspace(-3, 3, 31, dtype=np.float32).reshape(1, 1, 1, 1, 1, 1, 1, 31)
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
            reply, buffers = backend._channel.request(header, out.items, 300)
            run = reply["runs"][0]
            if not run["ok"]:
                print(f"run {number}: {run['error']}")
                return 2
            y0 = protocol.take(run["outputs"]["y0"], buffers)
            right = np.array_equal(y0, np.clip(x0, -1, 1))
            results.append(right)
            print(f"run {number}: x0 rank 8 {list(x0.shape)}, x1 {list(x1.shape)} -> y0 "
                  f"{'right' if right else 'WRONG: ' + np.array2string(y0.ravel()[:6])}")
    finally:
        backend.close()
    return 0 if results == [True, False, True] else 1


if __name__ == "__main__":
    sys.exit(main())
