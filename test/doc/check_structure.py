#!/usr/bin/env python3
"""The README's structure, checked without a database (test/doc/readme_test.sh
runs it first):

- every relative link resolves: the file exists, and a #anchor matches a
  heading of the target (its GitHub slug) or an HTML id/name in it;
- every fence is closed, and no block is empty;
- a paragraph that ends on a colon is followed by what it announces (a
  fenced block, a table, a list or an image), not by more prose or a heading;
- no shell block uses sudo: the README's commands run as root on a fresh
  Debian, which has no sudo.

Checked: the given Markdown file and every Markdown file under test/ that it
links to.  Prints one line per problem and exits 1 if there is any.
"""
import pathlib
import re
import sys
import unicodedata

FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)\s*$")
SHELL = {"sh", "bash", "shell", "console"}
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(\S+)")
HTML_ID = re.compile(r"<[^>]+\s(?:id|name)=\"([^\"]+)\"")


def slug(heading):
    """GitHub's anchor for a heading's text (github-slugger)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    kept = []
    for ch in text:
        if ch in " -_" or ch.isalnum() or unicodedata.category(ch).startswith("M"):
            kept.append("-" if ch == " " else ch)
    return "".join(kept)


def parse(path):
    """Lines outside fences (number, text), fenced blocks, fence problems."""
    prose, blocks, problems = [], [], []
    lines = path.read_text(encoding="utf-8").split("\n")
    fence = None
    for number, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = {"marker": m.group(1), "info": m.group(2), "line": number, "body": []}
            else:
                prose.append((number, line))
        elif m and m.group(1).startswith(fence["marker"][0]) and len(m.group(1)) >= len(fence["marker"]) \
                and not m.group(2):
            fence["end"] = number
            blocks.append(fence)
            prose.append((number, ""))  # a block separates paragraphs
            fence = None
        else:
            fence["body"].append(line)
    if fence is not None:
        problems.append(f"{path}:{fence['line']}: the fence opened here is never closed")
    for block in blocks:
        if not any(l.strip() for l in block["body"]):
            problems.append(f"{path}:{block['line']}: an empty fenced block")
    return prose, blocks, problems


def anchors(path):
    prose, _, _ = parse(path)
    seen, result = {}, set()
    for _, line in prose:
        m = re.match(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            result.add(base if n == 0 else f"{base}-{n}")
        result.update(HTML_ID.findall(line))
    return result


def check(path, root, queue, done):
    problems = []
    name = path.relative_to(root) if path.is_relative_to(root) else path
    prose, blocks, fence_problems = parse(path)
    problems += [p.replace(str(path), str(name), 1) for p in fence_problems]

    # Links, outside code spans.
    for number, line in prose:
        text = re.sub(r"`[^`]*`", "", line)
        targets = LINK.findall(text) + REFDEF.findall(text)
        for target in targets:
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, mailto:, ...
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path.resolve()
            where = f"{name}:{number}: link {target}"
            if not dest.exists():
                problems.append(f"{where}: {file_part} does not exist")
                continue
            if anchor:
                if dest.suffix != ".md":
                    problems.append(f"{where}: an anchor into a file that is not Markdown")
                elif anchor not in anchors(dest):
                    problems.append(f"{where}: no heading of {dest.relative_to(root)} has the anchor #{anchor}")
            try:
                rel = dest.relative_to(root)
            except ValueError:
                continue
            if dest.suffix == ".md" and rel.parts[0] == "test" and rel not in done:
                done.add(rel)
                queue.append(dest)

    # A paragraph that ends on a colon announces what follows it.
    ends = {}
    for i, (number, line) in enumerate(prose):
        nxt = prose[i + 1] if i + 1 < len(prose) else None
        if line.strip() and not line.lstrip().startswith(("|", "<!--", "#")) and \
                line.rstrip().endswith(":") and (nxt is None or not nxt[1].strip() or nxt[0] != number + 1):
            ends[number] = line
    block_starts = {b["line"] for b in blocks}
    lines = path.read_text(encoding="utf-8").split("\n")
    for number in sorted(ends):
        j = number  # index of the next line (0-based)
        while j < len(lines) and (not lines[j].strip() or re.match(r"^\s*<!--.*-->\s*$", lines[j])):
            j += 1
        follows = lines[j] if j < len(lines) else ""
        if (j + 1) in block_starts or re.match(r"^\s*(\||[-*+] |\d+[.)] |!\[)", follows):
            continue
        problems.append(f"{name}:{number}: the paragraph ends on a colon, but no code, table or list follows it")

    # No sudo in a shell block.
    for block in blocks:
        if block["info"] in SHELL:
            for k, line in enumerate(block["body"], block["line"] + 1):
                if re.search(r"(^|[;&|(\s])sudo\s", line):
                    problems.append(f"{name}:{k}: sudo in a shell block (the commands run as root; "
                                    "a fresh Debian has no sudo)")
    return problems


def main():
    root = pathlib.Path.cwd().resolve()
    first = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "README.md").resolve()
    queue, done, problems, files = [first], set(), [], 0
    while queue:
        path = queue.pop(0)
        files += 1
        problems += check(path, root, queue, done)
    for p in problems:
        print(f"doc test: FAILED: {p}")
    print(f"doc test: structure of {files} Markdown files checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
