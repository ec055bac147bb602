#!/usr/bin/env python3
"""Check a production's pages (near_dupe_review_pages), with the standard library only.

    check_production.py index DIR --documents N --page-size K [--class NAME COUNT]...
    check_production.py group DOM --dir DIR [--status TEXT] [--grew N] [--new]
                        [--copies KEY...] [--doc-class NAME] [--link-to GROUP]

index: the index pages saved in DIR (index.html, then each page's "next"),
read as saved (a page's rows are what the function wrote):
  * following "next" from index.html reaches every index*.html of DIR once,
    each page saying "page n of N" with N the number of pages;
  * at most K rows a page, each a group linked to group-<id>.html;
  * every group once, the summary's count of groups; their sizes add up to
    the summary's documents, which is N (every document on a page);
  * sizes never increase from the first row of the first page to the last
    row of the last (ties by group id), as order_by => 'size' promises;
  * rows of each class (--class 'no words' 2) count as given.
group: the DOM Chromium dumped of one group page of DIR:
  * a way back: a link to the index page of DIR whose rows hold this group,
    and links to the previous and next group that are this group's
    neighbours in the rows of DIR's index pages (none before the first,
    none after the last);
  * --status TEXT: the summary names the group's status;
  * --grew N: the summary marks the group grown, and N members are marked
    new; --new: the summary marks the group new;
  * --copies KEY...: one .copies line names exactly these keys (a text
    drawn once for the members that share it);
  * --doc-class NAME: a document carries the class badge NAME, and an empty
    text is said to have no words;
  * --link-to GROUP: the summary links to group-GROUP.html, naming it.
Prints one line on success; exits 1 on failure.
"""
import argparse
import html
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_dom import TreeBuilder  # noqa: E402  (the same DOM reader)


def parse(path):
    with open(path, encoding="utf-8") as f:
        builder = TreeBuilder()
        builder.feed(f.read())
        builder.close()
    return builder.root


def number(root, cls):
    found = [n for n in root.find_all("dd", cls)]
    if len(found) != 1:
        raise SystemExit(f"check_production: no <dd class={cls}>")
    match = re.match(r"\d+", found[0].text().strip())
    if not match:
        raise SystemExit(f"check_production: no number in <dd class={cls}>: {found[0].text()!r}")
    return int(match.group())


ROW = re.compile(r'<tr><td class="group">(.*?)</td>.*?<td class="size">(\d+)</td>.*?<td class="class">(.*?)</td>.*?</tr>', re.S)


def index_rows(directory):
    """The index pages in their order, and each page's rows as (group id, size, class, link).
    The page above its table is read as a DOM; the rows (most of the bytes)
    with a pattern of the cells the function writes, which is much faster."""
    pages, name = [], "index.html"
    while name is not None:
        if name in (p for p, _, _ in pages):
            raise SystemExit(f"check_production: the pages' next links go round in a circle at {name}")
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            page = f.read()
        head, _, table = page.partition("<tbody>")
        builder = TreeBuilder()
        builder.feed(head)
        root = builder.root
        rows = []
        for cell, size, cls in ROW.findall(table.partition("</tbody>")[0]):
            link = re.fullmatch(r'<a href="([^"]*)">(\d+)</a>', cell)
            if not link:
                raise SystemExit(f"check_production: {name}: a row whose group cell is not one link: {cell[:80]!r}")
            rows.append((int(link.group(2)), int(size), html.unescape(re.sub(r"<[^>]*>", "", cls)).strip(), link.group(1)))
        pages.append((name, root, rows))
        nexts = [a for nav in root.find_all("nav", "nav") for a in nav.find_all("a") if a.text().strip() == "next"]
        name = nexts[0].attrs["href"] if nexts else None
    return pages


def check_index(args):
    problems = []
    pages = index_rows(args.dir)
    saved = sorted(f for f in os.listdir(args.dir) if re.fullmatch(r"index(-\d+)?\.html", f))
    if sorted(p for p, _, _ in pages) != saved:
        problems.append(f"next links reach {len(pages)} pages, {len(saved)} are saved")
    first = pages[0][1]
    groups, documents = number(first, "groups"), number(first, "documents")
    seen, total, previous, classes = set(), 0, None, {}
    for n, (name, root, rows) in enumerate(pages, 1):
        heading = root.find_all("h1")[0].text()
        if not re.search(r"page %d of %d\b" % (n, len(pages)), heading):
            problems.append(f"{name}: heading {heading!r} is not page {n} of {len(pages)}")
        if len(rows) > args.page_size or not rows:
            problems.append(f"{name}: {len(rows)} rows (page size {args.page_size})")
        for group, size, cls, href in rows:
            if group in seen:
                problems.append(f"{name}: group {group} listed twice")
            seen.add(group)
            total += size
            classes[cls] = classes.get(cls, 0) + 1
            if href != f"group-{group}.html":
                problems.append(f"{name}: group {group} links to {href!r}")
            if previous is not None and (size, -group) > previous:
                problems.append(f"{name}: group {group} (size {size}) after a row of size {previous[0]}, group {-previous[1]}")
            previous = (size, -group)
    if len(seen) != groups:
        problems.append(f"{len(seen)} groups listed, the summary says {groups}")
    if total != documents or documents != args.documents:
        problems.append(f"the sizes add up to {total} documents, the summary says {documents}, the table holds {args.documents}")
    for name, count in args.cls:
        if classes.get(name, 0) != int(count):
            problems.append(f"{classes.get(name, 0)} rows of class {name!r}, expected {count}")
    if problems:
        for p in problems:
            print(f"check_production: {args.dir}: {p}", file=sys.stderr)
        return False
    print(f"check_production: {args.dir}: ok: {len(pages)} index pages of at most {args.page_size} rows, "
          f"{len(seen)} groups once each, {total} documents, largest first; classes {classes}")
    return True


