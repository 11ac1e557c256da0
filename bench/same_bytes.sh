#!/usr/bin/env bash
# Runs two clipkit binaries over the same inputs and options and compares every file they write,
# byte for byte: the check that a refactor changed no output.
# Usage: bash bench/same_bytes.sh OLD_CLIPKIT NEW_CLIPKIT [WORKDIR]
#   Inputs: every clip in Fixtures/video, every GIF in Fixtures/gif and the GIF test suite, and the
#   bench's 10 s 720p and 60 s 1080p clips when bench/cache holds them (`bash bench/gen_inputs.sh`).
#   QUICK=1 leaves out the bench clips; CACHE=DIR reads them from another bench/cache. Prints one line per differing or one-sided file and a
#   closing `N passed, N failed` line; exits 1 when anything differs.
set -uo pipefail
old=$(realpath "$1"); new=$(realpath "$2")
here=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work"
cd "$here"

videos=(Fixtures/video/*.mp4 Fixtures/video/*.mov Fixtures/video/*.mkv Fixtures/video/*.webm Fixtures/video/*.ts Fixtures/video/*.h264)
gifs=(Fixtures/gif/*.gif Fixtures/gif-test-suite/gifs/*.gif)
bench=()
if [ -z "${QUICK:-}" ]; then
    cache=${CACHE:-bench/cache}
    for clip in "$cache/src10_720p.mp4" "$cache/src60_1080p.mp4"; do [ -f "$clip" ] && bench+=("$clip"); done
fi

# name | clipkit arguments (IN = the input, OUT = the output directory of this run)
cases=(
    "gif|gif IN -o OUT/a.gif"
    "gif-lossy80|gif IN --lossy 80 -o OUT/a.gif"
    "gif-q50|gif IN --quality 50 -o OUT/a.gif"
    "gif-speed2|gif IN --speed 2 --fps 12 -o OUT/a.gif"
    "gif-global|gif IN --palette global --colors 64 -o OUT/a.gif"
    "gif-maxbytes|gif IN --max-bytes 40% -o OUT/a.gif"
    "gif-all|gif IN -o OUT/a.gif -o OUT/a.webp -o OUT/a.mp4 --poster OUT/p.png"
    "gif-maxbytes-all|gif IN --max-bytes 60% -o OUT/a.gif -o OUT/a.webp --poster OUT/p.png"
    "webp-speed|gif IN --speed 0.5 -o OUT/a.webp -o OUT/a.mp4"
    "thumb|thumb IN -o OUT/t.png"
    "thumb-at|thumb IN --at 25% -o OUT/t.png"
    "thumb-pick|thumb IN --pick best --count 2 -o OUT/t.png"
    "thumb-jpg|thumb IN -o OUT/t.jpg"
    "thumb-webp|thumb IN --at 1 -o OUT/t.webp"
    "storyboard-webp|storyboard IN --format webp -o OUT/s"
    "explode|explode IN --fps 5 -o OUT/x"
    "storyboard|storyboard IN -o OUT/s"
)
bench_cases=("gif" "gif-lossy80" "gif-q50" "gif-maxbytes" "gif-all" "thumb" "storyboard")

pass=0; fail=0
run_case() {  # run_case BINARY NAME ARGS INPUT DIR
    local bin=$1 args=$3 input=$4 dir=$5
    mkdir -p "$dir"
    args=${args//IN/$input}; args=${args//OUT/$dir}
    # --max-bytes P%: P% of this input's default GIF size, measured with the same binary.
    if [[ $args =~ --max-bytes\ ([0-9]+)% ]]; then
        local percent=${BASH_REMATCH[1]}
        "$bin" gif "$input" -o "$dir/.probe.gif" --quiet >/dev/null 2>&1
        local size; size=$(stat -c %s "$dir/.probe.gif" 2>/dev/null || echo 100000); rm -f "$dir/.probe.gif"
        args=${args//$percent%/$((size * percent / 100))}
    fi
    # shellcheck disable=SC2086
    "$bin" $args --quiet >"$dir/.stdout" 2>"$dir/.stderr"
    echo $? >"$dir/.status"
}

compare() {  # compare NAME
    local a=$work/old/$1 b=$work/new/$1
    local files
    files=$( (cd "$a" && find . -type f; cd "$b" && find . -type f) | grep -v '/\.stdout$\|/\.stderr$' | sort -u)
    local differ=0
    while IFS= read -r f; do
        [ -z "$f" ] && continue
        if ! cmp -s "$a/$f" "$b/$f"; then echo "differs: $1/${f#./}"; differ=1; fi
    done <<<"$files"
    if [ $differ = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}

for input in "${videos[@]}" "${gifs[@]}" "${bench[@]}"; do
    [ -f "$input" ] || continue
    base=$(basename "$input")
    for c in "${cases[@]}"; do
        name=${c%%|*}; args=${c#*|}
        if [[ " ${bench[*]} " == *" $input "* ]] && [[ " ${bench_cases[*]} " != *" $name "* ]]; then continue; fi
        # GIF inputs: the GIF cases and explode only.
        if [[ $input == *.gif ]] && [[ $name != gif* && $name != explode ]]; then continue; fi
        run_case "$old" "$name" "$args" "$input" "$work/old/$base/$name"
        run_case "$new" "$name" "$args" "$input" "$work/new/$base/$name"
        compare "$base/$name"
    done
done
echo "same_bytes: outputs of $old and $new in $work"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
