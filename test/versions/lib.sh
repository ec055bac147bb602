# shellcheck shell=bash
# test/versions/lib.sh: what matrix.sh and pg_upgrade_15_to_18.sh share.
# Source it after setting REPO (the repository top).  Needs bash, make.

# copy_tree DEST: a copy of the tree as it is now (tracked files and new
# ones, not ignored ones: no objects, no .cluster, no .cache), so that
# objects built for one major never meet another's.  Outside a git checkout
# (an exported tree), everything but the build products and scratch data.
copy_tree() {
    local dest="$1"
    rm -rf "$dest"
    mkdir -p "$dest"
    if git -C "$REPO" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
            while IFS= read -r -d '' f; do [[ -e "$f" ]] && printf '%s\0' "$f"; done |
            xargs -0 cp --parents -t "$dest")
    else
        (cd "$REPO" && tar -cf - --exclude=./.cache --exclude=./.cluster --exclude=./.git \
            --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=./results \
            --exclude=./output_iso --exclude=./regression.diffs --exclude=./regression.out .) |
            tar -xf - -C "$dest"
    fi
}

# build_into PG_CONFIG SCRATCH: the extension built in a scratch copy of the
# tree against PG_CONFIG and installed into that PostgreSQL's prefix (never
# Debian's: callers pass a pg_config of the version cache).  Logs in
# SCRATCH/build.log and SCRATCH/install.log.  Fails on any compiler warning.
build_into() {
    local pg_config="$1" scratch="$2" nwarn
    copy_tree "$scratch"
    if ! (cd "$scratch" && make -j2 PG_CONFIG="$pg_config") >"$scratch/build.log" 2>&1; then
        tail -n 30 "$scratch/build.log"
        echo "extension build against $("$pg_config" --version) failed (log: $scratch/build.log)"
        return 1
    fi
    nwarn=$(grep -c 'warning:' "$scratch/build.log" || true)
    if ((nwarn > 0)); then
        grep -A3 'warning:' "$scratch/build.log" || true
        echo "$nwarn compiler warning(s) against $("$pg_config" --version) (log: $scratch/build.log)"
        return 1
    fi
    if ! (cd "$scratch" && make install PG_CONFIG="$pg_config") >"$scratch/install.log" 2>&1; then
        tail -n 30 "$scratch/install.log"
        echo "make install into $("$pg_config" --bindir)/.. failed (log: $scratch/install.log)"
        return 1
    fi
}
