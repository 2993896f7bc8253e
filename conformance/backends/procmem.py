"""Memory figures from /proc (Linux): a process's resident size and the memory available;
None where /proc has none (another system, a process gone)."""


def proc_bytes(path, key) -> int | None:
    """The "key: N kB" line of a /proc file, in bytes (None where there is none)."""
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def resident(pid) -> int | None:
    return proc_bytes(f"/proc/{pid}/status", "VmRSS")


def available_memory() -> int | None:
    return proc_bytes("/proc/meminfo", "MemAvailable")
