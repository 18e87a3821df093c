"""The build's worker processes (site.pool): a full build forks them before it plans its sessions,
so the copy into the store starts with them; every job's outcome comes back in job order."""

from __future__ import annotations

import multiprocessing
import sys

import pytest

from ccreport.site.build import build
from ccreport.site.options import Options
from ccreport.site.pool import Workers, outcomes
from ccreport.site.session import SessionJob
from ccreport.source.home import discover
from util import SAMPLE_HOME


def _jobs(out):
    catalog = discover(SAMPLE_HOME)
    sessions = list(catalog.sessions())
    return catalog, [SessionJob(session=s, out=out, opts=Options(search=False), project_title="t") for s in sessions[:3]]


def test_workers_are_forked_at_once_and_the_copy_started_before_any_job(tmp_path):
    catalog, jobs = _jobs(tmp_path / "site")
    calls = []
    before = len(multiprocessing.active_children())
    workers = Workers(2, catalog.sessions(), lambda: calls.append(len(multiprocessing.active_children())))
    try:
        assert calls == [before + 2]  # both workers running when started() is called, no job sent yet
        done = list(workers.outcomes(jobs, None))
    finally:
        workers.drop()
    assert [r.state.brief.id for r in done] == [j.session.id for j in jobs] and not any(r.errors for r in done)
    assert len(multiprocessing.active_children()) == before  # shut down (and reaped) after the last outcome


def test_one_job_or_one_process_runs_here_and_starts_the_copy_first(tmp_path):
    _, jobs = _jobs(tmp_path / "site")
    calls = []
    results = outcomes(jobs, 1, None, lambda: calls.append("copy"))
    assert calls == []  # (nothing before the first outcome is asked for)
    first = next(results)
    assert calls == ["copy"] and first.state.brief.id == jobs[0].session.id
    assert len(list(results)) == len(jobs) - 1


def test_a_pooled_full_build_writes_what_one_process_writes(tmp_path):
    two = build(SAMPLE_HOME, tmp_path / "two", Options(jobs=2))
    one = build(SAMPLE_HOME, tmp_path / "one", Options(jobs=1))
    assert not two.errors and not one.errors and two.sessions == one.sessions
    for page in sorted((tmp_path / "one" / "p").rglob("*.html")):
        assert (tmp_path / "two" / page.relative_to(tmp_path / "one")).read_bytes() == page.read_bytes(), page


def test_workers_fork_on_linux_whatever_pythons_default_start_method(tmp_path):
    # Python 3.14 makes forkserver Linux's default: the pool must still fork, as it is measured and
    # as start_worker's frozen heap assumes.
    if sys.platform != "linux":
        pytest.skip("fork is chosen on Linux only")
    default = multiprocessing.get_start_method(allow_none=True)
    multiprocessing.set_start_method("spawn", force=True)
    try:
        catalog, jobs = _jobs(tmp_path / "site")
        workers = Workers(2, catalog.sessions(), lambda: None)
        try:
            assert workers._pool._mp_context.get_start_method() == "fork"
            done = list(workers.outcomes(jobs, None))
        finally:
            workers.drop()
        assert [r.state.brief.id for r in done] == [j.session.id for j in jobs]
    finally:
        multiprocessing.set_start_method(default, force=True)
