"""The dml-direct worker's engine: cases in, DirectML outputs (or typed refusals) out.

It has the shape the Wine lane's worker loop expects of an engine (conformance.worker.server.serve):
hello() -> dict and handle(header, buffers) -> (reply, buffers), over the same frames
(conformance.worker.protocol). Requests:

  {"op": "hello"}   -> DirectML.dll, adapters, the device's feature level and data type support
  {"op": "run", "cases": [{"id", "op", "dtype", "output_dtype", "shape", "desc", "params", "in_place",
                            "in_place_input", "inputs", "output_strides", "input_arrays": [array ref, ...],
                            "execution_flags": the DML_EXECUTION_FLAGS CompileOperator gets (default 0),
                            "output_to": offset (optional)}]}
                    (desc, params, inputs: conformance/dmldirect/layout.py; one array per input tensor,
                    each of its own shape: a broadcast input is read with zero strides)
                    -> {"results": [{"id", "status", "message", "output": ref (several: "outputs": [ref]), "hresult",
                                     "padding_written" (strided output: bytes outside its elements
                                     DirectML changed), "execution_flags" (those it compiled with), ...}],
                        "timings": {"execute", "inputs", "outputs"} (seconds)}
                       status: ok | unsupported (the device refused the description: its HRESULT)
                       | error (anything else, a removed device included: the device is rebuilt)
  {"op": "debug", "action": "remove_device"}  (DMLC_WORKER_TEST_HOOKS=1 only) -> ID3D12Device5::RemoveDevice
  {"op": "exit"}

An array reference names a buffer of the frame, or an offset in the memory the harness shares
with the worker (conformance.worker.shared; {"shared": offset}), or, for an input of a streamed sweep,
the bit patterns or pair indices it is made of ({"kind": "exhaustive_float32" or
"exhaustive_float16_pairs", "bit_patterns": [first, step], "position": which input}:
conformance.caseset.inputs.streamed_input makes it here, as the harness does for its own copy).
"output_to" asks for the output in the shared memory at that offset.

Options come in the hello of the backend's command line (see worker.py): adapter (DXGI index, the
device_id of ONNX Runtime's provider options), min_feature_level, dll, heap_descriptors, debug.
"""
import os
import platform
import sys
import time
import traceback

import numpy as np

from conformance.dmldirect.describe import OperatorDescription, read_output
from conformance.dmldirect.hresult import HResultError, describe
from conformance.dmldirect.runtime import BUFFERS, SUBMIT, Device, adapters

OK, UNSUPPORTED, ERROR = "ok", "unsupported", "error"


def _protocol():
    from conformance.worker import protocol
    return protocol


