"""What the real-crate benchmarks share (bench/realcrates.py, bench/corpus.py).

Fetching an exact crate version from crates.io (sha256 checked against the index), running
`frugal run` on it, and measuring a test suite with cargo-llvm-cov: the suite frugal emitted,
or the crate's own tests. Measuring runs the crate's code (its build script, its tests, the
emitted tests), so it runs only confined (`confined`): a private mount namespace where every
mount is read-only but one scratch directory, no network, a private pid namespace, and no
capabilities (so the read-only mounts cannot be undone). `cargo fetch` and `cargo metadata`
run unconfined before it; no crate code runs in them.
"""

import functools
import hashlib
import io
import json
import os
import re
import platform
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATIC_DL = "https://static.crates.io/crates/{name}/{name}-{version}.crate"
INDEX = "https://index.crates.io"
# A measurement (build and run of one suite) that takes longer is killed with its namespace.
MEASURE_TIMEOUT_SECS = 45 * 60


class FetchError(Exception):
    pass


def log(msg):
    tool = os.path.splitext(os.path.basename(sys.argv[0]))[0] or "bench"
    print(f"[{tool} {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def cache_root():
    base = os.environ.get("FRUGAL_BENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "frugal-bench")
    os.makedirs(base, exist_ok=True)
    return base


def http(url, timeout=60):
    req = urllib.request.Request(url, headers={"User-Agent": "frugal-bench (bench/crates_common.py)"})
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
    raise FetchError(f"{name} {version} is not in the crates.io index")


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
        raise FetchError(f"could not download {name} {version}:\n" + "\n".join(errors))
    if cksum and hashlib.sha256(data).hexdigest() != cksum:
        raise FetchError(f"{name} {version}: checksum mismatch against the index")
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


def add_report_args(ap, stem):
    """Adds --json-out and --md-out to the parser `ap`: where a bench script writes its raw
    results and its report, by default bench/<stem>.json and bench/<STEM>.md, next to the
    other benchmarks' results."""
    ap.add_argument("--json-out", default=os.path.join(ROOT, "bench", f"{stem}.json"))
    ap.add_argument("--md-out", default=os.path.join(ROOT, "bench", f"{stem.upper()}.md"))


_COMMIT_OVERRIDE = []


def set_frugal_commit(commit):
    """Names the commit the frugal binary was built from, when it is not the repository's HEAD
    (a long benchmark resumed with a binary built from an earlier commit)."""
    _COMMIT_OVERRIDE[:] = [commit]


@functools.lru_cache(maxsize=None)
def frugal_commit():
    """The commit the frugal binary is expected to be built from: the one set with
    `set_frugal_commit`, else the repository's HEAD, read once (call it when the run starts),
    so commits made while a long benchmark runs do not relabel its later rows."""
    if _COMMIT_OVERRIDE:
        return _COMMIT_OVERRIDE[0]
    out = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return out.stdout.strip() + ("+changes" if dirty else "") if out.returncode == 0 else "unknown"


def package_name(src):
    """[package] name and whether there is a library target, read with `cargo metadata`."""
    out = subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1",
                          "--manifest-path", os.path.join(src, "Cargo.toml")],
                         capture_output=True, text=True, check=True)
    pkg = json.loads(out.stdout)["packages"][0]
    bins = [t["name"] for t in pkg["targets"] if "bin" in t["kind"]]
    has_lib = any("lib" in t["kind"] for t in pkg["targets"])
    return pkg["name"], has_lib, bins


def run_frugal(frugal, src, seed, budget, flags, placement, work, out):
    """`frugal run` (confined by frugal's own sandbox): (summary, wall seconds, error text)."""
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


# Run inside `unshare --mount --net --pid --fork --mount-proc`: every mount read-only except the
# scratch directory ($1) and the pid namespace's own /proc (whose /proc/sys is read-only too),
# then every capability dropped so nothing can remount. Device nodes (/dev/null) stay usable.
CONFINE_SH = r'''
set -e
scratch="$1"; shift
mount --make-rprivate /
mount --bind "$scratch" "$scratch"
mount --bind /proc/sys /proc/sys
if [ -e /proc/sysrq-trigger ]; then mount --bind /proc/sysrq-trigger /proc/sysrq-trigger; fi
for mp in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do
  case "$mp" in "$scratch"|/proc) continue;; esac
  mount -o remount,bind,ro "$mp"
done
exec setpriv --no-new-privs --inh-caps=-all --ambient-caps=-all --bounding-set=-all -- "$@"
'''


