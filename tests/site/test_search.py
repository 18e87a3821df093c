"""The offline search: index parts and bundles, and the search box used in chromium from file://."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ccreport.site.search import CAPS
from ccreport.site.state import FORMAT
from searchhelp import read_session
from util import assistant, make_home, tool_result, user

# Occurs once in ../shared/corpus/real, inside one sub-agent's WebFetch tool result (checked below).
CORPUS_PHRASE = "interface confirmation before"


def _script(site, rel, call):
    raw = (site / rel).read_text(encoding="utf-8")
    m = re.fullmatch(r"ccreportSearch\.%s\((.*)\);\n" % call, raw, re.S)
    assert m, f"{rel} is one ccreportSearch.{call}(...) call"
    return json.loads(m.group(1))


def _bundle(site, project):
    data = _script(site, f"search/{project}.js", "add")
    # The loader lists the chunk scripts; their documents come grouped by page. Flattened here
    # as [session index, kind, url, time, text] for the checks, in the loader's order.
    ids = [s[0] for s in data["sessions"]]
    data["docs"] = []
    for rel in data["chunks"]:
        chunk = _script(site, rel, "chunk")
        assert chunk["file"] == rel
        data["docs"].extend([ids.index(chunk["session"])] + d for docs in chunk["pages"] for d in docs)
    return data


def _home(tmp_path, result_text):
    big = "BIGSTART " + "x" * 10_000 + " BIGEND"
    return make_home(tmp_path / "home", {"-home-u-proj": {"s1.jsonl": [
        user("u1", "please find the zebra file"),
        assistant("a1", [{"type": "thinking", "thinking": "pondering quokka", "signature": "s"},
                         {"type": "text", "text": "I will search for it."}], parent="u1", mid="m1"),
        assistant("a2", [{"type": "tool_use", "id": "t1", "name": "Grep", "input": {"pattern": "walrus"}}],
                  parent="a1", mid="m1"),
        tool_result("u2", "t1", result_text, parent="a2"),
        assistant("a3", [{"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "/big"}}],
                  parent="u2", mid="m2", rid="r2"),
        tool_result("u3", "t2", big, parent="a3"),
    ]}})


def test_parts_and_bundle(tmp_path, build_site):
    out = tmp_path / "site"
    build_site(_home(tmp_path, "found narwhal.txt"), out)
    # The pages outside full chunks are in the session's tail script, which names each page (an
    # update reads them back from it); the usage ledgers are in the session's parts file (state).
    tail = (out / "search/-home-u-proj/s1~tail.js").read_text()
    data = json.loads(tail[len("ccreportSearch.chunk("):-len(");\n")])
    assert data["keys"] == [["main", 1]] and any("zebra" in d[3] for d in data["pages"][0])
    state = json.loads((out / ".ccreport/sessions/-home-u-proj/s1.json").read_text())
    assert state["ledgers"]["main"]["rows"] and not (out / ".ccreport/parts").exists()
    b = _bundle(out, "-home-u-proj")
    assert b["sessions"][0][0] == "s1" and b["sessions"][0][2] == "p/-home-u-proj/s1/"
    docs = {d[1]: [] for d in b["docs"]}
    for d in b["docs"]:
        docs[d[1]].append(d)
    assert [d[4] for d in docs["p"]] == ["please find the zebra file"]
    assert "pondering quokka" in docs["a"][0][4] and "I will search" in docs["a"][0][4]
    grep = next(d for d in docs["t"] if "walrus" in d[4])
    assert "narwhal" in grep[4]
    assert grep[2] == "page-0001.html#L4"  # the tool result's own line, inside the call's <details>
    assert 'id="L4"' in (out / "p/-home-u-proj/s1/page-0001.html").read_text()
    read = next(d for d in docs["t"] if "BIGSTART" in d[4])
    assert "BIGEND" not in read[4] and len(read[4]) <= CAPS["tool_input"] + CAPS["tool_result"] + 20
    manifest = (out / "search/manifest.js").read_text()
    assert '"dir":"-home-u-proj"' in manifest


def test_incremental_parts_equal_one_full_read(tmp_path, build_site):
    """Documents and usage collected page by page while rendering, over appends that resume at
    the last page, equal one read of the whole session (searchhelp.read_session)."""
    from ccreport.source.home import discover
    from ccreport.site.state import State

    path = tmp_path / "home/projects/-p/s3.jsonl"
    lines = [user("u0", "first prompt")]
    for i in range(1, 13):
        lines.append(assistant(f"a{i}", [{"type": "text", "text": f"answer word{i}"}], mid=f"m{i}", rid=f"r{i}"))
    home = make_home(tmp_path / "home", {"-p": {"s3.jsonl": lines[:5]}})
    out = tmp_path / "site"
    for k in (5, 9, 13):
        if k > 5:
            with open(path, "a") as fh:
                fh.writelines(json.dumps(e) + "\n" for e in lines[k - 4:k])
        build_site(home, out, page_size=3)
    docs, report = read_session(discover(home).projects[0].sessions["s3"], 3)
    assert [d[1:] for d in _bundle(out, "-p")["docs"]] == docs
    assert State.load(out).sessions[("-p", "s3")].info.usage_report == report
    assert report["total"]["responses"] == 12


def test_bundle_links_follow_pagination(tmp_path, build_site):
    """With small pages a message's link names the page the renderer put it on."""
    lines = [user("u0", "start")]
    for i in range(1, 30):
        lines.append(assistant(f"a{i}", [{"type": "text", "text": f"answer number{i}"}], mid=f"m{i}", rid=f"r{i}"))
    home = make_home(tmp_path / "home", {"-p": {"s2.jsonl": lines}})
    out = tmp_path / "site"
    build_site(home, out, page_size=5)
    for d in _bundle(out, "-p")["docs"]:
        page, anchor = d[2].split("#")
        assert f'id="{anchor}"' in (out / "p/-p/s2" / page).read_text()


