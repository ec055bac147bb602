#!/usr/bin/env python3
"""Check the DOM that Chromium dumps (--dump-dom) of a near_dupe_review_html page.

    check_dom.py DOM_FILE [--members N] [--pivot KEY] [--text TEXT]...
                 [--unmarked SIDE MEMBER TEXT]... [--marked SIDE MEMBER TEXT]...

Always checked, on any page:
  * no active or loading element (script, img, link, iframe, object, embed,
    base, form, svg, video, audio, source) and no on* attribute or src/href;
  * one <style> with a colour rule mark[data-chunk$="d"] for every last
    digit d, and white-space: pre-wrap on .text (line breaks kept);
  * a summary (h1, dd.size, dd.pivot-key, dd.mean, dd.min) whose size is
    the pivot, the members listed as its text, the members drawn (a section
    drawn once for several members with one text names them all in its
    .copies line) and those not drawn;
  * the pivot's text in full once, in its own block (section.pivot-block)
    at the top: beside a member, the pivot's shared passages are folded
    (what <details> holds is not shown until opened), so no member's pivot
    column shows the whole of the pivot's text;
  * each member section holds one .pair of exactly two columns, the pivot
    (left) and the member (right), each with one .text;
  * every chunk number marked on the left is marked on the right and vice
    versa, once on each side, with the same words on both sides.
  * links: #anchors lead to an element of the page; other links only on an
    index page (--index DIR) or a production's page (--pages DIR), to a
    relative file that exists in DIR;
  * mark colours: neighbours (last digits d, d+1) 60 degrees of hue and 30
    CIELAB units apart or more (1.1's pink and violet were 15), each with a contrast of 7:1 or more with the body's text colour.
Words of the page's own inside a mark (a fold's summary, an elided or cut
note) are left out when the two sides are compared; a chunk may be marked on
one side only where the other side was cut by the page's size cap.
--identical, --cut-note, --labels, --differences, --page/--max-bytes check
the features of near_dupe_review_html's labelled form; --index checks an
index page (near_dupe_review_index_html) instead of a group page.
--status, --new-group, --new-members and --link-to check what a production's
group page (near_dupe_review_pages, --pages DIR) says of its group.
Options add checks for a known fixture: the number of members, the pivot's
key, a TEXT that must appear as text (not markup) somewhere, and TEXT that
must appear in the left or right column of member MEMBER (its key) outside
every mark (--unmarked: text that side has and the other lacks) or inside
one (--marked).  Prints one line per page on success; exits 1 on failure.
"""
import argparse
import colorsys
import os
import re
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
FORBIDDEN = {"script", "img", "link", "iframe", "object", "embed", "base", "form", "svg", "video", "audio",
             "source", "frame", "frameset", "applet"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def walk(self):
        for child in self.children:
            if isinstance(child, Node):
                yield child
                yield from child.walk()

    def find_all(self, tag=None, cls=None):
        return [n for n in self.walk() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes())]

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def shown_text(self):
        """The text without the page's own words inside it: a fold's
        summary, the note of an elided middle or of a cut end."""
        return "".join(c if isinstance(c, str) else
                       ("" if c.tag == "summary" or {"elided", "cut"} & set(c.classes()) else c.shown_text())
                       for c in self.children)

    def visible_text(self):
        """What a reader sees without opening anything: shown_text without
        the contents of a closed <details> (its summary is the page's own)."""
        return "".join(c if isinstance(c, str) else
                       ("" if c.tag in ("summary", "details") and "open" not in c.attrs
                        or {"elided", "cut"} & set(c.classes()) else c.visible_text())
                       for c in self.children)

    def text_outside_marks(self):
        return "".join(c if isinstance(c, str) else ("" if c.tag == "mark" else c.text_outside_marks())
                       for c in self.children)

    def direct(self, tag=None, cls=None):
        return [c for c in self.children if isinstance(c, Node)
                and (tag is None or c.tag == tag) and (cls is None or cls in c.classes())]


class TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, attrs, self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is None:
            raise SystemExit(f"unbalanced </{tag}> in the DOM")
        self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def words(text):
    return re.findall(r"\w+", text.lower())


def fail(problems, message):
    problems.append(message)


