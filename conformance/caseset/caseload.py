"""Load, validate and expand case files. Nothing runs until every file is valid.

YAML is composed with the safe loader (no object construction), anchors and
aliases are refused (no billion laughs), duplicate keys are refused, and every
message names the file and line.
"""
import itertools
import math
import os
import re
import stat
from pathlib import Path, PureWindowsPath

import jsonschema
import numpy as np
import yaml

from conformance import featurelevels, specs
from conformance.caseset import arrays, inputs, strides
from conformance.caseset.case import Case
from conformance.caseset.schema import CASE_FILE, OUTPUT_STRIDES_WANTED
from conformance.caseset.selection import compile_expression
from conformance.errors import BadInput
from conformance.specs import fused, shapes
from conformance.specs.base import NO_FIELD_KINDS

MAX_FILE_BYTES = 1 << 20
MAX_DEPTH = 32  # levels of nesting in a case file (the schema needs about six)
MAX_CASES_PER_FILE = 100_000
DEFAULT_MAX_ELEMENTS = 1 << 24
_PACKAGE = Path(__file__).resolve().parents[1]
REPO_ROOT = _PACKAGE.parent
# A wheel installs the shipped case files and sweeps as conformance/cases and conformance/sweeps
# (pyproject.toml's package-dir); a checkout has them beside the package.
INSTALLED = (_PACKAGE / "cases").is_dir()
SHIPPED_CASES = (_PACKAGE if INSTALLED else REPO_ROOT) / "cases"
SHIPPED_SWEEPS = (_PACKAGE if INSTALLED else REPO_ROOT) / "sweeps"


class CaseFileError(Exception):
    def __init__(self, problems: list):
        self.problems = problems
        super().__init__("\n".join(problems))


def source_file(source: str) -> str:
    """The file of a case's source ("path:line")."""
    return source.rsplit(":", 1)[0] if re.search(r":\d+$", source) else source


