#!/usr/bin/env python3
"""Write a Claude Code 2.1.27x session into sample_home/projects/-home-dana-atlas/ (docs/formats.md F6):
a lead session with an agent team (two teammates, SendMessage and replies, a JSON protocol message,
a task board), a Workflow run (its agents, journal, summary and script), a nested agent (an agent that
started an agent: ``parentAgentId``/``spawnDepth``), and a session forked from the lead
(``fork-context-ref`` + copied lines with the lead's uuids). The team's files go where Claude Code
writes them: ``sample_home/teams/atlas-perf/`` and ``sample_home/tasks/atlas-perf/``.

Called by make_sample.py's main (deterministic, standard library only). make_modern_tools.py adds a
second session (task tools, new line types) to the same project.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from make_sample import Transcript, dumps, hexid, text, tool, uid, usage

PROJECT = "-home-dana-atlas"
CWD = "/home/dana/atlas"
VERSION = "2.1.274"
TEAM = "atlas-perf"
LEAD = uid("dana/lead")
FORK = uid("dana/fork")
RUN = "wf_3c9e1a27-4b1"
PROF, REV = "a" + hexid("dana/profiler", 16), "a" + hexid("dana/reviewer", 16)
PLAN, NEST = "a" + hexid("dana/planner", 16), "a" + hexid("dana/nested", 16)
WF_AGENTS = ("a" + hexid("dana/wf-bench", 16), "a" + hexid("dana/wf-report", 16))
OPUS, SONNET = "claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929"
SLOW = "GET /tiles/{z}/{x}/{y}.png re-renders every tile because the cache key includes the request id"


def tm(sender: str, color: str, summary: str, body: str) -> str:
    return (f'Another Claude session sent a message:\n<teammate-message teammate_id="{sender}" color="{color}" '
            f'summary="{summary}">\n{body}\n</teammate-message>')


def meta(path: Path, **fields) -> None:
    path.write_text(json.dumps(fields, separators=(",", ":")) + "\n", encoding="utf-8")


def lead(t: Transcript) -> None:
    t.user("Find out why the atlas tile server is slow and fix the worst endpoint. Use a small team: "
           "a profiler and a reviewer.", promptId=uid("dana/p1"), origin={"kind": "human"})
    t.assistant("msg_01DanaTeam0000000001", [text("I'll set up a team and a task board first."),
                tool("TeamCreate", "toolu_01DanaTeamCreate", team_name=TEAM, description="Tile server performance")],
                usage(12, 90, write=5200), model=OPUS)
    t.result("toolu_01DanaTeamCreate", f"Team {TEAM} created.", {"team_name": TEAM, "lead": "team-lead"})
    for n, (cid, subject) in enumerate((("toolu_01DanaTask1", "Profile the tile endpoints"),
                                        ("toolu_01DanaTask2", "Review the cache fix")), 1):
        t.assistant(f"msg_01DanaTask000000000{n}", [tool("TaskCreate", cid, subject=subject, description=subject + ".",
                    activeForm=subject.replace("Profile", "Profiling").replace("Review", "Reviewing"))],
                    usage(4, 40, read=5200), model=OPUS)
        t.result(cid, f"Task #{n} created successfully: {subject}", {"task": {"id": str(n), "subject": subject}})
    for name, aid, color, prompt in (("profiler", PROF, "blue", "Profile every tile endpoint and report the slowest."),
                                     ("reviewer", REV, "green", "Review whatever fix the lead proposes.")):
        cid = f"toolu_01DanaSpawn{name.title()}"
        t.assistant(f"msg_01DanaSpawn{name.title()}", [{"type": "tool_use", "id": cid, "name": "Agent", "input": {
                    "name": name, "team_name": TEAM, "prompt": prompt, "subagent_type": "general-purpose",
                    "description": f"{name} teammate", "model": "sonnet"}}],
                    usage(4, 60, read=5400), model=OPUS)
        t.result(cid, f"Spawned {name} ({color}) in team {TEAM}.\nagentId: {aid}", {"agentId": aid, "status": "teammate_spawned",
                 "name": name, "color": color})
    t.assistant("msg_01DanaSend00000001", [tool("SendMessage", "toolu_01DanaSend1", to="profiler",
                summary="where to start", message="Start with the PNG tile route; time a cold and a warm request.")],
                usage(4, 50, read=5600), model=OPUS)
    t.result("toolu_01DanaSend1", "Message sent to profiler.", {"success": True, "message": "Message sent to profiler",
             "routing": {"sender": "team-lead", "target": "profiler"}})
    t.user(tm("profiler", "blue", "Found the slow endpoint", f"The slowest route: {SLOW}. "
              "A warm request takes 840 ms instead of 12 ms."), origin={"kind": "peer", "from": "profiler"})
    t.user(tm("reviewer", "green", "idle", json.dumps({"type": "idle_notification", "from": "reviewer",
              "idleReason": "waiting for a fix to review"})), origin={"kind": "peer", "from": "reviewer"})
    t.assistant("msg_01DanaTaskUpd000001", [tool("TaskUpdate", "toolu_01DanaTaskUpd1", taskId="1", status="completed",
                owner="profiler"), tool("TaskUpdate", "toolu_01DanaTaskUpd2", taskId="2", status="in_progress",
                owner="reviewer", addBlockedBy=["1"])], usage(4, 60, read=5900), model=OPUS)
    t.result("toolu_01DanaTaskUpd1", "Updated task #1 status", {"success": True, "taskId": "1"})
    t.result("toolu_01DanaTaskUpd2", "Updated task #2 owner, status, blockedBy", {"success": True, "taskId": "2"})


def lead_rest(t: Transcript) -> None:
    t.assistant("msg_01DanaWorkflow00001", [text("Now a benchmark run before and after the cache fix."),
                tool("Workflow", "toolu_01DanaWorkflow", workflow="bench-tiles", args={"routes": ["/tiles"], "runs": 20})],
                usage(4, 80, read=6100), model=OPUS)
    t.result("toolu_01DanaWorkflow", f"Workflow bench-tiles completed (run {RUN}): p50 840 ms → 11 ms over 20 runs.",
             {"runId": RUN, "status": "completed", "agents": 2, "durationMs": 48210})
    t.assistant("msg_01DanaPlanner000001", [tool("Agent", "toolu_01DanaPlanner", subagent_type="Plan",
                description="Plan the cache key fix", prompt="Plan a fix for the tile cache key; look at callers first.")],
                usage(4, 60, read=6300), model=OPUS)
    t.result("toolu_01DanaPlanner", f"Drop the request id from the cache key in tiles/cache.py.\nagentId: {PLAN} (use "
             "SendMessage to continue)\n<usage>total_tokens: 9100\ntool_uses: 2\nduration_ms: 20400</usage>",
             {"agentId": PLAN, "status": "completed", "totalDurationMs": 20400, "totalTokens": 9100, "totalToolUseCount": 2})
    t.assistant("msg_01DanaDone00000001", [text("The cache key no longer contains the request id; warm tiles are served "
                "in 11 ms again. The reviewer has task #2.")], usage(4, 70, read=6500), model=OPUS)


def teammate(pdir: Path, aid: str, name: str, color: str, prompt: str, work) -> None:
    t = Transcript(LEAD, CWD, VERSION, "2026-10-05T08:01:00.000Z", sidechain=True, agent_id=aid, branch="main")
    t.user(prompt, parent=None, teamName=TEAM)
    work(t)
    t.write(pdir / LEAD / "subagents" / f"agent-{aid}.jsonl")
    meta(pdir / LEAD / "subagents" / f"agent-{aid}.meta.json", agentType="general-purpose",
         description=f"{name} teammate", toolUseId=f"toolu_01DanaSpawn{name.title()}", spawnDepth=1)


def profiler_work(t: Transcript) -> None:
    t.user(tm("team-lead", "purple", "where to start", "Start with the PNG tile route; time a cold and a warm request."),
           teamName=TEAM)
    t.assistant("msg_01ProfBench0000001", [tool("Bash", "toolu_01ProfBench", command="hey -n 20 http://localhost:8080/tiles/3/4/2.png",
                description="Time the tile route")], usage(9, 40, write=3100), model=SONNET, teamName=TEAM)
    out = "Summary:\n  Average: 0.8412 secs\n  Requests/sec: 1.19"
    t.result("toolu_01ProfBench", out, {"stdout": out, "stderr": "", "interrupted": False})
    t.assistant("msg_01ProfSend00000001", [tool("SendMessage", "toolu_01ProfSend", to="team-lead",
                summary="Found the slow endpoint", message=f"The slowest route: {SLOW}.")],
                usage(9, 50, read=3100), model=SONNET, teamName=TEAM)
    t.result("toolu_01ProfSend", "Message sent to team-lead.", {"success": True, "message": "Message sent to team-lead"})


def reviewer_work(t: Transcript) -> None:
    t.assistant("msg_01RevIdle000000001", [text("Nothing to review yet; waiting for the lead's fix.")],
                usage(9, 20, write=2900), model=SONNET, teamName=TEAM)


def nested(pdir: Path) -> None:
    sub = pdir / LEAD / "subagents"
    t = Transcript(LEAD, CWD, VERSION, "2026-10-05T08:20:00.000Z", sidechain=True, agent_id=PLAN)
    t.user("Plan a fix for the tile cache key; look at callers first.", parent=None)
    t.assistant("msg_01PlanSpawn0000001", [tool("Agent", "toolu_01PlanExplore", subagent_type="Explore",
                description="Find callers of cache_key", prompt="List every caller of tiles.cache.cache_key.")],
                usage(8, 40, write=2600), model=SONNET)
    t.result("toolu_01PlanExplore", f"Two callers: tiles/routes.py:41 and tiles/warm.py:17.\nagentId: {NEST}",
             {"agentId": NEST, "status": "completed", "totalDurationMs": 6100, "totalTokens": 2400, "totalToolUseCount": 1})
    t.assistant("msg_01PlanDone00000001", [text("Drop the request id from the cache key in tiles/cache.py.")],
                usage(8, 30, read=2600), model=SONNET)
    t.write(sub / f"agent-{PLAN}.jsonl")
    meta(sub / f"agent-{PLAN}.meta.json", agentType="Plan", description="Plan the cache key fix",
         toolUseId="toolu_01DanaPlanner", spawnDepth=1)
    n = Transcript(LEAD, CWD, VERSION, "2026-10-05T08:20:30.000Z", sidechain=True, agent_id=NEST)
    n.user("List every caller of tiles.cache.cache_key.", parent=None)
    n.assistant("msg_01NestGrep0000001", [tool("Grep", "toolu_01NestGrep", pattern="cache_key\\(", path=CWD)],
                usage(6, 20, write=1900), model="claude-haiku-4-5-20251001")
    n.result("toolu_01NestGrep", "tiles/routes.py\ntiles/warm.py", {"mode": "files_with_matches", "numFiles": 2,
             "filenames": ["tiles/routes.py", "tiles/warm.py"]})
    n.assistant("msg_01NestDone00000001", [text("Two callers: tiles/routes.py:41 and tiles/warm.py:17.")],
                usage(6, 20, read=1900), model="claude-haiku-4-5-20251001")
    n.write(sub / f"agent-{NEST}.jsonl")
    meta(sub / f"agent-{NEST}.meta.json", agentType="Explore", description="Find callers of cache_key",
         toolUseId="toolu_01PlanExplore", spawnDepth=2, parentAgentId=PLAN)


def workflow(pdir: Path) -> None:
    sdir = pdir / LEAD
    wdir = sdir / "subagents" / "workflows" / RUN
    for aid, step, what in ((WF_AGENTS[0], "bench", "Benchmark the tile route 20 times, cold and warm."),
                            (WF_AGENTS[1], "report", "Write the before/after table of the benchmark.")):
        t = Transcript(LEAD, CWD, VERSION, "2026-10-05T08:10:00.000Z", sidechain=True, agent_id=aid)
        t.user(what, parent=None)
        t.assistant(f"msg_01Wf{step.title()}000000001", [text(f"{step}: p50 840 ms before, 11 ms after the fix.")],
                    usage(7, 30, write=1500), model=SONNET)
        t.write(wdir / f"agent-{aid}.jsonl")
        meta(wdir / f"agent-{aid}.meta.json", agentType="workflow-step", description=f"bench-tiles step {step}")
    journal = [{"ts": "2026-10-05T08:10:00.000Z", "type": "run_start", "workflow": "bench-tiles", "runId": RUN},
               {"ts": "2026-10-05T08:10:01.000Z", "type": "step_start", "step": "bench", "agentId": WF_AGENTS[0]},
               {"ts": "2026-10-05T08:10:40.000Z", "type": "step_end", "step": "bench", "agentId": WF_AGENTS[0],
                "status": "completed", "message": "p50 840 ms → 11 ms"},
               {"ts": "2026-10-05T08:10:41.000Z", "type": "step_start", "step": "report", "agentId": WF_AGENTS[1]},
               {"ts": "2026-10-05T08:10:48.000Z", "type": "step_end", "step": "report", "agentId": WF_AGENTS[1],
                "status": "completed"},
               {"ts": "2026-10-05T08:10:48.200Z", "type": "run_end", "status": "completed", "durationMs": 48210}]
    (wdir / "journal.jsonl").write_text("".join(dumps(j) + "\n" for j in journal), encoding="utf-8")
    (sdir / "workflows" / "scripts").mkdir(parents=True, exist_ok=True)
    (sdir / "workflows" / f"{RUN}.json").write_text(json.dumps({
        "runId": RUN, "workflowName": "bench-tiles", "status": "completed", "startedAt": "2026-10-05T08:10:00.000Z",
        "completedAt": "2026-10-05T08:10:48.210Z", "durationMs": 48210,
        "agents": [{"agentId": a, "step": s, "status": "completed"} for a, s in zip(WF_AGENTS, ("bench", "report"))],
        "result": "p50 840 ms → 11 ms over 20 runs"}, indent=2) + "\n", encoding="utf-8")
    (sdir / "workflows" / "scripts" / f"bench-tiles-{RUN}.js").write_text(
        "// bench-tiles: time the tile route, then report\n"
        "export default async function run({ agent, args }) {\n"
        "  const bench = await agent('bench', `Benchmark ${args.routes.join(', ')} ${args.runs} times, cold and warm.`);\n"
        "  return agent('report', `Write the before/after table of: ${bench}`);\n"
        "}\n", encoding="utf-8")


def fork(pdir: Path, lead_t: Transcript) -> None:
    copied = [o for o in (json.loads(x) for x in lead_t.lines) if "uuid" in o][:4]
    t = Transcript(FORK, CWD, VERSION, "2026-10-05T09:00:00.000Z")
    t.add({"type": "fork-context-ref", "parentSessionId": LEAD, "parentLastUuid": copied[-1]["uuid"],
           "contextLength": len(copied), "sessionId": FORK})
    for obj in copied:
        t.add(obj)
    t.parent = copied[-1]["uuid"]
    t.user("Forget the team: profile it yourself with py-spy instead.", promptId=uid("dana/fork-p1"))
    t.assistant("msg_01ForkOwn000000001", [text("Profiling with py-spy: 91% of the time is in render_tile().")],
                usage(20, 60, read=5200), model=OPUS)
    t.write(pdir / f"{FORK}.jsonl")


def team_files(home: Path) -> None:
    tdir, kdir = home / "teams" / TEAM, home / "tasks" / TEAM
    for d in (tdir, kdir):
        shutil.rmtree(d, ignore_errors=True)
    (tdir / "inboxes").mkdir(parents=True)
    kdir.mkdir(parents=True)
    members = [{"agentId": f"{n}@{TEAM}", "name": n, "agentType": a, "model": m, "color": c} for n, a, m, c in (
        ("team-lead", "team-lead", OPUS, "purple"), ("profiler", "general-purpose", SONNET, "blue"),
        ("reviewer", "general-purpose", SONNET, "green"))]
    (tdir / "config.json").write_text(json.dumps({"name": TEAM, "leadSessionId": LEAD, "members": members}, indent=2) + "\n")
    inbox = [{"from": "profiler", "text": f"The slowest route: {SLOW}.", "summary": "Found the slow endpoint",
              "timestamp": "2026-10-05T08:03:10.000Z", "read": True},
             {"from": "reviewer", "text": json.dumps({"type": "idle_notification", "from": "reviewer"}),
              "summary": "idle", "timestamp": "2026-10-05T08:03:30.000Z", "read": True}]
    (tdir / "inboxes" / "team-lead.json").write_text(json.dumps(inbox, indent=2) + "\n")
    for n, task in enumerate(({"subject": "Profile the tile endpoints", "status": "completed", "owner": "profiler",
                               "blockedBy": []},
                              {"subject": "Review the cache fix", "status": "in_progress", "owner": "reviewer",
                               "blockedBy": ["1"]}), 1):
        (kdir / f"{n}.json").write_text(json.dumps(dict(task, id=str(n)), indent=2) + "\n")


def write(projects: Path) -> None:
    pdir = projects / PROJECT
    pdir.mkdir(parents=True, exist_ok=True)
    t = Transcript(LEAD, CWD, VERSION, "2026-10-05T08:00:00.000Z")
    t.add({"type": "agent-name", "agentName": "atlas perf lead", "sessionId": LEAD})
    lead(t)
    lead_rest(t)
    t.write(pdir / f"{LEAD}.jsonl")
    teammate(pdir, PROF, "profiler", "blue", "Profile every tile endpoint and report the slowest.", profiler_work)
    teammate(pdir, REV, "reviewer", "green", "Review whatever fix the lead proposes.", reviewer_work)
    nested(pdir)
    workflow(pdir)
    fork(pdir, t)
    team_files(projects.parent)
