#!/usr/bin/env bash
# --json (and every output option, through cli/output.c) against each kind of
# file node: a new path, a regular file (its mode kept), a read-only file, a
# symbolic link (its target written), a dangling link, a character device,
# a FIFO, a socket, "-" (standard output), a directory.
#   output_nodes.sh WARPLAB SOCKET_SINK WORK_DIR [unprivileged]
# "unprivileged": runs the user's part as nobody (setpriv) when run as root;
# skipped (77) otherwise or where nobody cannot run the tool.
set -u
W=$1 SINK=$2 WORK=$3 MODE=${4:-}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
AS=()
if [ "$MODE" = unprivileged ]; then
    if [ "$(id -u)" != 0 ]; then echo "SKIP: not root; the root-run test covers this user"; exit 77; fi
    AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    if ! "${AS[@]}" "$W" --version >/dev/null 2>&1; then
        echo "SKIP: nobody cannot run $W (a parent directory is closed to it)"; exit 77
    fi
fi
rm -rf "$WORK" && mkdir -p "$WORK" && chmod 0777 "$WORK" && cd "$WORK" || exit 1
run() { # run EXPECTED_RC PATH [extra args]: a small bench with --json PATH
    local expected=$1 path=$2; shift 2
    "${AS[@]}" "$W" bench vecadd --backend cpu --size 1000 --rung cpu_loop --repeat 2 --quiet \
        --json "$path" "$@" >out.txt 2>err.txt
    local rc=$?
    if [ "$rc" != "$expected" ]; then
        fail "--json $path: exit $rc, expected $expected: $(cat err.txt)"; return 1
    fi
}
# The files the test makes belong to the user the tool runs as.
mine() { if [ ${#AS[@]} -gt 0 ]; then chown -h 65534:65534 "$@"; fi; }
is_json() { grep -q '"rows"' "$1" 2>/dev/null; }
mode_of() { stat -c %a "$1"; }

# A new path: written, a regular file.
run 0 new.json && { [ -f new.json ] && is_json new.json && ok "new path" || fail "new path not written"; }
# An existing regular file: replaced, its mode kept.
echo old >kept.json && chmod 0640 kept.json && mine kept.json
run 0 kept.json && { is_json kept.json && [ "$(mode_of kept.json)" = 640 ] && ok "regular file, mode 640 kept" ||
    fail "regular file: mode $(mode_of kept.json)"; }
# A symbolic link: its target written, the link left a link.
echo old >target.json && ln -s target.json link.json && mine target.json link.json
run 0 link.json && { [ -L link.json ] && is_json target.json && ok "symlink: target written" ||
    fail "symlink replaced or target not written"; }
# A dangling link: its target created.
ln -s made.json dangling.json
run 0 dangling.json && { [ -L dangling.json ] && is_json made.json && ok "dangling symlink: target created" ||
    fail "dangling symlink: link replaced or target not created"; }
# A character device: written through, still a device. As root the test
# writes its own nodes (mknod) so that a regression cannot replace the
# machine's /dev/null; as any other user /dev/null cannot be replaced.
if [ "$(id -u)" = 0 ] && [ ${#AS[@]} = 0 ]; then
    NULL_NODE=$WORK/null FULL_NODE=$WORK/full
    mknod -m 0666 "$NULL_NODE" c 1 3 && mknod -m 0666 "$FULL_NODE" c 1 7 &&
        echo probe >"$NULL_NODE" 2>/dev/null || { NULL_NODE= FULL_NODE=; }
else
    NULL_NODE=/dev/null FULL_NODE=/dev/full
fi
if [ -n "$NULL_NODE" ]; then
    run 0 "$NULL_NODE" && { [ -c "$NULL_NODE" ] && ok "$NULL_NODE written through" ||
        fail "$NULL_NODE is no longer a device"; }
    if [ -c "$FULL_NODE" ]; then
        run 1 "$FULL_NODE" && { grep -q "No space left" err.txt && [ -c "$FULL_NODE" ] &&
            ok "$FULL_NODE: exit 1, still a device" || fail "$FULL_NODE: $(cat err.txt)"; }
    fi
else
    echo "note: no device node of the test's own here (nodev); the unprivileged run covers /dev/null"
fi
# A FIFO: written through to its reader.
mkfifo fifo && chmod 0666 fifo
(cat fifo >fifo.out) &
reader=$!
run 0 fifo
wait "$reader"
[ -p fifo ] && is_json fifo.out && ok "FIFO written through" || fail "FIFO replaced or not written"
# A socket: connected to and written.
"${AS[@]}" "$SINK" "$WORK/sock" "$WORK/sock.out" &
sink=$!
for _ in $(seq 50); do [ -S sock ] && break; sleep 0.1; done
run 0 sock
wait "$sink"
[ -S sock ] && is_json sock.out && ok "socket written through" || fail "socket replaced or not written"
# "-": standard output, no file named "-".
run 0 - && { grep -q '"rows"' out.txt && [ ! -e ./- ] && ok "- is standard output" ||
    fail "-: stdout lacks the JSON or a file '-' was made"; }
# A directory: a usage error.
mkdir dir.json && chmod 0777 dir.json
run 2 dir.json && grep -q "is a directory" err.txt && ok "directory refused (2)"

# A file the user may not write, and a new path in a directory they may not
# write into: refused with exit 1 before the run, nothing changed.
echo old >readonly.json && chmod 0444 readonly.json && mine readonly.json
mkdir closed && chmod 0555 closed
if [ "$(id -u)" = 0 ] && [ ${#AS[@]} = 0 ]; then
    # root may write them: written, the mode kept.
    run 0 readonly.json && { is_json readonly.json && [ "$(mode_of readonly.json)" = 444 ] &&
        ok "root: 0444 file written, mode kept" || fail "root: 0444 file: mode $(mode_of readonly.json)"; }
else
    run 1 readonly.json && { grep -q "cannot write there: Permission denied" err.txt &&
        [ "$(cat readonly.json)" = old ] && [ ! -s out.txt ] && ok "0444 file refused (1), unchanged" ||
        fail "0444 file: $(cat err.txt)"; }
    run 1 closed/new.json && { grep -q "cannot write there: Permission denied" err.txt &&
        [ ! -e closed/new.json ] && ok "closed directory refused (1)" || fail "closed directory: $(cat err.txt)"; }
    # A writable file in a directory the user may not write into: in place.
    chmod 0755 closed && echo old >closed/open.json && chmod 0666 closed/open.json && chmod 0555 closed
    run 0 closed/open.json && { is_json closed/open.json && ok "writable file in a closed directory: in place" ||
        fail "closed/open.json not written"; }
fi
ls "$WORK" | grep -q 'tmp-' && fail "temporary files left: $(ls "$WORK")"
exit $((failures > 0))
