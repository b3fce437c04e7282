#!/usr/bin/env bash
# Builds the container image from ./Dockerfile, runs it and smoke-tests it, on a machine with no
# container engine and no reachable image registry (README "Docker"). As root on Debian:
#   scripts/image.sh
# - installs podman, buildah and debootstrap with apt-get when they are missing;
# - makes the two base images the Dockerfile names when they are absent, locally:
#   debian:bookworm-slim by debootstrap from the Debian mirror apt already uses (DEBIAN_MIRROR
#   overrides it), and node:20-bookworm-slim from that with this machine's node, npm and CA bundle;
# - builds the Dockerfile as it is (buildah, chroot isolation, never pulling) into $IMAGE;
# - runs the image's entrypoint and command with its own user, working directory and environment
#   (PORT moved to a free port), then checks /readyz, /widget.js and /demo answer 200, that the
#   serving process runs as uid 10001 and not root, that the database is in /data (pgdata), that
#   the image's health check passes, and that SIGTERM stops it with status 0;
# - removes the container it made (the image stays, tagged $IMAGE). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${IMAGE:-localhost/svc-agents:latest}
DEBIAN_BASE=docker.io/library/debian:bookworm-slim
NODE_BASE=docker.io/library/node:20-bookworm-slim
APP_UID=10001

step() { printf '\n--- %s (%ss)\n' "$*" "$SECONDS"; }
fail() { printf 'image: FAILED: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "run as root: building with chroot isolation and debootstrap need it"

# One run at a time on a machine: two runs would race to make the same base images.
exec 9>/var/lock/svc-agents-image.lock
flock -w 900 9 || fail "another image build held the lock for 15 minutes"

work=$(mktemp -d /var/tmp/svc-agents-image.XXXXXX)
ctr="" bpid="" spid=""
descendants() { local c; for c in $(ps -o pid= --ppid "$1"); do echo "$c"; descendants "$c"; done; }
cleanup() {
  local code=$?
  # On failure, the container's processes (ours: children of our buildah run) go first.
  if [ -n "$bpid" ]; then
    descendants "$bpid" | xargs -r kill -KILL 2>/dev/null || true
    kill -KILL "$bpid" 2>/dev/null || true
    wait "$bpid" 2>/dev/null || true
  fi
  [ -n "$ctr" ] && { buildah rm "$ctr" >/dev/null 2>&1 || echo "image: could not remove container $ctr" >&2; }
  # debootstrap mounts /proc and /sys inside the root it makes; never delete through a mount.
  findmnt -rn -o TARGET | grep "^$work/" | sort -r | xargs -r umount -l 2>/dev/null || true
  rm -rf --one-file-system "$work"
  exit $code
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Runs a command with its output in a log; on failure prints the end of that log.
logged() {
  local name=$1; shift
  if ! "$@" >"$work/$name.log" 2>&1; then
    tail -n 40 "$work/$name.log" >&2
    fail "$name: '$*' failed (last lines above)"
  fi
}

step "tools: podman, buildah, debootstrap"
missing=()
for tool in podman buildah debootstrap curl; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}"
  logged apt-update apt-get update -qq
  logged apt-install env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
echo "$(buildah --version), $(podman --version)"

# The first bookworm mirror in apt's sources (one-line .list or deb822 .sources), security excluded.
debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; return; fi
  local files=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources)
  local found
  found=$( (sed -E 's/\[[^]]*\]//' "${files[@]}" 2>/dev/null |
    awk '$1 == "deb" && $3 == "bookworm" { print $2 }'
    cat "${files[@]}" 2>/dev/null | awk 'BEGIN { RS = ""; FS = "\n" } {
      uris = ""; ok = 0; on = 1
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
        if ($i ~ /^Suites:/ && $i ~ /[ \t]bookworm([ \t]|$)/) ok = 1
        if ($i ~ /^Enabled:[ \t]*no/) on = 0
      }
      if (ok && on && uris != "") { split(uris, u, /[ \t]+/); print u[1] }
    }') | grep -v -- '-security' | head -n 1)
  [ -n "$found" ] || fail "no Debian bookworm mirror in /etc/apt/sources.list*; set DEBIAN_MIRROR"
  echo "$found"
}

