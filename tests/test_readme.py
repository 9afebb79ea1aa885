"""The documentation runs: every ```python block of README.md and docs/*.md, and the README's
`tokenforge ...` command lines; and its relative links lead somewhere.

Each Python block runs alone (a fresh namespace, a temporary working directory), so a block
must make what it reads: train on an inline text, use a bundled encoding or tokenizer, or write
the file first. A block whose first line is a `# not run: <why>` comment is skipped, with that
reason. Test ids name the page and the line of the block's opening fence (`README.md:42`).

Nothing here reads the project's shared data (../shared) or the network.
"""

from __future__ import annotations

import pathlib
import re
import shlex
import shutil
import subprocess
import sys
from typing import NamedTuple

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*([\w+-]*)")
_NOT_RUN = re.compile(r"#\s*not run:\s*(\S.*)")
SHELL = ("bash", "sh", "shell", "console")


class Block(NamedTuple):
    page: pathlib.Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(REPO).as_posix()}:{self.line}"


def fenced_blocks(page: pathlib.Path) -> list[Block]:
    """The fenced code blocks of a Markdown page, in order (CommonMark fences: ``` or ~~~,
    indented by up to three spaces, closed by a fence of the same kind at least as long)."""
    blocks: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        indent, fence, lang = len(opening.group(1)), opening.group(2), opening.group(3).lower()
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                break
            line = lines[j]
            body.append(line[min(indent, len(line) - len(line.lstrip(" "))) :])
            j += 1
        blocks.append(Block(page, i + 1, lang, "\n".join(body) + "\n"))
        i = j + 1
    return blocks


ALL_BLOCKS = [block for page in PAGES for block in fenced_blocks(page)]
PYTHON_BLOCKS = [block for block in ALL_BLOCKS if block.lang in ("python", "py", "python3")]


def test_pages_have_python_blocks():
    assert any(block.page == README for block in PYTHON_BLOCKS)


@pytest.mark.filterwarnings("error::UserWarning")  # an example that warns (training cut short) shows a bad run
@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[block.id for block in PYTHON_BLOCKS])
def test_python_block(block: Block, tmp_path, monkeypatch):
    first = block.code.lstrip("\n").split("\n", 1)[0]
    marker = _NOT_RUN.match(first.strip())
    if marker:
        pytest.skip(f"{block.id}: {marker.group(1)}")
    monkeypatch.chdir(tmp_path)
    # Blank lines ahead of the code: a traceback gives the line in the page itself.
    code = compile("\n" * block.line + block.code, str(block.page), "exec")
    exec(code, {"__name__": "__main__"})


def _readme_commands() -> list[tuple[str, list[str]]]:
    """(id, argv after `tokenforge`) for each `tokenforge ...` command in the README's shell
    blocks: a line's commands joined by && or ; are taken one by one (a `$ ` prompt is
    dropped). Left out: a command in a pipe or with a redirection, and a line ending in a
    `# not run: <why>` comment."""
    found = []
    for block in fenced_blocks(README):
        if block.lang not in SHELL:
            continue
        for offset, line in enumerate(block.code.splitlines(), start=1):
            if _NOT_RUN.search(line):
                continue
            words = shlex.split(line[2:] if line.startswith("$ ") else line, comments=True)
            command: list[str] = []
            for word in [*words, "&&"]:
                if word not in ("&&", ";", "||"):
                    command.append(word)
                    continue
                shell_only = any(w in ("|", "<", ">", ">>", "2>", "&") for w in command)
                if command and command[0] == "tokenforge" and not shell_only:
                    found.append((f"README.md:{block.line + offset}", command[1:]))
                command = []
    return found


README_COMMANDS = _readme_commands()


def test_readme_has_commands():
    assert README_COMMANDS


def test_readme_commands(tmp_path):
    """The README's command lines, in order, from a directory holding a copy of the
    documentation (README.md, docs/), as from a clone's root: a command may read those pages or
    what an earlier command wrote."""
    shutil.copy(README, tmp_path / "README.md")
    shutil.copytree(REPO / "docs", tmp_path / "docs")
    for where, argv in README_COMMANDS:
        proc = subprocess.run(
            [sys.executable, "-m", "tokenforge", *argv],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert proc.returncode == 0, f"{where}: tokenforge {shlex.join(argv)}\n{proc.stderr[-3000:]}"


_LINK = re.compile(r"\[[^\]]*\]\(([^()\s]+)\)")


def _anchors(page: pathlib.Path) -> set[str]:
    """GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to
    hyphens, "-1", "-2" ... after repeats."""
    anchors: set[str] = set()
    in_fence = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*$", line)
        if in_fence or heading is None:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
        anchor, n = slug, 0
        while anchor in anchors:
            n += 1
            anchor = f"{slug}-{n}"
        anchors.add(anchor)
    return anchors


@pytest.mark.parametrize("page", PAGES, ids=[page.relative_to(REPO).as_posix() for page in PAGES])
def test_links(page: pathlib.Path):
    """Every relative link of a page names a file of the repository (and a heading there)."""
    text = page.read_text(encoding="utf-8")
    for block in fenced_blocks(page):
        text = text.replace(block.code, "")
    broken = []
    for target in _LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: not checked (no network)
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or REPO not in linked.parents:
            broken.append(f"{target}: no such file in the repository")
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.relative_to(REPO)}")
    assert not broken, "\n".join(broken)
