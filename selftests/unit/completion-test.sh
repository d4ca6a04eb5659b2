#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bash completion of gpupath and gpupathd (tools/completion/gpupath): what it
# offers for a few command lines. Needs Debian's bash-completion.
. /usr/share/bash-completion/bash_completion
. "$(dirname "$0")/../../tools/completion/gpupath"
n=0
t() {
	local line=$1 want=$2
	read -ra COMP_WORDS <<<"$line"
	[ "${line: -1}" = " " ] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	"$3"
	[ "${COMPREPLY[*]}" = "$want" ] || { echo "'$line': got '${COMPREPLY[*]}', want '$want'"; exit 1; }
	n=$((n + 1))
}
t "gpupath vol" volume _gpupath
t "gpupath volume a" add _gpupath
t "gpupath volume add pol" policy _gpupath
t "gpupath volume add policy round" round-robin _gpupath
t "gpupath stats --p" --prometheus _gpupath
t "gpupath diag" diagnose _gpupath
t "gpupath ru" run _gpupath
t "gpupath run gpupath sho" show _gpupath
t "gpupath portal add p1 transport " "rdma tcp" _gpupath
t "gpupath qos add gold dscp 26 p" "priority pfc" _gpupath
t "gpupathd --metrics" --metrics-port _gpupathd
t "gpupathd --rel" --release-qos _gpupathd
echo "$n command lines complete as expected"
