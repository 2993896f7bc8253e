"""`webgpu`: ONNX Runtime's WebGPU execution provider (Dawn over Vulkan), in a worker process.

Why this route (measured on lavapipe, 2026-11-22, docs/gpu/README.md): the plugin package
onnxruntime-ep-webgpu 0.4.0 registers with the harness's own onnxruntime but offers no EP device
where ONNX Runtime's device discovery finds no GPU (lavapipe: 0 devices, so no CI smoke run is
possible); the full build onnxruntime-webgpu 1.27.0 runs on lavapipe and on the NVIDIA GPU alike.
It is a whole onnxruntime package, so it lives in its own folder (pip --target) and only the
worker imports it: the harness keeps its own onnxruntime, and a crash in Dawn or a Vulkan driver
kills the worker, not the run.

The worker is the dml-wine lane's (conformance/worker, a native subprocess with that folder first
on its PYTHONPATH); the guarantees are the same as every other ONNX Runtime backend's:
session.disable_cpu_ep_fallback=1, only WebGpuExecutionProvider listed, and the profile of each
session's first run must put every node on WebGpuExecutionProvider, else the case is
cpu-fallback. Operators the provider has no kernel for (Celu, Selu, integer Clip, ...) fail at
session creation ("assigned to the default CPU EP") and are reported unsupported.

Which device: the worker's Vulkan loader offers the devices of the ICDs that VK_DRIVER_FILES
names (--provider-option vk_icd=PATH sets it for the worker); they are enumerated with the same
environment and recorded in the run header (`webgpu.vulkan_devices`, `device`). With one ICD that
is the device Dawn used; a CPU device (llvmpipe) is named as such, never as a GPU.

Where it is installed: $DMLC_WEBGPU_HOME, else /var/cache/dml-conformance-webgpu (root) or
~/.cache/dml-conformance-webgpu; scripts/ci.d/60-webgpu.sh puts it there.

Options (--provider-option KEY=VALUE): vk_icd=PATH, and the worker's own as for dml-wine
(timeout=S, session_timeout=S, startup_timeout=S, max_nodes=N, multi_node=0|1, ...); any other
key goes to the provider.
"""
import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

from conformance.backends.base import BackendUnavailable
from conformance.errors import BadInput

PROVIDER = "WebGpuExecutionProvider"
PACKAGE = "onnxruntime-webgpu"
PIN = "1.27.0"  # scripts/ci.d/60-webgpu.sh and scripts/gpu/build-bundle.sh read it here
SOFTWARE_DEVICES = ("llvmpipe", "lavapipe", "swiftshader")
REPO = Path(__file__).resolve().parents[2]


def home() -> Path:
    if os.environ.get("DMLC_WEBGPU_HOME"):
        return Path(os.environ["DMLC_WEBGPU_HOME"])
    if hasattr(os, "getuid") and os.getuid() == 0:
        return Path("/var/cache/dml-conformance-webgpu")
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dml-conformance-webgpu"


def installed() -> tuple:
    """-> (folder, version) of the onnxruntime-webgpu installed for the worker, or raise
    BackendUnavailable saying what is missing."""
    folder = home()
    infos = sorted(folder.glob("onnxruntime_webgpu-*.dist-info")) if folder.is_dir() else []
    if not infos or not (folder / "onnxruntime" / "__init__.py").exists():
        raise BackendUnavailable(f"webgpu: {PACKAGE} is not installed in {folder} (run: bash scripts/ci.d/60-webgpu.sh, "
                                 f"or pip install --target {folder} {PACKAGE}=={PIN}; DMLC_WEBGPU_HOME names another folder)")
    version = infos[-1].name[len("onnxruntime_webgpu-"):-len(".dist-info")]
    return folder, version


# ---- Vulkan: the devices the worker's loader offers -----------------------------------------------------
class _AppInfo(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_int), ("pNext", ctypes.c_void_p), ("pApplicationName", ctypes.c_char_p),
                ("applicationVersion", ctypes.c_uint32), ("pEngineName", ctypes.c_char_p),
                ("engineVersion", ctypes.c_uint32), ("apiVersion", ctypes.c_uint32)]


