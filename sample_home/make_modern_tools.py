#!/usr/bin/env python3
"""Write the second 2.1.2xx-style session of ``sample_home/projects/-home-dana-atlas/`` (cwd /home/dana/atlas):
the task tools and the task board, every new line type, attachment and system subtype of docs/formats.md F6
(bookkeeping, Claude Code's own cost, context attachments, hook errors, ANSI hook text, ``origin.kind``),
every new tool (Workflow, Monitor, Cron*, Artifact, SendUserFile, SendFeedback, ListAgents,
SubagentHandback, Enter/ExitWorktree, TeamCreate/TeamDelete, SendMessage), a ``persistedOutputPath`` from
another machine and a ``custom-title.json``.

Called by make_sample.py's main; writes only this session's files (make_modern.py writes the other
session of the same project). Deterministic like make_sample.py; nothing is copied from a real transcript.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_sample import PROJECTS, Transcript, dumps, text, uid, usage  # noqa: E402

PROJECT = "-home-dana-atlas"
CWD = "/home/dana/atlas"
SID = uid("dana/atlas/tasks-and-tools")
VERSION = "2.1.270"
MODEL = "claude-opus-4-6"
ESC = "\x1b"
EMAIL = "dana.kowalski@atlas-example.org"
ACCOUNT = uid("dana/account")
ORG = uid("dana/organisation")
SYSTEM_PROMPT = ("You are Claude Code, Anthropic's official CLI for Claude.\n\n"
                 + "\n".join(f"- Rule {i}: keep changes small and explain them." for i in range(1, 120)))
CLAUDE_MD = "# Atlas\n\nMap tiles are rendered by `atlas/tiles.py`. Run `make test` before committing.\n"


def attachment(t: Transcript, att: dict, **extra) -> None:
    t.add(t.env("attachment", 0.2, attachment=att, **extra))


def call(t: Transcript, n: int, name: str, cid: str, result, extra=None, /, **inp) -> None:
    """One assistant response holding one tool call (its input: ``inp``), then its result."""
    block = {"type": "tool_use", "id": cid, "name": name, "input": inp}
    t.assistant(f"msg_01DanaTools{n:07d}", [block], usage(6, 90 + n, read=12000 + 300 * n, write=200), model=MODEL,
                stop="tool_use")
    t.result(cid, result, extra)


def opening(t: Transcript) -> None:
    """Bookkeeping and context before the first prompt."""
    t.add({"type": "mode", "mode": "default", "sessionId": SID})
    t.add({"type": "permission-mode", "permissionMode": "default", "sessionId": SID})
    t.add({"type": "atis-latch", "atis": False, "sessionId": SID})
    t.add({"type": "bridge-session", "bridgeSessionId": "bridge_01DanaAtlas", "accountUuid": ACCOUNT,
           "organizationUuid": ORG, "sessionId": SID})
    t.add({"type": "agent-name", "agentName": "atlas-board", "sessionId": SID})
    t.add({"type": "frame-link", "frameId": "frame_7", "remoteSessionId": "session_01DanaRemote",
           "timestamp": "2026-10-02T08:00:01.000Z"})
    attachment(t, {"type": "prompt_snapshot", "content": SYSTEM_PROMPT})
    attachment(t, {"type": "instructions", "content": CLAUDE_MD, "path": f"{CWD}/CLAUDE.md"})
    attachment(t, {"type": "environment", "content": f"Working directory: {CWD}\nPlatform: linux\nShell: zsh"})
    attachment(t, {"type": "session_context", "content": f"Signed in as {EMAIL} (Max plan)", "email": EMAIL})
    attachment(t, {"type": "model", "model": MODEL})
    attachment(t, {"type": "date", "date": "2026-10-02"})
    attachment(t, {"type": "agent_listing_delta", "addedNames": ["Explore", "general-purpose", "tile-checker"],
                   "removedNames": []})
    attachment(t, {"type": "total_tokens_reminder", "tokensUsed": 48210, "tokenBudget": 200000},
               rendered=[{"type": "text", "text": "You have used 48,210 of 200,000 tokens."}])
    t.user("Plan the tile cache work as tasks, then start on the first one.", origin={"kind": "human"},
           promptSource="cli", promptId=uid("dana/p1"))


def task_tools(t: Transcript) -> None:
    """TaskCreate ×3, TaskUpdate ×3, a reminder, TaskList, TaskGet: the board changes step by step."""
    subjects = ["Measure tile render time", "Add an LRU cache to tiles.render", "Benchmark the cache"]
    for i, subject in enumerate(subjects, 1):
        extra = {"task": {"id": str(i), "subject": subject}} if i < 3 else None  # the third: text only
        call(t, i, "TaskCreate", f"toolu_01DanaCreate{i}", f"Task #{i} created successfully: {subject}", extra,
             subject=subject, description=f"Part {i} of the tile cache work.",
             activeForm=subject.replace("Add", "Adding"))
    call(t, 4, "TaskUpdate", "toolu_01DanaUpdate1", "Updated task #1 status", {
        "success": True, "taskId": "1", "updatedFields": ["status", "owner"],
        "statusChange": {"from": "pending", "to": "in_progress"}}, taskId="1", status="in_progress", owner="dana")
    call(t, 5, "TaskUpdate", "toolu_01DanaUpdate3", "Updated task #3 blockedBy",
         {"success": True, "taskId": "3", "updatedFields": ["blockedBy"]}, taskId="3", addBlockedBy=["2"])
    attachment(t, {"type": "task_reminder", "itemCount": 3, "content": [
        {"id": "1", "subject": subjects[0], "description": "Part 1", "activeForm": "Measuring", "owner": "dana",
         "status": "in_progress", "blocks": [], "blockedBy": []},
        {"id": "2", "subject": subjects[1], "description": "Part 2", "activeForm": "Adding", "status": "pending",
         "blocks": ["3"], "blockedBy": []},
        {"id": "3", "subject": subjects[2], "description": "Part 3", "activeForm": "Benchmarking",
         "status": "pending", "blocks": [], "blockedBy": ["2"]}]})
    call(t, 6, "TaskUpdate", "toolu_01DanaUpdate1b", "Updated task #1 status", {
        "success": True, "taskId": "1", "statusChange": {"from": "in_progress", "to": "completed"}},
         taskId="1", status="completed")
    listing = (f"#1 [completed] {subjects[0]} (dana)\n#2 [pending] {subjects[1]}\n"
               f"#3 [pending] {subjects[2]}")
    call(t, 7, "TaskList", "toolu_01DanaList", listing)
    call(t, 8, "TaskGet", "toolu_01DanaGet", f"Task #2: {subjects[1]}", {"task": {
        "id": "2", "subject": subjects[1], "description": "Wrap `render` in functools.lru_cache keyed by (z, x, y).",
        "status": "pending", "blocks": ["3"], "blockedBy": []}}, taskId="2")


def background(t: Transcript) -> None:
    """A background shell read by TaskOutput, stopped by TaskStop; its status arrives as task_status."""
    call(t, 9, "Bash", "toolu_01DanaBgBench", "Command running in background with ID: b7f3a1", {
        "stdout": "", "stderr": "", "interrupted": False, "isImage": False, "backgroundTaskId": "b7f3a1"},
         command="python -m atlas.bench --tiles 500", run_in_background=True, description="Benchmark tile rendering")
    out = "render 500 tiles: 4.81 s\nper tile: 9.6 ms\n"
    call(t, 10, "TaskOutput", "toolu_01DanaOutput", out, {"retrieval_status": "success", "task": {
        "task_id": "b7f3a1", "task_type": "local_bash", "status": "completed",
        "description": "Benchmark tile rendering", "output": out, "exitCode": 0}}, task_id="b7f3a1", block=True)
    attachment(t, {"type": "task_status", "taskId": "b7f3a1", "taskType": "local_bash", "status": "completed",
                   "deltaSummary": "2 new lines of output"})
    call(t, 11, "TaskStop", "toolu_01DanaStop", "Successfully stopped task: b7f3a1 (python -m atlas.bench)", {
        "message": "Successfully stopped task: b7f3a1", "task_id": "b7f3a1", "task_type": "local_bash"},
         task_id="b7f3a1")


def hooks(t: Transcript) -> None:
    """Hook lines with ANSI escapes, a hook that failed, one that blocked a command, a stop-hook summary."""
    t.add(t.env("system", 0.5, subtype="informational", level="info",
                content=f"Running {ESC}[1mPostToolUse:Edit{ESC}[22m..."))
    attachment(t, {"type": "hook_success", "hookName": "PostToolUse:Edit", "hookEvent": "PostToolUse",
                   "toolUseID": "toolu_01DanaEdit", "content": "", "exitCode": 0, "command": "ruff format",
                   "stdout": f"{ESC}[32m1 file reformatted{ESC}[0m", "stderr": "", "durationMs": 140})
    attachment(t, {"type": "hook_non_blocking_error", "hookName": "PostToolUse:Edit", "hookEvent": "PostToolUse",
                   "toolUseID": "toolu_01DanaEdit", "command": "ruff check atlas/",
                   "stderr": f"{ESC}[31matlas/tiles.py:12:5: F841 local variable 'size' is never used{ESC}[0m",
                   "exitCode": 1})
    attachment(t, {"type": "hook_blocking_error", "hookName": "PreToolUse:Bash", "hookEvent": "PreToolUse",
                   "toolUseID": "toolu_01DanaRm", "blockingError": {
                       "blockingError": f"{ESC}[1mguard.sh{ESC}[22m: refusing to run rm -rf outside /tmp",
                       "command": "~/.claude/hooks/guard.sh"}})
    t.add(t.env("system", 0.5, subtype="stop_hook_summary", level="suggestion", hookCount=1,
                hookInfos=[{"command": f"{ESC}[1mnotify-send done{ESC}[22m"}], hookErrors=[],
                preventedContinuation=False, stopReason="", hasOutput=False))


def new_tools(t: Transcript) -> None:
    n = iter(range(20, 60))
    call(t, next(n), "Workflow", "toolu_01DanaWorkflow", "Workflow wf_3c9e01aa-5d2 completed (2 agents)", {
        "runId": "wf_3c9e01aa-5d2", "status": "completed", "agentCount": 2}, name="tile-audit",
         script="export default async ({ agent }) => {\n  await agent('Explore', 'List the tile renderers');\n}\n",
         args={"zoom": 12})
    call(t, next(n), "Monitor", "toolu_01DanaMonitor", "Monitoring started (monitor_41)", {"monitorId": "monitor_41"},
         description="Watch the tile server log for 5xx", command="tail -f logs/tiles.log | grep ' 5[0-9][0-9] '",
         timeout_ms=600000)
    call(t, next(n), "CronCreate", "toolu_01DanaCron", "Scheduled job cron_9 (every weekday at 07:00)", {
        "id": "cron_9", "humanSchedule": "every weekday at 07:00", "recurring": True},
         cron="0 7 * * 1-5", prompt="Re-run the tile benchmark and report regressions", recurring=True)
    call(t, next(n), "CronList", "toolu_01DanaCronList", "cron_9  0 7 * * 1-5  Re-run the tile benchmark", {
        "jobs": [{"id": "cron_9", "cron": "0 7 * * 1-5", "humanSchedule": "every weekday at 07:00",
                  "prompt": "Re-run the tile benchmark and report regressions"}]})
    call(t, next(n), "CronDelete", "toolu_01DanaCronDel", "Deleted job cron_9", {"id": "cron_9", "deleted": True},
         id="cron_9")
    call(t, next(n), "Artifact", "toolu_01DanaArtifact", "Published: https://claude.ai/artifacts/atlas-bench-3f2", {
        "url": "https://claude.ai/artifacts/atlas-bench-3f2", "version": 1}, title="Tile benchmark report",
         type="text/markdown", content="# Tile benchmark\n\n| tiles | seconds |\n|---|---|\n| 500 | 4.81 |\n")
    call(t, next(n), "SendUserFile", "toolu_01DanaSendFile", "Sent bench.csv to the user", None,
         file_path=f"{CWD}/out/bench.csv", message="The raw timings, one tile per row.")
    call(t, next(n), "SendFeedback", "toolu_01DanaFeedback", "Feedback sent. Thank you!", None,
         feedback="The task board reminder repeats after every tool call.", type="bug")
    call(t, next(n), "ListAgents", "toolu_01DanaListAgents", "2 agents: tile-checker (idle), Explore (running)", {
        "agents": [{"name": "tile-checker", "status": "idle"}, {"name": "Explore", "status": "running"}]})
    call(t, next(n), "SubagentHandback", "toolu_01DanaHandback", "Handed back to the lead.", None,
         summary="Cache added; the benchmark shows 4.8 s → 0.9 s for 500 tiles.", status="done")
    call(t, next(n), "EnterWorktree", "toolu_01DanaWtIn", f"Switched to worktree {CWD}/.worktrees/cache", {
        "worktreePath": f"{CWD}/.worktrees/cache", "branch": "tile-cache"}, name="cache")
    call(t, next(n), "ExitWorktree", "toolu_01DanaWtOut", "Left the worktree (kept)", {"kept": True}, action="keep")
    call(t, next(n), "TeamCreate", "toolu_01DanaTeam", "Team atlas-cache created", {
        "team_name": "atlas-cache", "lead_agent_id": "team-lead@atlas-cache"}, team_name="atlas-cache",
         description="Two reviewers for the tile cache")
    call(t, next(n), "SendMessage", "toolu_01DanaSendMsg", '{"success":true,"message":"Message sent to reviewer"}', {
        "success": True, "message": "Message sent to reviewer",
        "routing": {"sender": "team-lead", "target": "reviewer@atlas-cache"}},
         to="reviewer", message="Please review the cache eviction in tiles.py.", summary="review request")
    call(t, next(n), "TeamDelete", "toolu_01DanaTeamDel", "Team atlas-cache deleted", {"success": True},
         team_name="atlas-cache")


def persisted(t: Transcript, pdir: Path) -> None:
    """A result saved by another machine: its absolute path does not exist here, its file name does."""
    name = "toolu_01DanaBigLog.txt"
    (pdir / SID / "tool-results").mkdir(parents=True, exist_ok=True)
    (pdir / SID / "tool-results" / name).write_text("".join(f"tile {i}: ok\n" for i in range(300)), encoding="utf-8")
    call(t, 40, "Bash", "toolu_01DanaBigLog", "tile 0: ok\ntile 1: ok\n… (output truncated)", {
        "stdout": "tile 0: ok\ntile 1: ok\n", "stderr": "", "interrupted": False, "isImage": False,
        "persistedOutputPath": f"/Users/dana/.claude/projects/-Users-dana-atlas/{SID}/tool-results/{name}"},
         command="python -m atlas.check_all", description="Check every tile")


def origins_and_system(t: Transcript) -> None:
    """User lines sent by a task, a hook and another session; the new system subtypes; a second turn."""
    t.user("<task-notification>\n<task-id>b7f3a1</task-id>\n<status>completed</status>\n"
           "<summary>Benchmark tile rendering finished</summary>\n</task-notification>",
           origin={"kind": "task-notification"})
    t.user("PostToolUse:Edit hook additional context: tiles.py changed; remember to run make test.",
           origin={"kind": "hook"}, isMeta=True)
    t.user("Can you also check the cache size limit before lunch?",
           origin={"kind": "peer", "from": "session 5e0c (dana's laptop)", "verifiedPeerPid": 4242})
    t.add(t.env("system", 1, subtype="scheduled_task_fire", cron="0 7 * * 1-5",
                prompt="Re-run the tile benchmark and report regressions"))
    t.add(t.env("system", 1, subtype="bridge_status", url="https://claude.ai/code/session_01DanaRemote",
                connected=True))
    t.add(t.env("system", 1, subtype="model_refusal_no_fallback", level="error",
                content="The model declined to continue and no fallback model is configured."))
    t.add(t.env("system", 1, subtype="post_turn", durationMs=5400, messageCount=4))
    # A second turn: its own (smaller) context block.
    attachment(t, {"type": "date_change", "newDate": "2026-10-03"})
    attachment(t, {"type": "remote_session_change", "remoteSessionId": "session_01DanaRemote", "connected": False})
    t.user("Thanks — wrap up for today.", origin={"kind": "human"})
    t.assistant("msg_01DanaToolsWrapUp", [text("Done: the cache is in, task #1 is complete, #2 and #3 are open.")],
                usage(8, 40, read=30000, write=100), model=MODEL)


def closing(t: Transcript) -> None:
    """Bookkeeping after the conversation: backups, artifacts, Claude Code's own cost (twice: the last holds)."""
    t.add({"type": "file-history-delta", "messageId": uid("dana/delta"), "snapshotMessageId": uid("dana/p1"),
           "trackingPath": f"{CWD}/atlas/tiles.py", "backup": "3f9a0c1e2b4d5a6f@v2",
           "timestamp": "2026-10-02T09:10:00.000Z"})
    t.add({"type": "artifact-autoreact-ledger", "v": 1, "artifacts": {"atlas-bench-3f2": {"reacted": True}}})
    t.add({"type": "artifact-comment-monitor", "v": 1, "artifacts": {"atlas-bench-3f2": {"lastComment": None}}})
    t.add({"type": "atis-latch", "atis": {"state": "armed"}, "sessionId": SID})
    t.add({"type": "mode", "mode": "dontAsk", "sessionId": SID})
    for total in (0.41, 0.87):
        t.add({"type": "cost-state", "totalCostUSD": total, "totalAPIDuration": 48100, "totalAPIDurationWithoutRetries":
               47000, "totalToolDuration": 12000, "totalDuration": 640000, "startTime": 1790841600000,
               "totalLinesAdded": 42, "totalLinesRemoved": 7, "hasUnknownModelCost": False, "modelUsage": {
                   MODEL: {"inputTokens": 310, "outputTokens": 2480, "cacheReadInputTokens": 620000,
                           "cacheCreationInputTokens": 9000, "webSearchRequests": 0, "costUSD": round(total - 0.05, 2)},
                   "claude-haiku-4-5-20251001": {"inputTokens": 41000, "outputTokens": 900, "cacheReadInputTokens": 0,
                                                 "cacheCreationInputTokens": 0, "webSearchRequests": 0,
                                                 "costUSD": 0.05}}})
    t.add({"type": "last-prompt", "lastPrompt": "Thanks — wrap up for today.", "leafUuid": t.parent,
           "sessionId": SID})


def main() -> None:
    pdir = PROJECTS / PROJECT
    shutil.rmtree(pdir / SID, ignore_errors=True)
    t = Transcript(SID, CWD, VERSION, "2026-10-02T08:00:00.000Z", branch="tile-cache")
    opening(t)
    task_tools(t)
    background(t)
    hooks(t)
    new_tools(t)
    persisted(t, pdir)
    origins_and_system(t)
    closing(t)
    t.write(pdir / f"{SID}.jsonl")
    (pdir / SID / "custom-title.json").write_text(dumps({"customTitle": "Atlas: tile cache task board"}) + "\n",
                                                  encoding="utf-8")


if __name__ == "__main__":
    main()
