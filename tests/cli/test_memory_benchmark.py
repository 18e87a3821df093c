"""benchmarks/memory.py on 2 MiB files: every command runs and is measured (the 1 GiB figures are in
docs/memory.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from util import ROOT

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")


@pytest.mark.slow
def test_every_command_is_measured_on_both_files(tmp_path):
    out = tmp_path / "memory.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "memory.py"), "--mib", "2",
                        "--dir", str(tmp_path / "w"), "--out", str(out)], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert data["mib"] == 2 and set(data["results"]) == {"zeros", "line"}
    for kind, rows in data["results"].items():
        assert set(rows) == {"build", "tail -n 5", "tail --json", "list", "stats", "export html", "export md",
                             "api (serve)"}
        for name, row in rows.items():
            assert row["rc"] == 0 and row["peak_mib"] > 5, (kind, name, row)
    assert "| build |" in r.stdout