def check(path, args):
    with open(path, encoding="utf-8") as f:
        dom = f.read()
    builder = TreeBuilder()
    builder.feed(dom)
    builder.close()
    root = builder.root
    problems = []

    if not dom.lstrip().lower().startswith("<!doctype html>"):
        fail(problems, "the DOM does not start with <!DOCTYPE html>")
    for node in root.walk():
        if node.tag in FORBIDDEN:
            fail(problems, f"a <{node.tag}> element is in the DOM")
        for name in node.attrs:
            if name.startswith("on") or name in ("src", "srcset", "action", "formaction", "style"):
                fail(problems, f"attribute {name} on <{node.tag}>")
    # Links: within the page to an element that is there, or (the index
    # page, --index DIR) to a group page saved in DIR.
    ids = {n.attrs["id"] for n in root.walk() if "id" in n.attrs}
    pages = args.index or args.pages
    links = 0
    for node in root.walk():
        href = node.attrs.get("href")
        if "href" not in node.attrs:
            continue
        links += 1
        if node.tag != "a" or href is None:
            fail(problems, f"href on <{node.tag}>")
        elif href.startswith("#"):
            if href[1:] not in ids:
                fail(problems, f"link {href!r} leads nowhere on the page")
        elif pages is None or not re.fullmatch(r"[A-Za-z0-9._-][A-Za-z0-9._/-]*", href) or ".." in href:
            fail(problems, f"link {href!r} leaves the page")
        elif not args.production_index and not os.path.isfile(os.path.join(pages, href)):
            fail(problems, f"link {href!r}: no such page in {pages}")

    styles = root.find_all("style")
    if len(styles) != 1:
        fail(problems, f"{len(styles)} <style> elements, not 1")
    css = styles[0].text() if styles else ""
    for digit in "0123456789":
        if not re.search(r'mark\[data-chunk\$="%s"\]\s*\{\s*background:\s*#[0-9a-f]{6}' % digit, css):
            fail(problems, f'no colour for chunks ending in {digit} (mark[data-chunk$="{digit}"])')
    if not re.search(r"\.text\s*\{[^}]*white-space:\s*pre-wrap", css):
        fail(problems, ".text does not keep line breaks (white-space: pre-wrap)")
    if re.search(r"url\(|@import", css):
        fail(problems, "the style sheet loads something")
    # Neighbouring chunks (last digits d and d+1) far apart in hue, and
    # every mark colour dark text can be read on (WCAG contrast 7:1).
    body_colour = re.search(r"body\s*\{[^}]*[^-]color:\s*(#[0-9a-f]{6})", css)
    marks = dict(re.findall(r'mark\[data-chunk\$="(\d)"\]\s*\{\s*background:\s*(#[0-9a-f]{6})', css))
    if body_colour and len(marks) == 10:
        for digit in "0123456789":
            ratio = contrast(marks[digit], body_colour.group(1))
            if ratio < 7:
                fail(problems, f"chunks ending in {digit}: contrast {ratio:.1f}:1 with the text, under 7:1")
            after = str((int(digit) + 1) % 10)
            apart = hue_distance(marks[digit], marks[after])
            if apart < 60:
                fail(problems, f"chunks ending in {digit} and {after}: hues {apart:.0f} degrees apart, under 60")
            distance = delta_e(marks[digit], marks[after])
            if distance < 30:
                fail(problems, f"chunks ending in {digit} and {after}: colours {distance:.0f} apart (CIELAB), under 30")
    elif body_colour is None:
        fail(problems, "no text colour on body")

    if args.index is not None:
        return check_index(path, root, problems, links)
    if args.production_index:
        # near_dupe_review_pages' index: check_production.py checks its rows.
        if problems:
            for p in problems:
                print(f"check_dom: {path}: {p}", file=sys.stderr)
            return False
        print(f"check_dom: {path}: ok: a production's index page, nothing active, {links} relative links")
        return True

    def one(tag, cls):
        found = root.find_all(tag, cls)
        if len(found) != 1:
            fail(problems, f"{len(found)} <{tag} class={cls}>, not 1")
            return None
        return found[0]

    h1 = root.find_all("h1")
    size = one("dd", "size")
    pivot = one("dd", "pivot-key")
    one("dd", "mean")
    one("dd", "min")
    sections = root.find_all("section", "member")
    copies = {}
    for section in sections:
        line = section.direct("p", "copies")
        if len(line) > 1:
            fail(problems, "a member section with more than one .copies line")
        named = line[0].find_all("span", "key") if line else []
        count = re.match(r"(\d+) members", line[0].text()) if line else None
        if line and (count is None or int(count.group(1)) < 2
                     or (int(count.group(1)) <= 1000 and int(count.group(1)) != len(named))):
            fail(problems, f"a .copies line that names {len(named)} members: {line[0].text()[:80]!r}")
        copies[id(section)] = int(count.group(1)) if count else 1
    drawn = sum(copies.values())
    pivot_blocks = root.find_all("section", "pivot-block")
    identical = [k for p in root.find_all("p", "identical") for k in p.find_all("span", "key")]
    unshown = [k for u in root.find_all("ul", "unshown") for k in u.find_all("span", "key")]
    cut_notes = root.find_all("section", "cut-note")
    if len(h1) != 1:
        fail(problems, f"{len(h1)} <h1>, not 1")
    if size is not None and size.text() != str(drawn + len(identical) + len(unshown) + 1):
        fail(problems, f"the summary says {size.text()} documents, the page shows {drawn} members "
                       f"({len(sections)} sections), {len(identical)} identical, {len(unshown)} not drawn and the pivot")
    if args.copies is not None and drawn - len(sections) + sum(1 for c in copies.values() if c > 1) != args.copies:
        fail(problems, f"{drawn - len(sections) + sum(1 for c in copies.values() if c > 1)} members named in "
                       f".copies lines, expected {args.copies}")
    pivot_words = None
    if len(pivot_blocks) != 1:
        fail(problems, f"{len(pivot_blocks)} pivot blocks (section.pivot-block), not 1")
    else:
        texts = pivot_blocks[0].find_all("div", "text")
        if len(texts) != 1:
            fail(problems, "the pivot block has no single .text")
        else:
            pivot_words = words(texts[0].visible_text())
            if texts[0].find_all("mark") or texts[0].find_all("details"):
                fail(problems, "the pivot block's text is marked or folded: it should be drawn whole")
    if args.identical is not None and len(identical) != args.identical:
        fail(problems, f"{len(identical)} members listed as the pivot's text, expected {args.identical}")
    if args.cut_note and not cut_notes:
        fail(problems, "no note of what the page cap left out")
    if not args.cut_note and cut_notes:
        fail(problems, "a note of text left out, on a page that should hold everything")
    if args.max_bytes is not None and os.path.getsize(args.page) > args.max_bytes:
        fail(problems, f"the page is {os.path.getsize(args.page)} bytes, over {args.max_bytes}")
    for cls in args.doc_class:
        if cls not in [b.text() for b in root.find_all("span", "doc-class")]:
            fail(problems, f"no class badge {cls!r} (span.doc-class)")
    if "no words" in args.doc_class and not root.find_all(None, "empty-note"):
        fail(problems, "an empty text is not said to have no words (.empty-note)")
    check_production_summary(root, args, problems)
    if args.members is not None and len(sections) != args.members:
        fail(problems, f"{len(sections)} member sections, expected {args.members}")
    if args.pivot is not None and pivot is not None and pivot.text() != args.pivot:
        fail(problems, f"pivot key shown as {pivot.text()!r}, expected {args.pivot!r}")

    members = {}
    mark_count = 0
    for section in sections:
        h2 = section.direct("h2")
        keys = h2[0].find_all("span", "key") if h2 else []
        key = keys[0].text() if keys else ""
        if args.labels and not (h2 and h2[0].find_all("span", "label")):
            fail(problems, f"member {key!r}: no label")
        differences = section.find_all("ol", "differences")
        if args.differences and not differences and not section.find_all("p", "no-differences"):
            fail(problems, f"member {key!r}: no list of differences")
        pairs = section.direct("div", "pair")
        if len(pairs) != 1:
            fail(problems, f"member {key!r}: {len(pairs)} .pair blocks, not 1")
            continue
        sides = pairs[0].direct("div")
        if len(sides) != 2 or "pivot" not in sides[0].classes() or "other" not in sides[1].classes():
            fail(problems, f"member {key!r}: the pair is not two columns, pivot then member")
            continue
        texts = [side.direct("div", "text") for side in sides]
        if any(len(t) != 1 for t in texts):
            fail(problems, f"member {key!r}: a column without exactly one .text")
            continue
        left, right = texts[0][0], texts[1][0]
        # The pivot's text once: beside a member, a shared passage long
        # enough to fold is folded, so the column never reads in full.
        if pivot_words and words(left.visible_text()) == pivot_words \
                and any(len(m.shown_text()) > 40 for m in left.find_all("mark")):
            fail(problems, f"member {key!r}: the pivot's column shows the whole of the pivot's text again")
        marks = []
        for side in (left, right):
            by_number = {}
            for mark in side.find_all("mark"):
                number = mark.attrs.get("data-chunk", "")
                if not number.isdigit():
                    fail(problems, f"member {key!r}: a mark without a chunk number")
                if number in by_number:
                    fail(problems, f"member {key!r}: chunk {number} marked twice on one side")
                by_number[number] = mark
            marks.append(by_number)
        cut = [bool(side.find_all("span", "cut")) for side in (left, right)]
        if (set(marks[0]) - set(marks[1]) and not cut[1]) or (set(marks[1]) - set(marks[0]) and not cut[0]):
            fail(problems, f"member {key!r}: chunks only on the left {sorted(set(marks[0]) - set(marks[1]))}, "
                           f"only on the right {sorted(set(marks[1]) - set(marks[0]))}")
        for number in set(marks[0]) & set(marks[1]):
            if words(marks[0][number].shown_text()) != words(marks[1][number].shown_text()):
                fail(problems, f"member {key!r}: chunk {number} is not the same words on both sides")
        mark_count += len(marks[0])
        members[key] = (left, right)

    for text in args.text:
        if text not in root.text():
            fail(problems, f"{text!r} does not appear as text")
    for side, key, text in args.unmarked + args.marked:
        if key not in members:
            fail(problems, f"no member {key!r} (members: {sorted(members)})")
            continue
        column = members[key][0 if side == "left" else 1]
        outside = column.text_outside_marks()
        inside = "".join(m.shown_text() for m in column.find_all("mark"))
        if [side, key, text] in args.unmarked and text not in outside:
            fail(problems, f"member {key!r}: {text!r} is not unmarked in the {side} column")
        if [side, key, text] in args.unmarked and text in inside:
            fail(problems, f"member {key!r}: {text!r} is marked in the {side} column")
        if [side, key, text] in args.marked and text not in inside:
            fail(problems, f"member {key!r}: {text!r} is not marked in the {side} column")

    if problems:
        for p in problems:
            print(f"check_dom: {path}: {p}", file=sys.stderr)
        return False
    print(f"check_dom: {path}: ok: the pivot's text once, {len(sections)} texts ({drawn} members) beside the pivot, "
          f"{mark_count} chunks paired, {len(identical)} identical, {links} links"
          f"{', a note of what was cut' if cut_notes else ''}")
    return True


