"""pytest plugin: every expanded case of a YAML case file is a test item.

    pytest cases/ --conformance-backend cpu [-k 'CLIP and float16'] [-x] [--lf] [-n 4]

Registered through the `pytest11` entry point as "conformance" (`-p no:conformance` turns it
off). Only YAML files with a top-level `operator:` key are collected, and none when pytest
takes its paths from `testpaths` (the project's own test run), so unrelated YAML is ignored.

Statuses map to outcomes: pass -> passed; fail, unsupported-required, cpu-fallback, error,
crash, timeout -> failed (the message is the mismatch summary); unsupported (not required)
and not-reachable -> skipped with the reason. Cases listed in --conformance-expectations are
expected to fail (xfail); one that passes is reported (XPASS, strict by default).

One backend per pytest process (per xdist worker), created at the first case, closed at the end.
Results, HTML, markdown and JUnit are written by the controlling process once all cases ran.

Loaded in every pytest run of an environment that has the harness, the plugin costs nothing until
used: its module imports only pytest and light modules; the harness (numpy, the specs, the judge)
is imported when a case file is collected or a --conformance-* option is given, and the markers
of operators and data types are registered then.
"""
import re
import sys
import time
import warnings
from pathlib import Path

import pytest

from conformance import featurelevels, statuses
from conformance.judge.models import DEFAULT_MODEL, MODELS

CASE_FILE = re.compile(r"^operator\s*:", re.MULTILINE)
STATE = pytest.StashKey()
_DEFAULTS = {}  # option dest -> its default: a value that differs is a conformance option given


class CaseFailed(Exception):
    """A case ended with a failing status; its record says how."""

    def __init__(self, record):
        super().__init__(f"{record['status']}: {record['id']}")
        self.record = record


# ---- options -----------------------------------------------------------------------------

def pytest_addoption(parser):
    group = parser.getgroup("conformance", "DirectML conformance (YAML case files as tests)")

    def add(name, **settings):
        default = False if settings.get("action") == "store_true" else None
        _DEFAULTS[name[2:].replace("-", "_")] = settings.get("default", default)
        group.addoption(name, **settings)

    add("--conformance-backend", default="auto", metavar="NAME",
        help="a backend as `conformance run --backend` names it (`conformance backends` lists those "
             "installed and available), default auto")
    add("--conformance-op", action="append", default=[], metavar="OPERATOR",
        help="only this operator's cases, by its exact name (repeat for several); pytest's -k matches "
             "substrings: -k NAME also takes the operators whose names begin with NAME")
    add("--conformance-provider-option", action="append", default=[], metavar="KEY=VALUE",
        help="provider option, e.g. device_id=1")
    add("--conformance-feature-level", default=featurelevels.DEFAULT_LEVEL, metavar="LEVEL",
        help=f"the DirectML feature level to certify (default {featurelevels.DEFAULT_LEVEL})")
    add("--conformance-seed", type=int, default=0, metavar="N", help="global seed (each case derives its own)")
    add("--conformance-tolerance", action="append", default=[], metavar="[OP:]DTYPE=ULP|ULP",
        help="override tolerances, e.g. 4, float16=3 or OPERATOR:float32=20")
    add("--conformance-forbid-flush", action="store_true", help="do not accept flushed denormals")
    add("--conformance-tolerance-model", choices=MODELS, default=DEFAULT_MODEL,
        help="what decides a case's status: d3d (default, the Direct3D precision rules) or ulp")
    add("--conformance-max-elements", type=int, default=None, metavar="N",
        help="refuse shapes with more elements; cut a streamed sweep of more inputs to an evenly spread "
             "sample (as conformance run --max-elements)")
    add("--conformance-expectations", metavar="FILE",
        help="known failures (YAML or text listing case ids): they are xfail")
    add("--conformance-expectations-lenient", action="store_true",
        help="a listed case that passes is XPASS, not a failure (default: strict)")
    add("--conformance-results", metavar="FILE", help="write JSON lines results here")
    add("--conformance-html", metavar="FILE", help="write the HTML report here")
    add("--conformance-markdown", metavar="FILE", help="write the markdown report here")
    add("--conformance-junit", metavar="FILE", help="write conformance JUnit XML here")
    add("--conformance-save-failures", metavar="DIR", help="save inputs, outputs and model of each failure")