def check_group(args):
    problems = []
    root = parse(args.dom)
    headings = root.find_all("h1")
    match = re.search(r"group (\d+)", headings[0].text()) if headings else None
    if not match:
        raise SystemExit(f"check_production: {args.dom}: no group number in the heading")
    group = int(match.group(1))
    summary = root.find_all("header", "summary")[0]
    # The way back and on, against the index pages' rows.
    order, page_of = [], {}
    for name, _, rows in index_rows(args.dir):
        for row in rows:
            order.append(row[0])
            page_of[row[0]] = name
    if group not in page_of:
        problems.append(f"group {group} is on no index page of {args.dir}")
    else:
        at = order.index(group)
        hrefs = [a.attrs.get("href") for nav in summary.find_all("nav", "nav") for a in nav.find_all("a")]
        if page_of[group] not in hrefs:
            problems.append(f"no link to {page_of[group]}, the index page that lists it (links: {hrefs})")
        wanted = {f"group-{order[at - 1]}.html"} if at > 0 else set()
        wanted |= {f"group-{order[at + 1]}.html"} if at + 1 < len(order) else set()
        groups_linked = {h for h in hrefs if h and h.startswith("group-")}
        if groups_linked != wanted:
            problems.append(f"previous/next link to {sorted(groups_linked)}, the index order says {sorted(wanted)}")
        for href in hrefs:
            if href and not os.path.isfile(os.path.join(args.dir, href)):
                problems.append(f"link {href!r}: no such page in {args.dir}")
    text = " ".join(summary.text().split())
    if args.status and args.status not in text:
        problems.append(f"the summary does not name the status {args.status!r}")
    # The members marked new: the key each "new" badge follows (a member's
    # name is drawn in its heading and again above its column).
    new_badges = set()
    for parent in root.walk():
        key = None
        for child in parent.children:
            if not hasattr(child, "classes"):
                continue
            if child.tag == "span" and "key" in child.classes():
                key = child.text().strip()
            elif child.tag == "span" and "new" in child.classes() and child.text().strip() == "new":
                new_badges.add(key)
    if args.grew is not None:
        if not re.search(r"\bgrew\b", text, re.I):
            problems.append("the summary does not say the group grew")
        if len(new_badges) != args.grew:
            problems.append(f"members {sorted(new_badges, key=str)} marked new, expected {args.grew}")
    if args.new and not re.search(r"\bnew group\b|\bnew in wave\b|\bis new\b", text, re.I):
        problems.append("the summary does not say the group is new")
    if args.copies:
        lines = root.find_all(None, "copies")
        named = [sorted(k.text().strip() for k in line.find_all("span", "key")) for line in lines]
        if sorted(args.copies) not in named:
            problems.append(f"no .copies line names exactly {sorted(args.copies)} (lines name {named})")
    if args.doc_class:
        badges = [n.text().strip() for n in root.find_all("span", "doc-class")]
        if args.doc_class not in badges:
            problems.append(f"no {args.doc_class!r} badge (badges: {badges})")
        if args.doc_class == "no words" and not root.find_all(None, "empty-note"):
            problems.append("the empty text is not said to have no words")
    if args.link_to is not None:
        links = [a for a in summary.find_all("a") if a.attrs.get("href") == f"group-{args.link_to}.html"]
        if not links or not any(str(args.link_to) in a.text() for a in links):
            problems.append(f"no link to group {args.link_to} in the summary")
    if problems:
        for p in problems:
            print(f"check_production: {args.dom}: {p}", file=sys.stderr)
        return False
    print(f"check_production: {args.dom}: ok: group {group}, linked to its index page and neighbours"
          + (f", status {args.status!r}" if args.status else "")
          + (f", grew ({len(new_badges)} new)" if args.grew is not None else "")
          + (", new" if args.new else "")
          + (f", {len(args.copies)} copies named once" if args.copies else "")
          + (f", {args.doc_class!r}" if args.doc_class else "")
          + (f", links to group {args.link_to}" if args.link_to is not None else ""))
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    index = sub.add_parser("index")
    index.add_argument("dir")
    index.add_argument("--documents", type=int, required=True)
    index.add_argument("--page-size", type=int, required=True)
    index.add_argument("--class", dest="cls", nargs=2, action="append", default=[], metavar=("NAME", "COUNT"))
    group = sub.add_parser("group")
    group.add_argument("dom")
    group.add_argument("--dir", required=True)
    group.add_argument("--status")
    group.add_argument("--grew", type=int)
    group.add_argument("--new", action="store_true")
    group.add_argument("--copies", nargs="+")
    group.add_argument("--doc-class")
    group.add_argument("--link-to", type=int)
    args = parser.parse_args()
    sys.exit(0 if (check_index(args) if args.what == "index" else check_group(args)) else 1)


if __name__ == "__main__":
    main()
