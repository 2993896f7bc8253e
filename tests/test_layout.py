"""The package's layout, read from the source with ast (nothing is imported): imports run one way,

    cli -> store -> reports -> run -> judge, backends -> caseset -> specs -> oracle, vocabulary

(a layer may import itself and the layers ALLOWED names, module-level and function-level imports
alike), the Windows worker imports nothing of the harness but itself, and no modules import
each other in a circle. A backwards import fails here, naming the file and line."""
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("conformance", "oracle", "reports")

# Module (or package) -> layer; a module takes the layer of its longest listed prefix.
LAYERS = {
    "conformance": "vocabulary",  # the package itself (__version__) and the shared vocabulary below
    "conformance.statuses": "vocabulary",
    "conformance.errors": "vocabulary",
    "conformance.featurelevels": "vocabulary",
    "conformance.worker": "worker",
    "oracle": "oracle",
    "conformance.specs": "specs",
    "conformance.caseset": "caseset",
    "conformance.backends": "backends",
    "conformance.dmldirect": "backends",
    "conformance.judge": "judge",
    "conformance.run": "run",
    "reports": "reports",
    "conformance.store": "store",
    "conformance.cli": "cli",
    "conformance.__main__": "cli",
}
BELOW = {  # what each layer may import besides itself
    "vocabulary": set(),
    "worker": set(),  # the Windows Python has only the standard library, numpy and onnxruntime
    "oracle": set(),
    "specs": {"oracle", "vocabulary"},
    "caseset": {"specs", "oracle", "vocabulary"},
    "backends": {"worker", "caseset", "specs", "vocabulary"},  # never judge, run or reports
    "judge": {"caseset", "specs", "oracle", "vocabulary"},
    # run writes results with the worker's JSON numbers (conformance/worker/jsonfloats.py: NaN and
    # infinities, one encoding for the results and the worker's frames)
    "run": {"judge", "backends", "worker", "caseset", "specs", "oracle", "vocabulary"},
    "reports": {"run", "judge", "backends", "caseset", "specs", "oracle", "vocabulary"},
    "store": {"reports", "run", "judge", "backends", "worker", "caseset", "specs", "oracle", "vocabulary"},
    "cli": {"store", "reports", "run", "judge", "backends", "worker", "caseset", "specs", "oracle", "vocabulary"},
}
ALLOWED = {layer: below | {layer} for layer, below in BELOW.items()}
WORKER_THIRD_PARTY = {"numpy", "onnxruntime"}


def modules() -> dict:
    """Dotted name -> path of every module of the three packages."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def layer_of(module: str) -> str | None:
    if module in LAYERS:
        return LAYERS[module]
    parts = module.split(".")
    for end in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in LAYERS and prefix != "conformance":  # the bare package holds only itself
            return LAYERS[prefix]
    return None


def imports(module: str, path: Path, known) -> list:
    """(line, imported module) of every import in the file, at any depth (functions included);
    `from package import name` counts as importing package.name where that is a module."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            for alias in node.names:
                found.append((node.lineno, f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source))
    return found


def import_graph(known) -> dict:
    """module -> [(line, imported module of the three packages)]."""
    graph = {}
    for module, path in known.items():
        graph[module] = [(line, name) for line, name in imports(module, path, known)
                         if name.split(".")[0] in PACKAGES]
    return graph


def backwards(graph, known) -> list:
    problems = []
    for module, edges in graph.items():
        layer = layer_of(module)
        for line, name in edges:
            target = layer_of(name)
            if target not in ALLOWED[layer]:
                problems.append(f"{known[module].relative_to(ROOT)}:{line}: {layer} imports {target} ({name})")
    return problems


def cycles(graph) -> list:
    """The circles (strongly connected components of more than one module, or a module importing
    itself), each as a sorted list of modules: Tarjan's algorithm, iterative."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]
    edges = {m: sorted({name for _, name in e if name in graph}) for m, e in graph.items()}
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in edges[node]:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter[0]
                counter[0] += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(edges[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_every_module_has_a_layer():
    homeless = [str(path.relative_to(ROOT)) for module, path in modules().items() if layer_of(module) is None]
    assert not homeless, f"modules in no layer (put them in a subpackage, or name them in LAYERS): {homeless}"


def test_imports_run_one_way():
    known = modules()
    problems = backwards(import_graph(known), known)
    assert not problems, "imports against the layering:\n" + "\n".join(problems)


def test_no_modules_import_each_other_in_a_circle():
    circles = cycles(import_graph(modules()))
    assert not circles, f"modules that import each other in a circle: {circles}"


def test_the_worker_imports_only_itself_the_standard_library_numpy_and_onnxruntime():
    known = modules()
    allowed = set(sys.stdlib_module_names) | WORKER_THIRD_PARTY
    problems = []
    for module, path in known.items():
        if layer_of(module) != "worker":
            continue
        for line, name in imports(module, path, known):
            if not (name.startswith("conformance.worker") or name.split(".")[0] in allowed):
                problems.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert not problems, "the Windows worker would import:\n" + "\n".join(problems)


def test_the_checks_catch_a_backwards_import_and_a_circle():
    """The checks above can fail: a judge module importing the runner, and two modules that import
    each other, are reported."""
    known = {"conformance.judge.compare": ROOT / "conformance" / "judge" / "compare.py",
             "conformance.run.runner": ROOT / "conformance" / "run" / "runner.py"}
    graph = {"conformance.judge.compare": [(7, "conformance.run.runner")],
             "conformance.run.runner": [(3, "conformance.judge.compare")]}
    assert backwards(graph, known) == ["conformance/judge/compare.py:7: judge imports run (conformance.run.runner)"]
    assert cycles(graph) == [["conformance.judge.compare", "conformance.run.runner"]]
    assert layer_of("conformance.backends.dml_wine") == "backends" and layer_of("conformance.stray") is None