def test_corpus_phrase_only_in_a_tool_result(corpus_home):
    """The phrase the browser test searches for really occurs only in a tool result."""
    where = []
    for f in (corpus_home / "projects").rglob("*.jsonl"):
        for n, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if CORPUS_PHRASE not in line.lower():
                continue
            o = json.loads(line)
            content = o["message"]["content"]
            assert o["type"] == "user" and isinstance(content, list)
            hits = [b for b in content if CORPUS_PHRASE in json.dumps(b).lower()]
            assert hits and all(b["type"] == "tool_result" for b in hits)
            where.append((f.name, n))
    assert len(where) == 1


@pytest.mark.browser
def test_search_finds_tool_result_and_lands_on_it(corpus_site, browser):
    site, _ = corpus_site
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((site / "index.html").as_uri())
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-q"
    page.keyboard.type(CORPUS_PHRASE)
    page.keyboard.press("Enter")
    page.wait_for_selector("#search-status[data-count]")
    assert page.get_attribute("#search-status", "data-count") == "1"
    hit = page.locator("#search-results li").first
    assert CORPUS_PHRASE in hit.locator("mark").text_content().lower()
    assert "tool" in hit.locator(".chip").text_content()
    href = hit.locator("a").get_attribute("href")
    # the text-scan mode (used when the scope is too big to rank in the page) finds the same item
    scan = browser.new_page()
    scan.goto((site / "index.html").as_uri())
    scan.evaluate("document.getElementById('search-form').setAttribute('data-rank-max', '0')")
    scan.fill("#search-q", CORPUS_PHRASE)
    scan.keyboard.press("Enter")
    scan.wait_for_selector("#search-status[data-count]")
    assert "text scan" in scan.text_content("#search-status")
    assert scan.get_attribute("#search-status", "data-count") == "1"
    assert scan.locator("#search-results li a").first.get_attribute("href") == href
    scan.close()
    hit.locator("a").click()
    page.wait_for_load_state()
    assert page.url.endswith(href.split("/", 1)[1]) and "#L" in page.url
    target = page.evaluate("location.hash").lstrip("#")
    el = page.locator(f"[id='{target}']")
    assert CORPUS_PHRASE in el.text_content().lower()
    assert el.is_visible()  # its <details> was opened
    assert page.evaluate(f"document.getElementById('{target}').getBoundingClientRect().top") < 400
    assert not errors
    page.close()


@pytest.mark.browser
def test_filters_and_no_markup_from_transcripts(tmp_path, build_site, browser):
    out = tmp_path / "site"
    build_site(_home(tmp_path, 'narwhal <img src=x id="injected"> <b>bold</b>'), out)
    page = browser.new_page()
    page.goto((out / "p/-home-u-proj/s1/page-0001.html").as_uri())
    page.fill("#search-q", "narwhal")
    page.keyboard.press("Enter")
    page.wait_for_selector("#search-status[data-count]")
    assert page.get_attribute("#search-status", "data-count") == "1"
    assert page.locator("#search-results #injected").count() == 0
    assert "<img src=x" in page.locator("#search-results .snippet").text_content()
    page.select_option("#search-kind", "p")
    page.wait_for_function("document.getElementById('search-status').dataset.count === '0'")
    page.fill("#search-q", "zebra")
    page.keyboard.press("Enter")
    page.wait_for_function("document.getElementById('search-status').textContent.indexOf('zebra') >= 0")
    assert page.get_attribute("#search-status", "data-count") == "1"
    assert page.locator("#search-project option").count() == 2
    page.keyboard.press("Escape")
    assert page.locator("#search-panel").is_hidden()
    page.close()


