#!/usr/bin/env bash
# META.json (the PGXN distribution metadata) agrees with the tree: a valid
# PGXN Meta Spec 1.0 document whose version is the newest released one in
# CHANGELOG.md (minhash.control's default_version, or the one before an
# unreleased default_version), whose extension entry names files that
# exist, whose PostgreSQL prerequisite is the oldest major src/pg_compat.h
# builds against, and whose license is one the spec knows; and the Makefile's DATA
# installs a script chain from 1.0 to default_version.  Needs python3 only
# (no cluster).  Ends with `meta: ok` or `meta: FAILED: ...`.
#
#   bash test/doc/meta_test.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
command -v python3 >/dev/null 2>&1 || { echo "meta: FAILED: python3 not found"; exit 1; }

python3 - <<'PY'
import json, os, re, sys

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
# META.json carries the newest released version (CHANGELOG.md's first
# "## X — released" heading); the control file's default_version is that
# one, or the version CHANGELOG.md lists as unreleased above it.
changelog = open("CHANGELOG.md", encoding="utf-8").read()
headings = re.findall(r"^## (\d+\.\d+) — (released|unreleased)", changelog, re.M)
released = next((v for v, state in headings if state == "released"), None)
unreleased = [v for v, state in headings if state == "unreleased"]
check(released is not None, "CHANGELOG.md has no '## X — released' heading")
check(meta.get("version") == f"{released}.0",
      f"version {meta.get('version')!r} is not the newest released version in CHANGELOG.md ({released}.0)")
check(default_version == released or default_version in unreleased,
      f"minhash.control's default_version {default_version!r} is neither released ({released}) nor listed as unreleased in CHANGELOG.md")
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

if problems:
    for p in problems:
        print(f"meta: {p}")
    print(f"meta: FAILED: {len(problems)} problems")
    sys.exit(1)
print(f"meta: ok (META.json {meta['version']}, control {default_version}, scripts {' -> '.join([base[0]] + [steps[v] for v in sorted(seen, key=lambda v: [int(x) for x in v.split('.')])])}, PostgreSQL {min_major}+)")
PY
