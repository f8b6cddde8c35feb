"""Meta-tests keep the docs honest (as datasette does)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from harness import hookspecs
from harness.api import ProbeContext
from harness.host import PluginHost

ROOT = Path(__file__).resolve().parents[2]


def test_every_hookspec_is_documented_in_the_plugin_guide():
    guide = (ROOT / "docs" / "plugins.md").read_text()
    specs = [n for n, f in inspect.getmembers(hookspecs, inspect.isfunction) if n.startswith("register_")]
    assert specs, "no hookspecs found"
    for name in specs:
        assert f"`{name}(register)`" in guide, name


def test_every_builtin_plugin_is_listed_by_harness_plugins(capsys):
    from harness.host import reset_host
    from vqa_harness_cli import main

    reset_host(None)
    main(["plugins"])
    out = capsys.readouterr().out
    host = PluginHost(blocked=frozenset())
    for plugin in host.loaded:
        assert plugin.name in out
    reset_host(None)


def test_every_cli_command_has_help(capsys):
    from vqa_harness_cli import COMMANDS, main, plugin_commands

    names = [*COMMANDS, *plugin_commands()]
    assert {"run", "list", "leaderboard", "report", "perturb", "nle", "decoys", "export"} <= set(names)
    for name in names:
        assert main([name, "--help"]) == 0
        assert capsys.readouterr().out.strip()


def _readme_section(title: str) -> str:
    """The text of README.md's `## title` section, up to the next `## ` heading."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def _layout_blocks() -> dict[str, str]:
    """The Layout tree by folder: `plugins/`, `plugins/models/`, ... -> its description."""
    section = _readme_section("Layout")
    tree = section[section.index("```\n") + 4: section.index("\n```", section.index("```\n") + 4)]
    blocks: dict[str, list[str]] = {}
    top = key = ""
    for line in tree.splitlines():
        name = line.split()[0] if line.strip() else ""
        if line and not line[0].isspace():
            top = key = name
        elif line.startswith("  ") and not line.startswith("   ") and name.endswith("/"):
            key = top + name
        blocks.setdefault(key, []).append(line)
    return {k: "\n".join(v) for k, v in blocks.items()}


def test_readme_layout_names_every_plugin_module_and_folder():
    import re

    from vqa_harness_cli.suitefiles.read import _toml

    tomllib = _toml()
    blocks = _layout_blocks()
    entry_points = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["vqa_harness"]
    where = {"vqa_harness_plugins": ("plugins/", ROOT / "plugins"),
             "vqa_harness_leaderboard": ("leaderboard/", ROOT / "leaderboard")}
    for name, target in entry_points.items():
        package, _, module = target.partition(".")
        block, folder = where[package]
        assert (folder / f"{module}.py").is_file(), target
        assert re.search(rf"(?<![\w/]){re.escape(module)}\.py\b", blocks[block]), f"{name}: {module}.py"
    # Each top-level module of plugins/ is one plugin: an entry point, listed in the Layout.
    plugin_modules = {p.stem for p in (ROOT / "plugins").glob("*.py") if p.stem != "__init__"}
    declared = {t.split(".", 1)[1] for t in entry_points.values() if t.startswith("vqa_harness_plugins.")}
    assert plugin_modules == declared
    subfolders = {p.name for p in (ROOT / "plugins").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert subfolders == {k.split("/")[1] for k in blocks if k.startswith("plugins/") and k != "plugins/"}
    for kind in ("datasets", "probes", "models", "generators"):
        block = blocks[f"plugins/{kind}/"]
        folders = {p.name for p in (ROOT / "plugins" / kind).iterdir()
                   if p.is_dir() and p.name != "__pycache__"}
        listed = set(re.findall(r"(?<![\w/])(\w+)/", block.split(None, 1)[1]))
        assert folders == listed, f"plugins/{kind}/: tree {sorted(folders)}, README {sorted(listed)}"


def test_readme_commands_table_names_every_command():
    from vqa_harness_cli import COMMANDS, plugin_commands

    table = _readme_section("Commands")
    missing = [n for n in [*COMMANDS, *plugin_commands()] if f"`harness {n}" not in table]
    assert missing == []


def _names(block: str) -> set[str]:
    import re

    return set(re.findall(r"(?<![\w/.])(\w+(?:\.py|/))", block))


@pytest.mark.parametrize("folder", ["harness", "cli"])
def test_readme_layout_names_every_module_and_package_of_the_engine_and_the_command_line(folder):
    listed = _names(_layout_blocks()[f"{folder}/"])
    tree = {p.name + ("/" if p.is_dir() else "") for p in (ROOT / folder).iterdir()
            if p.name not in ("__init__.py", "__pycache__") and (p.is_dir() or p.suffix == ".py")}
    assert sorted(tree - listed) == []


def test_readme_layout_says_how_tests_are_organised():
    listed = _names(_layout_blocks()["tests/"])
    tree = {p.name + ("/" if p.is_dir() else "") for p in (ROOT / "tests").iterdir()
            if p.name != "__pycache__" and (p.is_dir() or p.name.startswith("test_"))}
    assert sorted(tree - listed) == []


def test_the_architecture_doc_shows_the_layer_contracts_of_pyproject():
    """docs/architecture.md draws the layers of the engine, the plugins and the command line; each module named in
    the import-linter contracts appears on the doc's line for its layer."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    import re

    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    drawn = ("engine-layers", "plugin-layers", "command-line-layers")
    layers = {c["id"]: c["layers"] for c in contracts if c["id"] in drawn}
    assert set(layers) == set(drawn)
    doc_words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9.]*", doc))
    missing = [name for layer in layers.values() for line in layer for name in re.split(r"\s*[|:]\s*", line)
               if name not in doc_words and f"harness.{name}" not in doc_words and f"{name}/" not in doc]
    assert missing == []


def test_every_probe_context_member_is_in_the_plugin_guides_ctx_table():
    """A probe author learns `ctx` from the guide's table (docs/plugins.md, "Probes and
    suites"): every attribute and method of harness.api.ProbeContext is named there."""

    guide = (ROOT / "docs" / "plugins.md").read_text()
    start = guide.index("## Probes and suites")
    table = "\n".join(line for line in guide[start:].splitlines() if line.startswith("| `"))
    members = set(ProbeContext.__annotations__) | {
        n for n, f in vars(ProbeContext).items() if inspect.isfunction(f) and not n.startswith("_")}
    assert members >= {"memo", "predict", "row"}
    missing = sorted(m for m in members if f"`{m}`" not in table and f"`{m}(" not in table)
    assert missing == [], missing