class _InstanceInfo(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_int), ("pNext", ctypes.c_void_p), ("flags", ctypes.c_uint32),
                ("pApplicationInfo", ctypes.POINTER(_AppInfo)), ("enabledLayerCount", ctypes.c_uint32),
                ("ppEnabledLayerNames", ctypes.c_void_p), ("enabledExtensionCount", ctypes.c_uint32),
                ("ppEnabledExtensionNames", ctypes.c_void_p)]


class _DriverProperties(ctypes.Structure):  # VkPhysicalDeviceDriverProperties
    _fields_ = [("sType", ctypes.c_int), ("pNext", ctypes.c_void_p), ("driverID", ctypes.c_uint32),
                ("driverName", ctypes.c_char * 256), ("driverInfo", ctypes.c_char * 256),
                ("conformanceVersion", ctypes.c_uint8 * 4)]


class _Properties2(ctypes.Structure):  # VkPhysicalDeviceProperties2, its properties read as bytes
    _fields_ = [("sType", ctypes.c_int), ("pNext", ctypes.c_void_p), ("properties", ctypes.c_uint8 * 2048)]


_DEVICE_TYPES = {0: "other", 1: "integrated GPU", 2: "discrete GPU", 3: "virtual GPU", 4: "CPU"}


def _version(value: int, vendor: int) -> str:
    if vendor == 0x10DE:  # NVIDIA packs 10.8.8.6 bits
        return f"{value >> 22}.{(value >> 14) & 0xFF}.{(value >> 6) & 0xFF}.{value & 0x3F}"
    return f"{value >> 22}.{(value >> 12) & 0x3FF}.{value & 0xFFF}"


def enumerate_vulkan() -> list:
    """[{name, type, vendor_id, device_id, api_version, driver_version, driver_name, driver_info}]
    of every physical device this process's Vulkan loader offers (VK_DRIVER_FILES applies)."""
    vk = ctypes.CDLL("libvulkan.so.1")
    vk.vkCreateInstance.restype = ctypes.c_int
    vk.vkEnumeratePhysicalDevices.restype = ctypes.c_int
    app = _AppInfo(0, None, b"dml-conformance", 1, None, 0, (1 << 22) | (2 << 12))  # Vulkan 1.2
    info = _InstanceInfo(1, None, 0, ctypes.pointer(app), 0, None, 0, None)
    instance = ctypes.c_void_p()
    result = vk.vkCreateInstance(ctypes.byref(info), None, ctypes.byref(instance))
    if result != 0:
        raise OSError(f"vkCreateInstance returned {result}")
    devices = []
    try:
        count = ctypes.c_uint32()
        vk.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), None)
        handles = (ctypes.c_void_p * count.value)()
        vk.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), handles)
        for handle in handles[:count.value]:
            driver = _DriverProperties(1000196000, None)  # VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES
            props = _Properties2(1000059001, ctypes.cast(ctypes.pointer(driver), ctypes.c_void_p))
            vk.vkGetPhysicalDeviceProperties2(ctypes.c_void_p(handle), ctypes.byref(props))
            raw = bytes(props.properties)
            api, driver_version, vendor, device, kind = (int.from_bytes(raw[i:i + 4], "little") for i in range(0, 20, 4))
            devices.append({"name": raw[20:276].split(b"\0")[0].decode("utf-8", "replace"),
                            "type": _DEVICE_TYPES.get(kind, str(kind)), "vendor_id": f"0x{vendor:04x}",
                            "device_id": f"0x{device:04x}", "api_version": _version(api, 0),
                            "driver_version": _version(driver_version, vendor),
                            "driver_name": driver.driverName.decode("utf-8", "replace"),
                            "driver_info": driver.driverInfo.decode("utf-8", "replace")})
    finally:
        vk.vkDestroyInstance(instance, None)
    return devices


