"""Which language colours code, from a file or language name: the Prism id for the site (coloured
in the browser, docs/render.md says why), the pygments lexer for the export, the Markdown fence."""

from __future__ import annotations

import re

BROWSER_COLOUR_MAX = 200_000  # characters: bigger contents keep their line numbers, not colours

# The Prism languages bundled in assets/vendor/prism.js (scripts/vendor_prism.py builds it from this).
BUNDLED = [
    "markup", "css", "clike", "javascript", "typescript", "jsx", "tsx", "json", "bash", "python", "yaml",
    "toml", "markdown", "rust", "go", "java", "kotlin", "c", "cpp", "csharp", "ruby", "markup-templating",
    "php", "sql", "swift", "lua", "ini", "diff", "docker", "scala", "r", "scss", "less", "makefile",
    "powershell", "graphql", "haskell", "elixir", "dart", "perl", "protobuf", "hcl", "groovy", "latex",
    "batch", "properties", "nginx", "zig", "ocaml", "clojure", "erlang", "julia", "nix", "cmake", "vim",
    "objectivec", "fsharp", "solidity", "git",
]
_BUNDLED = frozenset(BUNDLED) - {"clike", "markup-templating"}
# Names people write after ``` (and pygments names ccreport passes) → Prism ids.
_ALIASES = {
    "py": "python", "python3": "python", "py3": "python", "js": "javascript", "node": "javascript",
    "ts": "typescript", "sh": "bash", "shell": "bash", "zsh": "bash", "console": "bash", "shell-session": "bash",
    "shellsession": "bash", "yml": "yaml", "html": "markup", "xml": "markup", "svg": "markup", "vue": "markup",
    "md": "markdown", "rs": "rust", "golang": "go", "c++": "cpp", "cs": "csharp", "c#": "csharp", "rb": "ruby",
    "dockerfile": "docker", "ps": "powershell", "ps1": "powershell", "pwsh": "powershell", "tf": "hcl",
    "terraform": "hcl", "kt": "kotlin", "jsonc": "json", "json5": "json", "jsonl": "json", "patch": "diff",
    "make": "makefile", "hs": "haskell", "objc": "objectivec", "tex": "latex", "bat": "batch", "cmd": "batch",
    "ex": "elixir", "exs": "elixir", "ml": "ocaml", "clj": "clojure", "jl": "julia", "sol": "solidity",
    "gql": "graphql", "proto": "protobuf", "cfg": "ini", "conf": "ini", "toml": "toml", "jsx": "jsx", "tsx": "tsx",
}

_BY_EXT = {
    "py": "python", "pyi": "python", "pyw": "python", "js": "javascript", "mjs": "javascript",
    "cjs": "javascript", "jsx": "jsx", "ts": "typescript", "mts": "typescript", "cts": "typescript",
    "tsx": "tsx", "json": "json", "jsonl": "json", "json5": "json", "ipynb": "json", "md": "markdown",
    "mdx": "markdown", "markdown": "markdown", "sh": "bash", "bash": "bash", "zsh": "bash",
    "yml": "yaml", "yaml": "yaml", "toml": "toml", "html": "markup", "htm": "markup", "xml": "markup",
    "svg": "markup", "vue": "markup", "svelte": "markup", "astro": "markup", "css": "css", "scss": "scss",
    "less": "less", "rs": "rust", "go": "go", "java": "java", "kt": "kotlin", "kts": "kotlin",
    "c": "c", "h": "c", "cpp": "cpp", "cc": "cpp", "cxx": "cpp", "hpp": "cpp", "hh": "cpp",
    "m": "objectivec", "mm": "objectivec", "cs": "csharp", "rb": "ruby", "php": "php", "sql": "sql",
    "swift": "swift", "lua": "lua", "ini": "ini", "cfg": "ini", "conf": "ini", "env": "ini",
    "diff": "diff", "patch": "diff", "dockerfile": "docker", "scala": "scala", "r": "r",
    "mk": "makefile", "ps1": "powershell", "psm1": "powershell", "graphql": "graphql", "gql": "graphql",
    "hs": "haskell", "ex": "elixir", "exs": "elixir", "dart": "dart", "pl": "perl", "pm": "perl",
    "proto": "protobuf", "tf": "hcl", "hcl": "hcl", "groovy": "groovy", "gradle": "groovy", "tex": "latex",
    "bat": "batch", "cmd": "batch", "properties": "properties", "zig": "zig", "ml": "ocaml", "mli": "ocaml",
    "clj": "clojure", "cljs": "clojure", "erl": "erlang", "jl": "julia", "nix": "nix", "cmake": "cmake",
    "vim": "vim", "fs": "fsharp", "fsx": "fsharp", "sol": "solidity",
}
_BY_NAME = {"dockerfile": "docker", "makefile": "makefile", "gnumakefile": "makefile",
            "cmakelists.txt": "cmake", ".bashrc": "bash", ".zshrc": "bash", ".profile": "bash",
            ".gitconfig": "ini", ".editorconfig": "ini", "nginx.conf": "nginx"}
_EXT = re.compile(r"\.([A-Za-z0-9_+-]{1,12})$")
# pygments (the export's colours, made at build time) reads a few extensions differently from
# Prism: the markup family by its own lexers, and these by its own guess from the file name (which
# is not always the Prism language: .pl is Prolog to it, .fs Forth).
_PYGMENTS = {"html": "html", "htm": "html", "svelte": "html", "xml": "xml", "svg": "xml", "vue": "vue"}
_PYGMENTS_GUESSES = frozenset({"mts", "cts", "json5", "ipynb", "mdx", "mm", "conf", "env", "gql", "pl", "pm", "cljs", "fs"})
# The Markdown export names the language of a fence for these extensions only.
_FENCED = frozenset({"py", "js", "ts", "tsx", "jsx", "rs", "go", "sh", "md", "json", "yml", "yaml", "toml", "html",
                     "css", "rb", "java", "c", "h", "cpp", "sql"})


def extension(name: str | None) -> str:
    """The lower-case extension of a file name or path, without its dot ("" when it has none)."""
    m = _EXT.search(name or "")
    return m.group(1).lower() if m else ""


def lexer_name(ext: str) -> str | None:
    """The pygments lexer name for an extension; None: pygments guesses from the file name."""
    if ext in _PYGMENTS_GUESSES:
        return None
    return _PYGMENTS.get(ext) or _BY_EXT.get(ext)


def fence_language(path: str) -> str:
    """The language a Markdown export names on a fence holding this file ("" when none)."""
    ext = extension(path)
    return lexer_name(ext) if ext in _FENCED else ""


def prism_for_name(lang: str | None) -> str | None:
    """The Prism id for a language name ("py", "TypeScript", "shell"), None when not bundled."""
    if not lang:
        return None
    key = lang.strip().lower()[:40]
    key = _ALIASES.get(key, key)
    return key if key in _BUNDLED else None


def prism_language(filename: str | None) -> str | None:
    """The Prism id for a file name or path ("src/app.py" → "python"), None when not bundled."""
    if not filename:
        return None
    base = filename.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if base in _BY_NAME:
        return _BY_NAME[base]
    if base.startswith("dockerfile"):
        return "docker"
    return _BY_EXT.get(extension(base))