def pytest_configure(config):
    config.stash[STATE] = state = State(config)
    config.pluginmanager.register(state, "conformance-state")
    config.addinivalue_line("markers", "conformance: a DirectML conformance case from a YAML case file")
    if any(getattr(config.option, dest, default) != default for dest, default in _DEFAULTS.items()):
        state.prepare()  # options given: checked now, before anything runs


def _register_markers(config):
    from conformance import specs
    for name in specs.SPECS:
        config.addinivalue_line("markers", f"{name.lower()}: conformance cases of {name}")
    for dtype in sorted({d for spec in specs.SPECS.values() for d in spec.dtypes}):
        config.addinivalue_line("markers", f"{dtype}: conformance cases of data type {dtype}")
    for level in featurelevels.LEVELS:
        config.addinivalue_line("markers", f"fl_{level}: conformance cases first required at "
                                           f"DML_FEATURE_LEVEL_{level}")


# ---- collection ----------------------------------------------------------------------------

def pytest_collect_file(file_path, parent):
    if file_path.suffix not in (".yaml", ".yml"):
        return None
    testpaths = getattr(getattr(pytest.Config, "ArgsSource", None), "TESTPATHS", None)
    if testpaths is not None and parent.config.args_source == testpaths:
        return None  # `pytest` on the project's testpaths: case files only when named
    try:
        with open(file_path, encoding="utf-8", errors="replace") as handle:
            head = handle.read(1 << 20)
    except OSError:
        return None
    if not CASE_FILE.search(head):
        return None
    parent.config.stash[STATE].prepare()
    return CaseFile.from_parent(parent, path=file_path)


class CaseFile(pytest.File):
    def collect(self):
        from conformance.caseset.caseload import load_file
        from conformance.run import runner
        state = self.config.stash[STATE]
        option = self.config.option
        cases = load_file(self.path, option.conformance_seed, option.conformance_max_elements, state.tolerance,
                          option.conformance_forbid_flush)
        self.case_ids = [case.id for case in cases]  # a rerun's -k must tell this file's cases apart
        state.case_files.update(runner.case_files(cases, cases))
        for case in cases:
            # The node id given as text: pytest 9 reads --lf's saved ids with NodeId.parse, which
            # takes a '[' inside a name (rank4[2x3x4x5]) for parameters; this item's id must compare
            # equal to that reading, or --lf and --ff would never find a failed case again.
            item = CaseItem.from_parent(self, name=case.id, nodeid=f"{self.nodeid}::{case.id}", case=case)
            item.add_marker("conformance")
            item.add_marker(case.op.lower())
            item.add_marker(case.dtype)
            item.add_marker(f"fl_{case.required_level}")
            if case.id in state.expectations:
                reason = state.expectations[case.id]
                where = f"known failure, listed in {option.conformance_expectations}"
                item.add_marker(pytest.mark.xfail(reason=f"{reason} ({where})" if reason else where,
                                                  strict=not option.conformance_expectations_lenient,
                                                  raises=CaseFailed))
            yield item

    def repr_failure(self, excinfo):
        from conformance.caseset.caseload import CaseFileError
        from conformance.errors import BadInput
        if isinstance(excinfo.value, CaseFileError):
            return "\n".join(excinfo.value.problems)
        if isinstance(excinfo.value, BadInput):
            return str(excinfo.value).replace("--max-elements", "--conformance-max-elements")
        return super().repr_failure(excinfo)