def checkout_path(path) -> str | None:
    """A case file as a rerun from the checkout's root names it: relative where it lies in the
    checkout; none for the cases a pip-installed harness ships (conformance/cases, found without a
    path), whichever system wrote the path; else, an installed harness's sweeps included, as given."""
    path = str(path)
    parts = PureWindowsPath(path).parts if "\\" in path else Path(path).parts
    if tuple(parts[-3:-1]) == ("conformance", "cases"):
        return None
    if INSTALLED:  # no checkout: REPO_ROOT is site-packages, which no rerun starts from
        return path
    try:
        return str(Path(path).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return path


def discover(paths) -> list:
    """The case files of paths (files, or folders walked). A path that does not exist here but begins
    with cases/ or sweeps/ names the shipped ones (`conformance run sweeps/probes` works installed,
    from any folder); one that exists here is always the user's own."""
    files = []
    for path in map(_shipped_if_absent, paths or [SHIPPED_CASES]):
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml"))
        elif path.exists():
            files.append(path)
        else:
            raise CaseFileError([f"{path}: no such file or directory"])
    return files


def _shipped_if_absent(path) -> Path:
    path = Path(path)
    if path.exists() or path.is_absolute() or not path.parts:
        return path
    shipped = {"cases": SHIPPED_CASES, "sweeps": SHIPPED_SWEEPS}.get(path.parts[0])
    if shipped is None or not shipped.joinpath(*path.parts[1:]).exists():
        return path
    return shipped.joinpath(*path.parts[1:])


def load_paths(paths=None, global_seed=0, max_elements=None, tolerance=None, forbid_flush=False) -> list:
    """Every case of the files. max_elements: None (not given) limits list shapes to
    DEFAULT_MAX_ELEMENTS and runs streamed sweeps whole; N limits list shapes to N and cuts a streamed
    sweep of more than N inputs to every k-th of them (cut_sweep)."""
    cases, problems, seen = [], [], {}
    for file in discover(paths):
        try:
            for case in load_file(file, global_seed, max_elements, tolerance, forbid_flush):
                if case.id in seen:
                    problems.append(f"{case.source}: duplicate case id {case.id} (also {seen[case.id]})")
                seen[case.id] = case.source
                cases.append(case)
        except CaseFileError as error:
            problems += error.problems
    if problems:
        raise CaseFileError(problems)
    return cases


def load_file(path, global_seed=0, max_elements=None, tolerance=None, forbid_flush=False) -> list:
    if max_elements is not None and max_elements < 1:
        raise BadInput(f"--max-elements {max_elements}: expected a positive number of elements")
    path = Path(path)
    data, lines = parse(path)
    problems = []
    for error in jsonschema.Draft202012Validator(CASE_FILE).iter_errors(data):
        error = jsonschema.exceptions.best_match([error])
        problems.append(f"{path}:{_line(lines, error.absolute_path)}: {_where(error.absolute_path)}"
                        f"{_schema_message(error)}")
    if problems:
        raise CaseFileError(problems)
    return _expand(path, data, lines, global_seed, max_elements, tolerance, forbid_flush)


def parse(path: Path):
    """YAML text -> (plain data, {path tuple: line})."""
    try:
        text = _read_regular(path, MAX_FILE_BYTES).decode("utf-8")
    except UnicodeDecodeError as error:
        raise CaseFileError([f"{path}:1: not UTF-8 text ({error.reason})"]) from None
    except OSError as error:
        raise CaseFileError([f"{path}: cannot read: {error.strerror}"]) from None
    try:
        node = _compose(text)
    except RecursionError:
        raise CaseFileError([f"{path}:1: nested too deep for a case file (at most {MAX_DEPTH} levels)"]) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        line = mark.line + 1 if mark else 1
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise CaseFileError([f"{path}:{line}: invalid YAML: {problem}"]) from None
    if node is None:
        raise CaseFileError([f"{path}:1: the file is empty"])
    lines = {}
    return _to_python(path, node, (), lines, set(), yaml.constructor.SafeConstructor()), lines


def _read_regular(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most limit bytes, else CaseFileError naming it. Opened
    without blocking and checked on the open descriptor: a FIFO would wait for a writer for ever and
    /dev/zero (st_size 0) never ends, a link to either included; never more than limit + 1 bytes read."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise CaseFileError([f"{path}: cannot read: {error.strerror}"]) from None
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise CaseFileError([f"{path}:1: not a regular file (a FIFO, a device or a socket): case files are read "
                                 "only from regular files"])
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise CaseFileError([f"{path}:1: file is over {limit} bytes; case files are limited to {limit}"])
    return data


def _compose(text: str):
    """yaml.compose with libyaml's parser where PyYAML has it (the shipped cases load in a third of
    the time); a file it refuses is parsed again by the pure-Python parser, whose messages the
    harness reports (the same on every machine)."""
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            return yaml.compose(text, Loader=fast)
        except yaml.YAMLError:
            pass
    return yaml.compose(text, Loader=yaml.SafeLoader)


def _to_python(path, node, where, lines, visited, constructor):
    lines[where] = node.start_mark.line + 1
    if len(where) > MAX_DEPTH:
        raise CaseFileError([f"{path}:{node.start_mark.line + 1}: nested more than {MAX_DEPTH} levels deep"])
    if id(node) in visited:
        raise CaseFileError([f"{path}:{node.start_mark.line + 1}: anchors and aliases are not allowed"])
    visited.add(id(node))
    if isinstance(node, yaml.MappingNode):
        result = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                raise CaseFileError([f"{path}:{key_node.start_mark.line + 1}: keys must be plain names"])
            key = key_node.value
            if key in result:
                raise CaseFileError([f"{path}:{key_node.start_mark.line + 1}: {_where(where + (key,))}"
                                     f"duplicate key {key!r}"])
            result[key] = _to_python(path, value_node, where + (key,), lines, visited, constructor)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_to_python(path, item, where + (i,), lines, visited, constructor) for i, item in enumerate(node.value)]
    try:
        return constructor.construct_object(node)
    except yaml.YAMLError as error:
        raise CaseFileError([f"{path}:{node.start_mark.line + 1}: {error}"]) from None


def _line(lines, where) -> int:
    where = tuple(where)
    while where not in lines and where:
        where = where[:-1]
    return lines.get(where, 1)


def _where(where) -> str:
    text = ""
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return f"{text}: " if text else ""


def _schema_message(error) -> str:
    if "output_strides" in error.absolute_path:
        return f"must be {OUTPUT_STRIDES_WANTED}, not {error.instance!r}"
    if "params" in error.absolute_path and (arrays.KEY in error.absolute_path or isinstance(error.instance, dict)
                                            and arrays.KEY in error.instance):
        return f"an array value is {{{arrays.KEY}: [numbers]}} ({error.message})"
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown key(s)")
    if isinstance(error.instance, str) and _looks_numeric(error.instance):
        hint = ("YAML 1.1 reads 1.0e12 as text: write 1.0e+12" if "e" in error.instance.lower()
                else "remove the quotes")
        return f"{error.instance!r} is a string, not a number ({hint})"
    return error.message


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _expand(path, data, lines, global_seed, max_elements, tolerance_override, forbid_flush) -> list:
    where = lambda *keys: f"{path}:{_line(lines, keys)}: {_where(keys)}"  # noqa: E731
    sweep_limit, max_elements = max_elements, max_elements or DEFAULT_MAX_ELEMENTS
    try:
        spec = specs.get(data["operator"])
    except KeyError:
        raise CaseFileError([f"{where('operator')}{specs.unknown(data['operator'])}"]) from None
    problems, cases, ids = [], [], {}
    for g, group in enumerate(data["groups"]):
        at = ("groups", g)
        group_problems = _check_group(spec, group, at, where, max_elements)
        problems += group_problems
        if group_problems:
            continue
        cases += _expand_group(spec, data, group, at, where, path, lines, global_seed, max_elements,
                               tolerance_override, forbid_flush, problems, ids, sweep_limit)
        if len(cases) > MAX_CASES_PER_FILE:
            problems.append(f"{where(*at)}the file expands to more than {MAX_CASES_PER_FILE} cases")
            break
    if not problems and "smoke" in data:
        problems += _mark_smoke(cases, data["smoke"], where("smoke"))
    if problems:
        raise CaseFileError(problems)
    return cases


def _mark_smoke(cases, expression, where) -> list:
    """The file's own smoke cases: the -k expression `smoke` selects them among the file's cases
    (conformance run --smoke runs every file's; CI runs them through dml-wine)."""
    try:
        matcher = compile_expression(expression)
    except BadInput as error:
        return [f"{where}smoke: {error}"]
    chosen = [case for case in cases if matcher(case.id)]
    if not chosen:
        return [f"{where}smoke {expression!r} selects none of the file's cases"]
    for case in chosen:
        case.smoke = True
    return []


def _check_group(spec, group, at, where, max_elements) -> list:
    problems = []
    for d, dtype in enumerate(group["dtypes"]):
        if dtype not in spec.dtypes:
            problems.append(f"{where(*at, 'dtypes', d)}{spec.name} never allows data type {dtype!r}; "
                            f"its pages allow {', '.join(spec.dtypes)}")
    for s, shape in enumerate(group["shapes"]):
        if own_shapes(shape):
            problems += _check_own_shapes(spec, shape, lambda *keys: where(*at, "shapes", s, *keys), max_elements)
            continue
        rank = shape["rank"] if isinstance(shape, dict) else (1 if shape == "auto" else len(shape))
        if not 1 <= rank <= 8:
            problems.append(f"{where(*at, 'shapes', s)}rank {rank}: DirectML tensors have 1 to 8 dimensions")
        elif rank not in spec.ranks:
            problems.append(f"{where(*at, 'shapes', s)}{spec.name} never allows {rank} dimensions")
        elif isinstance(shape, list) and np.prod(shape, dtype=object) > max_elements:
            problems.append(f"{where(*at, 'shapes', s)}shape {shape} has {np.prod(shape, dtype=object)} "
                            f"elements; the limit is {max_elements} (--max-elements)")
    for name, values in group.get("params", {}).items():
        parameter = spec.parameter(name)
        if parameter is None and arrays.implied(spec, name):
            problems.append(f"{where(*at, 'params', name)}{name} is the length of {arrays.implied(spec, name)}, "
                            "implied: give the array only")
            continue
        if parameter is None:
            problems.append(f"{where(*at, 'params', name)}{spec.name} has no parameter {name!r}; "
                            f"its fields are {', '.join(p.name for p in spec.parameters)}")
            continue
        for value in values if isinstance(values, list) else [values]:
            wanted = _wanted(parameter, value)
            if wanted:
                problems.append(f"{where(*at, 'params', name)}{name} must be {wanted}, not {value!r}")
    problems += _check_no_input(spec, group, at, where)
    for i, entry in enumerate(group.get("inputs", ())):
        for name, generator in (entry["each"].items() if "each" in entry else [(None, entry)]):
            here = where(*at, "inputs", i, *(("each", name) if name else ()))
            problems += _check_generator(generator, group["dtypes"], here)
            problems += _check_several(spec, name, generator, here)
    problems += _check_broadcast(spec, group, at, where)
    problems += _check_output_strides(group, at, where)
    problems += _check_input_strides(spec, group, at, where)
    in_place = group.get("in_place", False)
    if isinstance(in_place, str):
        chosen = spec.input(in_place)
        if chosen is None or not chosen.aliases_output:
            problems.append(f"{where(*at, 'in_place')}{spec.name}'s output may alias "
                            f"{', '.join(i.short for i in spec.inputs if i.aliases_output) or 'no input'}, "
                            f"not {in_place!r}")
    return problems


def _check_no_input(spec, group, at, where) -> list:
    """An operator of no input tensor (inputs=()) takes no generator and OutputTensor's sizes as a list; one
    whose every input is required needs one."""
    if not spec.inputs:
        given = [f"{where(*at, 'inputs')}{spec.name} has no input tensor: give no inputs"] if group.get("inputs") else []
        return given + [f"{where(*at, 'shapes', s)}{spec.name} has no input tensor: give OutputTensor's sizes as a "
                        f"list, not {shape!r}" for s, shape in enumerate(group["shapes"]) if not isinstance(shape, list)]
    if not group.get("inputs") and not any(i.optional for i in spec.inputs):
        return [f"{where(*at)}inputs is required: {spec.name}'s inputs are {', '.join(i.short for i in spec.inputs)}"]
    return []


def own_shapes(entry) -> bool:
    """Whether a shapes entry names each input's own shape ({Input: [3, 4], Indices: [2, 2]})."""
    return isinstance(entry, dict) and "rank" not in entry


def _check_own_shapes(spec, entry, where, max_elements) -> list:
    """Every input named once (the page's name, with or without Tensor), each shape of a dimension
    count the pages allow, within the element limit."""
    if not spec.several_inputs:
        return [f"{where()}{spec.name} has one input: give its shape as a list, not by name"]
    problems, named = [], set()
    for name, shape in entry.items():
        given = spec.input(name)
        if given is None:
            problems.append(f"{where(name)}{spec.name} has no input {name!r}; its inputs are "
                            f"{', '.join(i.short for i in spec.inputs)}")
            continue
        if given.short in named:
            problems.append(f"{where(name)}{given.short} is named twice")
        named.add(given.short)
        if not 1 <= len(shape) <= 8:
            problems.append(f"{where(name)}{given.short} has {len(shape)} dimensions: DirectML tensors have 1 to 8")
        elif len(shape) not in (given.ranks or spec.ranks_of(given.short)):
            problems.append(f"{where(name)}{spec.name} never allows {len(shape)} dimensions in {given.short}")
        elif np.prod(shape, dtype=object) > max_elements:
            problems.append(f"{where(name)}{given.short} {shape} has {np.prod(shape, dtype=object)} elements; "
                            f"the limit is {max_elements} (--max-elements)")
    missing = [i.short for i in spec.inputs if i.short not in named and not i.optional]  # optional: where bound
    if missing and not problems:
        problems.append(f"{where()}no shape for {', '.join(missing)}: name every input of {spec.name} "
                        f"({', '.join(i.short for i in spec.inputs)})")
    return problems


def _bind_indices(spec, several, params) -> str | None:
    """Give each index input the sizes its elements address (spec.index_bounds) and check its
    generator: `indices` (negative ones only in a signed type) or `values` within range."""
    for case_input, given in zip(several, spec.inputs):
        kind = case_input.generator["kind"]
        if given.role != "indices":
            if kind == inputs.INDICES:
                return f"{case_input.name} is no index tensor: {inputs.INDICES} is for {spec.name}'s index inputs"
            continue
        if kind not in (inputs.INDICES, "values"):
            return (f"{case_input.name} is an index tensor: its generator is {{kind: {inputs.INDICES}}} "
                    f"or {{kind: values}}, not {kind}")
        signed = np.dtype(case_input.dtype).kind == "i"
        if case_input.generator.get("negative") and not signed:
            return f"negative indices need a signed {case_input.name} type (int32, int64), not {case_input.dtype}"
        bounds = np.broadcast_to(np.asarray(spec.index_bounds([i.shape for i in several], params), dtype=np.int64),
                                 case_input.shape)
        case_input.bounds = bounds
        case_input.axis = spec.index_axis(params) if spec.index_axis else None
        if case_input.generator.get("distinct") and bounds.size:
            problem = _distinct_problem(bounds, case_input.axis)
            if problem:
                return problem
        if kind == "values" and bounds.size and spec.indices_outside is None:  # else the page says what they do
            values = np.resize(case_input.own_values, bounds.shape).astype(np.int64)
            wrong = (values >= bounds) | (values < (-bounds if signed else 0))
            if wrong.any():
                at = tuple(int(i) for i in np.argwhere(wrong)[0])
                return (f"{case_input.name}{list(at)} = {values[at]} is out of range: the dimension it addresses "
                        f"has {bounds[at]} elements")
    return None


def _check_values(spec, several, input_shapes, params) -> str | None:
    """spec.values_check on each input's values where a case file gives them ({kind: values}, tiled to
    its shape), else on None (the check says whether the input needs given values)."""
    for case_input in several:
        given = case_input.generator.get("kind") == "values"
        values = np.resize(case_input.own_values, case_input.shape) if given else None
        problem = spec.values_check(case_input.name, values, input_shapes, params)
        if problem:
            return problem
    return None


def _distinct_problem(bounds, axis) -> str | None:
    """Why distinct indices cannot be drawn within bounds (more than the places they address), or None."""
    if axis is not None:
        if bounds.shape[axis] > bounds.max():
            return f"{bounds.shape[axis]} distinct indices along dimension {axis} cannot fit its {bounds.max()} places"
        return None
    tuples, places = int(np.prod(bounds.shape[:-1], dtype=np.int64)), int(np.prod(bounds.reshape(-1, bounds.shape[-1])[0]))
    return f"{tuples} distinct index tuples cannot fit the {places} places they address" if tuples > places else None


def padded_strides(shape) -> tuple:
    """output_strides: padded -> a gap after every element and after every row of each dimension: the
    innermost stride 2, each outer one element more than the dimension inside it spans."""
    strides, step = [0] * len(shape), 2
    for d in reversed(range(len(shape))):
        strides[d] = step
        step = step * int(shape[d]) + 1
    return tuple(strides)


def _output_strides(group, shape) -> tuple:
    """A case's output strides in elements; () for a packed output."""
    given = group.get("output_strides")
    if given is None:
        return ()
    return padded_strides(shape) if given == "padded" else tuple(int(s) for s in given)


def _strides_problem(strides, shape) -> str | None:
    """Why an output cannot have these strides (None: it can): one per dimension, and no two elements
    at one place (taken from the innermost stride out, each must step past what the inner ones span)."""
    if len(strides) != len(shape):
        return f"{len(strides)} strides for the {len(shape)} dimensions of {list(shape)}"
    span = 1
    for stride, size in sorted((s, n) for s, n in zip(strides, shape) if n > 1):
        if stride < span:
            return f"strides {list(strides)} put two elements of {list(shape)} at one place"
        span += (size - 1) * stride
    return None


def _check_output_strides(group, at, where) -> list:
    given = group.get("output_strides")
    if given is None:
        return []
    here = where(*at, "output_strides")
    if group.get("in_place"):
        return [f"{here}an in-place output is the input it aliases: it cannot have strides of its own"]
    if any(inputs.streamed(e) for e in group.get("inputs", ()) if "kind" in e):
        return [f"{here}a streamed generator runs in chunks of its own shape: give a fixed input instead"]
    if given == "padded":
        return []
    return [f"{here}{problem}" for shape in group["shapes"] if isinstance(shape, list)
            for problem in [_strides_problem(given, shape)] if problem] + \
           [f"{here}explicit strides need explicit shapes, not {shape!r}" for shape in group["shapes"]
            if not isinstance(shape, list)]


def _check_input_strides(spec, group, at, where) -> list:
    given = group.get("input_strides")
    if given is None:
        return []
    here = where(*at, "input_strides")
    if spec.several_inputs:
        return [f"{here}{spec.name} has {len(spec.inputs)} inputs: input_strides is for an operator of one"]
    if group.get("in_place"):
        return [f"{here}an in-place output aliases its input: the input cannot have strides of its own"]
    if any(inputs.streamed(e) for e in group.get("inputs", ()) if "kind" in e):
        return [f"{here}a streamed generator runs in chunks of its own shape: give a fixed input instead"]
    return [f"{here}{problem}" for shape in group["shapes"] if isinstance(shape, list)
            for problem in [strides.problem(given, shape)] if problem] + \
           [f"{here}explicit strides need explicit shapes, not {shape!r}" for shape in group["shapes"]
            if not isinstance(shape, list)]


def _check_several(spec, name, generator, where) -> list:
    """What several inputs ask of an input entry (each, cross) and refuse (streamed generators)."""
    pairs = generator["kind"] == inputs.PAIRS
    if not spec.several_inputs:
        if name or generator.get("cross"):
            return [f"{where}{spec.name} has one input: 'each' and 'cross' are for operators of several"]
        if pairs:
            return [f"{where}{inputs.PAIRS} is for operators of two inputs; {spec.name} has one"]
        return []
    problems = []
    if name and spec.input(name) is None:
        problems.append(f"{where}{spec.name} has no input {name!r}; its inputs are "
                        f"{', '.join(i.short for i in spec.inputs)}")
    if pairs and (name or generator.get("cross") or len(spec.inputs) != 2):
        problems.append(f"{where}{inputs.PAIRS} makes both inputs of an operator of two inputs, alone "
                        f"(not under 'each', not crossed); {spec.name} has {len(spec.inputs)}")
    elif inputs.streamed(generator) and not pairs:
        problems.append(f"{where}{inputs.label(generator)} streams one input; for an operator of two "
                        f"float16 inputs use {inputs.PAIRS}")
    if generator.get("cross") and generator["kind"] in ("uniform",):
        problems.append(f"{where}cross needs a generator with its own values (specials, values, sweep, "
                        "integer_extremes), not uniform")
    return problems


def _broadcasts(group) -> list:
    value = group.get("broadcast")
    return [{}] if value is None else value if isinstance(value, list) else [value]


def _check_broadcast(spec, group, at, where) -> list:
    problems = []
    if group.get("broadcast") and any(inputs.streamed(e) for e in group.get("inputs", ()) if "kind" in e):
        problems.append(f"{where(*at, 'broadcast')}a streamed generator makes every input whole: "
                        "it cannot broadcast one")
    for variant in _broadcasts(group):
        for name in variant:
            chosen = spec.input(name)
            if chosen is None or not chosen.broadcast or not spec.several_inputs:
                allowed = [i.short for i in spec.inputs if i.broadcast] if spec.several_inputs else []
                problems.append(f"{where(*at, 'broadcast')}{spec.name} may broadcast "
                                f"{', '.join(allowed) or 'no input'}, not {name!r}")
    return problems


def _wanted(parameter, value) -> str | None:
    """What a value of this field must be, if this value is not that (None: it is)."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if parameter.array:
        return arrays.problem(parameter, value)
    if parameter.kind == "scale_bias":
        return None if value is None or isinstance(value, dict) and "Type" not in value else "null or {Scale, Bias}"
    if parameter.kind == "fused_activation":
        return fused.problem(value)
    if parameter.kind == "enum":
        return None if value in parameter.choices else f"one of {', '.join(parameter.choices)}"
    if parameter.kind == "data_type":
        return None if value in inputs.DATA_TYPES else f"a data type ({', '.join(inputs.DATA_TYPES)})"
    if parameter.kind in NO_FIELD_KINDS:
        return None if value in parameter.choices else f"one of {', '.join(parameter.choices)}"
    if parameter.kind in ("int", "uint"):
        whole = number and float(value).is_integer() and (parameter.kind == "int" or value >= 0)
        return None if whole else ("an integer" if parameter.kind == "int" else "an integer >= 0")
    return None if number else "a number"  # float, scalar


def _check_generator(generator, dtypes, where) -> list:
    kind, problems = generator["kind"], []
    needs = {"values": ["values"], "sweep": ["low", "high", "count"]}.get(kind, [])
    problems += [f"{where}{kind} needs {key!r}" for key in needs if key not in generator]
    if kind == "uniform" and inputs.uniform_range(generator)[0] > inputs.uniform_range(generator)[1]:
        low, high = inputs.uniform_range(generator)
        problems.append(f"{where}uniform low {low} is above high {high}")
    if kind == "exhaustive_float16" and set(dtypes) != {"float16"}:
        problems.append(f"{where}exhaustive_float16 applies to float16 only, not {dtypes}")
    if inputs.streamed(generator):
        wanted = "float32" if kind == "exhaustive_float32" else "float16"
        if set(dtypes) != {wanted}:
            problems.append(f"{where}{kind} applies to {wanted} only, not {dtypes}")
        if not len(inputs.bit_range(generator)):
            problems.append(f"{where}{kind} start {generator.get('start', 0)} is not below "
                            f"stop {generator.get('stop', 1 << 32)}")
    else:
        problems += [f"{where}{key!r} applies to {' and '.join(inputs.STREAMED)} only"
                     for key in ("start", "stop", "step") if key in generator]
    if kind == "integer_extremes" and any(np.dtype(d).kind == "f" for d in dtypes):
        problems.append(f"{where}integer_extremes applies to integer data types only")
    if kind == "sweep" and generator.get("count", 1) > DEFAULT_MAX_ELEMENTS:
        problems.append(f"{where}sweep count {generator['count']} is above {DEFAULT_MAX_ELEMENTS}")
    return problems


def cut_sweep(generator: dict, limit) -> tuple:
    """(generator, how it was cut): a streamed sweep of more than limit inputs (None: no limit) as
    every k-th of them, k the least prime that leaves at most limit; else as it is, "".

    Strided, not the first N: the first million float32 patterns are all subnormal, a stride spans
    every binade. k prime, so odd: with an even k every pattern's low bits are the same (float32:
    mantissas ending in zeros; float16 pairs: B takes only 65536 / k values). The generator's step
    becomes k times its own, so the case id says which inputs ran (its label gains step=) and a
    rerun with the same --max-elements selects the case again."""
    if limit is None or not inputs.streamed(generator):
        return generator, ""
    patterns = inputs.bit_range(generator)
    if len(patterns) <= limit:
        return generator, ""
    k = _next_prime(-(-len(patterns) // limit))
    while generator["kind"] == inputs.PAIRS and not _spreads_pairs(patterns.step * k):
        k = _next_prime(k + 1)
    cut = {**generator, "start": patterns.start, "stop": patterns.stop, "step": patterns.step * k}
    if "label" in generator:
        cut["label"] = f"{generator['label']}[step={cut['step']}]"
    return cut, (f"{inputs.label(generator)}: {len(patterns)} inputs cut by --max-elements {limit} to 1 in {k}: "
                 f"{len(inputs.bit_range(cut))} inputs")


def _next_prime(n: int) -> int:
    n = max(n, 2)
    while any(n % d == 0 for d in range(2, math.isqrt(n) + 1)):
        n += 1
    return n


def _spreads_pairs(step: int) -> bool:
    """Whether pair indices step apart spread over the (A, B) plane: from 65536 on, a step whose low
    half is near 0 or 65536 moves A and B together (65537: A = B, a diagonal), so the low half must
    send B well across its range at each step."""
    return step < 1 << 16 or 0.25 <= (step & 0xFFFF) / 65536 <= 0.75


def _expand_group(spec, data, group, at, where, path, lines, global_seed, max_elements,
                  tolerance_override, forbid_flush, problems, ids, sweep_limit=None) -> list:
    params = group.get("params", {})
    names = [p.name for p in spec.parameters if p.name in params]
    grids = [v if isinstance(v, list) else [v] for v in (params[n] for n in names)]
    flush = group.get("flush", data.get("flush", "allow"))
    nan_rule = group.get("nan_rule", data.get("nan_rule", "d3d"))
    in_place = bool(group.get("in_place", False))
    cases = []
    for dtype, shape_entry, combo, generator, broadcast in itertools.product(
            group["dtypes"], group["shapes"], itertools.product(*grids), group.get("inputs") or [None], _broadcasts(group)):
        generator, cut = cut_sweep(generator, sweep_limit) if generator is not None else (None, "")
        chosen = {name: _normalise(spec.parameter(name), value) for name, value in zip(names, combo)}
        full = {**spec.defaults(), **chosen}
        # A DML_TENSOR_DATA_TYPE field left unset is the tensor's own type (CLIP1's MinMaxDataType).
        full.update({p.name: dtype for p in spec.parameters if p.kind == "data_type" and full[p.name] is None})
        full.update({p.name: p.unset_value(dtype, full) for p in spec.parameters
                     if p.kind == "tensor_type" and full[p.name] is None})
        source = f"{path}:{_line(lines, at)}"
        mismatched = arrays.count_problems(spec, full)
        if mismatched:
            problems += [f"{where(*at, 'params')}{p}" for p in mismatched]
            continue
        no_input = not spec.several_inputs and not spec.input_tensors(full)
        if (generator is None) != no_input:  # an optional input (DIAGONAL_MATRIX1's) chosen absent, or present
            problems.append(f"{where(*at, 'inputs')}{spec.name} " + (
                "has no input tensor in this case: give no inputs" if no_input else
                f"takes {', '.join(i.short for i in spec.input_tensors(full))} in this case: give its generator"))
            continue
        if no_input:
            if not isinstance(shape_entry, list):
                problems.append(f"{where(*at, 'shapes')}{spec.name} has no input tensor in this case: give "
                                f"OutputTensor's sizes as a list, not {shape_entry!r}")
                continue
            own, natural, label = None, 0, None
        elif spec.several_inputs:
            try:
                plan = _several_plan(spec, generator, dtype, full)
            except CaseFileError as error:
                problems += [f"{where(*at, 'inputs')}{p}" for p in error.problems]
                continue
            own, natural, label = None, plan["natural"], plan["label"]
        else:
            own = inputs.values_for(generator, dtype, spec, full)
            natural, label = inputs.natural_count(generator, own), inputs.label(generator)
        shape, from_generator = _shape(shape_entry, natural, spec)
        if spec.family.sized_by_case and full.get(shapes.OUTPUT_SIZES) is None:
            full[shapes.OUTPUT_SIZES] = [int(n) for n in shape]
        rank = len(shape)
        levels = [spec.required_level(dtype, len(s), full, given.short if given else None)
                  for given, s in itertools.zip_longest(spec.inputs, _entry_shapes(shape_entry, shape, spec))
                  if s is not None and getattr(given, "ranks", None) is None]  # one of its own ranks: checked above
        level = None if None in levels else max(levels, key=featurelevels.index)
        if level is None:
            problems.append(f"{where(*at, 'shapes')}{spec.name} never allows {dtype} with {rank} dimensions")
            continue
        count = int(np.prod(shape, dtype=np.int64))
        if generator is not None and inputs.streamed(generator):
            # Streamed in chunks (runner.py), so the element limit does not apply; the shape must
            # come from the generator's range.
            if not from_generator:
                problems.append(f"{where(*at, 'shapes')}{inputs.label(generator)} takes its length from its "
                                "range: use the shape auto or {rank: R}, not an explicit shape")
                continue
        elif count > max_elements:
            problems.append(f"{where(*at, 'shapes')}shape {list(shape)} has {count} elements; "
                            f"the limit is {max_elements} (--max-elements)")
            continue
        if own is not None and 0 < count < len(own):
            problems.append(f"{where(*at, 'shapes')}shape {list(shape)} holds {count} elements but "
                            f"generator {inputs.label(generator)} has {len(own)} values; "
                            "use a larger shape, 'auto' or {rank: R}")
            continue
        several, in_place_input = (), None
        if spec.several_inputs:
            try:
                several = _case_inputs(spec, plan, dtype, full, shape, broadcast,
                                       _bound_shapes(spec, _entry_shapes(shape_entry, shape, spec), full)
                                       if own_shapes(shape_entry) else None)
                in_place_input = _aliased(spec, group.get("in_place"), broadcast) if in_place else None
            except CaseFileError as error:
                problems += [f"{where(*at, 'shapes')}{p}" for p in error.problems]
                continue
        input_shapes = () if no_input else tuple(i.shape for i in several) or (shape,)
        problem = spec.shape_problem(tuple(i.sizes or i.shape for i in several) or input_shapes, full)
        if problem:
            problems.append(f"{where(*at, 'shapes')}{spec.name}: {problem}")
            continue
        problem = _bind_indices(spec, several, full) if spec.index_bounds else None
        if spec.values_check and not several and not no_input:  # one input (FOLD's): its given values, or None
            given = generator.get("kind") == "values"
            problem = problem or spec.values_check(spec.inputs[0].name, np.resize(own, shape) if given else None,
                                                   input_shapes, full)
        problem = problem or (_check_values(spec, several, input_shapes, full) if spec.values_check else None)
        if problem:
            problems.append(f"{where(*at, 'inputs')}{spec.name}: {problem}")
            continue
        outputs = spec.output_shapes(input_shapes, full)
        case_id = _case_id(spec, dtype, shape, from_generator, chosen, label, in_place, broadcast, in_place_input,
                           group.get("output_strides"), several if own_shapes(shape_entry) else (),
                           group.get("input_strides"))
        if case_id in ids:
            problems.append(f"{source}: duplicate case id {case_id} (also {ids[case_id]})")
            continue
        ids[case_id] = source
        cases.append(Case(
            id=case_id, op=spec.name, dtype=dtype, shape=shape, params=full, generator=dict(generator or {}),
            required_level=level,
            tolerance=_tolerance(tolerance_override, spec, dtype,
                                 group.get("tolerance", data.get("tolerance"))),
            flush_allowed=(flush == "allow") and not forbid_flush, nan_rule=nan_rule,
            in_place=in_place, source=source, global_seed=global_seed, own_values=own,
            inputs=several, in_place_input=in_place_input, cut=cut, output_shapes=outputs,
            output_strides=_output_strides(group, outputs[0]), no_input=no_input,
            input_strides=tuple(int(s) for s in group.get("input_strides") or ())))
    return cases


def _normalise(parameter, value):
    """A case file's value of a field as the case holds it."""
    if parameter.kind == "fused_activation":
        return fused.normalise(value)
    return arrays.value(parameter, value) if parameter.array else value


