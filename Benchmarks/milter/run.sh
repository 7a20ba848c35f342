#!/usr/bin/env bash
# Milter benchmark (issue 14): 10 000 messages (1 in 100 with a pass) through a private Postfix
# with smtp-source -s 20, once through an smtpd with `passconduit milter` and once through one
# without; messages per second = messages / seconds from the first connection to the last
# delivery in the Maildir. Then the milter's own cost per message, from its log (ms= is the time
# from end of message to the answer: queueing, the scan-worker round trip and the plan).
# Target: with the milter <= 10 % fewer messages per second.
#
#   Benchmarks/milter/run.sh           (builds the release binary first; run it alone, as root)
#   SKIP_BUILD=1 COUNT=2000 Benchmarks/milter/run.sh
# MILTER=null runs the floor instead: an empty libmilter milter (null-milter.c, needs libmilter-dev)
# asking for the same stages; its ratio is what Postfix's own milter client leaves on this machine.
# Needs postfix, swaks (script/packages/milter.txt). Output on stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
COUNT=${COUNT:-10000}
PASS_EVERY=${PASS_EVERY:-100}
SESSIONS=${SESSIONS:-20}
# The release build `make install` installs (static Swift stdlib), as the filter's benchmark uses.
[ "${SKIP_BUILD:-0}" = 1 ] || make build >&2
bin="$root/.build-static/release/passconduit"
work=$(mktemp -d /tmp/pc-milter-bench-XXXXXX)
chmod 755 "$work"
cleanup() {
  postfix -c "$work/conf" stop >/dev/null 2>&1 || true
  [ -n "${milter_pid:-}" ] && kill "$milter_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mport=$(free_port); pport=$(free_port); lport=$(free_port)
# TRANSPORT=unix: the milter on a Unix socket (smtpd here is not chrooted) instead of loopback TCP.
if [ "${TRANSPORT:-inet}" = unix ]; then
  milter_listen="unix:$work/milter.sock"; milter_postfix="unix:$work/milter.sock"
else
  milter_listen="inet:$lport@127.0.0.1"; milter_postfix="inet:127.0.0.1:$lport"
fi
mkdir -p "$work"/{conf,queue,data,mail,home}
chown postfix "$work/data"; chown nobody:nogroup "$work/mail"
cat > "$work/conf/main.cf" <<CF
compatibility_level = 3.6
queue_directory = $work/queue
data_directory = $work/data
command_directory = /usr/sbin
daemon_directory = /usr/lib/postfix/sbin
shlib_directory = /usr/lib/postfix
meta_directory = /etc/postfix
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = mx.test.invalid
mydestination =
mynetworks = 127.0.0.0/8
alias_maps =
alias_database =
smtputf8_enable = no
local_header_rewrite_clients =
virtual_mailbox_domains = example.org
virtual_mailbox_base = $work/mail
virtual_mailbox_maps = texthash:$work/conf/vmailbox
virtual_uid_maps = static:$(id -u nobody)
virtual_gid_maps = static:$(id -g nobody)
virtual_destination_concurrency_limit = 20
default_process_limit = 200
maillog_file = $work/postfix.log
maillog_file_prefixes = $work
smtpd_milters = $milter_postfix
milter_default_action = accept
milter_protocol = 6
in_flow_delay = 0
CF
printf 'plain@example.org example.org/plain/\nmilter@example.org example.org/milter/\n' > "$work/conf/vmailbox"
cat > "$work/conf/master.cf" <<CF
127.0.0.1:$mport inet n - n - - smtpd
127.0.0.1:$pport inet n - n - - smtpd -o smtpd_milters=
pickup unix n - n 60 1 pickup
cleanup unix n - n - 0 cleanup
qmgr unix n - n 300 1 qmgr
rewrite unix - - n - - trivial-rewrite
bounce unix - - n - 0 bounce
defer unix - - n - 0 bounce
trace unix - - n - 0 bounce
verify unix - - n - 1 verify
proxymap unix - - n - - proxymap
smtp unix - - n - - smtp
error unix - - n - - error
retry unix - - n - - error
discard unix - - n - - discard
virtual unix - n n - - virtual
anvil unix - - n - 1 anvil
scache unix - - n - 1 scache
postlog unix-dgram n - n - 1 postlogd
CF
postfix -c "$work/conf" start >/dev/null
if [ "${MILTER:-passconduit}" = null ]; then
  # The floor: an empty libmilter milter asking for the same stages (null-milter.c).
  cc -O2 -o "$work/null-milter" "$root/Benchmarks/milter/null-milter.c" -lmilter -lpthread
  "$work/null-milter" "$milter_listen" >"$work/milter.out" 2>&1 &
else
  XDG_STATE_HOME="$work/home/state" HOME="$work/home" "$bin" milter --listen "$milter_listen" \
    --trust "$root/Samples/ca/trust" >"$work/milter.out" 2>&1 &
fi
milter_pid=$!
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$mport) 2>/dev/null && { [ "${TRANSPORT:-inet}" = unix ] && [ -S "$work/milter.sock" ] || (exec 3<>/dev/tcp/127.0.0.1/$lport) 2>/dev/null; } && break; sleep 0.1; done
chmod 666 "$work/milter.sock" 2>/dev/null || true

