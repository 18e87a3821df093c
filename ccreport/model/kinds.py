"""What each line type and attachment of Claude Code 2.1.2xx is for a reader (docs/formats.md F6): quiet
bookkeeping, the context Claude Code gave the model, or a notice that must stand out. The builder
(model.messages) groups lines by these sets; the renderers say what each one means."""

from __future__ import annotations

# Line types without conversation of their own (folded notes, never dropped), 2.1.140+.
# ``artifact-*`` lines (Artifact tool bookkeeping) are matched by prefix: new ones keep appearing.
NEW_BOOKKEEPING = {"atis-latch", "mode", "frame-link", "file-history-delta", "bridge-session", "cost-state",
                   "fork-context-ref", "agent-setting"}
ARTIFACT_PREFIX = "artifact-"

# Attachments that carry what the model was told about its situation (system prompt, CLAUDE.md, the
# machine, the account, the tools and agents on offer): large and repeated, so a turn's are gathered
# into one folded "context" block.
CONTEXT_ATTACHMENTS = {
    "prompt_snapshot", "instructions", "environment", "session_context", "model", "date", "date_change",
    "total_tokens_reminder", "agent_listing_delta", "skill_listing", "deferred_tools_delta",
    "mcp_instructions_delta", "remote_session_change", "command_permissions", "nested_memory",
}
# Attachments a reader must see where they happened: hook failures, background-task status, a message
# a hook shows the user (2.1.2xx: Claude Code shows it too) and a Read that was cut.
NOTICE_ATTACHMENTS = {"hook_blocking_error", "hook_non_blocking_error", "task_status", "hook_system_message",
                      "read_truncation_notice"}


def is_new_bookkeeping(etype: str) -> bool:
    return etype in NEW_BOOKKEEPING or etype.startswith(ARTIFACT_PREFIX)


def attachment_type(obj: dict) -> str | None:
    att = obj.get("attachment")
    t = att.get("type") if isinstance(att, dict) else None
    return t if isinstance(t, str) else None


def cost_state(obj: dict) -> dict | None:
    """The figures of a ``cost-state`` line that ccreport shows: Claude Code's own running cost.

    None when the line has no number for the total. Per-model costs are kept (Claude Code counts
    background models such as Haiku that never appear on an assistant line)."""
    total = obj.get("totalCostUSD")
    if not isinstance(total, (int, float)) or isinstance(total, bool):
        return None
    models = {}
    mu = obj.get("modelUsage")
    if isinstance(mu, dict):
        for name, rec in mu.items():
            c = rec.get("costUSD") if isinstance(rec, dict) else None
            if isinstance(c, (int, float)) and not isinstance(c, bool):
                models[str(name)] = float(c)
    out = {"cost": float(total), "models": models, "unknown_model_cost": bool(obj.get("hasUnknownModelCost"))}
    for key, name in (("totalAPIDuration", "api_ms"), ("totalDuration", "duration_ms"),
                      ("totalLinesAdded", "lines_added"), ("totalLinesRemoved", "lines_removed")):
        v = obj.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out[name] = v
    return out
