"""The shipped case files. A wheel installs this folder as the package conformance.cases (see
pyproject.toml), so that an installed harness finds them (conformance.caseset.caseload.SHIPPED_CASES) and
`pytest --pyargs conformance.cases` collects them."""
