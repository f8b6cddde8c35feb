"""Meta-tests: what the docs say about the command line, the environment, module names, the
README's Layout and option defaults is what the code has (docs/architecture.md,
"Environment variables"; the README's "Commands" and "Layout")."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from harness.host import get_host
from vqa_harness_cli import cli
from vqa_harness_cli.show_cmd import options_table

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SOURCE = ("harness", "cli", "plugins", "leaderboard")


def _commands() -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every command of `harness --help`, recursively: (("harness", "nle", "sample"), command)."""
    def walk(cmd: click.Command, ctx: click.Context, path: tuple[str, ...]):
        yield path, cmd
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                yield from walk(sub, click.Context(sub, info_name=name, parent=ctx), (*path, name))
    yield from walk(cli, click.Context(cli, info_name="harness"), ("harness",))


def _options(cmd: click.Command) -> list[str]:
    return [o for p in cmd.params if isinstance(p, click.Option) for o in (*p.opts, *p.secondary_opts)
            if o not in ("-h", "--help", "--version")]


def _sections() -> list[tuple[str, str]]:
    """(file, text) per `##`-or-deeper section of README.md and docs/*.md."""
    out = []
    for path in DOCS:
        current: list[str] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("## ") or line.startswith("### "):
                out.append((path.name, "\n".join(current)))
                current = []
            current.append(line)
        out.append((path.name, "\n".join(current)))
    return out


def _mention(path: tuple[str, ...]) -> re.Pattern[str]:
    """`harness nle sample`, also written `harness nle sample|import`."""
    words = [re.escape(path[0]), re.escape(path[1]) if len(path) > 1 else ""]
    words += [rf"(?:[\w-]+\|)*{re.escape(w)}(?![\w-])" for w in path[2:]]
    return re.compile(r"\s+".join(w for w in words if w) + (r"(?![\w-])" if len(path) == 2 else ""))


def test_every_command_and_option_is_documented_beside_its_command():
    """A user reads what `harness X --opt` does in a section that names `harness X`."""
    sections = _sections()
    missing = []
    for path, cmd in _commands():
        if len(path) == 1:
            continue
        near = [text for _, text in sections if _mention(path).search(text)]
        if not near:
            missing.append(" ".join(path))
        for option in _options(cmd):
            if not any(re.search(re.escape(option) + r"(?![\w-])", text) for text in near):
                missing.append(f"{' '.join(path)} {option}")
    assert missing == []


def _command_lines() -> Iterator[tuple[str, str]]:
    """(file, text) of each `harness ...` written as code: inline spans and fenced lines."""
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for span in re.findall(r"`([^`\n]*)`", text):
            yield path.name, span
        for block in re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M):
            yield from ((path.name, line) for line in block.splitlines())
        for line in re.findall(r"^    (.*)$", text, re.M):  # indented code blocks
            yield path.name, line


def test_every_documented_command_and_option_exists():
    commands = dict(_commands())
    wrong = []
    for name, line in _command_lines():
        for match in re.finditer(r"(?<![\w/.-])harness((?: [a-z][\w-]*)+)(.*)", line):
            words = match.group(1).split()
            path: tuple[str, ...] = ("harness",)
            for word in words:
                if (*path, word) not in commands:
                    break
                path = (*path, word)
            cmd = commands[path]
            rest = " ".join(words[len(path) - 1:]) + match.group(2)
            rest = re.split(r"\s#|&&|;|\s\|\s|\|\||\bharness\b", rest)[0]
            extra = words[len(path) - 1:]
            if isinstance(cmd, click.Group) and len(path) > 1 and extra and "|" not in extra[0]:
                wrong.append(f"{name}: `{line.strip()}`: {' '.join(path)} has no command {extra[0]!r}")
            known = set(_options(cmd))
            for option in re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", rest):
                if len(path) > 1 and option not in known | {"-h", "--help"}:
                    wrong.append(f"{name}: `{line.strip()}`: {' '.join(path)} has no option {option}")
    assert wrong == []


def _variables_read() -> set[str]:
    found: set[str] = set()
    for folder in SOURCE:
        for path in (ROOT / folder).rglob("*.py"):
            found |= set(re.findall(r"[\"'](VQA_HARNESS_[A-Z0-9_]*[A-Z0-9])[\"']", path.read_text(encoding="utf-8")))
    return found


def test_every_environment_variable_the_code_reads_is_in_the_architecture_table():
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = doc.index("## Environment variables\n")
    table = doc[start:doc.index("\n## ", start + 1)]
    read = _variables_read()
    assert {"VQA_HARNESS_CACHE", "VQA_HARNESS_IMAGE_CACHE_MB"} <= read
    assert sorted(v for v in read if f"`{v}`" not in table) == []
    listed = set(re.findall(r"`(VQA_HARNESS_[A-Z0-9_]+)`", table))
    assert sorted(listed - read) == []  # nothing listed that the code no longer reads


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
            break
        except ImportError:
            continue
    else:
        return False
    for attr in parts[i:]:
        if hasattr(obj, attr):
            obj = getattr(obj, attr)
            continue
        try:
            obj = importlib.import_module(f"{obj.__name__}.{attr}")
        except (ImportError, AttributeError):
            return False
    return True


