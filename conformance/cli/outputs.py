"""Output paths are checked before anything starts: a run that could not write its results or
reports stops at once (BadInput naming the path) instead of failing at the end, or with a
backend already started."""
import os
import sys
import tempfile
from pathlib import Path

from conformance.errors import BadInput


RESULTS_FOLDER = "results"  # run --results' default: RESULTS_FOLDER/<backend>.jsonl; the store's: store.sqlite there
REPORTS = (("html", "write the HTML report here"), ("markdown", "write the markdown report here"),
           ("junit", "write JUnit XML here"))


def add_report_options(parser):
    """--html, --markdown and --junit: the reports write_reports writes from a run's results."""
    for name, text in REPORTS:
        parser.add_argument(f"--{name}", help=text)


def report_outputs(args) -> list:
    """[(option, path)] of the reports asked for, for check_writable."""
    return [(f"--{name}", getattr(args, name, None)) for name, _ in REPORTS]


def check_writable(files=(), folders=()):
    """files, folders: (option, path) pairs; a path of None is skipped. Creates nothing. A folder
    given as a symbolic link is refused: as root, a link planted in a shared folder (/tmp) would send
    the saved failures anywhere (/etc) without a word; the folder it names may be given instead."""
    for option, path, is_folder in [(o, p, False) for o, p in files] + [(o, p, True) for o, p in folders]:
        if path is None:
            continue
        if is_folder and Path(path).is_symlink():
            raise BadInput(f"{option} {path}: a symbolic link (to {os.readlink(path)}), not followed; give the "
                           f"folder itself ({os.path.realpath(path)}) if that is where the files belong")
        try:
            problem = _problem(Path(path), is_folder)
        except OSError as error:  # e.g. a folder on the way that may not be searched
            problem = error.strerror
        if problem:
            raise BadInput(f"{option} {path}: cannot write there: {problem}")


def _problem(path: Path, is_folder: bool) -> str | None:
    if path.exists():
        if path.is_dir() != is_folder:
            return "it is a folder" if path.is_dir() else "it is not a folder"
        if not is_folder:
            return None if os.access(path, os.W_OK) else "permission denied"
        return _try_create_in(path)
    parent = path.parent
    while not parent.exists():  # the folders that would be made
        parent = parent.parent
    if not parent.is_dir():
        return f"{parent} is not a folder"
    return _try_create_in(parent)


def _try_create_in(folder: Path) -> str | None:
    """Whether a file can be made in folder, found by making one (permissions, ACLs, read-only
    file systems and root alike) and removing it."""
    try:
        handle, name = tempfile.mkstemp(dir=folder, prefix=".dmlc-write-check-")
    except OSError as error:
        return f"{folder}: {error.strerror}"
    os.close(handle)
    os.unlink(name)
    return None


def write(path, text: str):
    """text to path (results.write_report), said on standard error."""
    from conformance.run.results import write_report
    write_report(path, text)
    print(f"wrote {path}", file=sys.stderr)


def write_reports(header: dict, records: list, footer: dict | None, html=None, markdown=None, junit=None):
    """A run's reports: each one whose path is given."""
    from reports import html as html_report, junit as junit_report, markdown as markdown_report
    for path, render in ((html, html_report.render_report), (junit, junit_report.render)):
        if path:
            write(path, render(header, records, footer))
    if markdown:  # one that fits a pull request comment, the whole one beside it
        for path, text in markdown_report.files(markdown, header, records, footer):
            write(path, text)
