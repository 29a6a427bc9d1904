#!/usr/bin/env bash
# Checks systemd/frugald.service with `systemd-analyze verify`, against a freshly built frugald
# (verify insists that ExecStart names an executable, and CI installs nothing to /usr/local/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet -p frugald --bin frugald
target="${CARGO_TARGET_DIR:-$PWD/target}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sed "s|/usr/local/bin/frugald|$target/debug/frugald|" systemd/frugald.service >"$tmp/frugald.service"
systemd-analyze verify "$tmp/frugald.service"
echo "systemd/frugald.service: verified"
