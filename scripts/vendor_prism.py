"""Rebuild assets/vendor/prism.js: Prism's core and the languages ccreport colours, in dependency order.

    python3 scripts/vendor_prism.py            # npm pack prismjs@VERSION into a temp folder, then build

Why Prism: file contents (Read/Write/Edit results) are coloured in the browser when a block is
shown, so the build does not spend most of its time in pygments on code nobody opens (see
assets/code.js). Prism.tokenize returns tokens, not HTML, so the page builds the coloured spans
with DOM calls and textContent: transcript text never goes through innerHTML.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "1.30.0"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from ccreport.render.codelang import BUNDLED as LANGUAGES  # noqa: E402  (the one list of bundled languages)

OUT = Path(__file__).resolve().parent.parent / "assets" / "vendor"


def ordered(components: dict, wanted: list[str]) -> list[str]:
    """wanted plus what they require, every language after the ones it requires or modifies."""
    langs = components["languages"]
    out: list[str] = []

    def deps(name):
        spec = langs[name]
        req = spec.get("require", [])
        return [req] if isinstance(req, str) else list(req)

    def visit(name, stack=()):
        if name in out:
            return
        if name in stack:
            raise SystemExit(f"dependency cycle at {name}")
        for d in deps(name):
            visit(d, stack + (name,))
        out.append(name)

    for name in wanted:
        visit(name)
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", f"prismjs@{VERSION}", "--silent"], cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL)
        with tarfile.open(next(Path(tmp).glob("prismjs-*.tgz"))) as tar:
            tar.extractall(tmp, filter="data")
        pkg = Path(tmp) / "package"
        components = json.loads((pkg / "components.json").read_text())
        names = ordered(components, LANGUAGES)
        parts = [f"/* Prism {VERSION} (MIT, https://prismjs.com), built by scripts/vendor_prism.py: core + "
                 f"{', '.join(names)}. */\n",
                 (pkg / "components" / "prism-core.min.js").read_text()]
        for name in names:
            parts.append(f"\n/* {name} */\n" + (pkg / "components" / f"prism-{name}.min.js").read_text())
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / "prism.js").write_text("".join(parts) + "\n")
        (OUT / "prism.LICENSE.txt").write_text((pkg / "LICENSE").read_text())
        print(f"assets/vendor/prism.js: {len(names)} languages, {(OUT / 'prism.js').stat().st_size:,} bytes",
              file=sys.stderr)


if __name__ == "__main__":
    main()
