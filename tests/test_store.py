"""The results store (conformance/store/) on SQLite and on a real PostgreSQL (a throwaway cluster of
Debian's server, tests/postgres.py): every test runs against both. Its answers are checked against
what reading the committed results files directly says; an add is all or nothing (a bad line, a
SIGKILL mid-add, a full disk); the same run is refused twice, a gzip and a plain copy being one run."""
import dataclasses
import gzip
import json
import re
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import postgres
from conformance import statuses, store
from conformance.cli import command, exitcodes
from conformance.errors import BadInput
from conformance.run.results import encode, read_results
from conformance.store import changes as changing, identity
from needs import missing
from reports import diff

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EVERY = sorted(p for p in DOCS.rglob("*.jsonl*") if p.name.endswith((".jsonl", ".jsonl.gz")))
# Adding every committed file takes seconds a store (scripts/store_bench.py measures it on both): the tests
# add a subset: lavapipe, H100 and H200, the five DirectML releases, and three releases on the H100
# that differ (regressions and fixes).
SUBSET = sorted([*DOCS.glob("releases/lavapipe/*.jsonl.gz"), *DOCS.glob("releases/h100/f16-sweeps-*.jsonl.gz"),
                 *(DOCS / f"releases/h100/cases-dml-wine-{release}.jsonl.gz" for release in ("1.17.3", "1.20.1", "1.24.4")),
                 *DOCS.glob("gpu/results/*.jsonl"), DOCS / "d3d/results/d3d-dml-direct-h100.jsonl.gz"])
BIG = DOCS / "results/dml-direct-lavapipe-default.jsonl.gz"  # 9,266 records
MEDIUM = DOCS / "results/dml-direct-lavapipe-ops13b.jsonl.gz"  # 1,329 records


