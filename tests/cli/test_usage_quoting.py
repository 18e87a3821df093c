"""Issue 29, point 9 on the command line: a usage error quotes the SESSION as it was typed,
non-ASCII as it is and bytes that are not UTF-8 as \\xNN (not as Python's surrogates, \\udcff)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from util import SAMPLE_HOME

CLI = [sys.executable, "-m", "ccreport"]


@pytest.mark.parametrize("command", ["tail", "export"])
@pytest.mark.parametrize("typed, shown", [("été-日本", "'été-日本'"), (os.fsdecode(b"s-\xff\xfe"), "'s-\\xff\\xfe'"),
                                          ("a/é", "'a/é'")])
def test_usage_errors_quote_the_session_as_typed(command, typed, shown, tmp_path):
    args = [command, typed, "--home", str(SAMPLE_HOME)] + (["-o", str(tmp_path / "x.md")] if command == "export" else [])
    run = subprocess.run(CLI + args, capture_output=True, timeout=120, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    err = run.stderr.decode("utf-8")
    assert run.returncode == 2 and shown in err, err
    assert "\\udc" not in err and "Ã" not in err
