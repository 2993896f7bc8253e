"""README.md and docs/: every figure matches the file it comes from, every link leads somewhere."""
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def figures():
    spec = importlib.util.spec_from_file_location("figures", ROOT / "scripts" / "figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_figure_matches_its_source():
    module = figures()
    stated = sum(len(module.MARKER.findall(p.read_text(encoding="utf-8"))) for p in module.documents())
    assert stated >= 6, stated  # README's catalogue and H100 figures at least
    assert module.check(module.documents()) == []


def test_a_figure_that_drifted_from_its_results_file_is_named(tmp_path):
    module = figures()
    page = tmp_path / "page.md"
    source = "docs/gpu/catalogue/all-dml-direct-h100.jsonl.gz"
    page.write_text(f"ran <!-- figure {source} cases -->8,850<!-- /figure --> cases on\n"
                    f"<!-- figure {source} device -->NVIDIA H100 80GB HBM3<!-- /figure -->, "
                    f"<!-- figure {source} no_such_key -->1<!-- /figure -->\n", encoding="utf-8")
    problems = module.check([page], root=ROOT)
    assert len(problems) == 2 and "says '8,850'" in problems[0] and "gives '8,851'" in problems[0], problems
    assert ":2: " in problems[1] and "no figure 'no_such_key'" in problems[1], problems
    module.check([page], write=True, root=ROOT)
    assert "-->8,851<!--" in page.read_text(encoding="utf-8")


def test_every_relative_link_in_readme_and_docs_leads_to_a_file():
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (page.parent / target.split("#")[0]).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_readme_stays_a_five_minute_read():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 220, len(lines)
