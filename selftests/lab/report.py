#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The lab's report: JSON lines from selftests/lab/guest.sh (with kernel,
boot and shift added by selftests/lab/run.sh) in, tables and a JSON summary
out.

Under -icount shift=S,sleep=off one vCPU does all the work of an I/O, so a
job's guest time per I/O (1e9 / IOPS ns) is its instruction count times
2^S ns: instructions per I/O, fio's own included. "added" is a device's
count less the raw namespace's; "x head" divides that by what the native
multipath head (one path) adds. The spread is (max - min) / mean over the
boots; a figure whose spread is over 0.5% is marked "!": it does not
repeat, and no ratio should be read from it.
"""
import argparse
import json
import sys
from collections import defaultdict

# Spread (%) above which a figure is marked as not repeating.
UNSTABLE_PCT = 0.5
BLOCK_JOBS = ["randread-4k-qd1", "randread-4k-qd16", "read-128k-qd16", "randwrite-4k-qd1"]
# Reads from QEMU's emulated NVMe into the BAR (selftests/lab/pcie.sh).
PCIE_JOBS = {"pcie-1m": "1 MiB", "pcie-128k": "128 KiB"}
PCIE_TARGETS = ["ns", "vol-1", "vol-2", "md0-raw", "md0-vol", "head-2", "vol-head", "md0-head",
                "iommu-off", "iommu-pt", "iommu", "iommu-strict"]
PCIE_WAYS = ["host", "direct", "compat", "odirect-host", "odirect-direct"]
POLICIES = ["round-robin", "queue-depth", "service-time", "weighted", "gpu-affinity"]


def load(paths):
    recs = []
    for p in paths:
        with open(p) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except ValueError as e:
                    sys.exit(f"{p}:{n}: not JSON: {e}")
                for k in ("kernel", "boot", "shift", "config", "job", "iops"):
                    if k not in r:
                        sys.exit(f"{p}:{n}: no '{k}'")
                if r.get("errors"):
                    sys.exit(f"{p}:{n}: {r['config']} {r['job']} had errors")
                if not r["iops"] or r["iops"] <= 0:
                    sys.exit(f"{p}:{n}: {r['config']} {r['job']}: no I/O")
                recs.append(r)
    if not recs:
        sys.exit("no figures")
    return recs


def stats(vals):
    mean = sum(vals) / len(vals)
    spread = (max(vals) - min(vals)) / mean * 100 if mean else 0.0
    return mean, spread


def config_order(c):
    fixed = ["raw", "dm-linear", "head-1", "head-8-numa", "head-8-round-robin", "vol-head",
             "md0-raw", "md0-vol", "md0-head", "tcp-raw", "vol-tcp", "rdma-raw", "vol-rdma"]
    if c in fixed:
        return (fixed.index(c), 0, 0)
    for i, p in enumerate(POLICIES):
        pre = f"vol-{p}-"
        if c.startswith(pre) and c[len(pre):].isdigit():
            return (len(fixed) + i, int(c[len(pre):]), 0)
    return (100, 0, c)


def median_of_boot(recs):
    """A boot's median repetition of each job (by IOPS; of an even number,
    the slower middle one). One repetition may catch a burst of the
    kernel's background work (slower) or, on 7.3 with several paths at
    queue depth 16, run up to 6% faster than the two others of its boot:
    the median is neither."""
    groups = defaultdict(list)
    for r in recs:
        groups[(r["kernel"], r["boot"], r.get("mode"), r["config"], r["job"])].append(r)
    out = []
    for rs in groups.values():
        # The reads from QEMU's NVMe: the costlier middle one.
        rs.sort(key=lambda r: -r["io_ns"] / r["bytes"] if "io_ns" in r else r["iops"])
        out.append(rs[(len(rs) - 1) // 2])
    return out


def summarize(recs):
    """{kernel: {config: {job: {...}}}} with instructions per I/O (and per
    GB for the data path), their spread, and the boots counted."""
    recs = median_of_boot(recs)
    groups = defaultdict(list)
    shifts = {r["shift"] for r in recs}
    if len(shifts) != 1:
        sys.exit(f"figures of different shifts ({sorted(shifts)}) cannot be compared")
    scale = 2 ** shifts.pop()
    for r in recs:
        groups[(r["kernel"], r["config"], r["job"])].append(r)
    out = defaultdict(dict)
    for (k, c, j), rs in groups.items():
        if j.startswith("span-"):
            # Nanoseconds per I/O timed by kretprobes (pcie.sh's spans).
            per_io = [r["ns_per_io"] / scale for r in rs]
            mean, spread = stats(per_io)
            out[k].setdefault(c, {})[j] = {"instructions_per_io": round(mean, 1),
                                           "spread_pct": round(spread, 3), "boots": len(rs)}
            continue
        if j in PCIE_JOBS:
            # What the reader pays for, not guest time (selftests/lab/pcie.sh).
            per_gb = [r["io_ns"] / r["bytes"] * 1e9 / scale for r in rs]
            mean, spread = stats(per_gb)
            out[k].setdefault(c, {})[j] = {"instructions_per_gb": round(mean),
                                           "spread_pct": round(spread, 3), "boots": len(rs)}
            continue
        instr = [1e9 / r["iops"] / scale for r in rs]
        mean, spread = stats(instr)
        e = {"instructions_per_io": round(mean, 1), "spread_pct": round(spread, 3),
             "boots": len(rs), "iops": round(sum(r["iops"] for r in rs) / len(rs), 1)}
        if j == "read-1m":
            per_gb = [1e18 / r["bw"] / scale for r in rs]
            mean, spread = stats(per_gb)
            e["instructions_per_gb"] = round(mean)
            e["spread_pct"] = round(spread, 3)
        out[k].setdefault(c, {})[j] = e
    # What each device adds over the raw namespace, and that against the
    # native head's.
    for k, cfgs in out.items():
        raw, head = cfgs.get("raw", {}), cfgs.get("head-1", {})
        for c, jobs in cfgs.items():
            for j, e in jobs.items():
                if j not in BLOCK_JOBS or c == "raw" or j not in raw:
                    continue
                base = raw[j]
                if c == "vol-head" and j in head:
                    base = head[j]
                elif c in ("vol-tcp", "vol-rdma") and j in cfgs.get(c[4:] + "-raw", {}):
                    base = cfgs[c[4:] + "-raw"][j]
                elif c in ("md0-vol", "md0-head") and j in cfgs.get("md0-raw", {}):
                    base = cfgs["md0-raw"][j]
                elif c in ("tcp-raw", "rdma-raw"):
                    continue
                e["added"] = round(e["instructions_per_io"] - base["instructions_per_io"], 1)
                if c.startswith("vol-") and base is raw[j] and j in head:
                    h = head[j]["instructions_per_io"] - raw[j]["instructions_per_io"]
                    if h > 0:
                        e["x_head"] = round(e["added"] / h, 2)
                    e["iops_vs_head"] = round(e["iops"] / head[j]["iops"], 4)
    return out


def mark(e):
    """" !" for a figure that does not repeat."""
    return " !" if e["spread_pct"] > UNSTABLE_PCT else ""


def cell(e, what):
    if e is None:
        return "-"
    if what == "abs":
        return f"{e['instructions_per_io']:,.0f} ({e['spread_pct']:.2f}%{mark(e)})"
    if "added" not in e:
        return "-"
    s = f"{e['added']:+,.0f}"
    if "x_head" in e:
        s += f" ({e['x_head']:.2f}x)"
    return s


def table(rows, header):
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    fmt = "  ".join(["{:<%d}" % widths[0]] + ["{:>%d}" % w for w in widths[1:]])
    lines = [fmt.format(*header)]
    lines += [fmt.format(*r) for r in rows]
    return "\n".join(lines)


def report(out):
    for k in sorted(out):
        cfgs = out[k]
        order = sorted(cfgs, key=config_order)
        block = [c for c in order if any(j in cfgs[c] for j in BLOCK_JOBS)]
        boots = max(e["boots"] for c in cfgs.values() for e in c.values())
        if block:
            print(f"\nLinux {k}: guest instructions per I/O, fio included "
                  f"(mean of {boots} boots, spread across them)")
            print(table([[c] + [cell(cfgs[c].get(j), "abs") for j in BLOCK_JOBS] for c in block],
                        ["device"] + BLOCK_JOBS))
            print(f"\nLinux {k}: instructions added per I/O over the raw namespace "
                  "(vol-head: over the head, vol-tcp and vol-rdma: over that namespace, "
                  "md0-vol and md0-head: over md RAID0 on the raw namespaces); "
                  "(Nx): against what the native head adds")
            print(table([[c] + [cell(cfgs[c].get(j), "add") for j in BLOCK_JOBS]
                         for c in block if c not in ("raw", "tcp-raw", "rdma-raw")],
                        ["device"] + BLOCK_JOBS))
            vols = [c for c in block if c.startswith("vol-") and
                    c not in ("vol-head", "vol-tcp", "vol-rdma")]
            if "head-1" in cfgs and vols:
                print(f"\nLinux {k}: QD16 IOPS against the native head (one path)")
                print(table([[c] + [f"{cfgs[c][j]['iops_vs_head']:.3f}" if "iops_vs_head" in
                                    cfgs[c].get(j, {}) else "-"
                                    for j in ("randread-4k-qd16", "read-128k-qd16")] for c in vols],
                            ["device", "randread-4k-qd16", "read-128k-qd16"]))
            flat = []
            for p in POLICIES:
                one, eight = cfgs.get(f"vol-{p}-1"), cfgs.get(f"vol-{p}-8")
                if not one or not eight:
                    continue
                row = [p]
                for j in ("randread-4k-qd1", "randread-4k-qd16"):
                    a, b = one.get(j, {}).get("added"), eight.get(j, {}).get("added")
                    row.append(f"{b / a:.3f}" if a and b is not None else "-")
                flat.append(row)
            if flat:
                print(f"\nLinux {k}: 8 paths against 1 (instructions added, ratio)")
                print(table(flat, ["policy", "randread-4k-qd1", "randread-4k-qd16"]))
            data = [c for c in order if "read-1m" in cfgs[c]]
            if data:
                print(f"\nLinux {k}: reads of 1 MiB (gpupath-bench), guest instructions per GB moved")
                rows = []
                for c in data:
                    e = cfgs[c]["read-1m"]
                    rows.append([c, f"{e['instructions_per_gb']:,}", f"{e['spread_pct']:.2f}%{mark(e)}"])
                print(table(rows, ["source-mode", "per GB", "spread"]))
                for src in ("ns", "mem", "file"):
                    h, b = cfgs.get(f"{src}-host"), cfgs.get(f"{src}-compat")
                    if h and b:
                        d = b["read-1m"]["instructions_per_gb"] - h["read-1m"]["instructions_per_gb"]
                        print(f"  the bounce ({src}): {d:+,} instructions per GB "
                              f"({b['read-1m']['instructions_per_gb'] / h['read-1m']['instructions_per_gb']:.2f}x host)")
        pcie_report(k, cfgs)
        spans_report(k, cfgs)
        worst = max(e["spread_pct"] for c in cfgs.values() for e in c.values())
        print(f"\nLinux {k}: the largest spread across boots is {worst:.3f}%")
        loose = sorted(f"{c} {j}" for c, jobs in cfgs.items() for j, e in jobs.items() if mark(e))
        if loose:
            print(f"Linux {k}: spread over {UNSTABLE_PCT}% (marked !, not to be compared): "
                  + ", ".join(loose))


SPAN_PARTS = [("clone", "the clone (bio_alloc_clone)"),
              ("acct", "diskstats (bio_start_io_acct, bio_end_io_acct_remapped)"),
              ("pick", "the pick (pick_path, round-robin, one path)"),
              ("blkg", "the clone's cgroup (bio_associate_blkg_from_css)"),
              ("submit-rest", "the rest of submit_bio: checks, the device-memory test, hand-off"),
              ("end-rest", "the rest of the completion: ending the bio received, freeing the clone"),
              ("total", "all of gpupath's own")]


def spans_report(k, cfgs):
    """Where a one-path volume's instructions per I/O go (pcie.sh's spans)."""
    vol = cfgs.get("vol-1", {})
    if "span-total" not in vol:
        return
    boots = vol["span-total"]["boots"]
    rows = [[text, f"{vol[f'span-{p}']['instructions_per_io']:,.0f}{mark(vol[f'span-{p}'])}"]
            for p, text in SPAN_PARTS if f"span-{p}" in vol]
    up = cfgs.get("ns", {}).get("span-upper")
    if up:
        rows.append(["for comparison: the upper layer's completion (block/fops.c), "
                     "the namespace's reads", f"{up['instructions_per_io']:,.0f}"])
    print(f"\nLinux {k}: where a one-path volume's instructions per 4 KiB read go, "
          f"timed by kretprobes, their own cost taken out (mean of {boots} boots)")
    print(table(rows, ["part", "instructions per I/O"]))


def pcie_report(k, cfgs):
    """The reads from QEMU's NVMe: per target, each way's instructions per
    GB, and direct and the bounce against host memory the same way in."""
    def per_gb(t, way, j):
        return cfgs.get(f"{t}-{way}", {}).get(j)

    def fig(e, base=None):
        if e is None:
            return "-"
        s = f"{e['instructions_per_gb'] / 1e6:,.2f}M{mark(e)}"
        if base is not None:
            s += f" ({e['instructions_per_gb'] / base['instructions_per_gb']:.3f}x)"
        return s

    for j, size in PCIE_JOBS.items():
        rows = []
        for t in PCIE_TARGETS:
            h, oh = per_gb(t, "host", j), per_gb(t, "odirect-host", j)
            row = [t, fig(h), fig(per_gb(t, "direct", j), h), fig(per_gb(t, "compat", j), h),
                   fig(oh), fig(per_gb(t, "odirect-direct", j), oh)]
            if any(x != "-" for x in row[1:]):
                rows.append(row)
        if not rows:
            continue
        boots = max(e["boots"] for c in cfgs.values() for jj, e in c.items() if jj == j)
        print(f"\nLinux {k}: reads of {size} from QEMU's NVMe, instructions per GB the reader "
              f"pays for: its threads, interrupts out, and the controllers' interrupt handlers "
              f"(mean of {boots} boots; (x): against host memory the same way in)")
        print(table(rows, ["target", "host", "direct", "compat (bounce)", "O_DIRECT host",
                           "O_DIRECT direct"]))


def load_summary(path):
    """An earlier run's summary (--json), or exit saying why it is none."""
    try:
        with open(path) as f:
            old = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: {e}")
    ok = isinstance(old, dict) and all(
        isinstance(cfgs, dict) and all(
            isinstance(jobs, dict) and all(
                isinstance(e, dict) and isinstance(e.get("spread_pct"), (int, float))
                for e in jobs.values())
            for jobs in cfgs.values())
        for cfgs in old.values())
    if not ok:
        sys.exit(f"{path}: not the summary of a lab run (report.py --json)")
    return old