def _several_plan(spec, entry, dtype, params) -> dict:
    """An input entry of an operator with several inputs -> each input's generator and own values,
    the natural length of an "auto" shape, and the label; a crossing past MAX_CROSSED is refused."""
    tensors = spec.input_tensors(params)  # a tensor array's each (JOIN's Inputs[0], Inputs[1], ...)
    names = [i.short for i in tensors]
    if not names:
        given = [p.name for p in spec.parameters if p.per_tensor]
        raise CaseFileError([f"{spec.name} has no input tensor in this case: {' or '.join(given)} gives one value "
                             "per tensor of its array, and is required"])
    if "each" in entry:
        # a tensor array's k-th by its own name (Inputs[1]), any other input by its name
        given = {spec.input(name).short + (re.findall(r"\[\d+\]$", name) or [""])[0]: generator
                 for name, generator in entry["each"].items()}
        missing = [n for n in names if n not in given]
        if missing:
            raise CaseFileError([f"each names no generator for {', '.join(missing)} "
                                 f"({spec.name}'s inputs are {', '.join(names)})"])
        generators = {n: given[n] for n in names}
        own = {i.short: inputs.values_for(generators[i.short], spec.tensor_type(i.name, dtype, params), spec, params)
               for i in tensors}
        natural = max(inputs.natural_count(generators[n], own[n]) for n in names)
        return {"generators": generators, "own": own, "natural": natural,
                "label": entry.get("label") or inputs.several_label(generators)}
    generators = {n: dict(entry) for n in names}
    if entry["kind"] == inputs.PAIRS:
        odd = [f"{i.short} is {t}" for i in tensors for t in [spec.tensor_type(i.name, dtype, params)]
               if t != "float16"]
        if odd:
            raise CaseFileError([f"{inputs.PAIRS} makes float16 inputs, and {spec.name}'s {', '.join(odd)}"])
    if entry.get("cross"):
        plain = {k: v for k, v in entry.items() if k != "cross"}
        values = inputs.distinct(inputs.values_for(plain, dtype, spec, params))
        size = inputs.crossing_size(len(values), len(names))
        if size > inputs.MAX_CROSSED:
            raise CaseFileError([f"crossing {inputs.label(plain)} ({len(values)} values) over {len(names)} inputs "
                                 f"makes {size} elements, above {inputs.MAX_CROSSED}: {inputs.CROSSED_TOO_LARGE}"])
        own = {n: inputs.crossed(values, len(names), k) for k, n in enumerate(names)}
        return {"generators": generators, "own": own, "natural": size, "label": inputs.label(entry)}
    own = {i.short: inputs.values_for(entry, spec.tensor_type(i.name, dtype, params), spec, params)
           for i in tensors}
    natural = max(inputs.natural_count(entry, own[n]) for n in names)
    return {"generators": generators, "own": own, "natural": natural, "label": inputs.label(entry)}


