"""What a pooled build sends its workers: a job carries its own session, not its project's others
(pickling the project with every job made a build quadratic in the sessions of a project)."""

from __future__ import annotations

import gc
import pickle
from concurrent.futures import ProcessPoolExecutor

import orjson

from ccreport.site import siblings
from ccreport.site.build import Follow, build
from ccreport.site.options import Options
from ccreport.site.session import SessionJob
from ccreport.source.home import discover
from util import SAMPLE_HOME

FORK = "p/-home-dana-atlas/fe234eaf-605b-5cd1-a315-5f80d8b20db6"


def _home(root, n: int):
    proj = root / "projects" / "-home-u-proj"
    proj.mkdir(parents=True)
    for i in range(n):
        sid = f"00000000-0000-0000-0000-{i:012d}"
        line = {"type": "user", "uuid": f"u{i}", "sessionId": sid, "timestamp": "2025-06-01T10:00:00.000Z",
                "message": {"role": "user", "content": f"hello {i}"}}
        (proj / f"{sid}.jsonl").write_bytes(orjson.dumps(line) + b"\n")
    return root


def _job_bytes(home, out) -> int:
    catalog = discover(home)
    s = next(iter(catalog.sessions()))
    return len(pickle.dumps(siblings.for_worker(SessionJob(session=s, out=out, opts=Options(), project_title="p"))))


def test_a_job_pickles_to_the_same_size_whatever_the_project_holds(tmp_path):
    small = _job_bytes(_home(tmp_path / "a", 3), tmp_path / "o")
    large = _job_bytes(_home(tmp_path / "b", 3000), tmp_path / "o")
    assert large == small  # same names' lengths: not one byte of the other 2,999 sessions


def test_a_worker_knows_the_sessions_of_the_project_it_was_told(tmp_path):
    catalog = discover(_home(tmp_path / "h", 4))
    s = next(iter(catalog.sessions()))
    ids = siblings.project_ids(catalog.sessions())
    job = pickle.loads(pickle.dumps(siblings.for_worker(SessionJob(session=s, out=tmp_path, opts=Options(),
                                                                    project_title="p"))))
    assert job.session.project.sessions == {}
    other = "00000000-0000-0000-0000-000000000003"
    try:
        assert not siblings.in_project(job.session, other)
        siblings.know(ids)
        assert siblings.in_project(job.session, other) and not siblings.in_project(job.session, "nope")
    finally:
        siblings.know({})


def test_a_pooled_build_still_links_a_fork_to_its_parent(tmp_path):
    res = build(SAMPLE_HOME, tmp_path / "site", Options(jobs=2))
    assert not res.errors
    page = (tmp_path / "site" / FORK / "page-0001.html").read_text(encoding="utf-8")
    assert 'href="fork-point.html"' in page and (tmp_path / "site" / FORK / "fork-point.html").exists()


def _worker_view(session, sid: str) -> tuple:
    return gc.get_freeze_count(), siblings.in_project(session, sid)


def test_a_pool_worker_keeps_what_it_inherits_out_of_its_garbage_collector(tmp_path):
    # (the objects a worker inherits from the fork: traversed by every full collection otherwise)
    catalog = discover(_home(tmp_path / "h", 2))
    job = siblings.for_worker(SessionJob(session=next(iter(catalog.sessions())), out=tmp_path, opts=Options(),
                                         project_title="p"))
    frozen = gc.get_freeze_count()
    with ProcessPoolExecutor(max_workers=1, initializer=siblings.start_worker,
                             initargs=(siblings.project_ids(catalog.sessions()),)) as pool:
        count, knows = pool.submit(_worker_view, job.session, "00000000-0000-0000-0000-000000000001").result()
    assert count > 1000 and knows  # the modules, the catalog: thousands of objects
    assert gc.get_freeze_count() == frozen  # and this process's collector is left as it was


def test_a_build_keeps_what_it_held_before_its_sessions_out_of_the_collector_until_it_ends(tmp_path):
    seen = []
    follow = Follow(on_session=lambda paths, stamps: seen.append(gc.get_freeze_count()))
    build(SAMPLE_HOME, tmp_path / "site", Options(jobs=1), follow=follow)
    assert seen and min(seen) > 1000  # frozen as the sessions are rendered
    assert gc.get_freeze_count() == 0  # and given back to the collector after


def test_a_build_leaves_objects_frozen_by_its_caller_frozen(tmp_path):
    gc.freeze()
    try:
        build(SAMPLE_HOME, tmp_path / "site", Options(jobs=1))
        assert gc.get_freeze_count() > 1000  # (an unfreeze by the build would leave none)
    finally:
        gc.unfreeze()