def test_every_dotted_name_the_docs_give_exists():
    """`harness.run.predictor.unkeepable`, `vqa_harness_plugins.validation`: each import path
    or attribute the docs name resolves (`models.X` placeholders are not dotted names here)."""
    pattern = re.compile(r"\b((?:harness|vqa_harness_plugins|vqa_harness_cli|vqa_harness_leaderboard)"
                         r"(?:\.[A-Za-z_]\w*)+)")
    missing = sorted({f"{p.name}: {n}" for p in DOCS for n in pattern.findall(p.read_text(encoding="utf-8"))
                      if not n.endswith(".X") and not _resolves(n)})
    assert missing == []


def test_the_readme_layout_names_only_modules_that_exist_and_every_top_level_folder():
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        from test_docs_meta import _layout_blocks, _readme_section
    finally:
        sys.path.pop(0)
    stale = []
    for key, block in _layout_blocks().items():
        folder = ROOT / key.rstrip("/,")
        if not folder.is_dir() or key in ("results/",):
            continue
        for module in set(re.findall(r"(?<![\w/.$<-])(\w+\.py)\b", block)):
            if not any(folder.rglob(module)):
                stale.append(f"{key} {module}")
    assert stale == []
    section = _readme_section("Layout")
    folders = _project_folders()
    assert {"harness", "cli", "plugins", "docs"} <= folders
    assert sorted(n for n in folders if not re.search(rf"(?<![\w/]){n}/", section)) == []


def _project_folders(root: Path = ROOT) -> set[str]:
    """The top-level folders of the project: those git tracks files in (not a coverage report,
    a data folder or any other folder a developer's checkout holds besides); outside a git
    checkout every folder but hidden ones and generated output."""
    try:
        tracked = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True,
                                 timeout=60).stdout.decode("utf-8", "surrogateescape").split("\0")
    except (OSError, subprocess.SubprocessError):
        return {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")
                and p.name not in ("results", "build", "dist") and not p.name.endswith(".egg-info")}
    return {name.split("/")[0] for name in tracked if "/" in name and not name.startswith(".")}


def test_the_project_folders_are_those_git_tracks_not_whatever_the_checkout_holds(tmp_path):
    """A folder the checkout holds besides the project's (`htmlcov/` of a coverage run, a
    `wandb/` of an experiment) made the Layout test fail on that machine alone."""
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "a.py").write_text("")
    (tmp_path / "htmlcov").mkdir()
    (tmp_path / "htmlcov" / "index.html").write_text("")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "harness/a.py"], check=True)
    assert _project_folders(tmp_path) == {"harness"}


def _option_tables() -> Iterator[tuple[str, int, list[str], list[str], str]]:
    """(file, line, plugin names of the heading, option names, default cell) per row of each
    `| option | default | ...` table in docs/*.md."""
    for path in DOCS:
        lines = path.read_text(encoding="utf-8").splitlines()
        heading = ""
        for i, line in enumerate(lines):
            if line.startswith("#"):
                heading = line
            head = [c.strip().lower() for c in line.strip().strip("|").split("|")]
            if not (line.startswith("|") and head[:2] == ["option", "default"]):
                continue
            names = re.findall(r"`([a-z0-9-]+)`", heading)
            for j in range(i + 2, len(lines)):
                if not lines[j].startswith("|"):
                    break
                cells = [c.strip() for c in lines[j].strip().strip("|").split("|")]
                yield path.name, j + 1, names, re.findall(r"`(\w+)`", cells[0]), cells[1]


def _plain(value: str) -> str:
    return value.strip().strip("`\"").replace("_", "").lower()


def test_option_defaults_in_the_docs_are_the_codes():
    """Each `| option | default |` table under a heading naming a model, dataset, probe or
    feature extractor gives the defaults `harness show` prints (a list cell `a, b` for
    options `x`, `y`; a cell that says more than a value is read from its first word)."""
    host = get_host()
    defaults: dict[str, list[dict[str, str]]] = {}
    for kind in ("models", "datasets", "probes", "features"):
        for entry in getattr(host, kind):
            defaults.setdefault(entry.name, []).append({row[0]: row[1] for row in options_table(entry.obj)})
    wrong, checked = [], 0
    for name, line, plugins, options, cell in _option_tables():
        tables = [d for p in plugins for d in defaults.get(p, [])]
        if not tables:
            continue
        values = [v for v in re.split(r",\s+", cell)] if len(options) > 1 else [cell]
        if len(values) != len(options):
            continue
        for option, value in zip(options, values):
            word = value.split(" (")[0].split()[0] if value.split() else value
            if word in ("(required)", "…"):
                continue
            code = [d[option] for d in tables if option in d]
            checked += 1
            if not code:
                wrong.append(f"{name}:{line}: {option} is no option of {', '.join(plugins)}")
            elif all(_plain(word).replace(",", "") != _plain(c) for c in code):
                wrong.append(f"{name}:{line}: {option} default {word!r}, the code's {code}")
    assert checked > 50
    assert wrong == []


@pytest.mark.parametrize("kind", ["publishers", "commands"])
def test_harness_list_has_no_nameless_column_and_whole_descriptions(kind, capsys):
    from harness.host import reset_host
    from vqa_harness_cli import main

    reset_host(None)
    assert main(["list", kind]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["name", "plugin", "description"]
    assert len(lines[1].split()) == 3  # one rule per column: no nameless column between name and plugin
    start = lines[0].index("description")
    text = " ".join(" ".join(line[start:].split()) for line in lines[2:])
    if kind == "commands":  # the help's whole first paragraph, not its first source line
        assert "differ on the same questions: per metric" in text
        assert "replaced word and replacement (empty for deletions)" in text