def _case_inputs(spec, plan, dtype, params, shape, broadcast, named=None) -> tuple:
    """named: each input's own shape in the page's order, where the case names them (else the spec's
    input_shapes_rule's, where it has one: JOIN's inputs cut from the joined shape)."""
    from conformance.caseset.case import CaseInput
    given_shapes = named is not None  # the case names them: a broadcast one's is the Sizes DirectML reads it at
    if named is None and spec.input_shapes_rule is not None:
        named = spec.input_shapes_rule(tuple(shape), params)
        if isinstance(named, str):
            raise CaseFileError([f"{spec.name}: {named}"])
    result = []
    for k, given in enumerate(spec.input_tensors(params)):
        dims = next((tuple(sorted(set(d))) for name, d in broadcast.items() if spec.input(name) is given), ())
        read = tuple(named[k]) if given_shapes else tuple(shape)
        if any(d >= len(read) for d in dims):
            raise CaseFileError([f"broadcast {given.short} along {list(dims)}: the shape {list(read)} has "
                                 f"{len(read)} dimensions"])
        own_shape = named[k] if named and not given_shapes else tuple(1 if d in dims else n for d, n in enumerate(read))
        own, count = plan["own"][given.short], int(np.prod(own_shape, dtype=np.int64))
        if not dims and own is not None and 0 < count < len(own):
            raise CaseFileError([f"shape {list(own_shape)} holds {count} elements but input {given.short}'s generator "
                                 f"has {len(own)} values; use a larger shape, 'auto' or {{rank: R}}"])
        result.append(CaseInput(given.short, spec.tensor_type(given.name, dtype, params), own_shape,
                                plan["generators"][given.short], dims, plan["own"][given.short],
                                sizes=read if given_shapes and dims else ()))
    return tuple(result)


