#!/usr/bin/env python3
"""Benchmark frugal on RustyUnit's six real crates and measure the suites with cargo-llvm-cov.

For each crate (exact version, fetched from crates.io; yanked ones from the registry's download
endpoint) and each seed 1..N: `frugal run` with a fixed wall-clock budget, then the emitted suite
alone is compiled into a clean copy of the crate and measured with cargo-llvm-cov (line and
region coverage of the crate's own sources; the crate's own tests are not run). Per crate it
also reports frugal's own goal counts, the share of callables supported with the top reasons for
the rest, executions per second, tests emitted and dropped, and the wall time of build and
search. Results go to bench/realcrates.json and the table to stdout (bench/REPORT.md quotes it).

Usage (from the repository root):
    cargo build --release -p frugal --bins
    python3 bench/realcrates.py [--budget 5m] [--seeds 1] [--crates humantime,tight] [--smoke]

--smoke: humantime only, 20 s budget, one seed (what CI runs, with --min-line).
Exits 1 when frugal fails, a suite does not compile or pass, or a crate's line coverage is
below --min-line.
The crate sources and build caches live in $FRUGAL_BENCH_CACHE (default ~/.cache/frugal-bench),
never in the repository. cargo-llvm-cov and llvm-tools-preview are installed when missing.
"""

import argparse
import hashlib
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name, version, binary crate, extra frugal/cargo flags, RustyUnit RS and seeded DynaMOSA
# (mean MIR basic-block coverage over 30 runs; [rustyunit], see docs/references.md).
CRATES = [
    ("time", "0.3.7", False, [], 0.58, 0.56),
    ("gamie", "0.7.0", False, ["--all-features"], 0.46, 0.44),
    ("lsd", "0.21.0", True, [], 0.37, 0.35),
    ("humantime", "2.1.0", False, [], 0.18, 0.23),
    ("quick-xml", "0.23.0", False, [], 0.09, 0.12),
    ("tight", "1.0.1", True, [], 0.18, 0.22),
]
STATIC_DL = "https://static.crates.io/crates/{name}/{name}-{version}.crate"
INDEX = "https://index.crates.io"


