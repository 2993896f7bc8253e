"""Write a Windows DLL that holds nothing but forwarded exports (stdlib only).

Wine 8 has no bcryptprimitives.dll, and every Rust extension built with Rust 1.78 or later imports
bcryptprimitives!ProcessPrng (rpds-py, which jsonschema needs, among them): under Wine 8 such an
extension fails with "DLL load failed ... Module not found". Windows has had the DLL since Windows 8.
scripts/setup-windows-harness.sh puts this DLL beside the Windows harness's python.exe:

    python forwarder_dll.py OUT.dll --name bcryptprimitives.dll ProcessPrng=advapi32.SystemFunction036

ProcessPrng(buffer, size) and SystemFunction036 (RtlGenRandom)(buffer, size) take the same arguments
in the same registers; Rust ignores ProcessPrng's result (documented to be always TRUE).
A forwarded export is a string inside the export directory, so the DLL has no code at all, no
imports and nothing to relocate: one section with the export directory.
"""
import argparse
import struct
import sys

FILE_ALIGN, SECTION_ALIGN, SECTION_RVA = 0x200, 0x1000, 0x1000


def forwarder_dll(name: str, forwards: dict) -> bytes:
    """forwards: {export name: "module.function"} -> the bytes of a PE32+ (x64) DLL."""
    names = sorted(forwards)  # the name pointer table must be sorted for the loader's binary search
    fixed = 40 + 4 * len(names) * 2 + 2 * len(names)  # directory, address and name tables, ordinals
    strings, offsets = b"", {}
    for text in [name] + names + [forwards[n] for n in names]:
        if text not in offsets:
            offsets[text] = SECTION_RVA + fixed + len(strings)
            strings += text.encode("ascii") + b"\0"
    count = len(names)
    functions_rva = SECTION_RVA + 40
    names_rva = functions_rva + 4 * count
    ordinals_rva = names_rva + 4 * count
    edata = struct.pack("<IIHHIIIIIII", 0, 0, 0, 0, offsets[name], 1, count, count,
                        functions_rva, names_rva, ordinals_rva)
    edata += b"".join(struct.pack("<I", offsets[forwards[n]]) for n in names)  # inside the directory: forwarders
    edata += b"".join(struct.pack("<I", offsets[n]) for n in names)
    edata += b"".join(struct.pack("<H", i) for i in range(count))
    edata += strings
    raw_size = _align(len(edata), FILE_ALIGN)
    image_size = SECTION_RVA + _align(len(edata), SECTION_ALIGN)

    dos = b"MZ" + b"\0" * 58 + struct.pack("<I", 0x40)
    coff = struct.pack("<HHIIIHH", 0x8664, 1, 0, 0, 0, 240, 0x2022)  # x64; executable, large address aware, DLL
    optional = struct.pack("<HBBIIIIIQIIHHHHHHIIIIHHQQQQII", 0x20B, 14, 0, 0, raw_size, 0, 0, SECTION_RVA,
                           0x180000000, SECTION_ALIGN, FILE_ALIGN, 6, 0, 0, 0, 6, 0, 0, image_size, FILE_ALIGN,
                           0, 3, 0x0160,  # console; high-entropy VA, dynamic base, NX
                           0x100000, 0x1000, 0x100000, 0x1000, 0, 16)
    directories = struct.pack("<II", SECTION_RVA, len(edata)) + b"\0" * 8 * 15
    section = struct.pack("<8sIIIIIIHHI", b".edata", len(edata), SECTION_RVA, raw_size, FILE_ALIGN,
                          0, 0, 0, 0, 0x40000040)  # initialised data, readable
    headers = dos + b"PE\0\0" + coff + optional + directories + section
    assert len(optional) + len(directories) == 240 and len(headers) <= FILE_ALIGN
    return headers.ljust(FILE_ALIGN, b"\0") + edata.ljust(raw_size, b"\0")


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--name", required=True, help="the DLL's own name, e.g. bcryptprimitives.dll")
    parser.add_argument("forwards", nargs="+", metavar="EXPORT=MODULE.FUNCTION")
    args = parser.parse_args(argv)
    forwards = {}
    for item in args.forwards:
        export, sep, target = item.partition("=")
        if not sep or "." not in target:
            parser.error(f"{item!r}: expected EXPORT=MODULE.FUNCTION")
        forwards[export] = target
    with open(args.out, "wb") as handle:
        handle.write(forwarder_dll(args.name, forwards))
    return 0


if __name__ == "__main__":
    sys.exit(main())
