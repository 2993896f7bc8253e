"""`conformance store html OUT/ [--store URL] [--device D ...]`: the results dashboard, a static site
of the store's runs (reports/dashboard.py draws it from what this reads from the store).

The site is written whole or not at all: into a new folder beside OUT, renamed to OUT at the end. An
OUT that exists must be empty or a site this command wrote (it holds dashboard.MARKER), which is then
replaced; anything else is refused. Exit 0; bad input (no such store, an empty one, a --device no run
matches, an OUT that cannot be written or is another folder): one line, exit 2; a write that fails
midway (a full disk): one line, exit 5, nothing of the new site left and the old one kept.
"""
import dataclasses
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from conformance.cli import exitcodes
from conformance.cli.outputs import check_writable
from conformance.cli.store_command import add_store_option, store_url
from conformance.errors import BadInput, OutputFailed


def register(commands):
    """commands: `conformance store`'s subcommands."""
    parser = commands.add_parser("html", help="write the dashboard: a static site of the stored runs (devices x "
                                 "operators, a timeline per device, each case's history)",
                                 description=__doc__.split("\n\n")[0])
    parser.add_argument("out", metavar="OUT", help="the site's folder (index.html in it); replaced whole if it "
                        "holds a site this command wrote")
    parser.add_argument("--device", nargs="+", action="extend", default=[], metavar="D",
                        help="only devices whose name contains one of these (any case)")
    add_store_option(parser)
    parser.set_defaults(handler=cmd_html)


def cmd_html(args) -> int:
    from conformance import store
    from reports import dashboard
    out = Path(args.out)
    _check_out(out, dashboard.MARKER)
    started = time.perf_counter()
    with store.open(store_url(args), create=False) as opened:
        runs, verdicts, steps = _read(opened, args.device)
        files, size = _write(out, dashboard.pages(runs, verdicts, steps, opened.records), dashboard.MARKER)
    print(f"wrote {out}/index.html: {len(runs)} runs, {files} pages, {size / 2**20:.1f} MiB, in "
          f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    return exitcodes.CONFORMANT


def _read(opened, devices) -> tuple:
    """(runs, verdicts, steps) as plain data, of the runs on any of devices (all where none)."""
    from conformance.store import runs as stored
    stored.check_not_empty(opened.db)
    runs, verdicts, steps = {}, {}, {}
    for device in devices or [None]:
        found = opened.runs(device=device)
        if not found:
            raise BadInput(f"--device {device}: no stored run's device matches it (conformance store query runs "
                           "lists them)")
        runs.update((run.run_id, run.as_dict()) for run in found)
        verdicts.update(((v.device, v.backend, v.op, v.dtype, v.feature_level), dataclasses.asdict(v))
                        for v in opened.latest(device=device))
        steps.update((run.run_id, dataclasses.asdict(changes)) for run, changes in opened.timeline(device=device))
    ordered = sorted(runs.values(), key=lambda run: (run["start"] or "", run["added"], run["run_id"]))
    return ordered, list(verdicts.values()), steps


def _check_out(out: Path, marker: str):
    check_writable(folders=[("OUT", out)])
    if out.exists() and any(out.iterdir()) and not (out / marker).is_file():
        raise BadInput(f"{out}: a folder holding other files, not a dashboard this command wrote: give a new or "
                       "empty folder")


def _write(out: Path, pages, marker: str) -> tuple:
    """(files, bytes): pages into a new folder beside out, then renamed to out (an old site replaced)."""
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    old = None
    try:
        files = size = 0
        for path, text in pages:
            target = folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            data = text.encode("utf-8")
            target.write_bytes(data)
            files, size = files + 1, size + len(data)
        (folder / marker).write_text("written by conformance store html; replaced whole by the next\n")
        os.chmod(folder, 0o755)  # mkdtemp makes it 0700
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.rename(out, old / "site")
        os.rename(folder, out)
    except OSError as error:
        shutil.rmtree(folder, ignore_errors=True)
        if old is not None and not out.exists():
            os.rename(old / "site", out)
        raise OutputFailed(f"{out}: the dashboard could not be written: {error.strerror or error}") from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    return files, size
