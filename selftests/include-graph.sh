#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The include graph of kmod/, one node per subsystem (x.c and x.h together;
# a header without a .c, such as notify.h, is its own node): who includes
# whose header. Prints the graph and the cycles in it, if any, and exits 1
# when there is a cycle that is not in the list of known ones below.
#
#   selftests/include-graph.sh [--graph]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

# Cycles the tree still has, each as its sorted members; a cycle found that
# is not listed fails the check, and so does a listed one that is gone (the
# list must shrink with the code). None is left: the graph is a tree.
known_cycles=()

edges=$(cd "$top/kmod" && for f in *.c *.h; do
	n=${f%.*}
	sed -n 's/^#include "\([a-z0-9_-]*\)\.[ch]".*/\1/p' "$f" | while read -r h; do
		[ "$h" = "$n" ] || echo "$n $h"
	done
done | sort -u)

[ "${1:-}" = --graph ] && { echo "$edges" | awk '{ a[$1] = a[$1] " " $2 } END { for (n in a) print n " ->" a[n] }' | sort; exit 0; }

# The strongly connected components of more than one node.
cycles=$(echo "$edges" | python3 -c '
import sys
edges = {}
for line in sys.stdin:
    a, b = line.split()
    edges.setdefault(a, set()).add(b)
    edges.setdefault(b, set())
index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in sorted(edges[v]):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            out.append(" ".join(sorted(comp)))
sys.setrecursionlimit(10000)
for v in sorted(edges):
    if v not in index:
        visit(v)
print("\n".join(sorted(out)))
')

rc=0
while read -r c; do
	[ -n "$c" ] || continue
	found=
	for k in "${known_cycles[@]}"; do [ "$c" = "$k" ] && found=1; done
	if [ -n "$found" ]; then
		echo "# known cycle: $c"
	else
		echo "# new cycle: $c"
		rc=1
	fi
done <<<"$cycles"
for k in "${known_cycles[@]}"; do
	grep -qxF "$k" <<<"$cycles" || { echo "# listed cycle is gone (take it off the list): $k"; rc=1; }
done
exit $rc