def vulkan_devices(env: dict) -> list | str:
    """enumerate_vulkan() in a short subprocess with the worker's environment (a driver that
    crashes takes only that process); a string says why there is no list."""
    command = [sys.executable, "-c", "import json; from conformance.backends.webgpu import enumerate_vulkan; "
               "print(json.dumps(enumerate_vulkan()))"]
    env = dict(env, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])))
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "error: enumerating Vulkan devices took over 120 s"
    if done.returncode != 0:
        return "error: " + " ".join((done.stderr or done.stdout).split())[-400:]
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return "error: " + done.stdout[-400:]


def describe_devices(devices) -> str:
    """One line for the run header's `device`: what the WebGPU run ran on, a CPU device named as such."""
    if isinstance(devices, str):
        return f"unknown Vulkan device ({devices})"
    if not devices:
        return "no Vulkan device"
    parts = []
    for device in devices:
        text = f"{device['name']} (Vulkan {device['api_version']}, {device['driver_name'] or 'driver'} " \
               f"{device['driver_info'] or device['driver_version']})"
        if device["type"] == "CPU" or any(word in device["name"].lower() for word in SOFTWARE_DEVICES):
            text += " -- a CPU device, not a GPU"
        parts.append(text)
    if len(parts) == 1:
        return parts[0]
    return "one of: " + "; ".join(parts) + " (Dawn chooses by power preference)"


# ---- the backend ------------------------------------------------------------------------------------------
def _settings(options: dict) -> tuple:
    """The worker's settings (the dml-wine backend's rules, so both stay in step), plus vk_icd."""
    from conformance.backends import dml_wine
    options = dict(options or {})
    icd = options.pop("vk_icd", None)
    settings, provider_options = dml_wine.worker_settings(options)
    if settings["transport"] != "subprocess":
        raise BadInput("--provider-option transport: webgpu runs its provider in a worker subprocess only "
                       "(transport=subprocess)")
    settings["vk_icd"] = icd
    return settings, provider_options


def webgpu(name, options):
    """Entry point of dml_conformance.backends: (name, options) -> Backend."""
    from conformance.backends.worker_backend import WorkerBackend
    from conformance.backends.worker_channels import socket_factory
    from conformance.backends.worker_launchers import NativeLauncher

    folder, version = installed()
    settings, provider_options = _settings(options)
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))}
    icd = settings["vk_icd"]
    if icd:
        if not Path(icd).exists():
            raise BackendUnavailable(f"webgpu: vk_icd {icd} does not exist")
        env.update(VK_DRIVER_FILES=icd, VK_ICD_FILENAMES=icd)
    devices = vulkan_devices(dict(os.environ, **env))
    if isinstance(devices, list) and not devices:
        raise BackendUnavailable("webgpu: the Vulkan loader offers no device (install mesa-vulkan-drivers for "
                                 "lavapipe, or name a driver with --provider-option vk_icd=PATH)")
    launcher = NativeLauncher(env=env)

    class WebGpuBackend(WorkerBackend):
        def metadata(self) -> dict:
            meta = super().metadata()
            hello = self.hello or {}
            meta.update({"device": describe_devices(devices), "onnxruntime_package":
                         f"{PACKAGE} {version} (worker: Python {hello.get('python')}, {hello.get('platform')})",
                         "directml": None, "adapters": None,
                         "webgpu": {"home": str(folder), "package": f"{PACKAGE}=={version}",
                                    "vulkan_devices": devices,
                                    "vk_driver_files": env.get("VK_DRIVER_FILES") or os.environ.get("VK_DRIVER_FILES")
                                    or os.environ.get("VK_ICD_FILENAMES"),
                                    "route": "full onnxruntime-webgpu build in a worker process (the plugin "
                                             "onnxruntime-ep-webgpu offers no device without a discovered GPU)"}})
            return meta

    config = {"session.disable_cpu_ep_fallback": "1"}
    return WebGpuBackend(name, PROVIDER, provider_options, config, socket_factory(launcher, settings), settings,
                         {"transport": "native subprocess", "pythonpath_first": str(folder)})


def _available():
    try:
        folder, version = installed()
    except BackendUnavailable as error:
        return False, str(error)
    return True, f"{PACKAGE} {version} in {folder}"


webgpu.available = _available
webgpu.starting = "the WebGPU worker (ONNX Runtime's WebGPU provider, Dawn over Vulkan)"
