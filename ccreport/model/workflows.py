"""A Workflow run read for a reader (docs/formats.md F4): its journal as steps, and the run a Workflow
call started. The journal is a small JSONL of steps and events whose fields vary: each line becomes
a step with what it names (kind, step, agent, status, time, message), the rest kept as it is."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import orjson

from ccreport.source.home import Session
from ccreport.source.workflows import RunFiles, find_runs, read_text

RUN_ID_RE = re.compile(r"\bwf_[0-9A-Za-z]{4,40}(?:-[0-9A-Za-z]{2,12})?\b")
_KIND = ("type", "event", "kind", "phase")
_NAME = ("step", "stepName", "name", "label", "title")
_AGENT = ("agentId", "agent_id", "agent")
_TEXT = ("message", "text", "summary", "description", "output", "error")
_TIME = ("timestamp", "ts", "time", "at")
STEPS_MAX = 5000


@dataclass
class Step:
    line: int
    kind: str = ""
    name: str = ""
    agent_id: str | None = None
    status: str = ""
    time: str = ""
    text: str = ""
    rest: dict = field(default_factory=dict)  # the fields not named above
    raw: str | None = None  # a line that is not a JSON object, as it is


def _first(obj: dict, keys) -> tuple[str | None, str | None]:
    for k in keys:
        v = obj.get(k)
        if isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v) != "":
            return k, str(v)
    return None, None


def journal_steps(text: str) -> list[Step]:
    steps = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(steps) >= STEPS_MAX:
            steps.append(Step(no, raw=f"… {len(text.splitlines()) - no + 1:,} more journal lines not shown"))
            break
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            obj = None
        if not isinstance(obj, dict):
            steps.append(Step(no, raw=line))
            continue
        used = set()
        vals = {}
        for name, keys in (("kind", _KIND), ("name", _NAME), ("agent_id", _AGENT), ("status", ("status", "state")),
                           ("time", _TIME), ("text", _TEXT)):
            k, v = _first(obj, keys)
            if k is not None:
                used.add(k)
                vals[name] = v
        steps.append(Step(no, rest={k: v for k, v in obj.items() if k not in used}, **vals))
    return steps


def run_id_of(call) -> str | None:
    """The run a Workflow call started: a run id in its structured result, else in its result text."""
    r = call.result
    x = r.extra if r is not None and isinstance(r.extra, dict) else {}
    for key in ("runId", "workflowRunId", "run_id", "workflowId", "id"):
        v = x.get(key)
        if isinstance(v, str) and RUN_ID_RE.fullmatch(v):
            return v
    texts = [r.content] if r is not None and isinstance(r.content, str) else []
    if r is not None and isinstance(r.content, list):
        texts += [b.get("text") for b in r.content if isinstance(b, dict) and isinstance(b.get("text"), str)]
    for t in texts:
        m = RUN_ID_RE.search(t[:20000])
        if m:
            return m.group(0)
    return None


def run_summary(s: Session, run: RunFiles) -> tuple[dict | None, str]:
    """The run's summary file (``workflows/wf_<id>.json``) as an object (None: none, or not one) and as
    written; from the store when the home lost it."""
    raw, _ = read_text(s, run.summary)
    try:
        data = orjson.loads(raw) if raw else None
    except orjson.JSONDecodeError:
        data = None
    return (data if isinstance(data, dict) else None), raw


def run_status(summary: dict | None, steps: list[Step]) -> str:
    if summary and isinstance(summary.get("status"), str):
        return summary["status"]
    last = next((st.status for st in reversed(steps) if st.status), "")
    return last or ("finished" if summary else "")


def run_facts(s: Session) -> tuple[list[RunFiles], dict]:
    """The session's runs and, by run id, what a Workflow call's card says of its run: status, journal
    steps, agents (their ids too)."""
    runs = find_runs(s)
    facts = {}
    for r in runs:
        summary, _ = run_summary(s, r)
        steps = journal_steps(read_text(s, r.journal)[0])
        ids = [a.id for a in s.agents if a.workflow_run == r.run_id]
        facts[r.run_id] = {"status": run_status(summary, steps), "steps": len(steps), "agents": len(ids),
                           "agent_ids": ids}
    return runs, facts
