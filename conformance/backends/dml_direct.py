"""`dml-direct`: each case's DirectML operator description, built field by field and executed by
DirectML.dll itself (conformance.dmldirect, ctypes), with no ONNX Runtime in between.

Every operator whose spec gives its description's fields runs (conformance/dmldirect/layout.py
derives the DML_*_OPERATOR_DESC from the spec). What it reaches that ONNX Runtime cannot: data
types an ONNX operator lacks, the ScaleBias field, operators ONNX Runtime replaces by a newer
version or has no node for, tensors of their true rank 1 to 8 (the DirectML EP pads to 4-D),
in-place execution (the output bound to the input's buffer), a device created at any minimum
feature level, and the device's own feature-level and data-type answers.

The worker (conformance/dmldirect/worker.py) runs in the Windows Python: under Wine on Linux, in
the lane that scripts/setup-dml-wine.sh provisions (its marker lane.json), or natively on Windows.
It talks the dml-wine worker's frames over a loopback socket. One worker, one DirectML device, one
descriptor heap and reusable buffers serve the whole run; a batch of cases is one submission.

Provider options (--provider-option KEY=VALUE):
  device_id=N            DXGI adapter index (default 0; 'default' lets D3D12 choose)
  vulkan_device=N        under Wine: the Vulkan physical device (vulkaninfo's GPU index) that Wine's
                         Direct3D 12 (vkd3d, VKD3D_VULKAN_DEVICE) creates the device on. Wine's DXGI lists
                         one adapter however many GPUs there are: this picks the GPU (one worker a GPU)
  min_feature_level=L    DMLCreateDevice1's minimum level (default 1_0): certify a device created there
  dll=PATH               another DirectML.dll (Windows path as the worker sees it)
  dml_release=VERSION    the DirectML.dll of a provisioned onnxruntime-directml release, named by its
                         version or the DLL's (conformance/backends/dml_releases.py), loaded by path
  timeout=SECONDS        per request (default 900)
  debug_layer=1          DML_CREATE_DEVICE_FLAG_DEBUG (needs DirectML.Debug.dll)
  submit=batch|each      batch (default): one submission per batch of cases; each: the initializer and
                         every dispatch a submission of its own, a case at a time, each logged before it
                         goes, so a hang's last words say which (slow: for diagnosis)
  buffers=shared|each    shared (default): every tensor of a submission a range of one buffer; each: a
                         buffer per tensor (as ONNX Runtime's allocator gives them)
  vkd3d_config=FLAGS     under Wine: VKD3D_CONFIG of the worker (default virtual_heaps, as dml-wine's;
                         empty: none; conformance/backends/wine_lane.py says why)
  transport=auto|tcp     how arrays cross (default auto: memory shared with the worker, else the socket)
  shared_mib=N           size of that shared memory (default 256)
  chunk_mi=N             a streamed sweep's chunk, in Mi elements (default 4, the runner's)

Transport: under Wine, arrays of at least 64 KiB cross through a file in /dev/shm that both sides
map (conformance.worker.shared; the file is removed as soon as the worker has mapped it), the
socket carrying only the JSON; a streamed sweep's chunk (run_chunk) is not sent at all: the worker
makes the bit patterns (of exhaustive_float16_pairs: both inputs, from the pair indices) itself.
Where the file cannot be made or mapped (no /dev/shm, natively on Windows), or with transport=tcp,
everything goes through the socket. The records are the same.
"""
import dataclasses
import json
import os
import secrets
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from conformance.backends import admission, dml_releases
from conformance.backends import wine_lane
from conformance.backends.base import (CRASH, ERROR, MESSAGE_CHARS, NOT_REACHABLE, OK, TIMEOUT, UNSUPPORTED,
                                       Backend, BackendUnavailable, BadInput, Outcome, number_option)
from conformance.backends.wine_lane import Process, lane_home
from conformance.caseset import inputs, strides
from conformance.dmldirect import layout
from conformance.dmldirect.runtime import BUFFERS, SUBMIT
from conformance.statuses import FAIL
from conformance.worker import shared

PACKAGE = Path(__file__).resolve().parents[1]  # conformance
WORKER = PACKAGE / "dmldirect" / "worker.py"
DEFAULT_TIMEOUT = 900.0
HELLO_TIMEOUT = 300.0
OPTIONS = ("device_id", "vulkan_device", "min_feature_level", "dll", "timeout", "debug_layer", "heap_descriptors",
           "transport", "shared_mib", "chunk_mi", "submit", "buffers", "vkd3d_config", dml_releases.OPTION)
