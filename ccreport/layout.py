"""Where everything goes in a built site, and the URL of each place: the one module that decides
(the layout, which must stay stable, is drawn in docs/site.md). It sits below every stage: render
links pages, site writes them, live parses them back.

Two forms of every place: a *path* (``p/<project dir>/<session id>``, names as they are on disk,
for writing files) and a *URL* (each name percent-encoded once, for links). Names come from the
home's file names and may hold ':', '#', '?', '%', quotes or '<': unquoted, "javascript:x" would
be a script link and "a#b" a broken one.

Names of any length: a name longer than ``MAX_NAME_BYTES`` goes on disk as a short stable name
(``site_name``: its start and a hash of the whole), so every path of the site (a search chunk
joins two names, a temporary file adds a suffix) stays under the file system's 255 bytes, and the
same name gives the same folder on every build (links do not rot).
"""

from __future__ import annotations

import hashlib
from urllib.parse import quote

STATE_DIR = ".ccreport"
SEARCH_DIR = "search"
SEARCH_MANIFEST = f"{SEARCH_DIR}/manifest.js"
SEARCH_DELTA = f"{SEARCH_DIR}/delta.js"  # the term index's pending changes (site.searchdelta)
BLOBS_DIR = "blobs"
LATEST = "latest.html"
INDEX = "index.html"
PAGE_PREFIX, PAGE_SUFFIX = "page-", ".html"
AGENT_PREFIX = "agent-"
WORKFLOW_PREFIX = "workflow-"  # a Workflow run's folder in its session folder: workflow-wf_<id>/index.html
REPLY_PREFIX = "reply-"  # in a transcript's folder: reply-<hash>.html, a SendMessage's way to its reply
FORK_POINT = "fork-point.html"  # in a forked transcript's folder: a redirect to the parent at the fork


# Two of them, a session's search chunk name and a temporary file suffix stay under 255 bytes.
MAX_NAME_BYTES = 100
_KEEP_BYTES = 60  # of a long name's start, so the folder still says what it is
_HASH_CHARS = 16


def site_name(name: str) -> str:
    """A project folder, session or transcript id as one name on disk: itself when short, else its
    first characters, '~' and a hash of the whole name (stable, and distinct from a short name,
    which never ends in '~' + 16 hex digits by chance alone). A name that starts with a dot gets the
    second form too, without its leading dots: `serve` hands out no dot file or folder."""
    raw = name.encode("utf-8", "surrogateescape")
    if len(raw) <= MAX_NAME_BYTES and not name.startswith("."):
        return name
    start = raw[:_KEEP_BYTES].decode("utf-8", "ignore").lstrip(".")  # never half a character
    return f"{start}~{hashlib.sha256(raw).hexdigest()[:_HASH_CHARS]}"


def url_name(name: str) -> str:
    """A file or folder name of the site as one URL path segment."""
    return quote(name, safe="")


def segment(name: str) -> str:
    """A home's name (project folder, session or transcript id) as the URL segment of its folder."""
    return url_name(site_name(name))


def page_name(no: int) -> str:
    return f"{PAGE_PREFIX}{no:04d}{PAGE_SUFFIX}"


def page_no(name: str, prefix: str = PAGE_PREFIX) -> int | None:
    """The number of a page file name ("page-0012.html" → 12; ``prefix``: of another numbered
    page, as outline_part names it), None for any other name."""
    digits = name[len(prefix):-len(PAGE_SUFFIX)]
    if name.startswith(prefix) and name.endswith(PAGE_SUFFIX) and digits.isdigit():
        return int(digits)
    return None


def transcript_slug(transcript_id: str) -> str:
    """A transcript's sub-folder of its session folder ('' for the main transcript)."""
    return "" if transcript_id == "main" else site_name(f"{AGENT_PREFIX}{transcript_id}")


def project_dir(project: str) -> str:
    return f"p/{site_name(project)}"


def project_url(project: str) -> str:
    return f"p/{segment(project)}"


def session_dir(project: str, session_id: str) -> str:
    return f"p/{site_name(project)}/{site_name(session_id)}"


def session_url(project: str, session_id: str) -> str:
    return f"p/{segment(project)}/{segment(session_id)}"


def transcript_dir(project: str, session_id: str, transcript_id: str) -> str:
    slug = transcript_slug(transcript_id)
    return session_dir(project, session_id) + (f"/{slug}" if slug else "")


def transcript_url(project: str, session_id: str, transcript_id: str) -> str:
    slug = transcript_slug(transcript_id)
    return session_url(project, session_id) + (f"/{url_name(slug)}" if slug else "")


