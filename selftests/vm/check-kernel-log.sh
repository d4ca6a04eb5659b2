#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-kernel-log.sh LOG: fail if the kernel log LOG (the guest's console
# log on the host, or dmesg inside the guest, under busybox) has a warning,
# a BUG, a KASAN or UBSAN finding, a lockdep splat, a hung task or a leak,
# unless the report is a known upstream one (known-splats beside this
# script) and does not involve gpupath. Prints each report that is not known
# (60 lines at most), a line for each known one, and "N reports, M not known".
known=$(grep -v '^#' "$(dirname "$0")/known-splats" | grep . | paste -sd'|')

# A report runs from its trigger line to the end of its trace ("end trace",
# or the trace's </TASK>), 150 lines, or the next trigger. gpupath's code
# shows as "[gpupath]" or a gpupath_ function in it.
awk -v known="$known" '
function flush() {
	if (rep == "")
		return
	seen++
	if (known != "" && rep !~ /\[gpupath\]|gpupath_[a-z]/ && rep ~ known) {
		print "known upstream report: " first
	} else {
		print head
		bad++
	}
	rep = ""
}
# kmemleak prints how many suspects a scan found; the tests print each
# (kmemleak_check) as one line, "unreferenced object ... backtrace: ...",
# which is judged on its own. Suspects counted but never shown fail.
/kmemleak: [0-9]+ new suspected/ {
	flush()
	s = $0
	sub(/.*kmemleak: /, "", s)
	suspects += s + 0
	next
}
/unreferenced object 0x/ {
	flush()
	shown++
	rep = first = head = $0
	flush()
	next
}
/WARNING:|BUG:|Oops|KASAN|UBSAN|general protection fault|INFO: task .* blocked/ {
	flush()
	rep = first = head = $0
	n = 1
	next
}
rep != "" {
	rep = rep "\n" $0
	if (n++ < 60)
		head = head "\n" $0
	if (/end trace|<\/TASK>/ || n > 150)
		flush()
}
END {
	flush()
	if (suspects > shown) {
		print "kmemleak: " suspects - shown " suspected leaks not shown"
		seen++
		bad++
	}
	print seen + 0 " reports, " bad + 0 " not known"
	exit bad > 0
}' "$1"