def check_production_summary(root, args, problems):
    """What a production's group page (near_dupe_review_pages) says of the
    group in its summary: its status, its mark from the latest wave, the
    members marked new, a link to another group."""
    summary = root.find_all("header", "summary")
    text = " ".join(summary[0].text().split()) if summary else ""
    if args.status is not None and f"Status: {args.status}" not in text:
        fail(problems, f"the summary does not give the status {args.status!r}")
    if args.new_group and not re.search(r"\bNew in wave \d+\b", text):
        fail(problems, "the summary does not mark the group new")
    if args.new_members is not None:
        if not re.search(r"\bGrew in wave \d+: %d new members?\b" % args.new_members, text):
            fail(problems, f"the summary does not say the group grew by {args.new_members}")
        # A member's name is drawn in its heading and again above its
        # column: count the keys the "new" badges follow, once each.
        marked = set()
        for parent in root.walk():
            key = None
            for child in parent.children:
                if isinstance(child, Node) and child.tag == "span":
                    if "key" in child.classes():
                        key = child.text().strip()
                    elif "new" in child.classes() and child.text().strip() == "new":
                        marked.add(key)
        if len(marked) != args.new_members or None in marked:
            fail(problems, f"members {sorted(marked, key=str)} marked new, expected {args.new_members}")
    if args.link_to is not None:
        links = [a for s in summary for a in s.find_all("a") if a.attrs.get("href") == f"group-{args.link_to}.html"]
        if not any(a.text().strip() == str(args.link_to) for a in links):
            fail(problems, f"the summary does not link to group {args.link_to}")