def page_in_session(transcript_id: str, no: int) -> str:
    """A page's path from its session folder ("page-0003.html", "agent-a1/page-0001.html")."""
    slug = transcript_slug(transcript_id)
    return (f"{slug}/" if slug else "") + page_name(no)


def reply_page(call_id: str) -> str:
    """The page in a transcript's folder that leads from a SendMessage call to its reply on a later
    page (the call id is transcript text: hashed, never used as a name)."""
    return f"{REPLY_PREFIX}{hashlib.sha256(call_id.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}.html"


def run_dir(project: str, session_id: str, run_id: str) -> str:
    """A Workflow run's folder (its page is INDEX in it)."""
    return session_dir(project, session_id) + f"/{WORKFLOW_PREFIX}{run_id}"


def run_url(project: str, session_id: str, run_id: str) -> str:
    return session_url(project, session_id) + f"/{url_name(WORKFLOW_PREFIX + run_id)}"


def tool_results_dir(project: str, session_id: str) -> str:
    return session_dir(project, session_id) + "/tool-results"


def tool_results_url(project: str, session_id: str) -> str:
    return session_url(project, session_id) + "/tool-results"


def inert_copy_name(name: str) -> str:
    """The name in the site of a file copied from the home as it is (a tool-results file): one no
    browser runs, from file:// or any server (``evil.html`` → ``evil.html~.txt``). Home names of such
    files never hold '~' (site.toolresults), so two of them never get one name."""
    return name if name.endswith(".txt") else name + "~.txt"


def file_history_dir(project: str, session_id: str) -> str:
    """Copies of the session's file-history backups (the file before an edit)."""
    return session_dir(project, session_id) + "/file-history"


PLANS_DIR = "plans"  # one page per plans/*.md of the home, and their list
HISTORY_PAGE = "history.html"  # the lines of history.jsonl that are not prompts of a session


def plan_page(name: str) -> str:
    return f"{PLANS_DIR}/{name}.html"


OUTLINE_PREFIX = "prompts-"  # a session outline's closed parts: prompts-0001.html (site.outlineparts)


def outline_part(no: int) -> str:
    """The page of the session outline's ``no``-th closed part, in the session folder."""
    return f"{OUTLINE_PREFIX}{no:04d}{PAGE_SUFFIX}"


def outline_part_no(name: str) -> int | None:
    """The number of an outline part's file name ("prompts-0002.html" → 2), None for any other name."""
    return page_no(name, OUTLINE_PREFIX)


def search_shard(n: int) -> str:
    """A term shard of the search index (terms → postings), by the hash of the term's first letters."""
    return f"{SEARCH_DIR}/t/{n:03x}.js"


def search_block(term_hash: str, k: int, block: int) -> str:
    """One block of a frequent term's postings (its units split by their key's top ``k`` bits)."""
    return f"{SEARCH_DIR}/b/{term_hash}-{k}-{block}.js"


# Document files (search/d/): chunk n of a unit goes to one of DOC_FILES[n] files (the last figure
# for every later n): most transcripts have one chunk, few have many, so later chunks share fewer
# files. One file per chunk made ~2,200 files of a 300 MB home; these ~660, at ~1 MB of documents a
# query (docs/search.md: how they were chosen).
DOC_FILES = (448, 128, 64, 32, 16, 8)


def search_docs(unit: str, chunk: int) -> str:
    """The file holding chunk ``chunk`` of one unit's (transcript's) documents, shared with other
    units': by a mix of its session's and its transcript's key digits (a session's sub-agents
    spread over files), ``unit`` being its hex key. assets/search.js computes the same."""
    mix = int(unit[:8], 16) ^ int(unit[8:], 16)
    return f"{SEARCH_DIR}/d/{mix % DOC_FILES[min(chunk, len(DOC_FILES) - 1)]:02x}-{chunk}.js"


def search_units(prefix: str) -> str:
    """The metadata (session, title, URL, times) of the units whose key starts with ``prefix``."""
    return f"{SEARCH_DIR}/u/{prefix}.js"


def depth_root(rel_dir: str) -> str:
    """The relative way from a folder of the site back to its root ("p/x/y" → "../../../")."""
    return "../" * (rel_dir.count("/") + 1)


def parse_page(rel: str) -> tuple[str, str, str, int] | None:
    """A transcript page's site path → (project, session id, transcript id, page no) as their
    ``site_name``s; None for any other file. The inverse of transcript_dir + page_name."""
    parts = rel.split("/")
    if len(parts) not in (4, 5) or parts[0] != "p":
        return None
    no = page_no(parts[-1])
    if no is None:
        return None
    if len(parts) == 4:
        return parts[1], parts[2], "main", no
    if not parts[3].startswith(AGENT_PREFIX):
        return None
    return parts[1], parts[2], parts[3][len(AGENT_PREFIX):], no
