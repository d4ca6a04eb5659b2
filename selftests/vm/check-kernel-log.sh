#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-kernel-log.sh CONSOLE_LOG: fail if the guest kernel reported a
# warning, a BUG, a KASAN or UBSAN finding, a lockdep splat or a leak,
# unless the report is a known upstream one (selftests/vm/known-splats) and
# does not involve gpupath.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$1
known=$(grep -v '^#' "$here/known-splats" | grep . | paste -sd'|')

# Split the log into reports: from a trigger line to the end of its trace
# (or 100 lines, or the next trigger).
awk '
/WARNING:|BUG:|Oops|KASAN|UBSAN|kmemleak: .* new suspected|general protection fault|INFO: task .* blocked/ {
	if (report != "") print report "\n\x1e"
	report = $0; inside = 1; next
}
inside && /---\[ end trace/ { report = report "\n" $0; print report "\n\x1e"; report = ""; inside = 0; next }
inside { report = report "\n" $0; if (++n > 100) { print report "\n\x1e"; report = ""; inside = 0; n = 0 } }
END { if (report != "") print report "\n\x1e" }
' "$log" >"$log.reports"

bad=0 seen=0
while IFS= read -r -d $'\x1e' report; do
	[ -n "${report//[$'\n ']/}" ] || continue
	seen=$((seen + 1))
	first=$(printf '%s\n' "$report" | grep -m1 . )
	# gpupath's code shows as "[gpupath]" or a gpupath_ function in a trace.
	if ! printf '%s' "$report" | grep -Eq '\[gpupath\]|gpupath_[a-z]' && [ -n "$known" ] &&
	   printf '%s' "$report" | grep -Eq "$known"; then
		echo "known upstream report: $first"
		continue
	fi
	printf '%s\n' "$report" | head -60
	bad=$((bad + 1))
done <"$log.reports"
[ -n "${KEEP_REPORTS:-}" ] || rm -f "$log.reports"
echo "$seen reports, $bad not known"
[ $bad -eq 0 ]
