#!/usr/bin/env bash
# Dev-time only (never the product's build or CI's tests): a Debian root with a recent PyTorch, made once with
# debootstrap and cached outside the repository, so the real tools (autoparallel, DTensor) can write test data.
#
#   scripts/dev_root.sh sid       # PyTorch 2.14.x (Python 3.14); prints the root's path
#   scripts/dev_root.sh trixie    # PyTorch 2.6.0
#   scripts/dev_root.sh sid --run CMD...   # runs CMD inside the root: proc mounted, this checkout bind-mounted at
#                                          # its own path (so several checkouts can share one root), cwd there
#
# Cache: $SHARDSCOPE_ROOTS (default /var/cache/shardscope-roots)/<suite>; a finished root has a .ready stamp.
# Concurrent callers wait on one lock per suite. Needs root (debootstrap, chroot, mount).
set -euo pipefail
suite="${1:?usage: dev_root.sh sid|trixie [--run CMD...]}"; shift
case "$suite" in sid|trixie) ;; *) echo "dev_root.sh: unknown suite '$suite' (sid or trixie)" >&2; exit 2;; esac
cache="${SHARDSCOPE_ROOTS:-/var/cache/shardscope-roots}"
root="$cache/$suite"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages="python3-torch,python3-numpy,python3-pulp,coinor-cbc,python3-filelock,python3-sympy,python3-networkx,python3-jinja2,python3-typing-extensions,python3-fsspec"
mkdir -p "$cache"
exec 9>"$cache/$suite.lock"
flock 9
if [ ! -f "$root/.ready" ]; then
  command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  rm -rf "$root"
  echo "dev_root.sh: building the $suite root in $root (once; a few minutes)" >&2
  debootstrap --variant=minbase --include="$packages" "$suite" "$root" >"$cache/$suite.debootstrap.log" 2>&1 || {
    echo "dev_root.sh: debootstrap failed, see $cache/$suite.debootstrap.log" >&2; exit 1; }
  chroot "$root" python3 -c 'import torch; print(torch.__version__)' >"$root/.torch_version"
  touch "$root/.ready"
fi
flock -u 9
if [ "${1:-}" != "--run" ]; then echo "$root"; exit 0; fi
shift
# The mounts live only as long as the command: a bind mount left behind would put the checkout inside the cache,
# where deleting the cache would delete the checkout.
mounted=()
cleanup() { for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done; }
trap cleanup EXIT
if ! mountpoint -q "$root/proc"; then mount -t proc proc "$root/proc"; mounted=("$root/proc" "${mounted[@]}"); fi
mkdir -p "$root$repo"
if ! mountpoint -q "$root$repo"; then mount --bind "$repo" "$root$repo"; mounted=("$root$repo" "${mounted[@]}"); fi
rc=0
chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 /bin/sh -c 'cd "$0" && exec "$@"' "$repo" "$@" || rc=$?
exit $rc
