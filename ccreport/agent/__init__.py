"""What an agent (an MCP client) may read of the archive: the sessions, one transcript's last lines,
one session's outline and the site's search, read-only, bounded and redacted (docs/mcp.md)."""
