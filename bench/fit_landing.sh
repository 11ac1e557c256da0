#!/bin/bash
# Where `--max-bytes` fits land: each input at PCT% of its default GIF's size, for one or two builds.
#
#   bench/fit_landing.sh PCT BIN [BIN2] -- FILES...
#
# Prints per input: exit status and bytes as a share of the limit for BIN (and BIN2), and a count of
# fits within [90, 100]% at the end. Inputs whose default GIF fails, or is under 2 KB at PCT%, are
# skipped. (Stop 38 ran it on the 135 corpus videos at 40%.)
set -u
pct=$1; a=$2; shift 2; b=""
if [ "${1:-}" != "--" ]; then b=$1; shift; fi
shift
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ina=0; inb=0; n=0
for f in "$@"; do
  timeout 60 "$a" gif -q --force "$f" -o "$tmp/d.gif" --timeout 50 >/dev/null 2>&1 || continue
  d=$(stat -c %s "$tmp/d.gif"); limit=$((d * pct / 100))
  [ "$limit" -gt 2000 ] || continue
  n=$((n + 1)); line="$(basename "$f") limit $limit:"
  for bin in $a $b; do
    rm -f "$tmp/m.gif"
    timeout 120 "$bin" gif -q --force "$f" -o "$tmp/m.gif" --max-bytes "$limit" --timeout 100 --no-measure >/dev/null 2>&1; rc=$?
    s=$(stat -c %s "$tmp/m.gif" 2>/dev/null || echo 0); share=$(echo "scale=1; 100 * $s / $limit" | bc)
    ok=$(echo "$rc == 0 && $share >= 90 && $share <= 100" | bc)
    if [ "$bin" = "$a" ]; then ina=$((ina + ok)); else inb=$((inb + ok)); fi
    line="$line | rc$rc $share%"
  done
  echo "$line"
done
echo "within [90, 100]%: $ina of $n${b:+ | $inb of $n}"
