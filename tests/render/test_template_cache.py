"""Compiled templates kept between processes (render.resources): the same pages from the cache as
from the template's source, and a cache that cannot be read or written changes nothing."""

from __future__ import annotations

import os
import stat

from jinja2 import DictLoader, Environment

from ccreport.render import resources

TEMPLATE = "{% for x in items %}<li>{{ x }}</li>{% endfor %}"


def _env(folder) -> Environment:
    cache = resources._CompiledTemplates(str(folder))
    return Environment(loader=DictLoader({"t.html": TEMPLATE}), autoescape=True, bytecode_cache=cache)


def test_a_template_from_the_cache_renders_as_one_compiled_from_its_source(tmp_path):
    first = _env(tmp_path).get_template("t.html").render(items=["<a>", "b"])
    entries = list(tmp_path.iterdir())
    assert len(entries) == 1  # compiled once, kept
    second_env = _env(tmp_path)
    compiled = []
    second_env.compile = lambda *a, **k: compiled.append(a) or Environment.compile(second_env, *a, **k)
    assert second_env.get_template("t.html").render(items=["<a>", "b"]) == first == "<li>&lt;a&gt;</li><li>b</li>"
    assert compiled == []  # loaded, not compiled again


def test_a_torn_cache_entry_is_compiled_again(tmp_path):
    _env(tmp_path).get_template("t.html")
    (entry,) = tmp_path.iterdir()
    entry.write_bytes(entry.read_bytes()[:20])  # a killed writer's half
    assert _env(tmp_path).get_template("t.html").render(items=[1]) == "<li>1</li>"
    entry.write_bytes(b"\x00" * 64)  # something else entirely
    assert _env(tmp_path).get_template("t.html").render(items=[2]) == "<li>2</li>"


def test_a_cache_folder_that_cannot_be_written_is_no_failure(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        if os.access(folder, os.W_OK):  # (root writes anywhere: make the folder vanish instead)
            folder.chmod(0o700)
            folder.rmdir()
        assert _env(folder).get_template("t.html").render(items=["x"]) == "<li>x</li>"
    finally:
        if folder.exists():
            folder.chmod(0o700)


def test_the_cache_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("CCREPORT_TEMPLATE_CACHE", "off")
    assert resources._compiled_templates() is None
    monkeypatch.delenv("CCREPORT_TEMPLATE_CACHE")
    assert isinstance(resources._compiled_templates(), resources._CompiledTemplates)