step "base image $DEBIAN_BASE"
if podman image exists "$DEBIAN_BASE"; then
  echo "present"
else
  mirror=$(debian_mirror)
  echo "making it with debootstrap (minbase) from $mirror"
  logged debootstrap debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror"
  # As the published slim image: apt keeps no caches, dpkg installs no documentation.
  r=$work/rootfs
  cat >"$r/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT
  printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' 'path-exclude /usr/share/man/*' \
    'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' 'path-include /usr/share/locale/locale.alias' \
    >"$r/etc/dpkg/dpkg.cfg.d/docker"
  find "$r/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
  find "$r/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
  rm -rf "$r"/usr/share/man/* "$r"/usr/share/info/* "$r"/var/cache/apt/archives/*.deb "$r"/var/cache/apt/*.bin "$r"/var/lib/apt/lists/*
  tar -C "$work/rootfs" -c . | podman import --change 'CMD ["bash"]' - "$DEBIAN_BASE" >/dev/null \
    || fail "podman import of the debootstrap root failed"
  rm -rf --one-file-system "$work/rootfs"
fi

step "base image $NODE_BASE"
if podman image exists "$NODE_BASE"; then
  echo "present"
else
  node_bin=$(command -v node) || fail "node is needed to make $NODE_BASE"
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  [ -f "$npm_dir/bin/npm-cli.js" ] || fail "could not find npm's package directory (got $npm_dir)"
  [ -f /etc/ssl/certs/ca-certificates.crt ] || fail "no CA bundle at /etc/ssl/certs/ca-certificates.crt"
  node_version=$("$node_bin" --version)
  case "$node_version" in v20.*) ;; *) echo "warning: this machine's node is $node_version, tagged as node:20" ;; esac
  echo "making it from $DEBIAN_BASE with node $node_version, npm $(npm --version) and this machine's CA bundle"
  mkdir -p "$work/node"
  cp "$(readlink -f "$node_bin")" "$work/node/node"
  cp -a "$npm_dir" "$work/node/npm"
  cp /etc/ssl/certs/ca-certificates.crt "$work/node/ca-certificates.crt"
  # npm in a build verifies the registry against the CA bundle this machine trusts.
  cat >"$work/node/Containerfile" <<EOF
FROM $DEBIAN_BASE
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca-certificates.crt /usr/local/share/ca-bundle.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-bundle.crt
CMD ["node"]
EOF
  logged node-base buildah bud --isolation chroot --pull=never -t "$NODE_BASE" "$work/node"
  rm -rf "$work/node"
fi

step "build $IMAGE from ./Dockerfile"
old_id=$(podman image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
# Docker format keeps the HEALTHCHECK instruction, which the OCI format has no field for.
logged build buildah bud --isolation chroot --network host --pull=never --format docker -t "$IMAGE" -f Dockerfile .
grep -E '^(built |Successfully tagged)' "$work/build.log" || true
new_id=$(podman image inspect --format '{{.Id}}' "$IMAGE")
if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then buildah rmi "$old_id" >/dev/null 2>&1 || true; fi
echo "image $new_id, $(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{ printf "%.0f MB", $1 / 1e6 }')"

step "run it"
buildah inspect --type image "$IMAGE" >"$work/inspect.json"
# Prints one line per element of the image's configuration FIELD (a string or a list of strings).
config() {
  node -e 'const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).Docker.config ?? {};
    const v = process.argv[2].split(".").reduce((o, k) => o?.[k], c); for (const a of [v ?? []].flat()) console.log(a)' "$work/inspect.json" "$1"
}
# The command `docker run` would start: the image's entrypoint followed by its command.
mapfile -t argv < <(config Entrypoint; config Cmd)
[ ${#argv[@]} -gt 0 ] || fail "the image has neither ENTRYPOINT nor CMD"
user=$(config User)
echo "command: ${argv[*]} (USER $user)"
port=""
for candidate in $(shuf -i 20000-60000 -n 20); do
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
done
[ -n "$port" ] || fail "found no free port"
ctr=$(buildah from --pull=never --name "svc-agents-image-check-$$" "$IMAGE")
buildah run --isolation chroot --network host --env "PORT=$port" "$ctr" -- "${argv[@]}" >"$work/serve.log" 2>&1 &
bpid=$!

ready=0
for _ in $(seq 1 360); do
  kill -0 "$bpid" 2>/dev/null || { cat "$work/serve.log" >&2; bpid=""; fail "the container exited before it was ready"; }
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ]; then ready=1; break; fi
  sleep 0.5
done
[ $ready = 1 ] || { tail -n 40 "$work/serve.log" >&2; fail "/readyz did not answer 200 within 3 minutes"; }
echo "ready on port $port"

step "checks"
for path in /readyz /widget.js /demo; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$path")
  [ "$code" = 200 ] || fail "GET $path answered $code, not 200"
  echo "GET $path: 200"
done

# The serving process: the one listening on the port, which must be a descendant of our buildah run.
spid=$(ss -Hltnp "sport = :$port" | grep -o 'pid=[0-9]*' | head -n 1 | cut -d= -f2)
[ -n "$spid" ] || fail "no process found listening on port $port"
p=$spid
while [ "$p" -gt 1 ] && [ "$p" != "$bpid" ]; do p=$(awk '{ print $4 }' "/proc/$p/stat"); done
[ "$p" = "$bpid" ] || fail "the process on port $port is not the container's"
read -r _ ruid euid suid fsuid < <(grep '^Uid:' "/proc/$spid/status")
echo "serving process $spid ($(cat "/proc/$spid/comm")): uid $ruid/$euid/$suid/$fsuid"
for u in "$ruid" "$euid" "$suid" "$fsuid"; do
  [ "$u" = "$APP_UID" ] || fail "the server runs as uid $u, not the unprivileged user $APP_UID"
done

# What the process sees as / and as its working directory (WORKDIR /data).
root=/proc/$spid/root
[ "$(readlink "/proc/$spid/cwd" | sed "s|^$(readlink "$root")||")" = /data ] || fail "the server's working directory is not /data"
[ -d "$root/data/pgdata" ] || fail "no database in /data: /data/pgdata is missing"
[ -f "$root/data/pgdata/PG_VERSION" ] || fail "/data/pgdata holds no PostgreSQL data directory"
read -r owner mode < <(stat -c '%u %a' "$root/data")
[ "$owner" = "$APP_UID" ] && [ "$mode" = 700 ] || fail "/data is owned by uid $owner with mode $mode, not $APP_UID and 700"
echo "/data: uid $owner, mode $mode; holds $(ls "$root/data" | tr '\n' ' ')"
echo "/data/pgdata: PostgreSQL $(cat "$root/data/pgdata/PG_VERSION"), owned by uid $(stat -c %u "$root/data/pgdata")"

mapfile -t health < <(config Healthcheck.Test)
[ "${health[0]:-}" = CMD ] && [ ${#health[@]} -gt 1 ] || fail "the image has no HEALTHCHECK in the CMD form (got: ${health[*]})"
hargv=("${health[@]:1}")
buildah run --isolation chroot --network host --env "PORT=$port" "$ctr" -- "${hargv[@]}" >"$work/health.log" 2>&1 \
  || { cat "$work/health.log" >&2; fail "the health check (${hargv[*]}) failed"; }
echo "HEALTHCHECK ${hargv[*]}: passed"

step "stop it"
kill -TERM "$spid"
for _ in $(seq 1 60); do kill -0 "$spid" 2>/dev/null || break; sleep 0.5; done
kill -0 "$spid" 2>/dev/null && fail "the server did not stop within 30 s of SIGTERM"
spid=""
status=0; wait "$bpid" || status=$?
bpid=""
[ "$status" = 0 ] || { tail -n 20 "$work/serve.log" >&2; fail "the container exited with status $status after SIGTERM"; }
echo "SIGTERM: exited with status 0"

printf '\nimage: passed (%ss): %s\n' "$SECONDS" "$IMAGE"
