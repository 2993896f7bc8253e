"""Memory the harness and its worker both map: a file in /dev/shm that the Linux harness maps and
the Windows worker maps too, through Wine (Z:\\dev\\shm\\...; Wine backs the file mapping with the
same pages), so that large arrays cross without a copy through a socket. The socket carries only
the frames' JSON, whose array references name an offset here ({"dtype", "shape", "shared": offset})
instead of a buffer (conformance.worker.protocol).

The harness makes the file (create()), starts the worker with its path, and removes the file once
the worker has said whether it mapped it (both keep their mappings; nothing is left in /dev/shm
after that, however either side ends). Stdlib and numpy only: this module runs on both sides.
"""
import mmap
import os
import secrets

import numpy as np

ALIGN = 64
DIRECTORY = "/dev/shm"


class Region:
    """A mapped file of `size` bytes."""

    def __init__(self, path, size: int):
        self.path, self.size = str(path), int(size)
        with open(self.path, "r+b") as handle:  # the mapping outlives the file object and the file's name
            self.map = mmap.mmap(handle.fileno(), self.size)

    def array(self, reference) -> np.ndarray:
        """A view of the array a reference names; ValueError if it does not lie inside the region."""
        dtype = np.dtype(reference["dtype"])
        shape = tuple(int(n) for n in reference["shape"])
        offset = int(reference["shared"])
        count = int(np.prod(shape, dtype=np.int64))
        if offset < 0 or any(n < 0 for n in shape) or offset + count * dtype.itemsize > self.size:
            raise ValueError(f"array {reference!r:.200} does not lie inside the {self.size}-byte shared region")
        return np.frombuffer(self.map, dtype=dtype, count=count, offset=offset).reshape(shape)

    def put(self, offset: int, array) -> dict:
        """Write array at offset -> its reference."""
        array = np.asarray(array)
        reference = {"dtype": array.dtype.name, "shape": list(array.shape), "shared": int(offset)}
        self.array(reference)[...] = array
        return reference

    def close(self):
        try:
            self.map.close()
        except BufferError:  # a view still exported: the mapping goes with the process
            pass


def create(size: int, directory: str = DIRECTORY, claim=None):
    """(Region, folder) for a new file of size bytes in a folder of its own under directory, or
    (None, why) where the harness cannot make one (no /dev/shm, not writable, no room).
    claim(folder), if given, is called with the folder's path before the folder exists, so that
    whoever removes it should the harness die knows of it from its first moment."""
    if not os.path.isdir(directory):
        return None, f"no {directory}"
    folder = os.path.join(directory, f"dmlc-shared-{secrets.token_hex(8)}")
    if claim is not None:
        claim(folder)
    try:
        os.mkdir(folder, 0o700)
    except OSError as error:
        return None, f"cannot make a folder in {directory}: {error}"
    path = os.path.join(folder, "region")
    try:
        with open(path, "wb") as handle:
            handle.truncate(size)  # sparse: pages are taken as they are written
        return Region(path, size), folder
    except (OSError, ValueError) as error:
        remove(folder)
        return None, f"cannot map {size} bytes in {directory}: {error}"


def remove(folder):
    """Remove create()'s folder and its file (the mappings stay valid)."""
    for name in ("region",):
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass
    try:
        os.rmdir(folder)
    except OSError:
        pass


class Slots:
    """The harness's placement of one request's arrays in the region, one after another (the
    harness copies a request's outputs out before the next request): place(nbytes) -> an offset,
    or None when the array does not fit (it then travels through the socket)."""

    def __init__(self, size: int):
        self.size = int(size)
        self.cursor = 0

    def next_request(self):
        self.cursor = 0

    def place(self, nbytes: int):
        size = -(-max(int(nbytes), 1) // ALIGN) * ALIGN
        if self.cursor + size > self.size:
            return None
        offset, self.cursor = self.cursor, self.cursor + size
        return offset