def test_every_corpus_result_link_resolves(corpus_site):
    """Each indexed item of the corpus site links to an existing page and an id on it."""
    site, _ = corpus_site
    ids: dict = {}
    n = 0
    for bundle in (site / "search").glob("*.js"):
        if bundle.name == "manifest.js":
            continue
        data = _bundle(site, bundle.stem)
        for d in data["docs"]:
            page, anchor = (data["sessions"][d[0]][2] + d[2]).split("#")
            path = site / page
            if path not in ids:
                ids[path] = set(re.findall(r'\bid="([^"]+)"', path.read_text(encoding="utf-8")))
            assert anchor in ids[path], (page, anchor)
            n += 1
    assert n > 1000


def _long_session(n):
    lines = [user("u0", "start")]
    for i in range(1, n):
        lines.append(assistant(f"a{i}", [{"type": "text", "text": f"answer token{i}"}], mid=f"m{i}", rid=f"r{i}"))
    return lines


def test_chunks_written_once_and_tail_takes_appends(tmp_path, build_site):
    """Closed pages go in write-once chunks of CHUNK_PAGES; an append rewrites only the session's
    tail until a chunk fills; chunks of a vanished session are deleted."""
    from ccreport.source.home import discover
    from ccreport.site.search import CHUNK_PAGES

    n = 2 * CHUNK_PAGES + 5  # page_size=1 below: two full chunks, the rest in the tail
    home = make_home(tmp_path / "home", {"-p": {"s1.jsonl": _long_session(n), "s2.jsonl": _long_session(3)}})
    out = tmp_path / "site"
    build_site(home, out, page_size=1)
    b = _bundle(out, "-p")
    chunks = [c for c in b["chunks"] if not c.endswith("~tail.js")]
    assert len(chunks) == 2 and all(c.startswith("search/-p/s1~main~") for c in chunks)
    assert sorted(c for c in b["chunks"] if c.endswith("~tail.js")) == ["search/-p/s1~tail.js", "search/-p/s2~tail.js"]
    docs, _ = read_session(discover(home).projects[0].sessions["s1"], 1)
    assert [d[1:] for d in b["docs"] if d[0] == 0] == docs
    loader = (out / "search/-p.js").read_bytes()
    # One more line: only the tail of s1 among the search scripts.
    with open(home / "projects/-p/s1.jsonl", "a") as fh:
        fh.write(json.dumps(user("late", "one more walrus")) + "\n")
    res = build_site(home, out, page_size=1)
    scripts = {Path(w).relative_to(out).as_posix() for w in res.written if w.endswith(".js")}
    assert scripts == {"search/-p/s1~tail.js"}
    assert (out / "search/-p.js").read_bytes() == loader
    assert any("walrus" in d[4] for d in _bundle(out, "-p")["docs"])
    # Enough lines to close another chunk: a third chunk, the loader lists it.
    with open(home / "projects/-p/s1.jsonl", "a") as fh:
        fh.writelines(json.dumps(user(f"x{i}", f"more {i}")) + "\n" for i in range(CHUNK_PAGES))
    build_site(home, out, page_size=1)
    b = _bundle(out, "-p")
    assert len([c for c in b["chunks"] if not c.endswith("~tail.js")]) == 3
    assert all((out / c).exists() for c in chunks)  # the first two were kept as they were
    # A vanished session is kept by the archive, still searchable (issue 14) ...
    (home / "projects/-p/s1.jsonl").unlink()
    build_site(home, out, page_size=1)
    assert _bundle(out, "-p")["chunks"] == b["chunks"] and all((out / c).exists() for c in b["chunks"])
    # ... until it is pruned explicitly: then its chunk scripts go with it.
    build_site(home, out, page_size=1, prune_missing=True)
    assert not (out / "search/-p/s1").exists()
    assert _bundle(out, "-p")["chunks"] == ["search/-p/s2~tail.js"]