class Engine:
    def __init__(self, adapter=0, min_feature_level="1_0", dll=None, heap_descriptors=4096, debug=False,
                 test_hooks=None, log=None, shared=None, submit=SUBMIT[0], buffers=BUFFERS[0]):
        self.options = {"adapter": None if adapter in (None, "", "default") else int(adapter),
                        "min_feature_level": str(min_feature_level).upper().replace("DML_FEATURE_LEVEL_", "")
                        .replace(".", "_"), "dll": dll, "heap_descriptors": int(heap_descriptors),
                        "debug": bool(debug), "submit": submit, "buffers": buffers}
        self.test_hooks = os.environ.get("DMLC_WORKER_TEST_HOOKS") == "1" if test_hooks is None else test_hooks
        self.log = log or (lambda message: None)
        self.shared = shared       # conformance.worker.shared.Region, or None
        self.device = None
        self.cache = {}            # (description key, execution flags) -> Compiled, or HResultError (a refusal)
        self.operators_compiled = 0
        self.devices_created = 0
        self.device_losses = []    # what each lost device said
        self.refusals = 0
        self._patterns = {}        # (case, position) in a request -> memory a streamed input is made in
        self._open()

    # -- device life ------------------------------------------------------------------------------
    def _open(self):
        options = self.options
        self.device = Device(adapter_index=options["adapter"], min_feature_level=options["min_feature_level"],
                             dll_path=options["dll"], heap_descriptors=options["heap_descriptors"],
                             debug=options["debug"], log=self.log, submit=options["submit"],
                             buffers=options["buffers"])
        self.devices_created += 1
        self.cache = {}

    def _recover(self, error) -> str:
        """After a lost device: say why, drop everything built on it, make a new one."""
        reason = str(error)
        try:
            d3d, dml = self.device.removed_reason()
            reason += f"; GetDeviceRemovedReason: D3D12 {describe(d3d)}, DirectML {describe(dml)}"
        except Exception as detail:  # the device may be past answering
            reason += f"; GetDeviceRemovedReason unavailable ({type(detail).__name__})"
        self.device_losses.append(reason)
        self.log(f"device lost: {reason}; recreating")
        try:
            self.device.close()
        except Exception:
            pass
        self._open()
        return reason

    # -- requests ---------------------------------------------------------------------------------
    def hello(self, probe_device=True) -> dict:
        device = self.device
        loaded = _loaded_directml()
        info = {"op": "hello", "kind": "dml-direct", "python": platform.python_version(),
                "platform": platform.platform(), "numpy": np.__version__, "pid": os.getpid(),
                "directml_dll": device.dll_path, "directml_loaded": loaded,
                "directml_dll_version": loaded["file_version"] if isinstance(loaded, dict) else _file_version(device.dll_path),
                "adapter": device.adapter_info, "adapters": _adapter_list(),
                "feature_level_max": device.feature_level_max, "min_feature_level": device.min_feature_level,
                "data_types": device.data_types, "descriptor_heap": device.heap_size,
                "metacommands": device.metacommands(),
                "vkd3d_config": os.environ.get("VKD3D_CONFIG"),  # what Wine's vkd3d read (None natively)
                "submit": self.options["submit"], "buffers": self.options["buffers"],
                "timings": {k: round(v, 4) for k, v in device.timings.items()}}
        return info

    def handle(self, header: dict, buffers: list):
        op = header.get("op")
        if op == "hello":
            return self.hello(), []
        if op == "run":
            return self.run(header, buffers)
        if op == "exit":
            return {"op": "exit", "stats": self.stats()}, []
        if op == "debug" and self.test_hooks:
            return self.debug(header), []
        return {"op": "error", "error": f"unknown request {op!r}"}, []

    def stats(self) -> dict:
        device = self.device
        return {"operators_compiled": self.operators_compiled, "devices_created": self.devices_created,
                "device_losses": self.device_losses, "refusals": self.refusals,
                "submissions": device.submissions if device else None,
                "dispatches": device.dispatches if device else None}

    def debug(self, header):
        action = header.get("action")
        if action == "remove_device":
            return {"op": "debug", "action": action, **self.device.remove_device()}
        if action == "die":  # the process ends mid-request, as a crashing driver would end it
            os._exit(3)
        return {"op": "debug", "error": f"unknown action {action!r}"}

    def run(self, header, buffers):
        protocol = _protocol()
        out = protocol.Buffers()
        cases = header.get("cases", [])
        results = [None] * len(cases)
        pending = []  # (index, Compiled, [input bytes or a ctypes view of them], the aliased input or None)
        timings = {"inputs": 0.0}
        started = time.perf_counter()
        for index, case in enumerate(cases):
            try:
                began = time.perf_counter()
                made = [self._input(ref, buffers, (index, k)) for k, ref in enumerate(case["input_arrays"])]
                xs, raws = zip(*made) if made else ((), ())
                timings["inputs"] += time.perf_counter() - began
                description = OperatorDescription.from_case(case)
            except Exception as error:
                results[index] = {"status": ERROR, "message": f"bad case: {type(error).__name__}: {error}"}
                continue
            wrong = [f"input {k} {x.dtype}{list(x.shape)} does not match the description's "
                     f"{tensor.dtype}{list(shape)}" for k, (x, tensor, shape) in
                     enumerate(zip(xs, description.inputs, description.input_shapes))
                     if tuple(x.shape) != shape or x.dtype.name != tensor.dtype]
            if wrong or len(xs) != len(description.inputs):
                results[index] = {"status": ERROR, "message": "; ".join(wrong) or
                                  f"{len(xs)} input arrays for {len(description.inputs)} input tensors"}
                continue
            self.log(f"compiling {case.get('id')}")  # the last words of a worker that hangs say where
            compiled, result = self._compiled(description, _flags(case))
            if 0 in description.shape:
                results[index] = self._empty(description, result, out)
                continue
            if result is not None:
                results[index] = result
                continue
            aliased = (case.get("in_place_input") or 0) if case.get("in_place") else None
            pending.append((index, compiled, list(raws), aliased))
        compiled_seconds = time.perf_counter() - started - timings["inputs"]
        # submit=each: a case at a time, so that the last words of a hang name its case
        batches = [[p] for p in pending] if self.device.submit_each else [pending]
        for batch in filter(None, batches):
            self.log(f"executing {len(batch)} case(s) on the device, from {cases[batch[0][0]].get('id')}")
            self._execute(batch, cases, results, out, timings)
        self.log(f"answered {len(cases)} case(s) in {time.perf_counter() - started:.3f} s")
        for index, result in enumerate(results):
            result["id"] = cases[index].get("id")
        return {"op": "run", "results": results, "stats": self.stats(),
                "compile_seconds": round(compiled_seconds, 6),
                "timings": {k: round(v, 6) for k, v in timings.items()}}, out.items

    def _input(self, reference, buffers, slot):
        """(x, what device.execute copies from: bytes, or a ctypes view of x's own memory). slot: the
        input's (case, position) in the request; a streamed input is made in that slot's memory,
        kept from request to request (fresh memory costs more under Wine than making the chunk)."""
        if "bit_patterns" in reference:
            from conformance.caseset.inputs import streamed_input
            first, step = (int(n) for n in reference["bit_patterns"])
            shape = tuple(int(n) for n in reference["shape"])
            count = int(np.prod(shape, dtype=np.int64))
            memory = self._patterns.get(slot)
            if memory is None or memory.size != count:
                memory = self._patterns[slot] = np.empty(count, np.uint32)
            x = streamed_input(reference["kind"], first, step, count, int(reference["position"]),
                               memory).reshape(shape)
        elif "shared" in reference:
            if self.shared is None:
                raise ValueError("the input lies in shared memory, which this worker has not mapped")
            x = self.shared.array(reference)
        else:
            x = _protocol().take(reference, buffers)
            return x, np.ascontiguousarray(x).tobytes()
        import ctypes
        return x, (ctypes.c_char * x.nbytes).from_buffer(x) if x.nbytes else b""

    def _compiled(self, description, flags=0):
        """(Compiled, None), or (None, result) where the device refused the description; compiled with
        these DML_EXECUTION_FLAGS, which the result says."""
        key = (description.key, flags)
        entry = self.cache.get(key)
        fields = description.fields()
        if entry is None:
            try:
                entry = self.device.compile(description, flags)
                self.operators_compiled += 1
            except HResultError as error:
                if error.device_lost:
                    reason = self._recover(error)
                    return None, {"status": ERROR, "message": f"device removed while compiling: {reason}",
                                  "hresult": describe(error.hr), "fields": fields, "execution_flags": flags}
                entry = error
                self.refusals += 1
            self.cache[key] = entry
        if isinstance(entry, HResultError):
            status = UNSUPPORTED if entry.refusal else ERROR
            empty = " (a dimension of size 0)" if 0 in description.shape else ""
            return None, {"status": status, "hresult": describe(entry.hr), "fields": fields, "execution_flags": flags,
                          "message": f"{entry.what} refused the description{empty}: {describe(entry.hr)}"}
        return entry, None

    @staticmethod
    def _empty(description, result, out):
        """A size-0 dimension: DML_BUFFER_TENSOR_DESC documents it as invalid ("Specifying a size of zero
        in any dimension is invalid, and will result in an error"). The description was offered all the
        same; the documented refusal is the conforming answer, and the empty result needs no dispatch."""
        fields = description.fields()
        if result is not None and result.get("hresult", "").startswith("E_INVALIDARG"):
            # each output empty in its own sizes and type (an output need not have the input's sizes)
            empty = [out.put(np.zeros(t.shape, dtype=t.dtype)) for t in description.outputs]
            given = {"outputs": empty} if len(empty) > 1 else {"output": empty[0]}
            return {"status": OK, **given, "fields": fields, "hresult": result["hresult"],
                    "execution_flags": result.get("execution_flags"),
                    "message": "size-0 dimension: CreateOperator refused it with E_INVALIDARG, as "
                               "DML_BUFFER_TENSOR_DESC documents; the empty output needs no dispatch"}
        if result is not None:
            return dict(result, message="size-0 dimension: expected E_INVALIDARG as DML_BUFFER_TENSOR_DESC "
                                        "documents; got: " + result.get("message", ""))
        return {"status": ERROR, "fields": fields,
                "message": "DirectML accepted a size-0 dimension, which DML_BUFFER_TENSOR_DESC documents as invalid"}

    def _execute(self, pending, cases, results, out, timings=None):
        if not pending:
            return
        timings = {} if timings is None else timings
        try:
            began = time.perf_counter()
            outputs = self.device.execute([(c, data, in_place) for _, c, data, in_place in pending])
            timings["execute"] = timings.get("execute", 0.0) + time.perf_counter() - began
        except HResultError as error:
            if not error.device_lost:
                for index, _, _, _ in pending:
                    results[index] = {"status": ERROR, "message": f"execution failed: {error}",
                                      "hresult": describe(error.hr)}
                return
            reason = self._recover(error)
            if len(pending) == 1:
                index = pending[0][0]
                results[index] = {"status": ERROR, "hresult": describe(error.hr),
                                  "message": f"device removed while executing this case: {reason}"}
                return
            # Which case took the device down? Run them one at a time on the new device.
            for index, _, data, in_place in pending:
                case = cases[index]
                description = OperatorDescription.from_case(case)
                compiled, result = self._compiled(description, _flags(case))
                if result is not None:
                    results[index] = result
                    continue
                self._execute([(index, compiled, data, in_place)], cases, results, out, timings)
            return
        except Exception as error:
            text = f"{type(error).__name__}: {error}"
            self.log(traceback.format_exc())
            for index, _, _, _ in pending:
                results[index] = {"status": ERROR, "message": f"execution failed: {text}"}
            return
        began = time.perf_counter()
        for (index, compiled, _, _), raws in zip(pending, outputs):
            case = cases[index]
            if case.get("outputs"):  # several outputs (TOP_K's values and indices), each packed, in the frame
                ys = [read_output(raw, o["dtype"], o["shape"])[0] for raw, o in zip(raws, case["outputs"])]
                results[index] = {"status": OK, "outputs": [out.put(y) for y in ys], "fields": compiled.fields,
                                  "execution_flags": compiled.flags}
                continue
            raw = raws[0]
            y, stray = read_output(raw, compiled.output_dtype, case.get("output_shape") or case["shape"],
                                   compiled.output_strides)
            where = case.get("output_to")
            reference = out.put(y) if where is None or self.shared is None else self.shared.put(where, y)
            results[index] = {"status": OK, "output": reference, "fields": compiled.fields,
                              "execution_flags": compiled.flags}
            if stray.size:  # bytes between the strided elements (or past them) that DirectML wrote
                results[index]["padding_written"] = {"bytes": int(stray.size), "region": len(raw),
                                                     "first": [int(b) for b in stray[:8]]}
        timings["outputs"] = timings.get("outputs", 0.0) + time.perf_counter() - began


def _flags(case) -> int:
    """The DML_EXECUTION_FLAGS a case asks CompileOperator for (conformance/dmldirect/layout.py)."""
    return int(case.get("execution_flags") or 0)


def _loaded_directml():
    """The DirectML.dll this process has really loaded (path, file version, sha256), or 'error: ...'."""
    try:
        from conformance.worker.devinfo import loaded_dll
        return loaded_dll() or "error: no DirectML.dll among the loaded modules"
    except Exception as error:
        return f"error: {type(error).__name__}: {error}"


def _file_version(path):
    try:
        from conformance.worker.devinfo import file_version
        return file_version(path)
    except Exception:
        return None


def _adapter_list():
    try:
        return [info for _, _, info in adapters()]
    except Exception as error:
        return [f"enumeration failed: {type(error).__name__}: {error}"]


if __name__ == "__main__":  # pragma: no cover - run through worker.py
    sys.exit("use conformance/dmldirect/worker.py")