class CaseItem(pytest.Item):
    def __init__(self, *, case, **kwargs):
        super().__init__(**kwargs)
        self.case = case
        self.record = None

    def runtest(self):
        state = self.config.stash[STATE]
        self.record = record = state.run(self.case)
        status = record["status"]
        if status == statuses.PASS:
            return
        if status in statuses.SKIPPED:
            reason = f"{status}: {(record.get('message') or '').strip() or 'no message'}"
            try:
                raise pytest.skip.Exception(reason, _use_item_location=True)
            except TypeError:  # an older pytest
                pytest.skip(reason)
        raise CaseFailed(record)

    def repr_failure(self, excinfo):
        from conformance.backends import BackendUnavailable
        if isinstance(excinfo.value, CaseFailed):
            return failure_text(excinfo.value.record, self.config.stash[STATE], self.nodeid,
                                getattr(self.parent, "case_ids", ()))
        if isinstance(excinfo.value, BackendUnavailable):
            return f"backend unavailable: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        line = self.case.source.rsplit(":", 1)[-1]
        return self.path, int(line) - 1 if line.isdigit() else 0, self.case.id


def failure_text(record, state, nodeid="", ids=()) -> str:
    """The mismatch summary first (pytest's short summary shows that line), then the case."""
    from reports import details, junit
    message = (record.get("message") or "").strip()
    if record["status"] == statuses.FAIL:
        lines = message.splitlines() or [junit.summary_line(record)]
    else:
        lines = [junit.summary_line(record)] + message.splitlines()[1:]
    lines[0] = f"{record['status']}: {lines[0]}"
    lines += ["", f"case: {record['id']}",
              f"  {record['dtype']}, shape {record['shape']}, parameters {record['params']}, "
              f"inputs {record['generator']}",
              f"  required from FL {record['feature_level']}, tolerance {record['tolerance']} ULP, "
              f"source {record['source']}",
              f"rerun: {details.rerun_command(record, state.header or {}, ids or [record['id']])}"]
    if nodeid:
        lines.append("   or: " + details.shell_join(["pytest", nodeid, "--conformance-backend", record["backend"]],
                                                     state.header or {}))
    if record.get("repro"):
        lines.append(f"saved: {record['repro']}")
    return "\n".join(lines)


# ---- the session's state: one backend, the records ----------------------------------------