# A message with a pass, formatted for smtp-source -F (header and body, CRLF not needed).
pass_msg="$work/pass.eml"
cp "$root/Samples/messages/two-passes.eml" "$pass_msg"

run() { # port recipient -> seconds
  local port=$1 rcpt=$2 dir="$work/mail/example.org/${2%@*}/new"
  local passes=$((COUNT / PASS_EVERY)) plain=$((COUNT - COUNT / PASS_EVERY))
  local start end
  start=$(date +%s.%N)
  smtp-source -s "$SESSIONS" -m "$plain" -l 4096 -f sender@example.org -t "$rcpt" "127.0.0.1:$port" &
  local a=$!
  smtp-source -s 1 -m "$passes" -F "$pass_msg" -f sender@example.org -t "$rcpt" "127.0.0.1:$port" &
  local b=$!
  wait $a $b
  while [ "$(ls "$dir" 2>/dev/null | wc -l)" -lt "$COUNT" ]; do sleep 0.05; done
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}
# CPU seconds of the milter daemon and its scan workers (live ones, and reaped ones through the
# daemon's cutime/cstime), from /proc: the milter's whole cost in the run.
milter_cpu() { tree_cpu "$milter_pid"; }
tree_cpu() {
  python3 - "$1" <<'PY'
import os, sys
tick = os.sysconf("SC_CLK_TCK")
def stat(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return f
d = stat(sys.argv[1])
total = sum(int(x) for x in d[11:15])       # utime stime cutime cstime
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            f = stat(pid)
        except OSError:
            continue
        if f[1] == sys.argv[1]:
            total += int(f[11]) + int(f[12])
print(total / tick)
PY
}
echo "messages: $COUNT (1 in $PASS_EVERY with a pass, two-passes.eml), smtp-source -s $SESSIONS, ${MILTER:-passconduit} milter on $milter_postfix, Postfix $(postconf -d -h mail_version), $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg)"
master_pid=$(tr -d ' \n' < "$work/queue/pid/master.pid")
pf0=$(tree_cpu "$master_pid")
t_plain=$(run "$pport" plain@example.org)
pf1=$(tree_cpu "$master_pid")
cpu_before=$(milter_cpu)
t_milter=$(run "$mport" milter@example.org)
cpu_after=$(milter_cpu)
pf2=$(tree_cpu "$master_pid")
python3 -c "print(f'Postfix CPU (master and its processes) per message: without milter {($pf1 - $pf0) / $COUNT * 1000:.3f} ms, with milter {($pf2 - $pf1) / $COUNT * 1000:.3f} ms')"
python3 - "$t_plain" "$t_milter" "$COUNT" "$work/home/state/passconduit/milter.log" "$cpu_before" "$cpu_after" <<'PY'
import os, sys, statistics
plain, milter, count, log = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
cpu = float(sys.argv[6]) - float(sys.argv[5])
print(f"milter CPU (daemon + scan workers): {cpu:.2f} s = {cpu / count * 1000:.3f} ms per message")
print(f"without milter: {count/plain:8.1f} msg/s ({plain:.2f} s)")
print(f"with milter:    {count/milter:8.1f} msg/s ({milter:.2f} s)")
print(f"ratio (with/without): {plain/milter:.3f}  ({(1 - plain/milter)*100:.1f} % fewer msg/s)")
ms = {"pass": [], "none": []}
for line in (open(log) if os.path.exists(log) else []):
    if " result=" not in line or "session-closed" in line: continue
    kind = "pass" if "passes=" in line else "none"
    ms[kind].append(float(line.rsplit(" ms=", 1)[1].split()[0]))
for kind, v in ms.items():
    if v:
        v.sort()
        print(f"milter in-process, {kind:4}: n={len(v)} median {statistics.median(v):.1f} ms, p90 {v[int(len(v)*0.9)]:.1f} ms, max {v[-1]:.1f} ms")
PY