def _aliased(spec, asked, broadcast) -> str:
    """The input a several-input case's output aliases: the one named, or the first that may."""
    broadcast_names = {spec.input(n).short for n in broadcast}
    if isinstance(asked, str):
        chosen = spec.input(asked)
        if chosen.short in broadcast_names:
            raise CaseFileError([f"in_place {chosen.short}: the output cannot alias a broadcast input"])
        return chosen.short
    for given in spec.inputs:
        if given.aliases_output and given.short not in broadcast_names:
            return given.short
    raise CaseFileError(["in_place: every input the output may alias is broadcast"])


def _entry_shapes(entry, shape, spec) -> tuple:
    """Each input's own shape in the page's order where the entry names them (None: an optional input
    it leaves out), else (shape,)."""
    if own_shapes(entry):
        named = {spec.input(name).short: value for name, value in entry.items()}
        return tuple(tuple(int(n) for n in named[i.short]) if i.short in named else None for i in spec.inputs)
    return (tuple(shape),)


def _bound_shapes(spec, shapes, params) -> tuple:
    """The own shapes of the inputs a case binds (an optional one left absent has none)."""
    absent = spec.absent_tensors(params)
    bound = [(i, s) for i, s in zip(spec.inputs, shapes) if i.name not in absent]
    missing = [i.short for i, s in bound if s is None]
    if missing:
        raise CaseFileError([f"no shape for {', '.join(missing)}, which the case binds: name it, or leave it absent"])
    return tuple(s for _, s in bound)


