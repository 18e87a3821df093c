"""Where everything goes in a built site, and the URL of each place: the one module that decides
(the layout, which must stay stable, is drawn in docs/site.md). It sits below every stage: render
links pages, site writes them, live parses them back.

Two forms of every place: a *path* (``p/<project dir>/<session id>``, names as they are on disk,
for writing files) and a *URL* (each name percent-encoded once, for links). Names come from the
home's file names and may hold ':', '#', '?', '%', quotes or '<': unquoted, "javascript:x" would
be a script link and "a#b" a broken one.
"""

from __future__ import annotations

from urllib.parse import quote

STATE_DIR = ".ccreport"
SEARCH_DIR = "search"
SEARCH_MANIFEST = f"{SEARCH_DIR}/manifest.js"
BLOBS_DIR = "blobs"
LATEST = "latest.html"
INDEX = "index.html"
PAGE_PREFIX, PAGE_SUFFIX = "page-", ".html"
AGENT_PREFIX = "agent-"


def url_name(name: str) -> str:
    """A file or folder name as one URL path segment."""
    return quote(name, safe="")


def page_name(no: int) -> str:
    return f"{PAGE_PREFIX}{no:04d}{PAGE_SUFFIX}"


def page_no(name: str) -> int | None:
    """The number of a page file name ("page-0012.html" → 12), None for any other name."""
    digits = name[len(PAGE_PREFIX):-len(PAGE_SUFFIX)]
    if name.startswith(PAGE_PREFIX) and name.endswith(PAGE_SUFFIX) and digits.isdigit():
        return int(digits)
    return None


def transcript_slug(transcript_id: str) -> str:
    """A transcript's sub-folder of its session folder ('' for the main transcript)."""
    return "" if transcript_id == "main" else f"{AGENT_PREFIX}{transcript_id}"


def project_dir(project: str) -> str:
    return f"p/{project}"


def project_url(project: str) -> str:
    return f"p/{url_name(project)}"


def session_dir(project: str, session_id: str) -> str:
    return f"p/{project}/{session_id}"


def session_url(project: str, session_id: str) -> str:
    return f"p/{url_name(project)}/{url_name(session_id)}"


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


def tool_results_dir(project: str, session_id: str) -> str:
    return session_dir(project, session_id) + "/tool-results"


def file_history_dir(project: str, session_id: str) -> str:
    """Copies of the session's file-history backups (the file before an edit)."""
    return session_dir(project, session_id) + "/file-history"


PLANS_DIR = "plans"  # one page per plans/*.md of the home, and their list


def plan_page(name: str) -> str:
    return f"{PLANS_DIR}/{name}.html"


def search_project(project: str) -> str:
    """A project's search script; its sessions' chunk and tail scripts sit in ``search_folder``."""
    return f"{SEARCH_DIR}/{project}.js"


def search_folder(project: str) -> str:
    return f"{SEARCH_DIR}/{project}"


def search_chunk(project: str, session_id: str, transcript_id: str, name: str) -> str:
    # The names stay distinct because what follows the last "~" has a fixed shape.
    return f"{search_folder(project)}/{session_id}~{transcript_id}~{name}.js"


def search_tail(project: str, session_id: str) -> str:
    return f"{search_folder(project)}/{session_id}~tail.js"


def depth_root(rel_dir: str) -> str:
    """The relative way from a folder of the site back to its root ("p/x/y" → "../../../")."""
    return "../" * (rel_dir.count("/") + 1)


def parse_page(rel: str) -> tuple[str, str, str, int] | None:
    """A transcript page's site path → (project, session id, transcript id, page no); None for
    any other file. The inverse of transcript_dir + page_name."""
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
