"""benchmarks/run.py's measuring and reporting parts, on tiny commands (no tool is installed)."""

from __future__ import annotations

import importlib.util
import sys
import xml.etree.ElementTree as ET
from dataclasses import asdict
from pathlib import Path

import pytest
from util import ROOT

RUN_PY = ROOT / "benchmarks" / "run.py"
pytestmark = pytest.mark.skipif(not Path("/usr/bin/time").exists() or not Path("/proc/self/stat").exists(),
                                reason="needs Linux /proc and /usr/bin/time")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_run", RUN_PY)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_measure_reports_the_memory_of_the_whole_process_tree(bench, tmp_path):
    # a parent that starts a child holding ~80 MB: the tree peak must include the child
    code = ("import subprocess, sys; subprocess.run([sys.executable, '-c', "
            "'import time; b = bytearray(80_000_000); b[::4096] = b\"x\" * len(b[::4096]); time.sleep(0.6)'])")
    status, ok, wall, max_rss, tree_rss, cpu, tail = bench.measure([sys.executable, "-c", code], {}, 60, 0, tmp_path)
    assert ok and status == "ok"
    assert max_rss >= 80e6  # /usr/bin/time: the largest single process
    assert tree_rss >= 80e6
    assert cpu > 0


def test_a_run_past_its_timeout_is_killed_and_recorded(bench, tmp_path):
    status, ok, *_ = bench.measure([sys.executable, "-c", "import time; time.sleep(60)"], {}, 0.5, 0, tmp_path)
    assert not ok and status.startswith("timeout")


def test_a_run_past_its_memory_limit_is_killed(bench, tmp_path):
    code = "import time; b = bytearray(200_000_000); b[::4096] = b'x' * len(b[::4096]); time.sleep(30)"
    status, ok, *_ = bench.measure([sys.executable, "-c", code], {}, 60, 100_000_000, tmp_path)
    assert not ok and status.startswith("killed: tree RSS over")


