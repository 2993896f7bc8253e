"""Committed GPU results (gzipped results files and logs in a docs/ folder), unpacked as the lent
machine wrote them, for the scripts that read them."""
import gzip
from pathlib import Path


def unpacked(source: Path, into: Path) -> Path:
    """Every *.gz file directly in source, decompressed into the new folder `into`; -> into."""
    into.mkdir()
    for path in sorted(source.glob("*.gz")):
        (into / path.name.removesuffix(".gz")).write_bytes(gzip.decompress(path.read_bytes()))
    return into
