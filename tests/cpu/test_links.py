"""Every relative Markdown link and image in README.md, docs/ and benchmarks/ points to a file that exists,
and every #anchor into a Markdown file names one of its headings."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted({ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "benchmarks").rglob("*.md")})
# [text](target) and ![alt](target); a target has no spaces (an optional "title" may follow)
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*([^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
_FENCE = re.compile(r"^\s*(```|~~~)")


_CODE = re.compile(r"`[^`]*`")


def _code_span(m: re.Match) -> str:
    """An inline code span becomes empty, unless it is a link's whole text ([`file`](target))."""
    before, after = m.string[m.start() - 1:m.start()], m.string[m.end():m.end() + 1]
    return m.group(0) if (before, after) == ("[", "]") else "``"


def _prose(text: str, spans: bool = True) -> str:
    """The text outside fenced code blocks and (spans) inline code spans: links there are not links."""
    kept, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(_CODE.sub(_code_span, line) if spans else line)
    return "\n".join(kept)


def links(text: str) -> list[str]:
    return _LINK.findall(_prose(text))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    for line in _prose(path.read_text(), spans=False).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            slug, n = _slug(m.group(1)), 0
            while (slug if n == 0 else f"{slug}-{n}") in found:
                n += 1
            found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def test_pages_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert {"README.md", "docs/ladder.md", "docs/models.md", "benchmarks/results/README.md",
            "benchmarks/probes/README.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page):
    broken = []
    for target in links(page.read_text()):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:, ...
            continue
        file, _, anchor = target.partition("#")
        dest = (page.parent / unquote(file)).resolve() if file else page
        if not dest.exists():
            broken.append(f"{target}: no {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}:\n  " + "\n  ".join(broken)


def test_the_checker_sees_links_and_anchors(tmp_path):
    text = ("See [a](docs/x.md#how-it-works), ![p](img.png \"t\") and [`b.json`](b.json), not `[c](nope.md)`:\n"
            "```\n[d](code.md)\n```\n")
    assert links(text) == ["docs/x.md#how-it-works", "img.png", "b.json"]
    page = tmp_path / "p.md"
    page.write_text("# How it works\n## `tcgemm.gemm`: the contract\n## Measuring\n## Measuring\n")
    assert anchors(page) == {"how-it-works", "tcgemmgemm-the-contract", "measuring", "measuring-1"}
