import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
sys.path.insert(0, str(TESTS))  # so that python:faults:FUNCTION backends import tests/faults.py
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))

pytest_plugins = ["pytester"]


@pytest.fixture
def write_case_file(tmp_path):
    def write(text: str, name: str = "case.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path
    return write