def against(out, old, path):
    """Each figure of this run against the same figure of an earlier run's
    summary @old (from @path): the largest differences, and how many are
    over UNSTABLE_PCT. Figures either run marked as not repeating are left
    out."""
    for k in sorted(out):
        if k not in old:
            print(f"\nLinux {k}: no figures in {path}")
            continue
        diffs, loose, missing = [], 0, 0
        for c, jobs in out[k].items():
            for j, e in jobs.items():
                o = old[k].get(c, {}).get(j)
                what = ("instructions_per_gb" if j == "read-1m" or j in PCIE_JOBS
                        else "instructions_per_io")
                if not o or what not in o or not o[what]:
                    missing += 1
                elif mark(e) or mark(o):
                    loose += 1
                else:
                    d = (e[what] - o[what]) / o[what] * 100
                    diffs.append((abs(d), d, f"{c} {j}", o[what], e[what]))
        gone = sum(1 for c, jobs in old[k].items() for j in jobs if j not in out[k].get(c, {}))
        diffs.sort(reverse=True)
        over = [d for d in diffs if d[0] > UNSTABLE_PCT]
        print(f"\nLinux {k} against {path}: {len(diffs)} figures compared, "
              f"{len(over)} differ by over {UNSTABLE_PCT}%"
              + (f", the largest by {diffs[0][1]:+.3f}%" if diffs else "")
              + (f"; {loose} not compared (spread over {UNSTABLE_PCT}% in either run)" if loose else "")
              + (f"; {missing} only in this run" if missing else "")
              + (f"; {gone} only in the earlier one" if gone else ""))
        for _, d, name, a, b in (over or diffs[:5]):
            print(f"  {name:<40} {a:>15,.0f} -> {b:>15,.0f}  {d:+.3f}%")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("jsonl", nargs="*")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--against", metavar="SUMMARY",
                    help="compare each figure with an earlier run's summary (--json)")
    ap.add_argument("--check", metavar="SUMMARY",
                    help="only check that SUMMARY is a run's summary")
    a = ap.parse_args()
    if a.check:
        load_summary(a.check)
        return
    if not a.jsonl:
        ap.error("the JSON lines of a run are needed")
    old = load_summary(a.against) if a.against else None
    out = summarize(load(a.jsonl))
    report(out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
            f.write("\n")
    if a.against:
        against(out, old, a.against)


if __name__ == "__main__":
    main()