def check_index(path, root, problems, links):
    """The page of a group table: one row per group of two or more, each
    linked to its page; the counts in the summary add up."""
    def number(cls):
        found = root.find_all("dd", cls)
        if len(found) != 1 or not found[0].text().isdigit():
            fail(problems, f"no number in <dd class={cls}>")
            return -1
        return int(found[0].text())
    groups, grouped, singletons, documents = (number(c) for c in ("groups", "grouped", "singletons", "documents"))
    rows = [r for t in root.find_all("tbody") for r in t.direct("tr")]
    if len(rows) != groups:
        fail(problems, f"{len(rows)} rows, the summary says {groups} groups")
    sizes = 0
    for row in rows:
        cells = {c.classes()[0]: c for c in row.direct("td") if c.classes()}
        anchors = cells["group"].find_all("a") if "group" in cells else []
        if len(anchors) != 1:
            fail(problems, f"a row without one link: {row.text()[:60]!r}")
        if "size" not in cells or not cells["size"].text().isdigit() or int(cells["size"].text()) < 2:
            fail(problems, f"a row without a size of two or more: {row.text()[:60]!r}")
        else:
            sizes += int(cells["size"].text())
        if "pivot" not in cells or not cells["pivot"].find_all("span", "key"):
            fail(problems, f"a row without its pivot: {row.text()[:60]!r}")
    if sizes != grouped or grouped + singletons != documents:
        fail(problems, f"sizes add up to {sizes}, the summary says {grouped} in groups, "
                       f"{singletons} alone, {documents} documents")
    # The groups of one by class (near_dupe_classes' rule): with words,
    # without words, without a signature; together the summary's count.
    line = root.find_all("p", "singletons")
    kinds = {}
    for cls in ("alone", "no-words", "no-signature"):
        found = line[0].find_all("span", cls) if len(line) == 1 else []
        if len(found) != 1 or not found[0].text().isdigit():
            fail(problems, f"no number in <span class={cls}> of the groups of one")
        else:
            kinds[cls] = int(found[0].text())
    if len(kinds) == 3 and sum(kinds.values()) != singletons:
        fail(problems, f"groups of one: {kinds} add up to {sum(kinds.values())}, the summary says {singletons}")
    if links != len(rows):
        fail(problems, f"{links} links for {len(rows)} rows")
    if problems:
        for p in problems:
            print(f"check_dom: {path}: {p}", file=sys.stderr)
        return False
    print(f"check_dom: {path}: ok: index of {len(rows)} groups ({grouped} documents), {singletons} alone "
          f"({kinds.get('alone')} with words, {kinds.get('no-words')} without, {kinds.get('no-signature')} unsigned), "
          f"every link leads to a saved page")
    return True


