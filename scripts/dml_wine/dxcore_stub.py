"""A stand-in dxcore.dll for Wine, written byte by byte (stdlib only, no compiler).

onnxruntime-directml 1.17 to 1.20 import dxcore.dll!DXCoreCreateAdapterFactory at load time
(later releases load DXCore only when asked to), and Wine 8 has no dxcore.dll, so their
onnxruntime_pybind11_state.pyd does not even load. The DirectML provider uses DXCore only for
its device_filter and performance_preference options; with device_id (what the lane always
passes) it takes the DXGI path. This stub exports DXCoreCreateAdapterFactory returning
E_NOTIMPL, so a release that did call it would fail loudly, not silently pick another adapter.

    python dxcore_stub.py SITE_PACKAGES     put dxcore.dll beside every module there that imports it
                                            (none where nothing does); prints what it did
"""
import struct
import sys
from pathlib import Path

E_NOTIMPL = 0x80004001
EXPORT = b"DXCoreCreateAdapterFactory"
NAME = "dxcore.dll"
SECTION_RVA, FILE_ALIGN, SECTION_ALIGN, IMAGE_BASE = 0x1000, 0x200, 0x1000, 0x180000000


def build() -> bytes:
    """A PE32+ DLL: DllMain returns TRUE; DXCoreCreateAdapterFactory returns E_NOTIMPL."""
    dll_main = b"\xb8\x01\x00\x00\x00\xc3"                          # mov eax, 1; ret
    factory = b"\xb8" + struct.pack("<I", E_NOTIMPL) + b"\xc3"     # mov eax, E_NOTIMPL; ret
    code = dll_main + factory
    export_at = SECTION_RVA + 16
    functions_at = export_at + 40
    names_at, ordinals_at = functions_at + 4, functions_at + 8
    name_at = ordinals_at + 2
    export_name_at = name_at + len(NAME) + 1
    exports = struct.pack("<IIHHIIIIIII", 0, 0, 0, 0, name_at, 1, 1, 1, functions_at, names_at, ordinals_at)
    exports += struct.pack("<IIH", SECTION_RVA + len(dll_main), export_name_at, 0)
    exports += NAME.encode() + b"\0" + EXPORT + b"\0"
    reloc_at = export_at + len(exports) + (-(export_at + len(exports)) % 4)
    body = code.ljust(16, b"\xcc") + exports
    body = body.ljust(reloc_at - SECTION_RVA, b"\0") + struct.pack("<II", SECTION_RVA, 8)  # an empty block
    raw = body.ljust(FILE_ALIGN, b"\0")

    directories = [(0, 0)] * 16
    directories[0] = (export_at, len(exports))
    directories[5] = (reloc_at, 8)
    optional = struct.pack("<HBBIIIII", 0x20B, 14, 0, len(raw), 0, 0, SECTION_RVA, SECTION_RVA)
    optional += struct.pack("<QIIHHHHHHIIIIHHQQQQII", IMAGE_BASE, SECTION_ALIGN, FILE_ALIGN, 6, 0, 0, 0, 6, 0, 0,
                            SECTION_RVA + SECTION_ALIGN, FILE_ALIGN, 0, 3, 0x0160,
                            0x100000, 0x1000, 0x100000, 0x1000, 0, 16)
    optional += b"".join(struct.pack("<II", *d) for d in directories)
    coff = struct.pack("<HHIIIHH", 0x8664, 1, 0, 0, 0, len(optional), 0x2022)  # EXECUTABLE | LARGE_ADDRESS | DLL
    section = struct.pack("<8sIIIIIIHHI", b".text", len(body), SECTION_RVA, len(raw), FILE_ALIGN, 0, 0, 0, 0,
                          0x60000020)  # CODE | EXECUTE | READ
    dos = b"MZ" + b"\0" * 58 + struct.pack("<I", 64)
    headers = (dos + b"PE\0\0" + coff + optional + section).ljust(FILE_ALIGN, b"\0")
    return headers + raw


def imported_dlls(data: bytes) -> set:
    """Lower-case names of the DLLs a PE file imports at load time (its import directory)."""
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    sections_count, optional_size = struct.unpack_from("<H", data, pe + 6)[0], struct.unpack_from("<H", data, pe + 20)[0]
    optional = pe + 24
    directories = optional + (112 if struct.unpack_from("<H", data, optional)[0] == 0x20B else 96)
    import_rva = struct.unpack_from("<I", data, directories + 8)[0]
    sections = [struct.unpack_from("<IIII", data, optional + optional_size + 40 * i + 8)
                for i in range(sections_count)]  # VirtualSize, VirtualAddress, SizeOfRawData, PointerToRawData

    def offset(rva):
        for size, address, raw_size, raw in sections:
            if address <= rva < address + max(size, raw_size):
                return raw + rva - address
        raise ValueError(f"RVA 0x{rva:x} is in no section")

    names = set()
    if not import_rva:
        return names
    at = offset(import_rva)
    while True:
        name_rva = struct.unpack_from("<I", data, at + 12)[0]
        if not name_rva:
            return names
        start = offset(name_rva)
        names.add(data[start:data.index(b"\0", start)].decode("ascii", "replace").lower())
        at += 20


def install(site_packages: Path) -> list:
    """Put the stub beside each .pyd/.dll under site_packages that imports dxcore.dll; -> those folders."""
    folders = sorted({path.parent for path in site_packages.rglob("*")
                      if path.suffix.lower() in (".pyd", ".dll") and path.name.lower() != NAME
                      and NAME in imported_dlls(path.read_bytes())})
    stub = build()
    for folder in folders:
        (folder / NAME).write_bytes(stub)
    return folders


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    placed = install(Path(sys.argv[1]))
    print(f"dxcore.dll stub: {', '.join(str(p) for p in placed) if placed else 'not needed'}")
