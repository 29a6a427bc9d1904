#!/usr/bin/env bash
# Checks systemd/frugald.service: `systemd-analyze verify` against a freshly built frugald
# (verify insists that ExecStart names an executable, and CI installs nothing to
# /usr/local/bin), every directive issue 15 asks for, that the system call filter lets the
# sandbox and the profiler work, and that `systemd-analyze security` scores the unit 2.5 or
# lower.
set -euo pipefail
cd "$(dirname "$0")/.."
unit=systemd/frugald.service
cargo build --quiet -p frugald --bin frugald
target="${CARGO_TARGET_DIR:-$PWD/target}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sed "s|/usr/local/bin/frugald|$target/debug/frugald|" "$unit" >"$tmp/frugald.service"
systemd-analyze verify "$tmp/frugald.service"

fail=0
# Each directive with the value it must have (a line of the unit, exactly).
for line in \
  "After=network-online.target" \
  "Wants=network-online.target" \
  "Type=notify" \
  "WatchdogSec=30s" \
  "LimitCORE=0" \
  "CapabilityBoundingSet=" \
  "ProtectProc=invisible" \
  "ProtectKernelLogs=yes" \
  "NoNewPrivileges=yes" \
  "ProtectSystem=strict" \
  "SystemCallFilter=@system-service"; do
  if ! grep -qxF "$line" "$unit"; then
    echo "$unit: missing \`$line\`" >&2
    fail=1
  fi
done
for key in MemoryMax CPUQuota; do
  if ! grep -qE "^$key=[0-9]+(%|[KMGT])$" "$unit"; then
    echo "$unit: missing a bounded \`$key=\`" >&2
    fail=1
  fi
done

# Every system call of the allow list, groups expanded.
expand() {
  systemd-analyze syscall-filter "$1" | sed -e 's/#.*//' -e 's/^ *//' | grep -v '^$' | tail -n +2 |
    while read -r name; do
      case "$name" in
        @*) expand "$name" ;;
        *) echo "$name" ;;
      esac
    done
}
allowed="$tmp/allowed"
{
  for f in $(sed -n 's/^SystemCallFilter=//p' "$unit"); do
    case "$f" in
      @*) expand "$f" ;;
      ~*) ;;
      *) echo "$f" ;;
    esac
  done
} | sort -u >"$allowed"
# What frugal-sandbox (Landlock, seccomp, rlimits, sessions, pidfds), the profiler
# (perf_event_open, wait4) and every job (fork, exec, pipes) call.
for call in landlock_create_ruleset landlock_add_rule landlock_restrict_self seccomp prctl \
  setrlimit prlimit64 setsid unshare pidfd_open clone clone3 execve wait4 waitid kill \
  perf_event_open pipe2 poll; do
  if ! grep -qxF "$call" "$allowed"; then
    echo "$unit: SystemCallFilter refuses $call, which jobs need" >&2
    fail=1
  fi
done

score="$(systemd-analyze security --offline=yes "$tmp/frugald.service" 2>&1 |
  sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')"
if [ -z "$score" ]; then
  echo "$unit: systemd-analyze security gave no score" >&2
  fail=1
elif ! awk -v s="$score" 'BEGIN { exit !(s <= 2.5) }'; then
  echo "$unit: systemd-analyze security scores $score, above 2.5" >&2
  systemd-analyze security --offline=yes "$tmp/frugald.service" | grep '✗' >&2 || true
  fail=1
fi
[ "$fail" = 0 ] || exit 1
echo "$unit: verified; every directive present; the sandbox's system calls allowed; exposure $score"
