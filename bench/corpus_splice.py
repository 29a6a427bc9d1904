#!/usr/bin/env python3
"""The corpus figures of issue 37 from every committed partial run (bench/corpus*.json).

Each crate's last row is taken, by the commit time of its file (a file's rows replace those of
files committed before it), then: the median of the generated suites' line coverage over the
crates whose own suite was measured, the callables supported out of the public callables that
are not `unsafe`, and the crates whose generated suite is more than 5 points below their own.
Line coverage is over the same code for both suites where a row has it (`lines_same_code`).

Usage (from the repository root):
    python3 bench/corpus_splice.py               # the splice of the committed rows
    python3 bench/corpus_splice.py rows.json     # also a before/after table for rows.json's crates,
                                                 # spliced in last
"""
import glob
import json
import subprocess
import sys


def committed_rows():
    files = []
    for f in glob.glob("bench/corpus*.json"):
        t = subprocess.run(["git", "log", "-1", "--format=%ct", "--", f],
                           capture_output=True, text=True).stdout.strip()
        # Two files of one commit: numtraits-http was measured after the others of its commit.
        files.append((int(t or 0) + (1 if "c33276d" in f else 0), f))
    last = {}
    for _, f in sorted(files):
        try:
            rows = json.load(open(f)).get("results")
        except (ValueError, AttributeError):
            continue
        for r in rows or []:
            last[r["crate"]] = r
    return last


def pct(row, suite):
    x = row.get(suite) or {}
    same = x.get("lines_same_code") or {}
    if same.get("count"):
        return 100 * same["covered"] / same["count"]
    return (x.get("lines") or {}).get("percent")


def fmt(v):
    return "—" if v is None else f"{v:.1f}%"


def table(new, last):
    print("| crate | lines before | lines after | own | callables before → after | tests (dropped) | status |")
    print("|---|---|---|---|---|---|---|")
    for name, r in sorted(new.items()):
        o = last.get(name, {})
        cb = o.get("summary", {}).get("callables", {})
        ca = r.get("summary", {}).get("callables", {})
        s = r.get("summary", {})
        print(f"| {name} {r.get('version')} | {fmt(pct(o, 'generated'))} | {fmt(pct(r, 'generated'))} | "
              f"{fmt(pct(r, 'own'))} | {cb.get('supported')} of {cb.get('total')} → {ca.get('supported')} of "
              f"{ca.get('total')} | {s.get('tests_emitted')} ({len(s.get('tests_dropped', []))}) | {r.get('status')} |")


def main():
    last = committed_rows()
    if len(sys.argv) > 1:
        new = {r["crate"]: r for r in json.load(open(sys.argv[1]))["results"]}
        table(new, last)
        last.update(new)
    supported = total = 0
    for r in last.values():
        c = r.get("summary", {}).get("callables", {})
        unsafe = sum(1 for u in c.get("left_out", []) if u.get("reason") == "unsafe fn")
        supported += c.get("supported", 0)
        total += c.get("total", 0) - unsafe
    gen = sorted(pct(r, "generated") or 0 for r in last.values() if pct(r, "own") is not None)
    n = len(gen)
    median = gen[n // 2] if n % 2 else (gen[n // 2 - 1] + gen[n // 2]) / 2
    below = sorted(c for c, r in last.items()
                   if pct(r, "own") is not None and (pct(r, "generated") or 0) < pct(r, "own") - 5)
    failing = sorted(c for c, r in last.items() if r.get("status") != "passing")
    print(f"crates: {len(last)}; callables supported: {supported} of {total} not unsafe "
          f"({100 * supported / total:.1f}%); median generated lines: {median:.1f}% over {n} crates "
          f"with an own suite; more than 5 points below their own: {', '.join(below) or 'none'}; "
          f"not passing: {', '.join(failing) or 'none'}")


if __name__ == "__main__":
    main()
