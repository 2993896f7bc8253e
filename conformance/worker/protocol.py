"""The worker's wire format: length-prefixed frames over a loopback TCP socket.

A frame is  MAGIC | u32 little-endian header length | JSON header | raw buffers.
The header lists the byte length of each raw buffer under "buffers", so arrays
travel as their bytes, never through JSON. Arrays are referenced from the
header as {"dtype": "float16", "shape": [2, 3], "buffer": 0}.

Stdlib and numpy only: this module runs on both sides (Linux harness, Windows
Python under Wine), where the harness's other dependencies are absent.
"""
import struct

import numpy as np

from . import jsonfloats

MAGIC = b"DMLW"
VERSION = 1
MAX_HEADER = 64 << 20
MAX_BUFFER = 1 << 31
DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64",
          "uint8", "uint16", "uint32", "uint64", "bool")


class ProtocolError(Exception):
    """The peer sent something that is not a frame of this protocol (garbage)."""


class PeerClosed(ProtocolError):
    """The peer closed the connection (at a frame boundary or inside one)."""


def send(sock, header: dict, buffers=()):
    buffers = [memoryview(b).cast("B") if not isinstance(b, bytes) else b for b in buffers]
    header = dict(header, buffers=[len(b) for b in buffers])
    data = jsonfloats.dumps(header).encode("utf-8")
    sock.sendall(MAGIC + struct.pack("<I", len(data)) + data)
    for buffer in buffers:
        sock.sendall(buffer)


def recv(sock):
    """-> (header dict, list of bytes). Raises PeerClosed, ProtocolError, or the socket's timeout."""
    magic = _exactly(sock, 4, at_boundary=True)
    if magic != MAGIC:
        raise ProtocolError(f"bad frame start {magic!r} (expected {MAGIC!r})")
    (length,) = struct.unpack("<I", _exactly(sock, 4))
    if length > MAX_HEADER:
        raise ProtocolError(f"header of {length} bytes is over the limit")
    try:
        header = jsonfloats.loads(_exactly(sock, length).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ProtocolError(f"header is not JSON: {error}") from None
    if not isinstance(header, dict):
        raise ProtocolError("header is not a JSON object")
    sizes = header.get("buffers", [])
    if not isinstance(sizes, list) or not all(isinstance(s, int) and 0 <= s <= MAX_BUFFER for s in sizes):
        raise ProtocolError(f"bad buffer list {sizes!r:.200}")
    return header, [_exactly(sock, size) for size in sizes]


def _exactly(sock, count: int, at_boundary=False) -> bytes:
    chunks, received = [], 0
    while received < count:
        chunk = sock.recv(min(count - received, 1 << 20))
        if not chunk:
            where = "between frames" if at_boundary and received == 0 else "inside a frame"
            raise PeerClosed(f"connection closed {where}")
        chunks.append(chunk)
        received += len(chunk)
    return b"".join(chunks)


class Buffers:
    """Collects the raw buffers of one outgoing frame; put() returns the array's reference."""

    def __init__(self):
        self.items = []

    def put(self, array) -> dict:
        array = np.ascontiguousarray(array)
        if array.dtype.name not in DTYPES:
            raise ValueError(f"cannot send arrays of {array.dtype}")
        self.items.append(array.tobytes())
        return {"dtype": array.dtype.name, "shape": list(array.shape), "buffer": len(self.items) - 1}


def take(reference, buffers) -> np.ndarray:
    """The array a reference names; ProtocolError if the reference does not fit its buffer."""
    try:
        dtype = np.dtype(reference["dtype"])
        shape = tuple(int(n) for n in reference["shape"])
        data = buffers[int(reference["buffer"])]
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise ProtocolError(f"bad array reference {reference!r:.200}: {error}") from None
    if dtype.name not in DTYPES or any(n < 0 for n in shape):
        raise ProtocolError(f"bad array reference {reference!r:.200}")
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if expected != len(data):
        raise ProtocolError(f"array {reference!r:.200} needs {expected} bytes, its buffer has {len(data)}")
    return np.frombuffer(data, dtype=dtype).reshape(shape).copy()
