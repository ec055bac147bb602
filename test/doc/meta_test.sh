#!/usr/bin/env bash
# META.json (the PGXN distribution metadata) agrees with the tree: a valid
# PGXN Meta Spec 1.0 document whose version is minhash.control's
# default_version as X.Y.0 (the version the distribution installs, which
# CHANGELOG.md lists, released or not), whose extension entry names files
# that exist, whose PostgreSQL prerequisite is the oldest major
# src/pg_compat.h builds against, and whose license is one the spec knows,
# with a LICENSE file; and the Makefile's DATA installs a script chain from
# 1.0 to default_version.  In a git checkout, `make dist` of the committed
# tree is checked too: its zip's META.json and control file agree and it
# holds every DATA script; and in a scratch copy whose META.json says
# another version, `make dist` refuses.  Needs python3 and, for the dist
# checks, git and make (no cluster).  Ends with `meta: ok` or
# `meta: FAILED: ...`.
#
#   bash test/doc/meta_test.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
command -v python3 >/dev/null 2>&1 || { echo "meta: FAILED: python3 not found"; exit 1; }

python3 - <<'PY'
import glob, json, os, re, shutil, subprocess, sys, tempfile, zipfile

problems = []
def check(ok, what):
    if not ok:
        problems.append(what)

try:
    meta = json.load(open("META.json", encoding="utf-8"))
except (OSError, ValueError) as e:
    print(f"meta: FAILED: META.json does not parse: {e}")
    sys.exit(1)

control = open("minhash.control", encoding="utf-8").read()
default_version = re.search(r"^default_version\s*=\s*'([^']+)'", control, re.M).group(1)
makefile = open("Makefile", encoding="utf-8").read()
extension = re.search(r"^EXTENSION\s*=\s*(\S+)", makefile, re.M).group(1)
data = re.search(r"^DATA\s*=\s*(.+)$", makefile, re.M).group(1).split()
min_major = re.search(r"PG_VERSION_NUM < (\d+)0000", open("src/pg_compat.h", encoding="utf-8").read()).group(1)

# PGXN versions are semantic versions; the extension's are major.minor.
semver = re.compile(r"^\d+\.\d+\.\d+$")

for key in ("name", "abstract", "version", "maintainer", "license", "provides", "meta-spec"):
    check(key in meta, f"required key {key!r} missing")
check(meta.get("meta-spec", {}).get("version") == "1.0.0", "meta-spec version is not 1.0.0")
check(meta.get("name") == extension, f"name {meta.get('name')!r} is not the Makefile's EXTENSION {extension!r}")
check(semver.match(str(meta.get("version", ""))), f"version {meta.get('version')!r} is not a semantic version")
# A distribution installs default_version (CREATE EXTENSION without VERSION),
# so that is the version its META.json must carry; CHANGELOG.md's newest
# heading is that version.
check(meta.get("version") == f"{default_version}.0",
      f"version {meta.get('version')!r} is not minhash.control's default_version {default_version!r} as {default_version}.0")
changelog = open("CHANGELOG.md", encoding="utf-8").read()
headings = re.findall(r"^## (\d+\.\d+) — (released|unreleased)", changelog, re.M)
check(headings and headings[0][0] == default_version,
      f"CHANGELOG.md's newest version heading is {headings[0][0] if headings else None!r}, not default_version {default_version!r}")
check(os.path.isfile("LICENSE"), "no LICENSE file")
check(meta.get("release_status", "stable") in ("stable", "testing", "unstable"), "release_status is not stable, testing or unstable")

licenses = {"agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd", "freebsd", "gfdl_1_2",
            "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1", "lgpl_3_0", "mit", "mozilla_1_0", "mozilla_1_1",
            "openssl", "perl_5", "postgresql", "qpl_1_0", "ssleay", "sun", "zlib", "open_source", "restricted",
            "unrestricted", "unknown"}
lic = meta.get("license")
check((isinstance(lic, str) and lic in licenses)
      or (isinstance(lic, list) and lic and all(l in licenses for l in lic))
      or (isinstance(lic, dict) and lic and all(isinstance(u, str) and re.match(r"^https?://", u) for u in lic.values())),
      f"license {lic!r} is not one the spec knows, nor names with URLs")
maintainer = meta.get("maintainer")
check(isinstance(maintainer, str) and maintainer or isinstance(maintainer, list) and maintainer and all(maintainer),
      "maintainer is empty")

provides = meta.get("provides", {})
check(list(provides) == [extension], f"provides lists {list(provides)}, not [{extension!r}]")
entry = provides.get(extension, {})
check(entry.get("version") == meta.get("version"), "the extension's version is not the distribution's")
for field in ("file", "docfile"):
    path = entry.get(field)
    check(path is not None and os.path.isfile(path), f"provides.{extension}.{field} {path!r} is not a file of the tree")

requires = meta.get("prereqs", {}).get("runtime", {}).get("requires", {})
check(requires.get("PostgreSQL") == f"{min_major}.0.0",
      f"prereqs PostgreSQL {requires.get('PostgreSQL')!r} is not {min_major}.0.0 (src/pg_compat.h)")
for d in meta.get("no_index", {}).get("directory", []):
    check(os.path.isdir(d), f"no_index directory {d!r} does not exist")

# The scripts: each one DATA names exists, and they chain from the base
# version to default_version.
for path in data:
    check(os.path.isfile(path), f"DATA names {path}, which does not exist")
