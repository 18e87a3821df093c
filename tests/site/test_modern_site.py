"""The 2.1.2xx sample project on the site: workflow run pages linked both ways, the agent tree and
breadcrumbs, the fork folded and linked to its parent, teammate messages and the team's board."""

from __future__ import annotations

import re

P = "p/-home-dana-atlas"
LEAD, FORK = "90e61059-2a7b-527a-9fe4-7ccd0eb689e0", "fe234eaf-605b-5cd1-a315-5f80d8b20db6"
RUN = "wf_3c9e1a27-4b1"


def _read(out, rel):
    return (out / rel).read_text(encoding="utf-8")


def _hrefs(html):
    return re.findall(r'href="([^"]+)"', html)


def test_workflow_call_links_to_its_run_and_the_run_links_back(sample_site):
    out, _ = sample_site
    page = _read(out, f"{P}/{LEAD}/page-0001.html")
    assert f'href="../../../{P}/{LEAD}/workflow-{RUN}/index.html"' in page
    run = _read(out, f"{P}/{LEAD}/workflow-{RUN}/index.html")
    assert "bench-tiles" in run and "run_start" in run and "step_end" in run  # journal as steps
    assert "p50 840 ms → 11 ms over 20 runs" in run  # the summary
    assert "agent(" in run or "agent</span>" in run  # the script
    call = [h for h in _hrefs(run) if "page-0001.html#L" in h and "/agent-" not in h]
    assert call, "the run links back to the Workflow call"
    agents = [h for h in _hrefs(run) if "/agent-" in h]
    assert len(set(agents)) == 2
    for h in set(agents):
        agent_page = (out / f"{P}/{LEAD}/workflow-{RUN}" / h).resolve()
        assert f"part of workflow run {RUN}" in agent_page.read_text()  # agent → run
        assert f"workflow run {RUN}</a>" in agent_page.read_text()  # and in its breadcrumbs


def test_session_page_shows_tree_runs_team_and_board(sample_site):
    out, _ = sample_site
    html = _read(out, f"{P}/{LEAD}/index.html")
    tree = html[html.index('class="agent-tree-section"'):]
    assert re.search(r'class="depth-1">.*?Explore', tree)
    assert f'href="workflow-{RUN}/index.html"' in html
    team = html[html.index('<section class="team">'):html.index("</section>", html.index('<section class="team">'))]
    assert "profiler" in team and "reviewer" in team and "tm-blue" in team and "tm-green" in team
    assert "☑" in team and "Review the cache fix" in team and "blocked by #1" in team
    assert "teams/atlas-perf/config.json" in team  # read from the home's team files


def test_nested_agent_breadcrumbs_and_back_link(sample_site):
    out, _ = sample_site
    nested = next(p for p in (out / P / LEAD).glob("agent-*/page-0001.html") if "Find callers" in p.read_text())
    html = nested.read_text()
    crumbs = html[html.index('class="crumbs"'):html.index("</nav>")]
    assert "Plan a" in crumbs or "Plan " in crumbs
    assert "back to the call in its parent agent" in html
    link = re.search(r'href="([^"]+)">back to the call in its parent agent', html).group(1)
    target, anchor = link.split("#")
    assert (nested.parent / target).resolve().exists() and "/agent-" in target


def test_fork_folds_its_copied_prefix_and_links_to_the_fork_point(sample_site):
    out, _ = sample_site
    html = _read(out, f"{P}/{FORK}/page-0001.html")
    assert '<details class="forked">' in html and "copied from the parent session" in html
    fold = html[html.index('<details class="forked">'):html.index("</details>\n", html.index('<details class="forked">'))]
    assert "Use a small team" in fold and "Forget the team" not in fold
    assert 'href="fork-point.html"' in html
    redirect = _read(out, f"{P}/{FORK}/fork-point.html")
    target = re.search(r'url=([^"]+)"', redirect).group(1)
    path, anchor = target.split("#")
    assert LEAD in path and (out / P / FORK / path).resolve().exists()
    assert f'id="{anchor}"' in (out / P / FORK / path).resolve().read_text()


def test_fork_usage_is_not_counted_twice(sample_site):
    out, _ = sample_site
    html = _read(out, f"{P}/{FORK}/index.html")
    assert "1 API responses" in html
    assert "copied from its parent not counted" in html


def test_teammate_messages_and_send_message_reply(sample_site):
    out, _ = sample_site
    html = _read(out, f"{P}/{LEAD}/page-0001.html")
    assert re.search(r'class="msg user teammate tm-blue"[^>]*>.*?Message from profiler', html, re.S)
    assert "reviewer is idle (waiting for a fix to review)" in html  # a protocol message as a note
    assert "Reply to the <a href=\"#L" in html and "The reply (line" in html