TRANSPORTS = ("auto", "tcp")
CHOICES = {"transport": TRANSPORTS, "submit": SUBMIT, "buffers": BUFFERS}
SHARED_MIN = 64 << 10  # smaller arrays go through the socket: their copies cost less than a lookup


def lane() -> wine_lane.Lane:
    """The Wine lane where scripts/setup-dml-wine.sh puts it (lane_home(): this backend looks
    nowhere else), or BackendUnavailable saying what is missing. No Xvfb is needed where
    DML_DIRECT_DISPLAY names an X display."""
    found, reason = wine_lane.find_lane([lane_home()], need_xvfb=not os.environ.get("DML_DIRECT_DISPLAY"))
    if found is None:
        raise BackendUnavailable(f"dml-direct: {reason}")
    return found


def available():
    if sys.platform == "win32":
        try:
            import importlib.util
            spec = importlib.util.find_spec("onnxruntime")
            dll = Path(list(spec.submodule_search_locations)[0]) / "capi" / "DirectML.dll" if spec else None
        except Exception:
            dll = None
        if os.environ.get("DML_DLL") or (dll and dll.exists()):
            return True, "Windows: DirectML.dll of onnxruntime-directml, driven directly"
        return False, "Windows without DirectML.dll (install onnxruntime-directml or set DML_DLL)"
    try:
        info = lane()
    except BackendUnavailable as error:
        return False, str(error)
    return True, (f"Wine lane at {info.home}: DirectML.dll {info.marker.get('directml_dll') or ''} on "
                  f"{info.marker.get('vulkan_device') or 'Vulkan'}")


class WineLauncher(wine_lane.WineLauncher):
    """The dml-direct worker under Wine (wine_lane.WineLauncher: the lane's Windows Python in a
    pty, with its own Xvfb and prefix clone), run through Z: from a private copy of this package:
    worker.py puts the folder above the package first on the Windows Python's sys.path, and that
    folder must hold nothing else (installed, it would be site-packages, whose Linux numpy hides
    the Windows one). The copy, without the case files, takes about 30 ms."""
    marker = "dmldirect"
    workdir_prefix = "dml-direct-worker-"

    def install(self, workdir) -> Path:
        shutil.copytree(PACKAGE, workdir / PACKAGE.name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "cases", "sweeps"))
        return workdir / WORKER.relative_to(PACKAGE.parent)