def log(msg):
    print(f"[realcrates {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def cache_root():
    base = os.environ.get("FRUGAL_BENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "frugal-bench")
    os.makedirs(base, exist_ok=True)
    return base


def http(url, timeout=60):
    req = urllib.request.Request(url, headers={"User-Agent": "frugal-bench (realcrates.py)"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read()


def index_path(name):
    n = name.lower()
    if len(n) <= 2:
        return f"{len(n)}/{n}"
    if len(n) == 3:
        return f"3/{n[0]}/{n}"
    return f"{n[:2]}/{n[2:4]}/{n}"


def checksum(name, version):
    """The sha256 the sparse index records for this version (yanked versions included)."""
    try:
        lines = http(f"{INDEX}/{index_path(name)}").decode().splitlines()
    except Exception as e:  # noqa: BLE001 - offline: fetch without the check
        log(f"index lookup for {name} failed ({e}); not checking the archive's checksum")
        return None, None
    for line in lines:
        entry = json.loads(line)
        if entry.get("vers") == version:
            return entry.get("cksum"), entry.get("yanked", False)
    sys.exit(f"{name} {version} is not in the crates.io index")


def download_urls(name, version):
    """The `dl` template of the index config (as cargo expands it), then static.crates.io."""
    urls = []
    try:
        dl = json.loads(http(f"{INDEX}/config.json"))["dl"]
        if any(m in dl for m in ("{crate}", "{version}", "{prefix}", "{lowerprefix}", "{sha256-checksum}")):
            urls.append(dl.replace("{crate}", name).replace("{version}", version)
                        .replace("{lowerprefix}", index_path(name).rsplit("/", 1)[0])
                        .replace("{prefix}", index_path(name).rsplit("/", 1)[0]))
        else:
            urls.append(f"{dl.rstrip('/')}/{name}/{version}/download")
    except Exception as e:  # noqa: BLE001
        log(f"index config unavailable ({e})")
    urls.append(STATIC_DL.format(name=name, version=version))
    return urls


def fetch(name, version):
    """Unpacks name-version into the cache (once) and returns the pristine source directory.
    Works for yanked versions, which cargo will not resolve for a new lockfile."""
    src_root = os.path.join(cache_root(), "src")
    dest = os.path.join(src_root, f"{name}-{version}")
    if os.path.isfile(os.path.join(dest, "Cargo.toml")):
        return dest
    cksum, yanked = checksum(name, version)
    data, errors = None, []
    for url in download_urls(name, version):
        try:
            data = http(url, timeout=120)
            break
        except Exception as e:  # noqa: BLE001
            errors.append(f"{url}: {e}")
    if data is None:
        sys.exit(f"could not download {name} {version}:\n" + "\n".join(errors))
    if cksum and hashlib.sha256(data).hexdigest() != cksum:
        sys.exit(f"{name} {version}: checksum mismatch against the index")
    log(f"fetched {name} {version}{' (yanked)' if yanked else ''}, {len(data)} bytes")
    os.makedirs(src_root, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(src_root, filter="data")
    return dest


def ensure_llvm_cov():
    """cargo-llvm-cov with LLVM tools matching rustc: rustup's llvm-tools-preview, or when
    rustup cannot fetch it (no network to static.rust-lang.org), Debian's llvm-N of the same
    major version, handed over through LLVM_COV and LLVM_PROFDATA."""
    if subprocess.run(["cargo", "llvm-cov", "--version"], capture_output=True).returncode != 0:
        log("installing cargo-llvm-cov")
        subprocess.run(["cargo", "install", "cargo-llvm-cov", "--locked"], check=True)
    if llvm_tools_work():
        return
    log("installing llvm-tools-preview")
    if subprocess.run(["rustup", "component", "add", "llvm-tools-preview"]).returncode == 0 \
            and llvm_tools_work():
        return
    major = rustc_llvm_major()
    tool_dir = f"/usr/lib/llvm-{major}/bin"
    if not os.path.exists(os.path.join(tool_dir, "llvm-cov")):
        log(f"rustup could not add llvm-tools-preview; installing Debian's llvm-{major}")
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
        subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", f"llvm-{major}"], check=True)
    os.environ["LLVM_COV"] = os.path.join(tool_dir, "llvm-cov")
    os.environ["LLVM_PROFDATA"] = os.path.join(tool_dir, "llvm-profdata")
    if not llvm_tools_work():
        sys.exit(f"no usable llvm-cov: neither llvm-tools-preview nor {tool_dir} works")


def llvm_tools_work():
    """Whether cargo-llvm-cov finds llvm-cov and llvm-profdata (`show-env` fails otherwise)."""
    return subprocess.run(["cargo", "llvm-cov", "show-env"], capture_output=True).returncode == 0


def rustc_llvm_major():
    out = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("LLVM version:"):
            return line.split(":")[1].strip().split(".")[0]
    sys.exit("rustc -vV names no LLVM version")


def frugal_bin(explicit=None):
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    # Absolute: frugal runs from a scratch working directory.
    path = os.path.abspath(explicit or os.path.join(target, "release", "frugal"))
    if not os.path.exists(path):
        sys.exit(f"{path} is missing: run `cargo build --release -p frugal --bins` first")
    return path


def package_name(src):
    """[package] name and whether there is a library target, read with `cargo metadata`."""
    out = subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1",
                          "--manifest-path", os.path.join(src, "Cargo.toml")],
                         capture_output=True, text=True, check=True)
    pkg = json.loads(out.stdout)["packages"][0]
    bins = [t["name"] for t in pkg["targets"] if "bin" in t["kind"]]
    has_lib = any("lib" in t["kind"] for t in pkg["targets"])
    return pkg["name"], has_lib, bins


def run_frugal(frugal, src, name, seed, budget, flags, placement, work, out):
    cmd = [frugal, "run", src, "--budget", budget, "--seed", str(seed), "--json", "--out", out,
           "--work-dir", work, "--placement", placement] + flags
    log(" ".join(cmd))
    started = time.time()
    # A scratch working directory: never the repository, whatever the crate writes.
    scratch = os.path.join(work, "..", "cwd")
    os.makedirs(scratch, exist_ok=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=scratch)
    wall = time.time() - started
    if proc.returncode != 0:
        return None, wall, (proc.stderr or proc.stdout)[-3000:]
    return json.loads(proc.stdout), wall, None


def measure(src, name, out, flags, placement, cov_root):
    """Line and region coverage of the emitted suite alone over the crate's own sources."""
    copy = os.path.join(cov_root, "crate")
    if os.path.isdir(copy):
        shutil.rmtree(copy)
    shutil.copytree(src, copy, ignore=shutil.ignore_patterns("target", ".git"))
    # A standalone copy: never a member of some enclosing workspace.
    manifest = os.path.join(copy, "Cargo.toml")
    with open(manifest) as f:
        standalone = "[workspace]" in f.read()
    if not standalone:
        with open(manifest, "a") as f:
            f.write("\n[workspace]\n")
    generated = os.path.join(out, "frugal_generated.rs")
    pkg, has_lib, bins = package_name(copy)
    cov_flags = [f for f in flags if f.startswith("--") and f in ("--all-features",)]
    if placement == "tests":
        os.makedirs(os.path.join(copy, "tests"), exist_ok=True)
        shutil.copy(generated, os.path.join(copy, "tests", "frugal_generated.rs"))
        target_args = ["--test", "frugal_generated"]
        filter_args = []
    else:
        # The crate's own unit tests would be compiled (and counted as uncovered) in the
        # `cargo test --lib/--bin` build: compile them out, so the denominator is the crate's
        # code as in the integration-test case. Only the generated module stays under cfg(test).
        for d, _, files in os.walk(os.path.join(copy, "src")):
            for fn in files:
                if fn.endswith(".rs"):
                    path = os.path.join(d, fn)
                    with open(path) as f:
                        text = f.read()
                    if "cfg(test)" in text:
                        with open(path, "w") as f:
                            f.write(text.replace("#[cfg(test)]", "#[cfg(all(test, frugal_bench_never))]"))
        root_file = "lib.rs" if has_lib else "main.rs"
        shutil.copy(generated, os.path.join(copy, "src", "frugal_generated.rs"))
        with open(os.path.join(copy, "src", root_file), "a") as f:
            f.write('\n#[cfg(test)]\n#[path = "frugal_generated.rs"]\nmod frugal_generated;\n')
        target_args = ["--lib"] if has_lib else ["--bin", bins[0]]
        filter_args = ["--", "frugal_generated::"]
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(cov_root, "target"), RUST_BACKTRACE="0")
    cmd = (["cargo", "llvm-cov", "--json", "--summary-only", "--manifest-path",
            os.path.join(copy, "Cargo.toml"), "--ignore-filename-regex", "frugal_generated"]
           + cov_flags + target_args + filter_args)
    log(" ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=copy)
    if proc.returncode != 0:
        return {"error": proc.stderr[-3000:]}
    totals = json.loads(proc.stdout)["data"][0]["totals"]
    passed = failed = None
    for line in proc.stderr.splitlines():
        if line.startswith("test result:"):
            # test result: ok. 12 passed; 0 failed; ...
            parts = line.replace(";", "").split()
            passed = int(parts[parts.index("passed") - 1])
            failed = int(parts[parts.index("failed") - 1])
    return {
        "lines": totals["lines"],
        "regions": totals["regions"],
        "functions": totals["functions"],
        "passed": passed,
        "failed": failed,
    }


def pct(c):
    return 100.0 * c["covered"] / c["count"] if c and c.get("count") else 0.0


def top_reasons(summary, n=3):
    reasons = summary["callables"]["reasons"]
    return sorted(reasons.items(), key=lambda kv: -kv[1])[:n]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", default="5m", help="frugal search budget per crate and seed (default 5m)")
    ap.add_argument("--seeds", type=int, default=1, help="seeds 1..N (default 1)")
    ap.add_argument("--crates", default=None, help="comma-separated subset of the six")
    ap.add_argument("--frugal", default=None, help="path of the frugal binary")
    ap.add_argument("--smoke", action="store_true", help="humantime, 20 s, one seed (CI)")
    ap.add_argument("--json-out", default=os.path.join(ROOT, "bench", "realcrates.json"))
    ap.add_argument("--min-line", type=float, default=0.0,
                    help="fail (exit 1) when a crate's line coverage is below this percentage")
    ap.add_argument("--measure-only", action="store_true",
                    help="re-measure the suites of a previous run (same budget) without running frugal")
    args = ap.parse_args()
    if args.smoke:
        args.budget, args.seeds, args.crates = "20s", 1, "humantime"
    wanted = args.crates.split(",") if args.crates else [c[0] for c in CRATES]
    frugal = frugal_bin(args.frugal)
    ensure_llvm_cov()
    results = []
    for name, version, binary, flags, rs, dyna in CRATES:
        if name not in wanted:
            continue
        src = fetch(name, version)
        placement = "in-crate" if binary else "tests"
        for seed in range(1, args.seeds + 1):
            run_root = os.path.join(cache_root(), "runs", f"{name}-{version}")
            out = os.path.join(run_root, f"out-seed{seed}")
            if args.measure_only:
                with open(os.path.join(out, "summary.json")) as f:
                    summary, wall, err = json.load(f), 0.0, None
            else:
                shutil.rmtree(out, ignore_errors=True)
                summary, wall, err = run_frugal(frugal, src, name, seed, args.budget, flags,
                                                placement, os.path.join(run_root, "work"), out)
            row = {"crate": name, "version": version, "seed": seed, "budget": args.budget,
                   "placement": placement, "rustyunit_rs": rs, "rustyunit_dynamosa": dyna,
                   "frugal_wall_seconds": round(wall, 1)}
            if summary is None:
                log(f"{name} seed {seed}: frugal failed\n{err}")
                row["error"] = err
                results.append(row)
                continue
            row["summary"] = {k: summary[k] for k in (
                "goals", "callables", "executions", "executions_per_second", "tests_emitted",
                "tests_dropped", "seconds", "crashes", "timeouts")}
            row["coverage"] = measure(src, name, out, flags, placement, os.path.join(run_root, "cov"))
            log(f"{name} seed {seed}: {fmt_row(row)}")
            results.append(row)
    with open(args.json_out, "w") as f:
        json.dump({"machine": machine(), "budget": args.budget, "seeds": args.seeds,
                   "results": results}, f, indent=1)
    print(table(results))
    problems = [p for row in results for p in row_problems(row, args.min_line)]
    for p in problems:
        log(f"FAILED: {p}")
    if problems:
        sys.exit(1)


def row_problems(row, min_line):
    """Why a run does not meet the bar: frugal failed, the suite did not compile or pass, or
    its line coverage is below `min_line`."""
    name = f"{row['crate']} seed {row['seed']}"
    if "error" in row:
        return [f"{name}: frugal failed"]
    cov = row.get("coverage", {})
    if "error" in cov:
        return [f"{name}: the suite did not build or run under cargo-llvm-cov"]
    out = []
    if cov.get("failed") or not cov.get("passed"):
        out.append(f"{name}: {cov.get('passed')} tests passed, {cov.get('failed')} failed")
    line = pct(cov.get("lines"))
    if line < min_line:
        out.append(f"{name}: line coverage {line:.1f}% is below {min_line}%")
    return out


def fmt_row(row):
    cov = row.get("coverage", {})
    if "lines" not in cov:
        return f"coverage failed: {cov.get('error', '')[-500:]}"
    return f"lines {pct(cov['lines']):.1f}%  regions {pct(cov['regions']):.1f}%  tests {cov['passed']} passed {cov['failed']} failed"


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    llvm_cov = subprocess.run(["cargo", "llvm-cov", "--version"], capture_output=True, text=True).stdout.strip()
    return {"cpu": cpu, "cores": os.cpu_count(), "os": platform.platform(), "rustc": rustc,
            "cargo_llvm_cov": llvm_cov}


def table(results):
    by_crate = {}
    for r in results:
        by_crate.setdefault(r["crate"], []).append(r)
    head = ("| crate | RustyUnit RS | RustyUnit seeded DynaMOSA | frugal lines | frugal regions | "
            "goals (frugal) | callables supported | top unsupported reasons | tests emitted / dropped | "
            "exec/s | build s | search s | verify s |\n|---" + "|---" * 12 + "|")
    rows, means = [head], []
    for name, version, _, _, rs, dyna in CRATES:
        runs = by_crate.get(name)
        if not runs:
            continue
        ok = [r for r in runs if "lines" in r.get("coverage", {})]
        if not ok:
            why = runs[0].get("error") or runs[0].get("coverage", {}).get("error", "")
            rows.append(f"| {name} {version} | {rs:.0%} | {dyna:.0%} | failed | | | | {why.strip().splitlines()[-1][:120] if why.strip() else ''} | | | | | |")
            means.append(0.0)
            continue
        med = lambda f: statistics.median(f(r) for r in ok)  # noqa: E731
        lines = med(lambda r: pct(r["coverage"]["lines"]))
        means.append(lines)
        s = ok[0]["summary"]
        goals = s["goals"]
        g = " ".join(f"{k} {v['covered']}/{v['total']}" for k, v in goals.items() if k in ("branch", "line", "function"))
        c = s["callables"]
        reasons = "; ".join(f"{n}× {r}" for r, n in top_reasons(s))
        secs = s["seconds"]
        rows.append(
            f"| {name} {version} | {rs:.0%} | {dyna:.0%} | {lines:.1f}% | "
            f"{med(lambda r: pct(r['coverage']['regions'])):.1f}% | {g} | {c['supported']}/{c['total']} | {reasons} | "
            f"{med(lambda r: r['summary']['tests_emitted'])} / {med(lambda r: len(r['summary']['tests_dropped']))} | "
            f"{med(lambda r: r['summary']['executions_per_second']):.0f} | "
            f"{secs['instrument'] + secs['build_harness']:.0f} | {secs['search']:.0f} | {secs['verify']:.0f} |")
    if means:
        rows.append(f"| **mean** | 31% | 32% | **{statistics.mean(means):.1f}%** | | | | | | | | | |")
    return "\n".join(rows)


if __name__ == "__main__":
    main()
