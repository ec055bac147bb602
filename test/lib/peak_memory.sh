# shellcheck shell=bash
# peak_private_memory DIR PSQL_PID (sourced, not run): the benchmarks'
# sampler of one backend's private memory during a call.  The psql script
# of PSQL_PID writes its backend's pid to DIR/pid before the call and
# touches DIR/done after it; this waits for DIR/pid, then reads RssAnon
# (/proc/PID/status) every 10 ms until DIR/done appears or psql exits, and
# prints the highest value in kB (0 if the pid never came).
peak_private_memory() {
    local dir=$1 psql_pid=$2 pid v peak=0
    until [[ -e $dir/pid ]] || ! kill -0 "$psql_pid" 2>/dev/null; do sleep 0.01; done
    if [[ -e $dir/pid ]]; then
        pid=$(cat "$dir/pid")
        while [[ ! -e $dir/done ]] && kill -0 "$psql_pid" 2>/dev/null; do
            v=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
            ((v > peak)) && peak=$v
            sleep 0.01
        done
    fi
    echo "$peak"
}