def luminance(colour):
    def channel(v):
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(int(colour[i:i + 2], 16)) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def delta_e(a, b):
    """CIE76 distance of two sRGB colours: about 2.3 is just noticeable."""
    def lab(colour):
        rgb = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb)
        x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
        y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
        f = lambda t: t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
        return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))
    return sum((p - q) ** 2 for p, q in zip(lab(a), lab(b))) ** 0.5


def hue_distance(a, b):
    ha = colorsys.rgb_to_hls(*(int(a[i:i + 2], 16) / 255 for i in (1, 3, 5)))[0] * 360
    hb = colorsys.rgb_to_hls(*(int(b[i:i + 2], 16) / 255 for i in (1, 3, 5)))[0] * 360
    d = abs(ha - hb) % 360
    return min(d, 360 - d)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dom")
    parser.add_argument("--members", type=int)
    parser.add_argument("--identical", type=int, help="members listed as having the pivot's text")
    parser.add_argument("--copies", type=int, help="members named in the .copies lines (texts drawn once for several)")
    parser.add_argument("--doc-class", action="append", default=[], help="a class badge (span.doc-class) shown")
    parser.add_argument("--cut-note", action="store_true", help="the page must say what its cap left out")
    parser.add_argument("--labels", action="store_true", help="every member named by a label")
    parser.add_argument("--differences", action="store_true", help="every member has its list of differences")
    parser.add_argument("--page", help="the page (HTML) the DOM is of, for --max-bytes")
    parser.add_argument("--max-bytes", type=int, help="the page is at most this many bytes")
    parser.add_argument("--index", metavar="DIR", help="an index page: its links lead to pages in DIR")
    parser.add_argument("--pages", metavar="DIR", help="a page of a production (near_dupe_review_pages): "
                        "its links lead to pages in DIR")
    parser.add_argument("--production-index", action="store_true",
                        help="with --pages: an index page of a production; only the checks of any page "
                        "(its group pages may not be saved: check_production.py checks where its rows link)")
    parser.add_argument("--status", help="a production's group page: the summary gives this status")
    parser.add_argument("--new-group", action="store_true", help="a production's group page: marked new")
    parser.add_argument("--new-members", type=int, help="a production's group page: grew, this many members marked new")
    parser.add_argument("--link-to", type=int, metavar="GROUP", help="a production's group page: links to GROUP")
    parser.add_argument("--pivot")
    parser.add_argument("--text", action="append", default=[])
    parser.add_argument("--unmarked", nargs=3, action="append", default=[], metavar=("SIDE", "MEMBER", "TEXT"))
    parser.add_argument("--marked", nargs=3, action="append", default=[], metavar=("SIDE", "MEMBER", "TEXT"))
    args = parser.parse_args()
    for side, _, _ in args.unmarked + args.marked:
        if side not in ("left", "right"):
            parser.error(f"SIDE must be left or right, not {side!r}")
    sys.exit(0 if check(args.dom, args) else 1)


if __name__ == "__main__":
    main()