@pytest.fixture(scope="session")
def postgres_server():
    bin_dir = postgres.binaries()
    if bin_dir is None:
        missing("PostgreSQL is not installed (scripts/ci.d/40-postgresql.sh installs Debian's postgresql)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        missing("psycopg is not installed (scripts/setup.sh installs the postgresql extra)")
    with postgres.server(bin_dir) as new_database:
        yield new_database


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    """An empty store's location."""
    if request.param == "sqlite":
        return str(tmp_path / "store" / "store.sqlite")
    return request.getfixturevalue("postgres_server")()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def filled(request, tmp_path_factory):
    """(store, seconds): a store holding every file of SUBSET."""
    if request.param == "sqlite":
        location = str(tmp_path_factory.mktemp("filled") / "store.sqlite")
    else:
        location = request.getfixturevalue("postgres_server")()
    opened = store.open(location)
    started = time.perf_counter()
    for path in SUBSET:
        opened.add(path)
    seconds = time.perf_counter() - started
    print(f"\n{request.param}: {len(SUBSET)} files added in {seconds:.2f} s")
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def files():
    """{path: (header, records, footer)} of SUBSET, read directly."""
    return {path: read_results(path) for path in SUBSET}


def count(opened, table: str) -> int:
    return opened.db.rows(f"SELECT COUNT(*) FROM {table}")[0][0]


def test_every_file_is_stored_whole(filled, files):
    runs = filled.runs()
    assert len(runs) == len(SUBSET)
    assert count(filled, "records") == sum(len(records) for _, records, _ in files.values())
    by_file = {run.file: run for run in runs}
    for path, (header, records, footer) in files.items():
        run = by_file[str(path)]
        assert filled.records(run.run_id) == (header, records, footer), path
        assert run.cases == len(records) and run.device == header["device"] and run.backend == header["backend"]
        assert run.failing == sum(record["status"] in statuses.FAILING for record in records)
    lavapipe = by_file[str(DOCS / "releases/lavapipe/cases-dml-direct-1.17.3.jsonl.gz")]
    assert (lavapipe.directml, lavapipe.dml_release, lavapipe.driver) == ("1.13.1.0", "1.17.3", "Mesa 25.0.7-2~bpo12+1")
    assert lavapipe.directml_sha256.startswith("25341a27")
    h200 = by_file[str(DOCS / "gpu/results/dml-direct-h200.jsonl")]
    head = files[DOCS / "gpu/results/dml-direct-h200.jsonl"][0]["gpu_proof"]["harness"]["head"]
    assert (h200.device, h200.driver, h200.harness) == ("NVIDIA H200", "580.159.04", f"commit {head[:12]}")
    assert runs == sorted(runs, key=lambda run: run.start)


def test_latest_is_each_cells_latest_run_by_start(filled, files):
    expected = {}
    for header, records, _ in sorted(files.values(), key=lambda f: f[0]["start"]):  # a later run replaces
        cells = {}
        for record in records:
            key = (header["device"], header["backend"], record["op"], record["dtype"], record["feature_level"])
            cells.setdefault(key, Counter())[record["status"]] += 1
        expected.update(cells)
    got = {(v.device, v.backend, v.op, v.dtype, v.feature_level): v for v in filled.latest()}
    assert {key: dict(counts) for key, counts in expected.items()} == {key: v.counts for key, v in got.items()}
    assert all(v.status == min(v.counts, key=statuses.rank) for v in got.values())
    h100 = filled.latest(device="h100", op="activation_celu", dtype="float16")
    assert h100 and {v.device for v in h100} == {"NVIDIA H100 80GB HBM3"}
    assert h100 == [v for key, v in sorted(got.items()) if key[0].endswith("HBM3") and key[2:4] == ("ACTIVATION_CELU",
                                                                                                      "float16")]


def test_changes_between_two_runs_are_the_diffs_status_changes(filled):
    a, b = (DOCS / f"releases/h100/cases-dml-wine-{release}.jsonl.gz" for release in ("1.17.3", "1.24.4"))
    result = filled.changes(str(a), filled.run(str(b)).run_id[:8])  # by file, and by an id's prefix
    expected = {diff.REGRESSION: changing.REGRESSION, diff.IMPROVEMENT: changing.FIX, diff.STATUS_CHANGE: changing.OTHER}
    from_files = sorted((expected[c.kind], c.id, c.status_before, c.status_after)
                        for c in diff.diff_files(a, b).changes if c.kind in expected)
    assert {kind for kind, *_ in from_files} == {changing.REGRESSION, changing.FIX}, "the committed files differ so"
    assert sorted((c.kind, c.case_id, c.before, c.after) for c in result.changes) == from_files
    assert [c.kind for c in result.changes] == sorted((c.kind for c in result.changes), key=changing.KINDS.index)


def test_changes_between_two_directml_releases_of_a_device(filled, files):
    """Each side: the latest record of each case and backend among the device's runs with that DirectML."""
    def side(version):
        latest = {}
        for header, records, _ in sorted(files.values(), key=lambda f: f[0]["start"]):
            loaded = (header.get("directml_loaded") or {}).get("file_version") or header.get("directml")
            if "H100" in header["device"] and loaded == version:
                latest.update({(header["backend"], r["id"]): r for r in records})
        return latest
    old, new = side("1.13.1.0"), side("1.15.4.0")
    expected = sorted((r["id"], r["status"], new[key]["status"]) for key, r in old.items()
                      if key in new and r["status"] != new[key]["status"])
    result = filled.changes_between("h100", "directml", "1.13.1.0", "1.15.4.0")
    assert expected and sorted((c.case_id, c.before, c.after) for c in result.changes) == expected
    assert result.same + len(result.changes) == len(old.keys() & new.keys())
    with pytest.raises(store.UnknownRun, match="no stored run on a device matching 'LLVMpipe' has directml '9.9'"):
        filled.changes_between("LLVMpipe", "directml", "1.13.1.0", "9.9")
    lavapipe = filled.changes_between("LLVMpipe", "directml", "1.13.1.0", "1.15.4.0")
    assert not lavapipe.changes and lavapipe.same > 700  # the five releases agree on lavapipe


def test_history_is_every_run_of_the_case_oldest_first(filled, files):
    case_id = "ACTIVATION_CELU/float32/rank1[7]/Alpha=1/uniform[-10,10]"
    expected = sorted((header["start"], header["device"], r["status"], r["max_ulp"])
                      for header, records, _ in files.values() for r in records if r["id"] == case_id)
    got = filled.history(case_id)
    assert len(got) > 10 and [(e.run.start, e.run.device, e.status, e.max_ulp) for e in got] == expected
    on_h200 = filled.history(case_id, device="h200")
    assert on_h200 and [e for e in got if e.run.device.startswith("NVIDIA H200")] == on_h200
    with pytest.raises(BadInput, match="NO_SUCH/case: no stored run holds this case"):
        filled.history("NO_SUCH/case")


def test_the_same_run_twice_is_refused_gzip_or_plain(url, tmp_path):
    plain = tmp_path / "copy.jsonl"
    plain.write_bytes(gzip.decompress(MEDIUM.read_bytes()))
    with store.open(url) as opened:
        run = opened.add(MEDIUM)
        for again in (MEDIUM, plain):
            with pytest.raises(store.AlreadyStored) as refused:
                opened.add(again)
            assert str(refused.value) == (f"{again}: this run is already stored as {run.short} (added {run.added} "
                                          f"from {MEDIUM})")
        assert opened.run(str(plain)) == run and count(opened, "runs") == 1
        assert count(opened, "records") == run.cases == 1329


def test_a_bad_line_leaves_nothing_of_the_run(url, tmp_path):
    header, records, footer = read_results(MEDIUM)
    lines = [encode(line) for line in [header, *records, footer]]
    lines[900] = lines[900][:-1]  # the 900th record's JSON cut short, on a line of its own
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with store.open(url) as opened:
        with pytest.raises(BadInput, match=f"^{bad}:901: not a results record"):
            opened.add(bad)
        assert count(opened, "runs") == count(opened, "records") == 0


def test_a_failure_inside_the_transaction_leaves_nothing(url, tmp_path):
    """A record the database refuses (a NUL character, which PostgreSQL's text cannot hold and this
    check plants in SQLite as a case id that is not text) fails the add after its run's row and some
    records were written: none of them stay."""
    header, records, footer = read_results(MEDIUM)
    records[1000]["op"] = "ELEMENT_WISE_ADD\x00"
    bad = tmp_path / "nul.jsonl"
    bad.write_text("".join(encode(line) + "\n" for line in [header, *records, footer]))
    with store.open(url) as opened:
        if opened.db.kind == "sqlite":  # SQLite keeps a NUL: make its records table refuse the 1001st row
            opened.db.execute("CREATE TRIGGER refuse BEFORE INSERT ON records WHEN NEW.position = 1000 "
                              "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
        with pytest.raises(store.StoreFailed, match=f"^{re.escape('store ' + opened.location)}: cannot write it: "):
            opened.add(bad)
        assert count(opened, "runs") == count(opened, "records") == 0


def test_a_password_in_the_url_is_refused():
    for url in ("postgresql://me:s3cret@db.example/results", "postgres://db.example/results?password=s3cret&x=1"):
        with pytest.raises(BadInput) as refused:
            store.open(url)
        message = str(refused.value)
        assert "s3cret" not in message and "PGPASSFILE" in message and "PGSERVICE" in message, message
        assert "\n" not in message


def test_an_unwritable_store_path_is_one_line(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(store.StoreFailed, match=f"^store {tmp_path}/file/store.sqlite: cannot open it: "):
        store.open(tmp_path / "file" / "store.sqlite")
    not_a_database = tmp_path / "text.sqlite"
    not_a_database.write_text("hello " * 1000)
    with pytest.raises(store.StoreFailed, match="cannot open it: file is not a database"):
        store.open(not_a_database)


def test_queries_of_an_empty_store_and_of_unknown_runs(url):
    with store.open(url) as opened:
        for query in (opened.latest, lambda: opened.history("X/y"), lambda: opened.run("abcdef")):
            with pytest.raises(store.EmptyStore, match="holds no runs"):
                query()
        opened.add(MEDIUM)
        with pytest.raises(store.UnknownRun, match="^0000: no stored run has an id beginning so"):
            opened.run("0000")
        with pytest.raises(store.UnknownRun, match="^nothing-here: no such results file, nor a run id"):
            opened.run("nothing-here")


def test_a_store_of_a_newer_schema_is_refused(url):
    store.open(url).close()
    with store.open(url) as opened:
        opened.db.execute("INSERT INTO schema_version (version, applied) VALUES (99, 'later')")
    with pytest.raises(BadInput, match="its schema is version 99, newer than this harness's 1"):
        store.open(url)


def test_a_query_never_makes_a_sqlite_store(tmp_path):
    with pytest.raises(BadInput, match="no such store"):
        store.open(tmp_path / "absent.sqlite", create=False)
    assert not (tmp_path / "absent.sqlite").exists()


def test_the_identity_is_of_the_header_and_records_not_the_footer():
    header, records, footer = read_results(MEDIUM)
    run_id = identity.lines(header, records)[0]
    assert identity.lines(header, records[:-1])[0] != run_id
    assert identity.lines({**header, "start": "2030-01-01T00:00:00+00:00"}, records)[0] != run_id
    assert json.loads(json.dumps(footer)) == footer and len(run_id) == 64


# The command: conformance store add / query.

def cli(capsys, *argv) -> tuple:
    """(exit code, stdout, stderr) of `conformance ARGV...` run in this process."""
    code = command.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_reports_each_file_and_refuses_only_the_bad_ones(url, capsys, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header"}\n{"type": "case", "id": "X/y", "op": "X", "status": "sideways"}\n')
    code, out, err = cli(capsys, "store", "add", str(MEDIUM), str(bad), str(MEDIUM), str(SUBSET[0]), "--store", url)
    assert code == exitcodes.BAD_INPUT
    by_file = {run.file: run for run in store.open(url).runs()}
    first, second = by_file[str(MEDIUM)], by_file[str(SUBSET[0])]
    assert err.splitlines() == [
        f"error: {bad}:2: unknown status 'sideways' (known: {', '.join(statuses.ALL)})",
        f"error: {MEDIUM}: this run is already stored as {first.short} (added {first.added} from {MEDIUM})"]
    assert out.splitlines()[0].startswith(f"stored {MEDIUM}: run {first.short}, dml-direct on llvmpipe")
    assert out.splitlines()[1].startswith(f"stored {SUBSET[0]}: run {second.short}")
    assert out.splitlines()[2] == f"2 of 4 files stored in {url}; 2 refused"
    assert cli(capsys, "store", "add", str(SUBSET[1]), "--store", url)[0] == exitcodes.CONFORMANT


def test_queries_answer_as_the_api_does(url, capsys):
    a, b = (str(DOCS / f"releases/h100/cases-dml-wine-{release}.jsonl.gz") for release in ("1.17.3", "1.24.4"))
    assert cli(capsys, "store", "add", a, b, "--store", url)[0] == exitcodes.CONFORMANT
    opened = store.open(url)
    code, out, _ = cli(capsys, "store", "query", "runs", "--json", "--store", url)
    assert code == 0 and json.loads(out) == [run.as_dict() for run in opened.runs()]
    code, out, _ = cli(capsys, "store", "query", "latest", "--op", "ELEMENT_WISE_ABS", "--json", "--store", url)
    assert code == 0 and json.loads(out) == [dataclasses.asdict(v) for v in opened.latest(op="ELEMENT_WISE_ABS")]
    code, out, _ = cli(capsys, "store", "query", "changes", a, opened.run(b).short, "--json", "--store", url)
    assert code == exitcodes.NOT_CONFORMANT  # a regression
    assert json.loads(out)["changes"] == [dataclasses.asdict(c) for c in opened.changes(a, b).changes]
    code, out, _ = cli(capsys, "store", "query", "changes", "--device", "h100", "--dml-release", "1.17.3",
                       "--dml-release", "1.24.4", "--store", url)
    assert code == exitcodes.NOT_CONFORMANT and out.splitlines()[-1].startswith("12 regression, 21 fix, 0 other;")
    code, out, _ = cli(capsys, "store", "query", "changes", b, b, "--store", url)  # no change: exit 0
    assert code == 0 and out.splitlines()[-1].startswith("0 regression, 0 fix, 0 other; 5525 case(s)")
    case_id = "ELEMENT_WISE_ABS/float16/rank1/defaults/specials"
    code, out, _ = cli(capsys, "store", "query", "history", case_id, "--device", "H100", "--json", "--store", url)
    assert code == 0 and [(e["dml_release"], e["status"]) for e in json.loads(out)] == [("1.24.4", "error"),
                                                                                       ("1.17.3", "pass")]  # by start


def test_query_refusals_are_one_line(url, capsys, tmp_path):
    def refused(*argv, code=exitcodes.BAD_INPUT) -> str:
        got, out, err = cli(capsys, *argv)
        assert (got, out, len(err.splitlines())) == (code, "", 1), (argv, got, out, err)
        return err
    store.open(url).close()
    assert "holds no runs" in refused("store", "query", "latest", "--store", url)
    absent = tmp_path / "absent.sqlite"
    assert refused("store", "query", "runs", "--store", str(absent)).startswith(f"error: store {absent}: no such store")
    assert not absent.exists()
    cli(capsys, "store", "add", str(MEDIUM), "--store", url)
    assert "abcd: no stored run has an id beginning so" in refused("store", "query", "changes", "abcd", "ef01",
                                                                   "--store", url)
    assert "give --driver twice" in refused("store", "query", "changes", "--driver", "1", "--store", url)
    assert "no stored case matches --op NOPE" in refused("store", "query", "latest", "--op", "NOPE", "--store", url)
    assert "PGPASSFILE" in refused("store", "add", str(MEDIUM), "--store", "postgresql://me:pw@host/db")
    (tmp_path / "file").write_text("")
    assert "a part of its folder's path is a file" in refused("store", "add", str(MEDIUM), "--store",
                                                             str(tmp_path / "file" / "s.sqlite"),
                                                             code=exitcodes.OUTPUT_FAILED)


def test_the_default_store_is_dmlc_store_then_results(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DMLC_STORE", raising=False)
    assert cli(capsys, "store", "add", str(MEDIUM))[0] == 0 and (tmp_path / "results" / "store.sqlite").is_file()
    monkeypatch.setenv("DMLC_STORE", str(tmp_path / "elsewhere.sqlite"))
    assert cli(capsys, "store", "add", str(MEDIUM))[0] == 0 and (tmp_path / "elsewhere.sqlite").is_file()


def _half_way(url: str):
    """A test, from outside the adding process, that an add's transaction is under way and has written
    a good part of the records: SQLite's rollback journal is there (it lives exactly as long as a write
    transaction) and the file has grown by 4 MiB (pages spilled from the cache); PostgreSQL's COPY of
    the records has passed 4,000 rows."""
    if not url.startswith("postgresql"):
        database, journal = Path(url), Path(url + "-journal")
        before = database.stat().st_size
        return lambda: journal.exists() and database.stat().st_size > before + 4 * 2**20
    import psycopg
    watcher = psycopg.connect(url, autocommit=True)
    return lambda: watcher.execute("SELECT COUNT(*) FROM pg_stat_progress_copy WHERE datname = current_database() "
                                   "AND relid = 'records'::regclass AND tuples_processed > 4000").fetchone()[0] > 0


def test_a_process_killed_mid_add_leaves_nothing(url):
    store.open(url).close()  # the tables exist: the only transaction left is the add's
    half_way = _half_way(url)
    adding = subprocess.Popen([sys.executable, "-m", "conformance", "store", "add", str(BIG), "--store", url],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while not (seen := half_way()) and adding.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        assert seen and adding.poll() is None, f"the add was never seen half-way: {adding.communicate()}"
        adding.send_signal(signal.SIGKILL)
    finally:
        adding.kill()
        adding.wait()
    assert adding.returncode == -signal.SIGKILL
    with store.open(url) as opened:
        assert count(opened, "runs") == count(opened, "records") == 0
        assert opened.add(BIG).cases == 9266  # nothing left locked or half there


def test_a_full_disk_mid_add_leaves_the_store_as_it_was(tmp_path):
    """A file size limit (RLIMIT_FSIZE) the store reaches while it adds: exit 5, one line, and the store
    holds what it held before."""
    location = tmp_path / "store.sqlite"
    with store.open(location) as opened:
        opened.add(MEDIUM)
    limit = location.stat().st_size + 2**20

    def limited():
        import resource
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    done = subprocess.run([sys.executable, "-m", "conformance", "store", "add", str(BIG), "--store", str(location)],
                          capture_output=True, text=True, cwd=ROOT, preexec_fn=limited)
    assert done.returncode == exitcodes.OUTPUT_FAILED and done.stdout == "", done
    assert done.stderr.startswith(f"error: store {location}: cannot write it: ") and len(done.stderr.splitlines()) == 1
    with store.open(location) as opened:
        assert [run.file for run in opened.runs()] == [str(MEDIUM)] and count(opened, "records") == 1329


def test_the_timeline_is_each_runs_cases_against_their_previous_verdict(filled, files):
    """Read directly: the files by start, each case's latest record kept per device and backend."""
    kinds = {diff.REGRESSION: changing.REGRESSION, diff.IMPROVEMENT: changing.FIX, diff.STATUS_CHANGE: changing.OTHER}
    seen, expected = {}, []
    for header, records, _ in sorted(files.values(), key=lambda f: f[0]["start"]):
        earlier = seen.setdefault((header["device"], header["backend"]), {})
        changed = sorted((kinds[kind], r["id"], earlier[r["id"]]["status"], r["status"]) for r in records
                         if r["id"] in earlier and (kind := diff.classify(earlier[r["id"]], r)) in kinds)
        expected.append((header["start"], changed, sum(r["id"] not in earlier for r in records)))
        earlier.update({r["id"]: r for r in records})
    steps = filled.timeline()
    got = [(run.start, sorted((c.kind, c.case_id, c.before, c.after) for c in changes.changes), changes.only_after)
           for run, changes in steps]
    assert [(identity.utc(start), changed, new) for start, changed, new in expected] == got
    assert {c.kind for _, changes in steps for c in changes.changes} >= {changing.REGRESSION, changing.FIX}
    on_h100 = filled.timeline(device="h100")
    assert on_h100 and on_h100 == [step for step in steps if "H100" in step[0].device]
