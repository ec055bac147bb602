#!/usr/bin/env python3
"""Check a production's pages (near_dupe_review_pages) saved in one folder.

    check_pages.py DIR [--dom DOMDIR] [--index-only]

DIR holds the pages as saved (index.html, index-2.html, ..., group-N.html);
with --dom, each page is read from DOMDIR/<name> instead (the DOM Chromium
dumped of it), and the links are still resolved in DIR; --index-only: the
pages of group_pages => false, whose links to group pages lead nowhere yet.
Checked:
  * no active or loading element, no on* attribute, every href relative:
    an #anchor of the page or a page of DIR;
  * the index pages: numbered 1..N without a gap, each saying "Page n of N"
    with first/previous/next/last linked to the right pages (not linked on
    the first or last page), every row linked to group-<its id>.html;
  * all index pages together: each group once; with every group shown
    ("all G of G"), the rows add up to the summary: groups, documents (the
    sizes), and each class (near-duplicates, singleton, no words, numbers
    only, no signature), the class of a group of two or more being
    near-duplicates and of a group of one any other;
  * every group page saved: linked to the index page that lists it, and to
    the previous and next group in the index's order (none at either end).
Options add what the caller knows of the production (from its tables):
  * --documents N: the rows' sizes add up to N, every document of the table;
  * --order size: sizes never increase from the first row of the first
    page to the last of the last, ties by group id (order_by => 'size');
  * --class NAME COUNT: COUNT rows of class NAME ('no words' 2).
Prints one line on success; exits 1 with the problems otherwise.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_dom import FORBIDDEN, TreeBuilder  # noqa: E402

CLASSES = {"near-duplicates": "near-duplicates", "singleton": "singleton", "no words": "no-words",
           "numbers only": "numbers-only", "no signature": "no-signature"}


def parse(path):
    with open(path, encoding="utf-8") as f:
        builder = TreeBuilder()
        builder.feed(f.read())
        builder.close()
    return builder.root


def index_name(n):
    return "index.html" if n == 1 else f"index-{n}.html"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir")
    parser.add_argument("--dom", metavar="DOMDIR")
    parser.add_argument("--index-only", action="store_true", help="no group page saved: links to them not resolved")
    parser.add_argument("--documents", type=int, help="the sizes add up to this many documents")
    parser.add_argument("--order", choices=["size"], help="the rows' order (size: largest first, ties by group id)")
    parser.add_argument("--class", dest="classes", nargs=2, action="append", default=[], metavar=("NAME", "COUNT"),
                        help="this many rows of this class")
    args = parser.parse_args()
    problems = []
    names = sorted(os.listdir(args.dir))
    index_files = sorted((f for f in names if re.fullmatch(r"index(-[0-9]+)?\.html", f)),
                         key=lambda f: int(re.sub(r"\D", "", f) or 1))
    group_files = {f for f in names if re.fullmatch(r"group--?[0-9]+\.html", f)}
    if not index_files:
        sys.exit(f"check_pages: no index.html in {args.dir}")
    pages = {}
    for name in index_files + sorted(group_files):
        path = os.path.join(args.dom or args.dir, name)
        if not os.path.isfile(path):
            problems.append(f"{name}: no DOM in {args.dom}")
            continue
        pages[name] = root = parse(path)
        for node in root.walk():
            if node.tag in FORBIDDEN:
                problems.append(f"{name}: a <{node.tag}> element")
            for attr in node.attrs:
                if attr.startswith("on") or attr in ("src", "srcset", "action", "formaction", "style"):
                    problems.append(f"{name}: attribute {attr} on <{node.tag}>")
        ids = {n.attrs["id"] for n in root.walk() if "id" in n.attrs}
        for node in root.walk():
            href = node.attrs.get("href")
            if href is None:
                continue
            if href.startswith("#"):
                if href[1:] not in ids:
                    problems.append(f"{name}: link {href!r} leads nowhere on the page")
            elif not re.fullmatch(r"(index(-[0-9]+)?|group--?[0-9]+)\.html", href):
                problems.append(f"{name}: link {href!r} is not to a page of the production")
            elif href not in names and not (args.index_only and href.startswith("group-")):
                problems.append(f"{name}: link {href!r}: no such page in {args.dir}")

    # The index pages, in order: their numbering, navigation and rows.
    total = len(index_files)
    if index_files != [index_name(n) for n in range(1, total + 1)]:
        problems.append(f"index pages not numbered 1..{total}: {index_files}")
    order, sizes, classes, summary = [], {}, {}, {}
    for n, name in enumerate(index_files, 1):
        root = pages.get(name)
        if root is None:
            continue
        navs = root.find_all("nav", "nav")
        if not navs or not navs[0].text().startswith(f"Page {n} of {total}:"):
            problems.append(f"{name}: no 'Page {n} of {total}'")
        for nav in navs:
            links = {a.text(): a.attrs.get("href") for a in nav.find_all("a")}
            want = {}
            if n > 1:
                want.update(first=index_name(1), previous=index_name(n - 1))
            if n < total:
                want.update(next=index_name(n + 1), last=index_name(total))
            if links != want:
                problems.append(f"{name}: navigation {links}, expected {want}")
        for row in (r for t in root.find_all("tbody") for r in t.direct("tr")):
            cells = {c.classes()[0]: c for c in row.direct("td") if c.classes()}
            anchors = cells["group"].find_all("a") if "group" in cells else []
            if len(anchors) != 1 or anchors[0].attrs.get("href") != f"group-{anchors[0].text()}.html":
                problems.append(f"{name}: a row without its group's link: {row.text()[:60]!r}")
                continue
            group = int(anchors[0].text())
            if group in sizes:
                problems.append(f"{name}: group {group} listed twice")
            order.append((group, n))
            size_text = cells["size"].text() if "size" in cells else ""
            sizes[group] = int(size_text) if size_text.isdigit() else 0
            classes[group] = cells["class"].text() if "class" in cells else ""
            if classes[group] not in CLASSES or (sizes[group] > 1) != (classes[group] == "near-duplicates"):
                problems.append(f"{name}: group {group} of {sizes[group]} documents in class {classes[group]!r}")
            if "change" in cells and not re.fullmatch(r"|new|grew \+[0-9]+", cells["change"].text()):
                problems.append(f"{name}: group {group} marked {cells['change'].text()!r}")
        for dd in root.find_all("dd"):
            summary.setdefault(tuple(dd.classes()), dd.text())

    # All index pages together against the summary: the rows it says are
    # shown, and when all is shown, its counts.
    shown = re.match(r"(all|to review:) ([0-9]+) of ([0-9]+)", summary.get(("shown",), ""))
    if not shown:
        problems.append(f"the summary does not say how many groups are shown: {summary.get(('shown',))!r}")
    elif int(shown.group(2)) != len(order):
        problems.append(f"{len(order)} rows, the summary says {summary.get(('shown',))!r}")
    if shown and shown.group(1) == "all":
        if int(shown.group(2)) != len(order) or summary.get(("groups",)) != str(len(order)):
            problems.append(f"{len(order)} rows, the summary says {summary.get(('groups',))} groups, "
                            f"{summary.get(('shown',))!r}")
        if summary.get(("documents",)) != str(sum(sizes.values())):
            problems.append(f"sizes add up to {sum(sizes.values())}, the summary says {summary.get(('documents',))}")
        for name, cls in CLASSES.items():
            groups = [g for g in classes if classes[g] == name]
            said = summary.get((cls,), "")
            want = (f"{sum(sizes[g] for g in groups)} documents in {len(groups)} groups"
                    if name == "near-duplicates" else str(len(groups)))
            if said != want:
                problems.append(f"class {name}: the rows say {want!r}, the summary {said!r}")

    # What the caller knows of the production.
    if args.documents is not None and sum(sizes.values()) != args.documents:
        problems.append(f"sizes add up to {sum(sizes.values())}, the table holds {args.documents} documents")
    if args.order == "size":
        for (before, _), (after, n) in zip(order, order[1:]):
            if (sizes[after], -after) > (sizes[before], -before):
                problems.append(f"{index_name(n)}: group {after} of {sizes[after]} documents after group {before} "
                                f"of {sizes[before]}: not largest first")
    for name, count in args.classes:
        found = sum(1 for g in classes if classes[g] == name)
        if found != int(count):
            problems.append(f"{found} rows of class {name!r}, expected {count}")

    # Each group page: its index page, its neighbours in the index's order.
    for i, (group, n) in enumerate(order):
        name = f"group-{group}.html"
        if name not in pages:
            continue
        navs = pages[name].find_all("nav", "nav")
        links = [a.attrs.get("href") for a in navs[0].find_all("a")] if navs else []
        want = [index_name(n)] + ([f"group-{order[i - 1][0]}.html"] if i > 0 else []) \
            + ([f"group-{order[i + 1][0]}.html"] if i + 1 < len(order) else [])
        if links != want:
            problems.append(f"{name}: navigation {links}, expected {want}")
    pages_checked = len([f for f in group_files if f in pages])

    if problems:
        for p in problems[:50]:
            print(f"check_pages: {p}", file=sys.stderr)
        if len(problems) > 50:
            print(f"check_pages: and {len(problems) - 50} more", file=sys.stderr)
        sys.exit(1)
    print(f"check_pages: {args.dir}: ok: {total} index pages listing {len(order)} groups "
          f"({sum(sizes.values())} documents) once each, {pages_checked} group pages in the index's order")


if __name__ == "__main__":
    main()
