"""-k expressions, as pytest reads them: words matched as substrings of the case id,
combined with and / or / not and parentheses."""
import re

from conformance.errors import BadInput

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


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