def confined(cmd, scratch, env, cwd, timeout=MEASURE_TIMEOUT_SECS):
    """Runs `cmd` confined: only `scratch` writable, no network, own pid namespace, no
    capabilities. Returns the CompletedProcess; a timeout kills the whole namespace."""
    tmp = os.path.join(scratch, "tmp")
    os.makedirs(tmp, exist_ok=True)
    # A private HOME: the toolchain is named through RUSTUP_HOME and CARGO_HOME (read-only).
    home = os.path.expanduser("~")
    env = dict(env, TMPDIR=tmp, HOME=os.path.join(scratch, "home"),
               RUSTUP_HOME=env.get("RUSTUP_HOME", os.path.join(home, ".rustup")),
               CARGO_HOME=env.get("CARGO_HOME", os.path.join(home, ".cargo")))
    os.makedirs(env["HOME"], exist_ok=True)
    wrapped = (["unshare", "--mount", "--net", "--pid", "--fork", "--kill-child", "--mount-proc",
                "sh", "-c", CONFINE_SH, "confine", scratch] + cmd)
    try:
        # A crate's tests may print bytes that are not UTF-8 (termcolor's, slab's): kept, replaced.
        return subprocess.run(wrapped, capture_output=True, text=True, errors="replace", env=env,
                              cwd=cwd, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(wrapped, 124, e.stdout or "",
                                           f"killed after {timeout} s\n{e.stderr or ''}")


def standalone_copy(src, dest, declare_generated):
    """A copy of the crate that is its own workspace (never a member of an enclosing one),
    declaring the emitted suite's test target when asked (crates published by a recent cargo
    list their test targets explicitly, `autotests = false`, and infer none)."""
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("target", ".git"))
    manifest = os.path.join(dest, "Cargo.toml")
    with open(manifest) as f:
        text = f.read()
    with open(manifest, "a") as f:
        if "[workspace]" not in text:
            f.write("\n[workspace]\n")
        if declare_generated:
            f.write('\n[[test]]\nname = "frugal_generated"\npath = "tests/frugal_generated.rs"\n')
    return manifest


def declare_homes(copy, suite):
    """Appends each home's invocation (in-module placement, subject/src/emit/home.rs) to the
    module file the suite's `// frugal-home: <module> <file>` line names, as frugal does."""
    with open(suite) as f:
        homes = [l[len("// frugal-home: "):].split() for l in f if l.startswith("// frugal-home: ")]
    for module, rel in homes:
        path = os.path.normpath(os.path.join(copy, rel))
        if not path.startswith(os.path.normpath(copy) + os.sep):
            raise ValueError(f"home file {rel} leaves the crate")
        with open(path, "a") as f:
            f.write(f"\n#[cfg(test)]\ncrate::frugal_generated::frugal_in_{module.replace('::', '__')}!();\n")


def measure(src, generated, flags, placement, cov_root, copy_name="crate", detail=False):
    """Line and region coverage of a suite over the crate's own sources, measured confined.
    `generated`: the emitted suite (frugal_generated.rs), measured alone; "" with in-crate
    placement: an empty suite (the crate's code compiled alone); None: the crate's own tests
    (unit and integration tests; doctests are not measured). The copy is `cov_root/copy_name`
    with its own target dir (cargo-llvm-cov reports on every test binary of a target dir).
    `detail`: also each line's and each code region's count (`line_hits`, `region_hits`), to
    compare suites over the same code."""
    copy = os.path.join(cov_root, copy_name)
    standalone_copy(src, copy, declare_generated=generated is not None and placement == "tests")
    pkg, has_lib, bins = package_name(copy)
    cov_flags = [f for f in flags if f.startswith("--") and f in ("--all-features",)]
    if generated is None:
        target_args, filter_args = ["--tests"], []
    elif placement == "tests":
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
                    # Test fns outside a `#[cfg(test)]` module (httparse's simd tests) may call
                    # `#[cfg(test)]` helpers: they go too.
                    bare_tests = re.compile(r"^(\s*)#\[test\]\s*$", re.M)
                    if "cfg(test)" in text or bare_tests.search(text):
                        text = text.replace("#[cfg(test)]", "#[cfg(any())]")
                        with open(path, "w") as f:
                            f.write(bare_tests.sub(r"\1#[cfg(any())]", text))
        root_file = "lib.rs" if has_lib else "main.rs"
        module = os.path.join(copy, "src", "frugal_generated.rs")
        if generated:
            shutil.copy(generated, module)
        else:
            with open(module, "w") as f:
                f.write("// An empty suite: the code the suites are measured over.\n")
        with open(os.path.join(copy, "src", root_file), "a") as f:
            f.write('\n#[cfg(test)]\n#[path = "frugal_generated.rs"]\nmod frugal_generated;\n')
        declare_homes(copy, module)
        target_args = ["--lib"] if has_lib else ["--bin", bins[0]]
        filter_args = ["--", "frugal_generated::"]
    # Dependencies (dev-dependencies included) are fetched unconfined: no crate code runs.
    fetched = subprocess.run(["cargo", "fetch", "--manifest-path", os.path.join(copy, "Cargo.toml")],
                             capture_output=True, text=True, cwd=copy)
    if fetched.returncode != 0:
        return {"error": "cargo fetch failed: " + fetched.stderr[-3000:]}
    target = "target" if copy_name == "crate" else f"target-{copy_name}"
    # `--no-report` merges every profile left in the target dir: an earlier suite's would be
    # credited to this one (seeds sharing a coverage root did so), so only the build is kept.
    for d, _, files in os.walk(os.path.join(cov_root, target)):
        for fn in files:
            if fn.endswith(".profraw"):
                os.remove(os.path.join(d, fn))
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(cov_root, target), RUST_BACKTRACE="0",
               CARGO_NET_OFFLINE="true")
    common = ["--manifest-path", os.path.join(copy, "Cargo.toml"), "--ignore-filename-regex", "frugal_generated"]
    # --ignore-run-fail: a report (and the pass/fail counts) even when some tests fail.
    cmd = ["cargo", "llvm-cov", "--no-report", "--ignore-run-fail"] + common + cov_flags + target_args + filter_args
    log(" ".join(cmd) + "  (confined)")
    proc = confined(cmd, cov_root, env, copy)
    if proc.returncode != 0:
        return {"error": proc.stderr[-3000:]}
    proc_out = proc.stdout + proc.stderr
    passed, failed = test_counts(proc_out)
    reports = {"json": os.path.join(cov_root, f"{copy_name}.json")}
    if detail:
        reports["lcov"] = os.path.join(cov_root, f"{copy_name}.lcov")
    for kind, path in reports.items():
        proc = confined(["cargo", "llvm-cov", "report", f"--{kind}", "--output-path", path] + common,
                        cov_root, env, copy)
        if proc.returncode != 0:
            return {"error": proc.stderr[-3000:]}
    with open(reports["json"]) as f:
        export = json.load(f)["data"][0]
    totals = export["totals"]
    result = {
        "lines": totals["lines"],
        "regions": totals["regions"],
        "functions": totals["functions"],
        "passed": passed,
        "failed": failed,
    }
    if failed:
        result["failures"] = failure_heads(proc_out)
    if detail:
        result["line_hits"] = lcov_line_hits(reports["lcov"], copy)
        result["region_hits"] = region_hits(export, copy)
    return result