class State:
    """The session's backend and records; a pytest plugin object (one per config)."""

    def __init__(self, config):
        self.config = config
        self.backend = None
        self.failure = None  # BackendUnavailable, raised again for every case
        self.header = None
        self.records = []  # (order, record)
        self.cases = []  # the cases this session will run (collected and selected)
        self.sessions = {}  # worker -> sessions created
        self.case_files = {}  # runner.case_files() of the collected files, for the header
        self.started = time.perf_counter()
        self.worker = getattr(config, "workerinput", {}).get("workerid", "main")
        self.model = getattr(config.option, "conformance_tolerance_model", DEFAULT_MODEL)
        self.prepared = False
        self.tolerance, self.options, self.ops, self.expectations = None, {}, set(), {}
        self.level = featurelevels.DEFAULT_LEVEL

    def prepare(self):
        """Read and check the options, register the markers: once, when the plugin is first used."""
        if self.prepared:
            return
        self.prepared = True
        config, option = self.config, self.config.option
        from conformance.caseset.selection import operators
        from conformance.cli.command import parse_options, parse_tolerances
        from conformance.cli.outputs import check_writable
        from conformance.errors import BadInput
        _register_markers(config)
        try:
            ops = getattr(option, "conformance_op", None) or []
            self.ops = operators(ops, "--conformance-op") if ops else set()
            self.tolerance = parse_tolerances(getattr(option, "conformance_tolerance", []))
            self.options = parse_options(getattr(option, "conformance_provider_option", []))
            self.level = featurelevels.normalise(getattr(option, "conformance_feature_level",
                                                         featurelevels.DEFAULT_LEVEL))
            check_writable([(f"--conformance-{name}", getattr(option, f"conformance_{name}", None))
                            for name in ("results", "html", "markdown", "junit")],
                           [("--conformance-save-failures", getattr(option, "conformance_save_failures", None))])
        except BadInput as error:
            raise pytest.UsageError(f"conformance: {error}") from None
        path = getattr(option, "conformance_expectations", None)
        self.expectations = load_expectations(path) if path else {}

    # -- hooks --

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session, config, items):
        if self.ops:
            dropped = [item for item in items if isinstance(item, CaseItem) and item.case.op not in self.ops]
            if dropped:
                config.hook.pytest_deselected(items=dropped)
                items[:] = [item for item in items if not (isinstance(item, CaseItem) and item.case.op not in self.ops)]
        if not self.expectations:
            return
        collected = {item.case.id for item in items if isinstance(item, CaseItem)}
        ops = {item.case.op for item in items if isinstance(item, CaseItem)}
        stale = [i for i in self.expectations if i not in collected and i.split("/", 1)[0] in ops]
        if stale:
            warnings.warn(pytest.PytestWarning(
                f"{config.option.conformance_expectations}: {len(stale)} listed case(s) match no collected "
                f"case, e.g. {stale[0]!r}"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        """The record travels on the report: through xdist to the controller, which writes the reports."""
        report = yield
        if call.when == "call" and isinstance(item, CaseItem) and item.record is not None:
            report.conformance_record = item.record
            report.conformance_header = self.header
            report.conformance_sessions = [self.worker, self.backend.sessions_created if self.backend else 0]
        return report

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report):
        if "conformance" in report.keywords:
            _keep_case_id(report)
        if report.when == "call" and getattr(report, "conformance_record", None) is not None:
            self.collect(report)

    def pytest_sessionstart(self, session):
        self.started = time.perf_counter()

    def pytest_collection_finish(self, session):
        self.cases = [item.case for item in session.items if isinstance(item, CaseItem)]

    def pytest_sessionfinish(self, session, exitstatus):
        from conformance.errors import OutputFailed
        try:
            if not hasattr(self.config, "workerinput"):
                self.write_outputs(interrupted=exitstatus == pytest.ExitCode.INTERRUPTED)
        except OutputFailed as error:  # a full disk: one line, and a run that cannot pass for a good one
            sys.stderr.write(f"\nconformance: error: {error}\n")
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR  # pytest has no code of its own for it
        finally:
            self.close()

    # -- work --

    def run(self, case) -> dict:
        from conformance import backends
        from conformance.run import runner
        if self.failure is not None:
            raise self.failure
        if self.backend is None:
            try:
                self.backend = backends.create(self.config.option.conformance_backend, self.options,
                                               announce=lambda m: sys.stderr.write(m + "\n"))
            except backends.BackendUnavailable as error:
                self.failure = error
                raise
            from conformance.judge import compiling
            compiling.announcer = lambda m: sys.stderr.write(m + "\n")  # as `conformance run` says it
            argv = ["pytest", *map(str, self.config.invocation_params.args)]
            self.header = runner.run_metadata(self.backend, self.level, self.config.option.conformance_seed, argv,
                                              model=self.model, case_files=self.case_files)
            self.header["runner"] = "pytest"
            prepare = getattr(self.backend, "prepare", None)
            if prepare is not None:  # shared graphs, as `conformance run` plans them: fewer sessions
                prepare(self.cases)
        return runner.run_case(case, self.backend, self.level, self.config.option.conformance_save_failures,
                               self.model)

    def collect(self, report):
        if self.header is None or self.header.get("runner") != "pytest":
            self.header = getattr(report, "conformance_header", None) or self.header
        worker, created = getattr(report, "conformance_sessions", ["main", 0])
        self.sessions[worker] = max(self.sessions.get(worker, 0), created)
        self.records.append(report.conformance_record)

    def write_outputs(self, interrupted=False):
        option = self.config.option
        wanted = [option.conformance_results, option.conformance_html, option.conformance_markdown,
                  option.conformance_junit]
        if not any(wanted) or not self.records:
            return
        from conformance.cli.outputs import write_reports
        from conformance.run.results import ResultsWriter
        header = dict(self.header or {"type": "header", "backend": option.conformance_backend})
        footer = {"type": "footer", "seconds": round(time.perf_counter() - self.started, 3),
                  "cases": len(self.records), "sessions_created": sum(self.sessions.values()),
                  "interrupted": interrupted, "end": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        records = self.records
        if option.conformance_results:
            writer = ResultsWriter(option.conformance_results)
            for line in [header, *records, footer]:
                writer.write(line)
            writer.close()
        write_reports(header, records, footer, html=option.conformance_html, markdown=option.conformance_markdown,
                      junit=option.conformance_junit)

    def close(self):
        if self.backend is not None:
            from conformance.judge import compiling
            compiling.announcer = None
            self.backend.close()
            self.backend = None


# ---- node ids ---------------------------------------------------------------------------------

def _keep_case_id(report):
    """Show a case's report under its id as it is. pytest 9 reads the text after '::' up to a '[' as
    the name and the rest, its last ']' removed, as parameters, and writes them back as name[params]:
    an id with a '[' that does not end in ']' (rank4[2x3x4x5]/defaults/specials) gained a stray ']'
    in the short summary (FAILED ...specials]), with xdist or without. The report gets an id whose
    name is the whole case id, equal to pytest's own reading (--lf keys its failures by it)."""
    node_id = _case_node_id_class()
    path, _, name = report.nodeid.partition("::")
    if node_id is not None and name and not isinstance(report.id, node_id):
        report._id = node_id(path=path, names=(name,), params=None)  # pytest has no public setter for it


_CASE_NODE_ID = []


def _case_node_id_class():
    """A NodeId that prints its names as they are and compares and hashes as NodeId.parse of its
    text does; None before pytest 9 (node ids were strings)."""
    if not _CASE_NODE_ID:
        try:
            from _pytest.nodeid import NodeId
        except ImportError:
            _CASE_NODE_ID.append(None)
            return None

        class CaseNodeId(NodeId):
            __slots__ = ()

            def _key(self):
                parsed = NodeId.parse(str(self))
                return parsed.path, parsed.names, parsed.params

            def __eq__(self, other):
                if not isinstance(other, NodeId):
                    return NotImplemented
                key = other._key() if isinstance(other, CaseNodeId) else (other.path, other.names, other.params)
                return self._key() == key

            def __hash__(self):
                return hash(self._key())

        _CASE_NODE_ID.append(CaseNodeId)
    return _CASE_NODE_ID[0]


# ---- expectations: known failures, as WPT keeps them ---------------------------------------

def load_expectations(path) -> dict:
    """{case id: reason or ""} from a YAML file (a list of ids, a mapping id -> reason, or either
    under the key `expected_failures`) or a text file (one id a line; '#' starts a comment when
    it begins the line or follows a space)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise pytest.UsageError(f"--conformance-expectations {path}: {error.strerror}") from None
    if path.suffix in (".yaml", ".yml"):
        import yaml
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise pytest.UsageError(f"--conformance-expectations {path}: invalid YAML: {error}") from None
        if isinstance(data, dict) and "expected_failures" in data:
            data = data["expected_failures"]
        if data is None:
            return {}
        if isinstance(data, list) and all(isinstance(i, str) for i in data):
            return {i: "" for i in data}
        if isinstance(data, dict) and all(isinstance(k, str) and (v is None or isinstance(v, str))
                                          for k, v in data.items()):
            return {k: v or "" for k, v in data.items()}
        raise pytest.UsageError(f"--conformance-expectations {path}: expected a list of case ids or a "
                                "mapping of case id to reason")
    result = {}
    for line in text.splitlines():
        parts = re.split(r"(?:^|\s)#", line, maxsplit=1)
        case_id = parts[0].strip()
        if case_id:
            result[case_id] = parts[1].strip() if len(parts) > 1 else ""
    return result
