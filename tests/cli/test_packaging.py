"""The wheel is complete: built, installed in a fresh venv (not editable), it renders a site on its
own — templates and assets ship inside the package."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from ccreport import __version__
from util import ROOT, SAMPLE_HOME


@pytest.mark.slow
def test_wheel_installs_and_builds_a_site(tmp_path):
    dist = tmp_path / "dist"
    r = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    wheels = list(dist.glob("ccreport-*.whl"))
    assert len(wheels) == 1
    names = zipfile.ZipFile(wheels[0]).namelist()
    for needed in ("ccreport/cli/__init__.py", "ccreport/templates/page.html", "ccreport/templates/base.html",
                   "ccreport/assets/style.css", "ccreport/assets/app.js"):
        assert needed in names, needed

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheels[0])], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    exe = env_dir / "bin" / "ccreport"
    # Run from a folder outside the checkout so nothing of the source tree can be picked up.
    r = subprocess.run([str(exe), "--version"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and __version__ in r.stdout
    r = subprocess.run([str(py), "-c", "import ccreport, pathlib; print(pathlib.Path(ccreport.__file__).parent)"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert Path(r.stdout.strip()).is_relative_to(env_dir)  # the installed copy, not the checkout
    out = tmp_path / "site"
    r = subprocess.run([str(exe), "build", "--home", str(SAMPLE_HOME), "--out", str(out)], capture_output=True,
                       text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "projects" in r.stderr and "Traceback" not in r.stderr
    css = list((out / "assets").glob("style.*.css"))
    js = list((out / "assets").glob("app.*.js"))
    assert len(css) == 1 and len(js) == 1 and css[0].stat().st_size > 1000
    page = next(out.glob("p/-home-alice-webshop/*/page-0001.html")).read_text(encoding="utf-8")
    assert css[0].name in page and js[0].name in page
    assert "Jürgen Müller" in page
