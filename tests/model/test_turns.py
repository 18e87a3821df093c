"""model.turns: what followed each prompt, counted in the render's read, resumable at a page start."""

from __future__ import annotations

import io
import json

from ccreport.model.messages import Builder, typed_prompt_text
from ccreport.model.pages import paginate
from ccreport.model.turns import Turns, prompt_of
from ccreport.source.jsonl import Entry, Reader
from util import assistant, tool_result, user


def data_of(entries) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in entries)


def use(i, name, inp, ts="2025-06-01T10:00:05.000Z"):
    return assistant(f"a{i}", [{"type": "tool_use", "id": f"t{i}", "name": name, "input": inp}],
                     mid=f"msg_{i}", rid=f"req_{i}", ts=ts)


def session():
    """Two prompts: the first followed by reads, a failed Bash, a Write, a sub-agent and an answer."""
    return [
        user("u1", "Fix the recorder", ts="2025-06-01T10:00:00.000Z"),
        use(1, "Read", {"file_path": "/home/u/proj/js/a.js"}), tool_result("r1", "t1", "x"),
        use(2, "Read", {"file_path": "/home/u/proj/js/b.js"}), tool_result("r2", "t2", "y"),
        use(3, "Bash", {"command": "make"}), tool_result("r3", "t3", "boom", is_error=True),
        use(4, "Write", {"file_path": "/home/u/proj/js/a.js", "content": "z"}), tool_result("r4", "t4", "ok"),
        use(5, "Task", {"description": "Review the fix", "prompt": "p", "subagent_type": "general-purpose"}),
        tool_result("r5", "t5", "fine", extra={"agentId": "a5f00d"}),
        assistant("a6", [{"type": "text", "text": "Done.\n\nThe recorder **works** now."}], mid="msg_6", rid="req_6",
                  ts="2025-06-01T10:03:00.000Z"),
        user("u2", "<command-name>/compact</command-name>\n<command-args>keep it short</command-args>",
             ts="2025-06-01T10:05:00.000Z"),
        user("u3", "Thanks", ts="2025-06-01T10:06:00.000Z"),
        assistant("a7", [{"type": "text", "text": "You're welcome."}], mid="msg_7", rid="req_7",
                  ts="2025-06-01T10:06:02.000Z"),
    ]


def summarise(entries, size=50):
    turns = Turns()
    for page in paginate(Reader(io.BytesIO(data_of(entries))), Builder(), size):
        turns.feed_page(page.messages, page.no)
    return turns


def test_turn_counts_tools_files_agents_errors_and_answer():
    turns = summarise(session()).turns
    assert [t.prompt for t in turns] == ["Fix the recorder", "/compact keep it short", "Thanks"]
    f = turns[0].figures
    assert f.tools == {"Read": 2, "Bash": 1, "Write": 1, "Task": 1}
    assert f.files == ["/home/u/proj/js/a.js"]  # changed files only, once each
    assert f.agents == [["Review the fix", "a5f00d"]]  # (the agent id: the outline links the name to its pages)
    assert f.errors == 1 and f.responses == 6
    assert f.answer.startswith("Done.") and f.end_ts == "2025-06-01T10:03:00.000Z"
    assert f.usage["input_tokens"] == 60 and f.cost_units > 0
    assert turns[0].line == 1 and turns[2].figures.answer == "You're welcome."


def test_page_parts_split_a_turn_that_spans_pages():
    turns = Turns()
    parts_by_page = []
    for page in paginate(Reader(io.BytesIO(data_of(session()))), Builder(), 5):
        parts_by_page.append(turns.feed_page(page.messages, page.no))
    # the second page starts inside the first turn: its first part belongs to that turn
    assert parts_by_page[1][0][0] is turns.turns[0]
    total = sum(f.responses for parts in parts_by_page for t, f in parts if t is turns.turns[0])
    assert total == turns.turns[0].figures.responses == 6


def test_resume_from_a_page_mark_gives_the_same_turns():
    data = data_of(session())
    whole = summarise(session(), 5).to_json()
    turns = Turns()
    pages = list(paginate(Reader(io.BytesIO(data)), Builder(), 5))
    for page in pages[:-1]:
        turns.feed_page(page.messages, page.no)
    mark = turns.mark()
    turns.feed_page(pages[-1].messages, pages[-1].no)
    saved = turns.to_json()
    # later: the summariser resumes at the last page's mark and reads that page again
    again = Turns.resume(saved, mark)
    again.feed_page(pages[-1].messages, pages[-1].no)
    assert again.to_json() == whole


def test_injected_and_tool_result_lines_start_no_turn():
    b = Builder()
    for i, e in enumerate([user("c", "Caveat: The messages below were generated"), tool_result("r", "t", "x"),
                           user("s", "<system-reminder>x</system-reminder>")], 1):
        b.feed(Entry(i, 0, 0, e))
    assert all(prompt_of(m) is None for m in b.out)


def test_a_prompt_after_an_ide_context_block_starts_a_turn():
    ide = {"type": "text", "text": "<ide_opened_file>The user opened the file /p/a.js</ide_opened_file>"}
    entry = user("u1", [ide, {"type": "text", "text": "Why does this fail?"}])
    b = Builder()
    b.feed(Entry(1, 0, 0, entry))
    assert typed_prompt_text(entry) == "Why does this fail?"
    assert prompt_of(b.out[0]) == "Why does this fail?" and b.carry["titles"]["prompt"] == "Why does this fail?"
    # only context, or a tool result first: no prompt
    assert typed_prompt_text(user("u2", [ide])) is None
    assert typed_prompt_text(tool_result("r", "t", "x")) is None


def test_a_teammate_or_peer_message_is_not_a_typed_prompt():
    tm = 'Another Claude session sent a message:\n<teammate-message teammate_id="checker">ok</teammate-message>'
    assert typed_prompt_text(user("u1", tm)) is None
    assert typed_prompt_text(user("u2", "results are in", origin={"kind": "peer", "from": "checker"})) is None
    assert typed_prompt_text(user("u3", "typed", origin={"kind": "human"})) == "typed"
