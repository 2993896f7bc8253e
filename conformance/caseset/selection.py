"""Which cases a run takes: --op (operators by exact name), --smoke, and -k expressions as pytest
reads them (words matched as substrings of the case id, combined with and / or / not and
parentheses; a substring: -k NAME also takes every operator whose name begins with NAME, --op not)."""
import re

from conformance.errors import BadInput

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


def choose(cases, keyword=None, ops=(), smoke=False, op_option="--op"):
    """The cases of the operators named (exactly, as `conformance specs` spells them), the smoke
    cases, those -k selects: each given filter applies. An unknown operator is BadInput."""
    if ops:
        wanted = operators(ops, op_option)
        cases = [case for case in cases if case.op in wanted]
    if smoke:
        cases = [case for case in cases if case.smoke]
    return select(cases, keyword) if keyword else cases


def operators(names, option="--op") -> set:
    """Operator names as the specs name them (DML_..._OPERATOR_DESC and any case accepted)."""
    from conformance import specs
    try:
        return {specs.get(name).name for name in names}
    except KeyError as error:
        raise BadInput(f"{option} {error.args[0]}") from None


def select(cases, expression: str):
    matcher = compile_expression(expression)
    return [case for case in cases if matcher(case.id)]


def compile_expression(expression: str):
    tokens = _TOKEN.findall(expression)
    position = 0

    def peek():
        return tokens[position] if position < len(tokens) else None

    def take():
        nonlocal position
        position += 1
        return tokens[position - 1]

    def parse_or():
        left = parse_and()
        while peek() == "or":
            take()
            right = parse_and()
            left = (lambda a, b: lambda s: a(s) or b(s))(left, right)
        return left

    def parse_and():
        left = parse_not()
        while peek() == "and":
            take()
            right = parse_not()
            left = (lambda a, b: lambda s: a(s) and b(s))(left, right)
        return left

    def parse_not():
        if peek() == "not":
            take()
            inner = parse_not()
            return lambda s: not inner(s)
        if peek() == "(":
            take()
            inner = parse_or()
            if peek() != ")":
                raise BadInput(f"-k {expression!r}: missing ')'")
            take()
            return inner
        word = peek()
        if word is None or word in ("and", "or", ")"):
            raise BadInput(f"-k {expression!r}: expected a word at token {position + 1}")
        take()
        return lambda s: word.lower() in s.lower()

    if not tokens:
        raise BadInput("-k: empty expression")
    result = parse_or()
    if position != len(tokens):
        raise BadInput(f"-k {expression!r}: unexpected {tokens[position]!r}")
    return result