def _run(bench, tool, home, wall, cpu, rss, variant="", ok=True, out=1_000_000):
    return asdict(bench.Run(tool, home, variant, 1, ok, "ok" if ok else "timeout after 5 s", wall, rss, rss, cpu,
                            out_bytes=out if ok else 0, out_files=10 if ok else 0, html_bytes=out // 2 if ok else 0))


def test_report_states_targets_and_draws_a_chart(bench, tmp_path):
    many, giant = "many (300 MB)", "giant (1000 MB)"
    data = {"command": "python3 benchmarks/run.py", "date": "today", "scale": 1.0, "jobs": 2,
            "machine": {"cpu": "Test CPU", "cores": 2, "ram_gb": 8, "python": "3.11", "kernel": "6", "load_at_start": (0.1, 0, 0)},
            "versions": {"ccreport": "0.1.0"},
            "homes": [{"name": many, "kind": "many", "jsonl_bytes": 300_000_000, "jsonl_files": 700, "floor": {"seconds": 3.0}},
                      {"name": giant, "kind": "giant", "jsonl_bytes": 1_000_000_000, "jsonl_files": 1, "floor": {"seconds": 9.0}}],
            "runs": [_run(bench, "ccreport", many, 10.0, 19.0, 90e6), _run(bench, "ccreport", many, 18.0, 18.0, 50e6, "jobs=1"),
                     _run(bench, "claude-code-log", many, 170.0, 300.0, 900e6),
                     _run(bench, "claude-code-transcripts", many, 60.0, 59.0, 170e6),
                     _run(bench, "ccreport", giant, 50.0, 50.0, 120e6, out=400_000_000),
                     _run(bench, "claude-code-log", giant, 300.0, 290.0, 8e9, ok=False),
                     _run(bench, "claude-code-transcripts", giant, 250.0, 249.0, 3e9)]}
    md, svg = tmp_path / "r.md", tmp_path / "r.svg"
    verdicts = bench.write_report(data, md, svg)
    text = md.read_text()
    assert "Test CPU, 2 cores" in text
    assert "did not finish" in text  # claude-code-log on the giant home
    assert any(v.startswith("MET: cold build ≥ 4× faster") and "6.0×" in v for v in verdicts)  # 60 s / 10 s
    assert any(v.startswith("MET: peak RSS ≤ 200 MB") for v in verdicts)
    assert any("--jobs 1 → 2 speed-up" in v and "1.80×" in v for v in verdicts)
    root = ET.fromstring(svg.read_text())  # well-formed SVG
    assert root.tag.endswith("svg") and len(root.findall("{http://www.w3.org/2000/svg}rect")) > 10


def test_speed_targets_per_shape_cpu_at_one_job_and_per_core_throughput(bench, tmp_path):
    m300 = "m300 (300 MB)"
    data = {"command": "python3 benchmarks/run.py", "date": "today", "scale": 1.0, "jobs": 2,
            "machine": {"cpu": "Test CPU", "cores": 2, "ram_gb": 8, "python": "3.11", "kernel": "6", "load_at_start": (0.1, 0, 0)},
            "versions": {"ccreport": "0.1.0"},
            "homes": [{"name": m300, "kind": "many", "shape": "scale_home.py --mb 300 --seed 3", "jsonl_bytes": 300_000_000,
                       "jsonl_files": 1269, "floor": {"seconds": 1.0}, "mbps_target": 90}],
            "runs": [_run(bench, "ccreport", m300, 5.0, 9.0, 90e6), _run(bench, "ccreport", m300, 8.0, 8.0, 60e6, "jobs=1"),
                     _run(bench, "ccreport@efcd8e6", m300, 3.0, 6.5, 60e6),
                     _run(bench, "ccreport@efcd8e6", m300, 6.0, 6.0, 60e6, "jobs=1"),
                     _run(bench, "claude-code-log", m300, 17.0, 29.0, 300e6),
                     _run(bench, "claude-code-transcripts", m300, 23.0, 22.0, 90e6)]}
    verdicts = bench.write_report(data, tmp_path / "r.md", tmp_path / "r.svg")
    # wall: the faster peer (claude-code-log, 17 s) / 5 s = 3.4×: not met
    assert any(v.startswith("NOT MET: cold build ≥ 4× faster") and "3.4×" in v for v in verdicts)
    # CPU at one job: the leaner peer (claude-code-transcripts, 22 CPU s) / 8 CPU s = 2.8×: not met
    assert any(v.startswith("NOT MET: ≥ 3× less CPU") and "2.8×" in v for v in verdicts)
    # the code of one round ago at one job: 8 / 6 CPU s = 1.33× > 1.25: not met
    assert any(v.startswith("NOT MET: CPU at --jobs 1 ≤ 1.25× efcd8e6's") and "1.33×" in v for v in verdicts)
    # 300 MB / 8 CPU s = 37.5 MB/s per core: below 90
    assert any(v.startswith("NOT MET: ≥ 90 MB/s per core") and "37.5 MB/s" in v for v in verdicts)
    assert "ccreport@efcd8e6 (jobs=1)" in (tmp_path / "r.md").read_text()
    assert "Home: scale_home.py --mb 300 --seed 3." in (tmp_path / "r.md").read_text()


def test_small_shape_keeps_only_small_sessions_with_their_agents(bench, tmp_path):
    src = tmp_path / "src" / "projects" / "p"
    (src / "s1" / "subagents").mkdir(parents=True)
    (src / "s1.jsonl").write_bytes(b'{"type":"user"}\n')
    (src / "s1" / "subagents" / "agent-a.jsonl").write_bytes(b'{"type":"user"}\n')
    (src / "big.jsonl").write_bytes(b"x" * bench.SMALL_SESSION)
    (src / "empty.jsonl").write_bytes(b"")
    out = bench.small_source(tmp_path / "src", tmp_path / "small")
    kept = sorted(str(p.relative_to(out / "projects")) for p in (out / "projects").rglob("*.jsonl"))
    assert kept == ["p/s1.jsonl", "p/s1/subagents/agent-a.jsonl"]