def _shape(entry, natural, spec=None):
    if own_shapes(entry):  # the case's shape: its first input's
        named = {spec.input(name).short: value for name, value in entry.items()}
        return tuple(int(n) for n in named[spec.inputs[0].short]), False
    if entry == "auto":
        return (int(natural),), True
    if isinstance(entry, dict):
        return tuple([1] * (entry["rank"] - 1) + [int(natural)]), True
    return tuple(int(d) for d in entry), False


def _tolerance(override, spec, dtype, from_file) -> int:
    for source in (override, from_file):
        if isinstance(source, int):
            return source
        if isinstance(source, dict):
            key = f"{spec.name}:{dtype}"
            if key in source:
                return int(source[key])
            if dtype in source:
                return int(source[dtype])
    return spec.tolerance(dtype)


def _case_id(spec, dtype, shape, from_generator, params, label, in_place, broadcast=None,
             in_place_input=None, output_strides=None, own=(), input_strides=None) -> str:
    rank = f"rank{len(shape)}" + ("" if from_generator else "[" + "x".join(map(str, shape)) + "]")
    if own:  # every input's own shape: rank2[Input=3x4,Indices=2x2]
        rank = f"rank{len(shape)}[" + ",".join(f"{i.name}={'x'.join(map(str, i.shape))}" for i in own) + "]"
    parts = []
    for name, value in params.items():
        if isinstance(value, dict) and "Type" in value:
            parts.append(f"{name}={fused.label(value, _fmt)}")
        elif isinstance(value, dict):
            parts.append(f"Scale={_fmt(value['Scale'])},Bias={_fmt(value['Bias'])}")
        elif isinstance(value, list):
            parts.append(f"{name}={arrays.label(value, _fmt)}")
        elif value is not None:
            parts.append(f"{name}={_fmt(value)}")
    text = "/".join([spec.name, dtype, rank, ",".join(parts) or "defaults", *([label] if label else [])])
    if broadcast:
        text += "/broadcast[" + ";".join(f"{spec.input(n).short}:{','.join(map(str, sorted(set(d))))}"
                                         for n, d in broadcast.items()) + "]"
    if in_place:
        text += f"/in-place[{in_place_input}]" if in_place_input else "/in-place"
    if input_strides is not None:
        text += "/input-strides[" + ",".join(map(str, input_strides)) + "]"
    if output_strides is not None:
        text += "/output-strides[" + (output_strides if isinstance(output_strides, str)
                                      else ",".join(map(str, output_strides))) + "]"
    return text


def _fmt(value) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15 and not (value == 0 and math.copysign(1, value) < 0):
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


__all__ = ["load_paths", "load_file", "discover", "cut_sweep", "CaseFileError", "SHIPPED_CASES"]
