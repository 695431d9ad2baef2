#!/usr/bin/env python3
"""The documentation as GitHub shows it: every relative link in the Markdown files points at a
file that exists, every `#anchor` at a heading of that file, and every code fence is closed (an
unclosed fence swallows the headings after it). Prints each problem and exits 1 when there is
one.

Usage: python3 scripts/check-docs.py   (from anywhere; checks the repository it lives in)
"""

import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = ["README.md", "ARCHITECTURE.md", "BENCHMARKS.md", "RELIABILITY.md", "docs/**/*.md",
         "integrations/**/*.md", "clients/*/README.md", "bench/README.md"]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\*|_(?=\w)|(?<=\w)_", "", heading.strip().lower())
    text = "".join(c for c in text if c in "- " or unicodedata.category(c)[0] in "LN" or c == "_")
    return text.replace(" ", "-")


def outside_fences(text: str):
    """(line number, line) of the lines outside code fences, and whether every fence closed."""
    inside, lines = False, []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            inside = not inside
            continue
        if not inside:
            lines.append((number, line))
    return lines, not inside


def anchors(path: Path) -> set[str]:
    lines, _ = outside_fences(path.read_text())
    seen: dict[str, int] = {}
    found = set()
    for _, line in lines:
        if line.startswith("#"):
            base = slug(line.lstrip("#"))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def check(path: Path) -> list[str]:
    problems = []
    lines, closed = outside_fences(path.read_text())
    if not closed:
        problems.append(f"{path.relative_to(ROOT)}: a code fence is never closed")
    for number, line in lines:
        for match in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            target = match.group(1) or match.group(2)
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            file, _, anchor = target.partition("#")
            resolved = (path.parent / file).resolve() if file else path
            where = f"{path.relative_to(ROOT)}:{number}"
            if not resolved.exists():
                problems.append(f"{where}: {target}: no such file")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                problems.append(f"{where}: {target}: no heading with that anchor")
    return problems


def main() -> int:
    files = sorted({p for pattern in FILES for p in ROOT.glob(pattern) if "node_modules" not in p.parts})
    problems = [p for f in files for p in check(f)]
    for problem in problems:
        print(problem)
    print(f"docs: {len(files)} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