def lcov_line_hits(path, copy):
    """{"src/file.rs:line": count} from an lcov report, paths relative to the crate's copy."""
    hits, current = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("SF:"):
                current = os.path.relpath(line[3:], copy)
            elif line.startswith("DA:") and current:
                number, count = line[3:].split(",")[:2]
                key = f"{current}:{number}"
                hits[key] = max(hits.get(key, 0), int(count))
    return hits


def region_hits(export, copy):
    """{"src/file.rs:l1:c1:l2:c2": count} of every code region in an llvm-cov JSON export,
    instantiations of one function merged (a region counts as run if any instantiation ran it).
    Only regions of the files the report covers (not those --ignore-filename-regex left out)."""
    hits, files = {}, {f["filename"] for f in export.get("files", [])}
    for function in export.get("functions", []):
        for ls, cs, le, ce, count, file_id, _, kind in (r[:8] for r in function["regions"]):
            # Code regions only (not expansions, skipped or gap regions).
            if kind != 0 or function["filenames"][file_id] not in files:
                continue
            key = f"{os.path.relpath(function['filenames'][file_id], copy)}:{ls}:{cs}:{le}:{ce}"
            hits[key] = max(hits.get(key, 0), count)
    return hits


def coverage_over(hits, base):
    """{"count", "covered"} of `hits` (a suite's per-line or per-region counts) over the keys of
    `base`: the same code for every suite, whatever else a suite's build compiles (the crate's
    own `#[cfg(test)]` modules are code only the own suite's build has)."""
    return {"count": len(base), "covered": sum(1 for k in base if hits.get(k, 0) > 0)}


def failure_heads(output, most=20):
    """{test: the first lines of its failure report} for the failed tests of libtest's output:
    what a reader needs to tell an environment-dependent test from a wrong one."""
    heads, name, lines = {}, None, []
    for line in output.splitlines() + ["failures:"]:
        if line.startswith("---- ") and line.endswith(" stdout ----") or line == "failures:":
            if name and len(heads) < most:
                heads[name] = " | ".join(l for l in lines if l.strip())[:400]
            name = line[5:-len(" stdout ----")] if line.startswith("---- ") else None
            lines = []
        elif name:
            lines.append(line)
    return heads


def test_counts(output):
    """Tests passed and failed, summed over the `test result:` lines of every test binary."""
    passed = failed = None
    for line in output.splitlines():
        if line.startswith("test result:"):
            # test result: ok. 12 passed; 0 failed; ...
            parts = line.replace(";", "").split()
            passed = (passed or 0) + int(parts[parts.index("passed") - 1])
            failed = (failed or 0) + int(parts[parts.index("failed") - 1])
    return passed, failed


def pct(c):
    return 100.0 * c["covered"] / c["count"] if c and c.get("count") else 0.0


def top_reasons(summary, n=3):
    reasons = summary["callables"]["reasons"]
    return sorted(reasons.items(), key=lambda kv: -kv[1])[:n]


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
