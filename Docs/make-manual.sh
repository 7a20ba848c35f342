#!/bin/sh
# Regenerates Docs/passconduit.1 from the command-line parser itself, with swift-argument-parser's
# generate-manual plugin (it builds offline from the resolved checkout). Run after changing any
# command's help text:  Docs/make-manual.sh
set -eu
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
swift package plugin generate-manual --configuration debug --date 2026-11-21 \
    --authors "passconduit contributors"
scratch=$(swift build --show-bin-path)/../../plugins/GenerateManual/outputs/passconduit/passconduit.1
# mdoc wants paragraph macros, not empty lines (man(1) warns about each one).
sed 's/^$/.Pp/' "$scratch" > Docs/passconduit.1
echo "wrote Docs/passconduit.1"