class DmlDirectBackend(Backend):
    name = "dml-direct"

    def __init__(self, name: str = "dml-direct", options: dict | None = None):
        super().__init__()
        options = dict(options or {})
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise BackendUnavailable(f"dml-direct: unknown provider option(s) {', '.join(sorted(unknown))}; "
                                     f"known: {', '.join(OPTIONS)}")
        self.options = {"device_id": options.get("device_id", "0"),
                        "vulkan_device": options.get("vulkan_device"),
                        "min_feature_level": options.get("min_feature_level", "1_0"),
                        "dll": options.get("dll"),
                        "timeout": number_option("timeout", options.get("timeout", DEFAULT_TIMEOUT)),
                        "debug_layer": options.get("debug_layer") in ("1", "true", True),
                        "heap_descriptors": number_option("heap_descriptors", options.get("heap_descriptors", 4096),
                                                          int),
                        "transport": options.get("transport", "auto"),
                        "submit": options.get("submit", SUBMIT[0]), "buffers": options.get("buffers", BUFFERS[0]),
                        "vkd3d_config": str(options.get("vkd3d_config", wine_lane.VKD3D_CONFIG)),
                        "shared_mib": number_option("shared_mib", options.get("shared_mib", 256), int)}
        chunk_mi = options.get("chunk_mi")
        if chunk_mi is not None:
            self.stream_chunk = number_option("chunk_mi", chunk_mi, int) << 20  # runner._run_streamed reads it
            if self.stream_chunk <= 0:
                raise BadInput(f"--provider-option chunk_mi={chunk_mi}: expected a positive integer")
        for key, choices in CHOICES.items():
            if self.options[key] not in choices:
                raise BadInput(f"--provider-option {key}={self.options[key]}: expected one of {', '.join(choices)}")
        self.native = sys.platform == "win32"
        self.vulkan_device = None  # {index, name, uuid} of the GPU picked by vulkan_device, for the header
        vulkan_device = self.options["vulkan_device"]
        if vulkan_device is not None:
            if self.native:
                raise BadInput("--provider-option vulkan_device: Windows has no Vulkan device to pick for "
                               "Direct3D 12; give device_id=N (the DXGI adapter)")
            if not str(vulkan_device).isdigit():
                raise BadInput(f"--provider-option vulkan_device={vulkan_device}: expected a Vulkan device index "
                               "(0, 1, ...: the GPU numbers vulkaninfo --summary gives)")
            self.vulkan_device = _vulkan_device(int(vulkan_device))
        self.lane = None if self.native else lane()
        self.release, self.release_requested = self._release(options.get(dml_releases.OPTION))
        self.workdir = None  # made once the launcher's guard is there to remove it should the harness die
        self.launcher = None
        self.worker = None  # wine_lane.Process
        self.process = None  # its Popen
        self.sock = None
        self.hello = None
        self.workers_started = 0
        self.crashes = []
        self._compiled_before = 0   # operators compiled by workers that are gone
        self._last_stats = {}
        self._closing_stats = None
        self.region = None     # shared.Region of the running worker, or None: the socket carries all
        self.slots = None
        self.shared_why = None  # why there is no shared memory, where there is none
        self.last_timing = {}  # the last request's: round_trip, worker, and the worker's own timings
        try:
            if not self.native:
                env = {"LC_ALL": "C.UTF-8"}
                if vulkan_device is not None:
                    env["VKD3D_VULKAN_DEVICE"] = str(vulkan_device)
                if self.options["vkd3d_config"]:
                    env["VKD3D_CONFIG"] = self.options["vkd3d_config"]
                self.launcher = WineLauncher(self.lane, winedebug=os.environ.get("DML_DIRECT_WINEDEBUG", "-all"),
                                             env=env, args=self._worker_args(),
                                             display=os.environ.get("DML_DIRECT_DISPLAY"))
            self.workdir = (self.launcher.guard.mkdtemp("dml-direct-") if self.launcher is not None
                            else Path(tempfile.mkdtemp(prefix="dml-direct-")))
            self._start_retrying()
        except BaseException:
            self.close()  # no Xvfb, prefix clone, process or folder outlives a backend that never started
            raise

    def _start_retrying(self):
        """A worker; a second try when the first could not start DirectML (seen once under load:
        CreateDXGIFactory1 -> DXGI_ERROR_UNSUPPORTED), but not when the device itself is at fault."""
        try:
            self._start()
        except BackendUnavailable as error:
            if "DXGI_ERROR_NOT_FOUND" in str(error) or "DMLCreateDevice1" in str(error):
                raise
            self._stop(polite=False)
            time.sleep(2)
            self._start()

    def _release(self, requested):
        """(Release, requested) whose DirectML.dll this backend loads, or (None, None) for another DLL."""
        if requested is None:
            return (None, None) if self.options["dll"] or self.native else (dml_releases.newest(), None)
        if self.options["dll"]:
            raise ValueError(f"dml-direct: give {dml_releases.OPTION} or dll, not both")
        if self.native:
            raise ValueError(f"dml-direct: {dml_releases.OPTION} needs the Wine lane's releases; on Windows "
                             f"give dll=PATH")
        release = dml_releases.resolve(requested)
        ready, why = dml_releases.provisioned(self.lane.home, release)
        if not ready:
            raise BackendUnavailable(f"dml-direct: {why}")
        self.options["dll"] = wine_lane.windows_path(dml_releases.directml_dll(self.lane.home, release))
        return release, requested

    # -- the worker -------------------------------------------------------------------------------
    def _worker_args(self) -> list:
        o = self.options
        args = ["--adapter", str(o["device_id"]), "--min-feature-level", str(o["min_feature_level"]),
                "--heap-descriptors", str(o["heap_descriptors"])]
        if o["dll"]:
            args += ["--dll", o["dll"]]
        if o["debug_layer"]:
            args.append("--debug-layer")
        return args + ["--submit", o["submit"], "--buffers", o["buffers"]]

    def _launch(self, port, tag, secret_file, log, args=()) -> Process:
        if self.launcher is not None:
            return self.launcher.start(("127.0.0.1", port), tag, secret_file, log, args)
        # Natively on Windows: this Python runs the worker.
        console = open(wine_lane.console_path(log), "wb")
        popen = subprocess.Popen([sys.executable, str(WORKER), "--connect", f"127.0.0.1:{port}", "--token-file",
                                  str(secret_file), *self._worker_args(), *args, "--log", str(log)],
                                 env=dict(os.environ, DMLC_WORKER_TOKEN=tag), stdin=subprocess.DEVNULL,
                                 stdout=console, stderr=subprocess.STDOUT, start_new_session=True)
        console.close()
        return Process(popen, tag, [log, wine_lane.console_path(log)], lambda: [popen.pid])

    def _start(self):
        server = admission.listener()
        port = server.getsockname()[1]
        secret, secret_file = admission.write_secret(self.workdir)  # the workdir is mkdtemp's: 0700
        self.workers_started += 1
        self.log_path = self.workdir / f"worker{self.workers_started}.log"
        started = time.perf_counter()
        region, folder = self._offer_shared()
        try:
            self.worker = self._launch(port, secrets.token_hex(8), secret_file, self.log_path, [] if region is None
                                       else ["--shared", wine_lane.windows_path(region.path), "--shared-size",
                                             str(region.size)])
            self.process = self.worker.popen
            self._connect(server, secret, started)
        except BaseException:
            if region is not None:
                region.close()
            raise
        finally:
            server.close()
            admission.remove_secret(secret_file)
            if region is not None:
                shared.remove(folder)  # both sides keep their mappings; nothing stays in /dev/shm
        self._adopt_shared(region)

    def _offer_shared(self):
        """(Region, folder) to offer the next worker, or (None, None)."""
        if self.options["transport"] == "tcp":
            self.shared_why = "transport=tcp"
        elif self.native:
            self.shared_why = "natively on Windows (the socket carries the arrays)"
        else:
            # The guard removes the folder should the harness die before the hello.
            region, folder = shared.create(self.options["shared_mib"] << 20, claim=self.launcher.guard.adopt)
            if region is not None:
                return region, folder
            self.shared_why = folder
        return None, None

    def _adopt_shared(self, region):
        if self.region is not None:
            self.region.close()
        self.region = self.slots = None
        if region is None:
            return
        if self._hello_shared.get("mapped"):
            self.region, self.slots, self.shared_why = region, shared.Slots(region.size), None
        else:
            region.close()
            self.shared_why = f"the worker did not map it: {self._hello_shared.get('why')}"

    def _connect(self, server, secret, started):
        """Admit the worker that proves itself with secret (admission.admit): a stranger's connection
        or garbage on the port is dropped and said, and the wait goes on."""
        from conformance.worker import protocol
        self.protocol = protocol
        try:
            self.sock, hello = admission.admit(server, secret, time.monotonic() + HELLO_TIMEOUT,
                                               lambda: self.process.poll() is None,
                                               lambda line: print(f"dml-direct: {line}", file=sys.stderr, flush=True))
        except admission.NotAdmitted as error:
            raise BackendUnavailable(f"dml-direct: {error} ({self._why_gone()})") from None
        if not hello.get("ok"):
            raise BackendUnavailable(f"dml-direct: the worker could not start DirectML: "
                                     f"{hello.get('error') or hello}")
        hello["worker_start_seconds"] = round(time.perf_counter() - started, 3)
        self._hello_shared = hello.get("shared") or {}
        if self.hello is None:
            self.hello = hello

    def _last_words(self) -> str:
        """The last line of the worker's log: where it was (compiling a case, executing on the device);
        and the last lines its console got (Wine's and vkd3d's messages), if any."""
        try:
            lines = Path(self.log_path).read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError as error:
            return f"no log ({error.strerror})"
        words = lines[-1][-300:] if lines else "an empty log"
        console = wine_lane.console_path(self.log_path)
        try:
            said = console.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError:
            said = []
        return words + (f"; its console: ...{' | '.join(said[-3:])[-300:]}" if said else "")

    def _why_gone(self) -> str:
        code = self.process.poll() if self.process else None
        tail = ""
        for path in (self.log_path, wine_lane.console_path(self.log_path)):
            try:
                text = Path(path).read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                continue
            if text:
                tail += f" {Path(path).name}: ..." + " | ".join(text.splitlines()[-6:])[-600:]
        return f"exit status {code}" + tail

    def _stop(self, polite=True):
        if self.sock is not None:
            if polite:
                try:
                    self.sock.settimeout(20)
                    self.protocol.send(self.sock, {"op": "exit"})
                    reply, _ = self.protocol.recv(self.sock)
                    self._last_stats = reply.get("stats", self._last_stats)
                    self._closing_stats = dict(self._last_stats)
                except Exception:
                    pass
            self.sock.close()
            self.sock = None
        if self.process is not None:
            try:
                self.process.wait(10 if polite else 0.1)
            except subprocess.TimeoutExpired:
                pass
            if self.process.poll() is None:
                self.worker.kill()  # by its ids: `script` runs Wine in a session of its own
            self.process = self.worker = None
        self._compiled_before += int(self._last_stats.get("operators_compiled") or 0)
        self._last_stats = {}
        self._adopt_shared(None)

    def request(self, header, buffers, timeout):
        """Send, then wait for the answer while watching that the worker is alive."""
        self.sock.settimeout(60)
        self.protocol.send(self.sock, header, buffers)
        deadline = time.monotonic() + timeout
        while True:
            ready, _, _ = select.select([self.sock], [], [], 0.5)
            if ready:
                break
            if self.process.poll() is not None:
                raise ConnectionAbortedError(f"the worker process exited (status {self.process.poll()})")
            if time.monotonic() > deadline:
                raise socket.timeout()
        self.sock.settimeout(max(30.0, deadline - time.monotonic()))
        return self.protocol.recv(self.sock)

    # -- Backend ----------------------------------------------------------------------------------
    @property
    def sessions_created(self):
        return self._compiled_before + int(self._last_stats.get("operators_compiled") or 0)

    @sessions_created.setter
    def sessions_created(self, value):  # Backend.__init__ sets 0
        pass

    def metadata(self) -> dict:
        meta = self._metadata()
        if self.vulkan_device:
            meta["vulkan_device"] = self.vulkan_device
        return meta

    def _metadata(self) -> dict:
        hello = self.hello or {}
        adapter = hello.get("adapter") or {}
        meta = {"backend": self.name, "provider": "DirectML.dll, direct (conformance.dmldirect, ctypes)",
                "provider_options": {k: v for k, v in self.options.items()
                                     if v not in (None, False) and not (self.native and k == "vkd3d_config")},
                "device": adapter.get("description") if isinstance(adapter, dict) else adapter,
                "adapter": adapter, "adapters": hello.get("adapters"),
                "directml": hello.get("directml_dll_version"), "directml_dll": hello.get("directml_dll"),
                "feature_level_max": hello.get("feature_level_max"),
                "feature_level_min_requested": hello.get("min_feature_level"),
                "data_types": hello.get("data_types"), "onnxruntime": None,
                "metacommands": hello.get("metacommands"), "vkd3d_config": hello.get("vkd3d_config"),
                "windows_python": hello.get("python"), "worker_platform": hello.get("platform"),
                "worker_timings": dict(hello.get("timings") or {},
                                       worker_start_s=hello.get("worker_start_seconds")),
                "transport": self.transport()}
        meta.update(wine_lane.directml_header(hello.get("directml_loaded"), self.release, self.release_requested))
        if self.lane:
            meta["lane"] = {k: self.lane.marker.get(k) for k in ("home", "wine", "wine_package",
                                                                 "mesa_vulkan_drivers", "vulkan_device",
                                                                 "vulkan_driver")}
        return meta

    def run(self, case, x):
        return self.run_many([(case, x)])[0]

    def run_chunk(self, case, x, patterns: range):
        """A streamed chunk x (the runner's, conformance.caseset.inputs.chunks) whose bit patterns are
        `patterns`: with shared memory the worker makes them itself and x does not travel."""
        return self.run_many([(case, x)], [patterns])[0]

    def run_many(self, items, patterns=None):
        """Every case whose spec has a description layout (conformance/dmldirect/layout.py) runs."""
        outcomes = [None] * len(items)
        todo = []
        for index, (case, x) in enumerate(items):
            try:
                # x's own shape: the runner streams a huge case (exhaustive_float32, and the (A, B) of
                # exhaustive_float16_pairs) as chunks of it, and an element-wise operator computes a
                # chunk as a tensor of the chunk's shape.
                shape, given = case.shape, case.inputs
                if not isinstance(x, tuple):
                    shape = x.shape
                elif inputs.streamed(case.generator):
                    shape, given = x[0].shape, tuple(dataclasses.replace(i, shape=v.shape)
                                                     for i, v in zip(case.inputs, x))
                # An output not of the inputs' shape (another family than element-wise) has its own sizes
                request = layout.request(case.op, case.dtype, shape, case.params,
                                         case.in_place and (case.in_place_input or True), given,
                                         case.output_strides,
                                         None if case.outputs[0] == tuple(case.shape) else case.outputs[0],
                                         case.outputs, case.input_strides)
                if case.input_strides:  # the worker binds the storage the strides read x from
                    x = strides.storage(x, case.input_strides)
            except layout.NoDescription as error:
                outcomes[index] = Outcome(NOT_REACHABLE, message=str(error))
                continue
            except (KeyError, ValueError) as error:
                outcomes[index] = Outcome(ERROR, message=f"dml-direct cannot describe {case.id}: {error}")
                continue
            todo.append((index, (case, x, request, patterns[index] if patterns else None)))
        if todo:
            for (index, _), outcome in zip(todo, self._run_isolating([item for _, item in todo])):
                outcomes[index] = outcome
        return outcomes

    def _run_isolating(self, items):
        """One request; if the worker dies or hangs, a new worker retries the cases one at a time."""
        outcomes = self._send(items)
        if outcomes is not None:
            return outcomes
        failure = self._failure
        if len(items) == 1:
            return [failure]
        results = []
        for item in items:
            single = self._send([item])
            results.append(single[0] if single is not None else self._failure)
        return results

    def _wire_cases(self, items, buffers) -> list:
        """The request's cases, each input array placed in the shared memory where there is one and
        it is large enough, else in a buffer of the frame; a streamed chunk's bit patterns are made
        by the worker where its output fits in the shared memory."""
        if self.slots is not None:
            self.slots.next_request()
        cases = []
        for case, x, request, patterns in items:
            wire = {"id": case.id, **request}
            arrays = x if isinstance(x, tuple) else (x,)
            count = int(np.prod(request["output_shape"] or request["shape"], dtype=np.int64))
            output_bytes = count * np.dtype(request["output_dtype"]).itemsize
            where = self.slots.place(output_bytes) if self.slots is not None and not request["outputs"] and max(
                [output_bytes, *(v.nbytes for v in arrays)]) >= SHARED_MIN else None
            if where is not None:
                wire["output_to"] = where
            if patterns is not None and where is not None:
                wire["input_arrays"] = [{"dtype": v.dtype.name, "shape": list(v.shape), "kind": case.generator["kind"],
                                         "bit_patterns": [patterns.start, patterns.step], "position": k}
                                        for k, v in enumerate(arrays)]
            else:
                wire["input_arrays"] = [self._place(v, buffers) for v in arrays]
            cases.append(wire)
        return cases

    def _place(self, array, buffers):
        """An input array's reference: in the shared memory where it is large and fits, else in the frame."""
        at = self.slots.place(array.nbytes) if self.slots is not None and array.nbytes >= SHARED_MIN else None
        return buffers.put(array) if at is None else self.region.put(at, array)

    def _take(self, reference, out):
        """A reply's output array, copied out of the shared memory (the next request reuses it)."""
        if "shared" in reference:
            if self.region is None:
                raise self.protocol.ProtocolError("an output in shared memory, which this run has not mapped")
            return np.array(self.region.array(reference))
        return self.protocol.take(reference, out)

    def _send(self, items):
        """items: [(case, x, request, bit patterns or None)] -> outcomes, or None when the worker
        crashed or timed out (self._failure says which)."""
        if self.sock is None:
            try:
                self._start_retrying()
            except BackendUnavailable as error:
                self._failure = Outcome(CRASH, message=f"no dml-direct worker could be restarted: {error}")
                return None
        buffers = self.protocol.Buffers()
        cases = self._wire_cases(items, buffers)
        began = time.perf_counter()
        try:
            reply, out = self.request({"op": "run", "cases": cases}, buffers.items, self.options["timeout"])
        except socket.timeout:
            self.crashes.append("timeout")
            self._failure = Outcome(TIMEOUT, message=f"the dml-direct worker did not answer in "
                                                     f"{self.options['timeout']:g} s; restarted; its last words: "
                                                     f"{self._last_words()}")
            self._stop(polite=False)
            return None
        except (OSError, self.protocol.ProtocolError) as error:
            why = self._why_gone()
            self.crashes.append(why)
            self._failure = Outcome(CRASH, message=f"the dml-direct worker died ({error}; {why}); restarted")
            self._stop(polite=False)
            return None
        self._last_stats = reply.get("stats", self._last_stats)
        results = reply.get("results", [])
        outcomes = []
        for (case, _, request, _), result in zip(items, results):
            status = result.get("status")
            message = result.get("message", "")
            flags = result.get("execution_flags")
            compiled_with = None if flags is None else layout.flag_names(flags)
            if status == "ok":
                try:
                    y = tuple(self._take(r, out) for r in result["outputs"]) if "outputs" in result \
                        else self._take(result["output"], out)
                except (self.protocol.ProtocolError, ValueError) as error:
                    outcomes.append(Outcome(ERROR, message=f"the worker's output: {error}"))
                    continue
                placement = {request["desc"]["type"]: "DirectML.dll (direct)"}
                stray = result.get("padding_written")
                if stray:
                    outcomes.append(Outcome(FAIL, placement=placement, message=(
                        f"DirectML wrote {stray['bytes']} byte(s) of the output's {stray['region']}-byte region "
                        f"that no element owns (strides {request['output_strides']}), first at byte offsets "
                        f"{stray['first']}")))
                    continue
                outcomes.append(Outcome(OK, output=y, message=message, placement=placement,
                                        execution_flags=compiled_with))
            elif status == "unsupported":
                outcomes.append(Outcome(UNSUPPORTED, message=message, execution_flags=compiled_with))
            else:
                outcomes.append(Outcome(ERROR, message=message or json.dumps(result)[:MESSAGE_CHARS]))
        self.last_timing = dict(reply.get("timings") or {}, round_trip=time.perf_counter() - began,
                                worker=reply.get("worker_seconds"))
        if len(outcomes) != len(items):
            outcomes += [Outcome(ERROR, message=f"the worker answered {len(results)} of {len(items)} cases")] * (
                len(items) - len(outcomes))
        return outcomes

    def transport(self) -> str:
        if self.region is not None:
            return f"shared memory ({self.region.size >> 20} MiB) for arrays of {SHARED_MIN >> 10} KiB or more, " \
                   "the socket for the rest"
        return f"loopback socket ({self.shared_why or 'no worker yet'})"

    def stats(self) -> dict:
        return dict(self._last_stats, workers_started=self.workers_started, crashes=self.crashes,
                    operators_compiled_total=self.sessions_created)

    def close(self):
        self._stop(polite=True)
        stats = self._closing_stats
        if stats is not None:
            print(f"dml-direct: {self.workers_started} worker start(s), {self.sessions_created} operator(s) "
                  f"compiled, {stats.get('submissions')} submission(s), {stats.get('dispatches')} dispatch(es), "
                  f"{stats.get('refusals')} refused description(s), {len(stats.get('device_losses') or [])} "
                  f"device loss(es), {len(self.crashes)} worker death(s)", file=sys.stderr)
        if self.launcher is not None:
            self.launcher.close()
            self.launcher = None
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)


