# shellcheck shell=bash
# Shared by the review suites that open pages in Chromium (sourced, not run):
#
#   review_browser_start NAME   die/say print NAME; checks chromium and
#                               python3; makes the work folder WORK, removed
#                               on exit unless MINHASH_REVIEW_KEEP is set
#   chromium_run ARGS... URL    headless Chromium with a profile of its own
#
# As root Chromium needs --no-sandbox (the pages are our own files and run
# no script).  CHROMIUM names another binary.

die() { printf '%s: ERROR: %s\n' "${REVIEW_SUITE:-review}" "$*" >&2; exit 1; }
say() { printf '%s: [%3ss] %s\n' "${REVIEW_SUITE:-review}" "$SECONDS" "$*"; }

review_browser_start() {
    REVIEW_SUITE=$1
    CHROMIUM="${CHROMIUM:-chromium}"
    command -v "$CHROMIUM" >/dev/null 2>&1 || die "$CHROMIUM not found: apt-get install --no-install-recommends chromium"
    command -v python3 >/dev/null 2>&1 || die "python3 not found"
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/minhash-$REVIEW_SUITE.XXXXXX")"
    chmod 755 "$WORK"
    # shellcheck disable=SC2064  # the folder's name now, not at exit
    trap "if [[ -n \"\${MINHASH_REVIEW_KEEP:-}\" ]]; then echo '$REVIEW_SUITE: pages kept in $WORK'; else rm -rf '$WORK'; fi" EXIT
}

chromium_run() {
    timeout 300 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --disable-extensions --hide-scrollbars \
        --user-data-dir="$WORK/profile" "$@" 2>>"$WORK/chromium.log"
}
