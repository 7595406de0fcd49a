#!/usr/bin/env bash
# Dev-time only (never the product's build or CI's tests): a Debian root with a recent PyTorch, made once with
# debootstrap and cached outside the repository, so the real tools (autoparallel, DTensor) can write test data.
#
#   scripts/dev_root.sh sid       # PyTorch 2.14.x (Python 3.14); prints the root's path
#   scripts/dev_root.sh trixie    # PyTorch 2.6.0
#   scripts/dev_root.sh bookworm  # a bare Debian 12 minbase (what users run): scripts/package_check.sh installs
#                                 # the .deb into a fresh copy of it
#   scripts/dev_root.sh sid --run CMD...   # runs CMD inside the root: proc mounted, this checkout bind-mounted at
#                                          # its own path (so several checkouts can share one root), cwd there
#
# Cache: $SHARDSCOPE_ROOTS (default /var/cache/shardscope-roots)/<suite>; a finished root has a .ready stamp.
# Concurrent callers wait on one lock per suite. Needs root (debootstrap, chroot, mount).
set -euo pipefail
suite="${1:?usage: dev_root.sh sid|trixie|bookworm [--run CMD...]}"; shift
case "$suite" in sid|trixie|bookworm) ;; *) echo "dev_root.sh: unknown suite '$suite' (sid, trixie or bookworm)" >&2; exit 2;; esac
cache="${SHARDSCOPE_ROOTS:-/var/cache/shardscope-roots}"
root="$cache/$suite"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages="python3-torch,python3-numpy,python3-pulp,coinor-cbc,python3-filelock,python3-sympy,python3-networkx,python3-jinja2,python3-typing-extensions,python3-fsspec"
# bookworm stays bare (minbase alone): it stands for a user's fresh machine.
if [ "$suite" = bookworm ]; then packages=""; fi
mkdir -p "$cache"
exec 9>"$cache/$suite.lock"
flock 9
if [ ! -f "$root/.ready" ]; then
  command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  rm -rf "$root"
  echo "dev_root.sh: building the $suite root in $root (once; a few minutes)" >&2
  debootstrap --variant=minbase ${packages:+--include="$packages"} "$suite" "$root" >"$cache/$suite.debootstrap.log" 2>&1 || {
    echo "dev_root.sh: debootstrap failed, see $cache/$suite.debootstrap.log" >&2; exit 1; }
  if [ -n "$packages" ]; then chroot "$root" python3 -c 'import torch; print(torch.__version__)' >"$root/.torch_version"; fi
  touch "$root/.ready"
fi
flock -u 9
if [ "${1:-}" != "--run" ]; then echo "$root"; exit 0; fi
shift
# The mounts live only as long as the commands using them: a bind mount left behind would put the checkout inside
# the cache, where deleting the cache would delete the checkout. Several commands may use one root at once (one
# per helper, each with its own checkout or the same one), so each mount keeps a list of the processes using it,
# changed under the suite's lock: the first user mounts, the last one to leave unmounts. Users that died without
# leaving (SIGKILL) are dropped from the list by the next caller, so a mount never outlives every user for long.
users="$cache/$suite.users"
mkdir -p "$users"
held=()
users_file() { printf '%s/%s' "$users" "$(printf '%s' "$1" | tr '/' '_')"; }
live_users() {  # the live PIDs listed for mount point $1, one per line
  local f pid; f="$(users_file "$1")"
  [ -f "$f" ] || return 0
  while read -r pid; do [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"; done <"$f"
  return 0
}
acquire() {  # acquire MOUNTPOINT MOUNT-ARGS...: mount unless mounted, and list this process as a user
  local mp="$1"; shift
  local others; others="$(live_users "$mp")"
  if mountpoint -q "$mp" && [ -z "$others" ]; then
    return 0  # mounted by someone who keeps no list (made by hand, or an older copy of this script): theirs to undo
  fi
  if ! mountpoint -q "$mp"; then mount "$@" "$mp"; fi
  { [ -n "$others" ] && echo "$others"; echo $$; } >"$(users_file "$mp")"
  held+=("$mp")
}
release() {  # under the lock: leave every mount this process holds; unmount those nobody else uses
  flock 9
  local mp others
  for mp in "${held[@]}"; do
    others="$(live_users "$mp" | grep -vx "$$" || true)"
    if [ -n "$others" ]; then echo "$others" >"$(users_file "$mp")"; continue; fi
    rm -f "$(users_file "$mp")"
    umount "$mp" 2>/dev/null || umount -l "$mp" 2>/dev/null || true
  done
  flock -u 9
}
trap release EXIT
flock 9
acquire "$root/proc" -t proc proc
mkdir -p "$root$repo"
acquire "$root$repo" --bind "$repo"
flock -u 9
rc=0
chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 /bin/sh -c 'cd "$0" && exec "$@"' "$repo" "$@" || rc=$?
exit $rc