def factory(name, options):
    return DmlDirectBackend(name, options)


factory.available = available
factory.starting = "the DirectML worker (under Wine: its own Xvfb, a prefix clone, DirectML.dll loaded by path)"


def _vulkan_device(index: int) -> dict | None:
    """{index, name, uuid} of Vulkan device index as vulkaninfo --summary lists it; BadInput where
    there is no such device (vkd3d would quietly take another: two workers on one GPU). None where
    vulkaninfo is not there to ask."""
    if shutil.which("vulkaninfo") is None:
        return None
    try:
        summary = subprocess.run(["vulkaninfo", "--summary"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    devices, current = [], None
    for line in summary.splitlines():
        line = line.strip()
        if line.startswith("GPU") and line.endswith(":") and line[3:-1].isdigit():
            current = {"index": int(line[3:-1])}
            devices.append(current)
        elif current is not None and "=" in line:
            key, _, value = (part.strip() for part in line.partition("="))
            if key in ("deviceName", "deviceUUID"):
                current["name" if key == "deviceName" else "uuid"] = value
    if index >= len(devices):
        listed = ", ".join(f"{d['index']}: {d.get('name', '?')}" for d in devices) or "none"
        raise BadInput(f"--provider-option vulkan_device={index}: this machine's Vulkan has {len(devices)} "
                       f"device(s) ({listed})")
    return devices[index]