@pytest.mark.browser
def test_search_loads_chunks_from_file_url(tmp_path, build_site, browser):
    """Hits from a closed-page chunk and from the tail, from file://, link to their pages."""
    from ccreport.site.search import CHUNK_PAGES

    home = make_home(tmp_path / "home", {"-p": {"s1.jsonl": _long_session(CHUNK_PAGES + 5)}})
    out = tmp_path / "site"
    build_site(home, out, page_size=1)
    for word, target in (("token3", "page-0004.html#L4"), (f"token{CHUNK_PAGES + 3}", f"page-{CHUNK_PAGES + 4:04d}.html")):
        page = browser.new_page()
        page.goto((out / "p/-p/s1/page-0001.html").as_uri())
        page.fill("#search-q", word)
        page.keyboard.press("Enter")
        page.wait_for_selector("#search-status[data-count]")
        assert page.get_attribute("#search-status", "data-count") == "1"
        assert target in page.locator("#search-results a.hit-title").first.get_attribute("href")
        page.close()


def test_a_site_of_an_earlier_layout_is_rebuilt_and_its_folders_removed(tmp_path, build_site):
    # Format 1 kept parts in .ccreport/search/<p>/<s>/<t>/ and .ccreport/usage/, format 2 in
    # .ccreport/parts/<p>/<s>/ (format 3: a file per session), with the site's search scripts in a
    # folder per session: all of it goes (the ledgers are in the session state now).
    home = make_home(tmp_path / "home", {"-p": {"s1.jsonl": _long_session(3)}})
    out = tmp_path / "site"
    build_site(home, out, page_size=1)
    old = [out / ".ccreport/search/-p/s1/main/0001.json", out / ".ccreport/usage/-p/s1/main.json",
           out / ".ccreport/parts/-p/s1/main~0001.json", out / "search/-p/s1/tail.js"]
    for f in old:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("[]")
    head = out / ".ccreport" / "state.json"
    data = json.loads(head.read_text())
    assert data["format"] == FORMAT
    head.write_text(json.dumps(data | {"format": 2}))
    build_site(home, out, page_size=1)
    assert not (out / ".ccreport/search").exists() and not (out / ".ccreport/usage").exists()
    assert not (out / "search/-p/s1").exists() and not (out / ".ccreport/parts").exists()
    assert sorted(p.name for p in (out / "search/-p").iterdir()) == ["s1~tail.js"]


def test_a_deleted_chunk_or_tail_is_made_again(tmp_path, build_site):
    # Chunked pages' documents are not kept: a chunk deleted by hand makes its transcript read again
    # from line 1; a deleted tail is written again from the parts file without reading anything.
    from ccreport.site.search import CHUNK_PAGES

    home = make_home(tmp_path / "home", {"-p": {"s1.jsonl": _long_session(CHUNK_PAGES + 3)}})
    out = tmp_path / "site"
    build_site(home, out, page_size=1)
    chunk = next((out / "search/-p").glob("s1~main~0001-*.js"))
    tail = out / "search/-p/s1~tail.js"
    want_chunk, want_tail = chunk.read_bytes(), tail.read_bytes()
    chunk.unlink()
    res = build_site(home, out, page_size=1)
    assert chunk.read_bytes() == want_chunk
    assert any(str(p).endswith("page-0001.html") for p in res.written) is False  # identical pages not rewritten
    tail.unlink()
    res = build_site(home, out, page_size=1)
    assert tail.read_bytes() == want_tail
    assert [p for p in res.written if p.endswith(".html")] == []


def test_documents_held_while_rendering_stay_bounded(tmp_path, build_site, monkeypatch):
    # A long transcript's full chunks go out while it is rendered: the documents kept in memory
    # never exceed a chunk and the open page (a 1 GB transcript has thousands of pages).
    from ccreport.site import search
    from ccreport.site.search import CHUNK_PAGES

    held = []
    real = search.SessionSearch.flush_chunks

    def spy(self, tid, state, tdocs, done, rewrite):
        real(self, tid, state, tdocs, done, rewrite)
        held.append(len(tdocs))

    monkeypatch.setattr(search.SessionSearch, "flush_chunks", spy)
    home = make_home(tmp_path / "home", {"-p": {"s1.jsonl": _long_session(4 * CHUNK_PAGES + 3)}})
    out = tmp_path / "site"
    build_site(home, out, page_size=1)
    assert len(held) >= 4 and max(held) <= 1  # after each flush only the page past the chunk is held
    assert len(list((out / "search/-p").glob("s1~main~*.js"))) == 4