scripts = [os.path.basename(p) for p in data]
base = [m.group(1) for s in scripts if (m := re.match(rf"^{extension}--([^-]+)\.sql$", s))]
steps = dict(m.groups() for s in scripts if (m := re.match(rf"^{extension}--([^-]+)--([^-]+)\.sql$", s)))
check(len(base) == 1, f"DATA holds {len(base)} base scripts, not one")
version, seen = (base[0] if base else None), set()
while version in steps and version not in seen:
    seen.add(version)
    version = steps[version]
check(version == default_version, f"DATA's scripts reach version {version}, not default_version {default_version}")

# make dist, of the committed tree (git archive HEAD).
def tree_files(makefile_text, control_text):
    d = re.search(r"^DATA\s*=\s*(.+)$", makefile_text, re.M).group(1).split()
    v = re.search(r"^default_version\s*=\s*'([^']+)'", control_text, re.M).group(1)
    return d, v

def make_dist(tree, out):
    return subprocess.run(["make", "-s", "-C", tree, "dist", f"DIST_DIR={out}"],
                          capture_output=True, text=True)

in_git = subprocess.run(["git", "rev-parse", "--is-inside-work-tree"], capture_output=True,
                        text=True).stdout.strip() == "true"
dist_note = "make dist not checked (not a git checkout)"
if in_git and shutil.which("make"):
    with tempfile.TemporaryDirectory() as tmp:
        head_meta = json.loads(subprocess.run(["git", "show", "HEAD:META.json"], capture_output=True,
                                              text=True, check=True).stdout)
        head_control = subprocess.run(["git", "show", "HEAD:minhash.control"], capture_output=True,
                                      text=True, check=True).stdout
        head_default = tree_files("DATA = x", head_control)[1]
        made = make_dist(os.getcwd(), os.path.join(tmp, "dist"))
        if head_meta.get("version") != f"{head_default}.0":
            # the committed tree disagrees: make dist must refuse it
            check(made.returncode != 0,
                  f"make dist built a zip of the committed tree, whose META.json says {head_meta.get('version')} and control {head_default}")
            dist_note = "make dist refused the committed tree (META.json and control disagree)"
        else:
            check(made.returncode == 0, f"make dist failed: {made.stdout}{made.stderr}")
            zips = glob.glob(os.path.join(tmp, "dist", "*.zip"))
            check(len(zips) == 1, f"make dist made {len(zips)} zip files, not one")
            if made.returncode == 0 and len(zips) == 1:
                with zipfile.ZipFile(zips[0]) as z:
                    names = set(z.namelist())
                    prefix = f"{extension}-{head_meta['version']}/"
                    check(os.path.basename(zips[0]) == f"{extension}-{head_meta['version']}.zip",
                          f"make dist made {os.path.basename(zips[0])}")
                    z_meta = json.loads(z.read(prefix + "META.json"))
                    z_data, z_default = tree_files(z.read(prefix + "Makefile").decode(),
                                                   z.read(prefix + "minhash.control").decode())
                    check(z_meta.get("version") == f"{z_default}.0",
                          f"the zip's META.json says {z_meta.get('version')}, its control file {z_default}")
                    check(z_meta["provides"][extension]["version"] == z_meta.get("version"),
                          "the zip's provides version is not its version")
                    for path in z_data + ["LICENSE", z_meta["provides"][extension]["file"],
                                          z_meta["provides"][extension]["docfile"]]:
                        check(prefix + path in names, f"the zip lacks {path}")
                    dist_note = f"make dist: {os.path.basename(zips[0])} installs {z_default}, {len(z_data)} scripts"
        # a scratch copy of the committed tree (with this Makefile) whose
        # META.json says another version: make dist refuses it
        scratch = os.path.join(tmp, "scratch")
        os.makedirs(scratch)
        archive = subprocess.run(["git", "archive", "HEAD"], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", scratch], input=archive, check=True)
        shutil.copy("Makefile", scratch)   # the rule under test: the working tree's
        path = os.path.join(scratch, "META.json")
        text = open(path, encoding="utf-8").read()
        text = text.replace(f'"version": "{head_meta.get("version")}"', '"version": "0.9.0"', 1)
        open(path, "w", encoding="utf-8").write(text)
        git = ["git", "-C", scratch, "-c", "user.name=meta_test", "-c", "user.email=meta_test@localhost"]
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "scratch"]):
            subprocess.run(git + args, capture_output=True, check=True)
        refused = make_dist(scratch, os.path.join(tmp, "scratch-dist"))
        check(refused.returncode != 0 and "is not minhash.control's default_version" in refused.stdout + refused.stderr,
              f"make dist did not refuse a META.json of version 0.9.0 beside control {head_default}: {refused.stdout}{refused.stderr}")
        check(not glob.glob(os.path.join(tmp, "scratch-dist", "*.zip")), "make dist left a zip of a refused tree")

if problems:
    for p in problems:
        print(f"meta: {p}")
    print(f"meta: FAILED: {len(problems)} problems")
    sys.exit(1)
print(f"meta: {dist_note}")
print(f"meta: ok (META.json {meta['version']}, control {default_version}, scripts {' -> '.join([base[0]] + [steps[v] for v in sorted(seen, key=lambda v: [int(x) for x in v.split('.')])])}, PostgreSQL {min_major}+)")
PY
