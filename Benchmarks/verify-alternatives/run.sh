#!/bin/sh
# Benchmarks/verify-alternatives/run.sh PASS ROOT.pem INTERMEDIATE.pem
# What verifying one pass costs at start-up, two ways, in instructions under callgrind:
#   verify-openssl (C, OpenSSL 3.0's CMS_verify: what passconduit uses) beside a C program that does nothing,
#   verify-x509 (Swift, swift-certificates + swift-crypto) beside a static Swift hello world.
# Both hash the pass's files (SHA-1), check the signature over manifest.json and build the chain at the
# signing time. The difference to each baseline is the cost of the work. README.md has the figures.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pass=$1 root=$2 intermediate=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$here" && swift build -c release --static-swift-stdlib >&2)
strip --strip-debug -o "$work/verify-x509" "$here/.build/release/verify-x509"
cc -O2 -o "$work/verify-openssl" "$here/c/verify-openssl.c" -lcrypto
printf 'int main(void) { return 0; }\n' > "$work/nothing.c"
cc -O2 -o "$work/nothing" "$work/nothing.c"
printf 'print("hello")\n' > "$work/hello.swift"
swiftc -O -static-stdlib "$work/hello.swift" -o "$work/hello" 2>/dev/null
mkdir -p "$work/pass/trust"
unzip -q "$pass" -d "$work/pass"
openssl x509 -in "$root" -outform DER -out "$work/pass/trust/root.der"
openssl x509 -in "$intermediate" -outform DER -out "$work/pass/trust/intermediate.der"
"$work/verify-openssl" "$work/pass"
"$work/verify-x509" "$work/pass"
for p in nothing "verify-openssl $work/pass" hello "verify-x509 $work/pass"; do
  SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null $work/$p 2>&1 >/dev/null |
    awk -v p="${p%% *}" '/refs:/ { gsub(",", "", $NF); printf "%12.2f M instructions  %s\n", $NF / 1e6, p }'
done
