"""Who may ask the local server for what (serve.py asks before any file or API work).

Two attacks on a server bound to 127.0.0.1 (docs/live.md):

- DNS rebinding: a web page the user visits re-points its own name to 127.0.0.1 and then reads
  our answers as same-origin. Its requests carry *its* name in ``Host``, so only the names the
  server is bound to are answered (an IP literal cannot be rebound: it is accepted on a wildcard
  bind, where the machine's addresses are not known in advance).
- Cross-origin inclusion: another local origin (another port is another origin) loads the search
  scripts with ``<script src>`` or fetches ``/api``. Browsers say where a request comes from
  (``Sec-Fetch-Site``, else ``Origin``/``Referer``): data and scripts go to this origin only, and
  every answer says ``Cross-Origin-Resource-Policy: same-origin`` so no other origin can embed it.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("", "0.0.0.0", "::", "[::]")
# Same-origin or typed by the user ("none"): anything else is another origin's request.
OWN_SITES = ("same-origin", "none")
# What another origin must never read: the transcript API, the live endpoints, every script
# (the search scripts hold the whole index).
DATA_PREFIXES = ("/api", "/__")
SCRIPT_SUFFIXES = (".js", ".mjs", ".json")


@dataclass(frozen=True)
class Policy:
    """The names and port this server answers to."""

    names: frozenset[str]  # lower-case host names, IPv6 in brackets
    port: int
    any_ip: bool  # a wildcard bind: any IP literal (never rebindable) is accepted too

    @classmethod
    def bound(cls, host: str, port: int) -> "Policy":
        given = host.lower()
        if ":" in given and not given.startswith("["):
            given = f"[{given}]"
        names = set(LOOPBACK_NAMES) | {given}
        wildcard = host in WILDCARDS
        if wildcard:
            names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        return cls(frozenset(n for n in names if n), port, wildcard)

    def host_ok(self, header: str | None) -> bool:
        """True when a ``Host`` header names this server (its name and its port)."""
        if not header:
            return False
        name, port = _split(header.strip().lower())
        if port is None:
            port = 80  # a browser leaves out the default port only
        if port != self.port or name is None:
            return False
        return name in self.names or (self.any_ip and _is_ip(name))

    def origin_ok(self, url: str | None) -> bool:
        """True when an ``Origin``/``Referer`` value is absent or this server's own origin."""
        if not url:
            return True
        try:
            parts = urlsplit(url)
            name, port = parts.hostname, parts.port
        except ValueError:
            return False
        if parts.scheme != "http" or name is None:
            return False
        name = f"[{name}]" if ":" in name else name
        return (port or 80) == self.port and (name in self.names or (self.any_ip and _is_ip(name)))


def _split(header: str) -> tuple[str | None, int | None]:
    """'name:port' → (name, port); '[::1]:8000' keeps its brackets. (None, None) when malformed."""
    if header.startswith("["):
        end = header.find("]")
        if end < 0:
            return None, None
        name, rest = header[: end + 1], header[end + 1:]
        if rest and not rest.startswith(":"):
            return None, None
        port_text = rest[1:] if rest else None
    else:
        name, _, port_text = header.partition(":")
        port_text = port_text if ":" in header else None
    if port_text is None:
        return name, None
    if not port_text.isdigit() or len(port_text) > 5:
        return None, None
    return name, int(port_text)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def refusal(policy: Policy, headers, path: str) -> tuple[int, str] | None:
    """(status, reason) when this request must not be answered, None when it may."""
    if not policy.host_ok(headers.get("Host")):
        return 421, "this server answers only to its own address (Host refused)"
    if not (path.startswith(DATA_PREFIXES) or path.endswith(SCRIPT_SUFFIXES)):
        return None
    site = (headers.get("Sec-Fetch-Site") or "").lower()
    if site and site not in OWN_SITES:
        return 403, f"data and scripts are for this origin only (Sec-Fetch-Site: {site})"
    if not policy.origin_ok(headers.get("Origin")) or not policy.origin_ok(headers.get("Referer")):
        return 403, "data and scripts are for this origin only (another Origin or Referer)"
    return None
