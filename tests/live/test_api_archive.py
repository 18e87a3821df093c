"""serve's transcript API reads a session the home lost from the served site's archive: the same
answers as while the home had it; a served site without an archive answers as the home alone."""

from __future__ import annotations

import pytest

from ccreport.live.serve import Running, make_server
from losthelp import LOST, LOST_AGENT, build_site, copy_home, lose
from serve_helpers import api

ASKS = [f"/api/sessions/{LOST}/transcripts", f"/api/sessions/{LOST}/transcript?limit=200",
        f"/api/sessions/{LOST[:8]}/transcript?agent_id={LOST_AGENT}&limit=5",
        f"/api/sessions/{LOST}/transcript?after=3&limit=2"]
BAD = ["/api/sessions/..%2F..%2Fetc/transcript", f"/api/sessions/{LOST}/transcript?agent_id=..%2Fx",
       "/api/sessions/ffffffff-0000-0000-0000-000000000000/transcripts"]


def _answers(site, home, paths):
    with Running(make_server(site, home, port=0)) as running:
        return [api(running, p) for p in paths]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("api-archive")
    home = copy_home(root)
    site, bare = build_site(home, root / "site"), build_site(home, root / "bare", no_store=True)
    before = _answers(site, home, ASKS + BAD)
    lose(home)
    return before, _answers(site, home, ASKS + BAD), _answers(bare, home, ASKS + BAD)


def test_the_api_reads_a_lost_session_from_the_archive(served):
    before, after, _ = served
    assert after == before
    status, listed = after[0]
    assert status == 200 and all(t["has_transcript"] and t["message_count"] for t in listed["transcripts"])
    assert after[1][1]["total"] == sum(1 for _ in after[1][1]["messages"]) > 0


def test_bad_ids_are_refused_as_before(served):
    before, after, _ = served
    assert [s for s, _ in after[len(ASKS):]] == [s for s, _ in before[len(ASKS):]] == [400, 400, 404]


def test_a_site_without_an_archive_answers_as_the_home_alone(served):
    _, _, bare = served
    assert [s for s, _ in bare[:len(ASKS)]] == [404] * len(ASKS)
    assert f"no session {LOST}" in bare[0][1]["error"]
