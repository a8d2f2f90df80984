#!/usr/bin/env bash
# Builds the config-loader fuzz target (clang libFuzzer + ASan + UBSan) and runs it for a bounded time.
# Usage: bash tools/fuzz.sh [SECONDS]   (default 60)
# Seeds: examples/, configs/schemes/, tests/bad_inputs/ and tests/fuzz/regressions/.
# A crash (or leak, timeout, out-of-memory) is saved to tests/fuzz/regressions/
# and the script fails: commit that file with the fix, and
# tests/test_fuzz_regressions.c replays it in every build from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-60}
cc=${CLANG:-clang}
out=$root/build-fuzz
mkdir -p "$out/corpus" "$out/work" tests/fuzz/regressions

if ! command -v "$cc" > /dev/null; then
  echo "fuzz: $cc not found (apt-get install clang libclang-rt-14-dev libomp-14-dev)" >&2
  exit 1
fi

cmake -DOUT="$out/schemes_data.c" -DDIR="$root/configs/schemes" \
  -P cmake/embed_schemes.cmake
# Every module but the command line, HDF5 output and the runner (the target
# neither runs nor writes), so that a new module cannot be left out.
sources=()
for f in src/*/*.c; do
  case $f in src/cli/* | src/io/* | src/run/*) ;; *) sources+=("$f") ;; esac
done
sources+=("$out/schemes_data.c" tests/fuzz/fuzz_config.c)
# shellcheck disable=SC2046
"$cc" -std=c11 -g -O1 -fopenmp -D_POSIX_C_SOURCE=200809L \
  -DDEM_VERSION_STRING='"fuzz"' -Iinclude -Isrc $(pkg-config --cflags yaml-0.1) \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -fno-omit-frame-pointer "${sources[@]}" -o "$out/fuzz_config" \
  $(pkg-config --libs yaml-0.1) -lm

for f in examples/*.yaml examples/validation/*.yaml configs/schemes/*.yaml \
  tests/bad_inputs/*.yaml tests/fuzz/regressions/*; do
  [ -f "$f" ] && cp "$f" "$out/corpus/seed_$(basename "$f")"
done

# Huge allocations (count: 100000000) return NULL and take dem's
# out-of-memory path instead of counting as a crash.
export ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1
cd "$out/work" # shape files named by the inputs are looked up here
set +e
"$out/fuzz_config" -max_total_time="$seconds" -max_len=4096 -timeout=30 \
  -rss_limit_mb=2048 -seed=1 -print_final_stats=1 \
  -dict="$root/tests/fuzz/config.dict" \
  -artifact_prefix="$root/tests/fuzz/regressions/" \
  "$out/corpus" < /dev/null > "$out/fuzz.log" 2>&1
rc=$?
set -e
tail -n 15 "$out/fuzz.log"
if [ "$rc" -ne 0 ]; then
  echo "fuzz: the target failed (exit $rc); the input is in tests/fuzz/regressions/:" >&2
  grep -E "Test unit written|ERROR|SUMMARY" "$out/fuzz.log" >&2 || true
  exit 1
fi
echo "fuzz: ${seconds}s without a crash"
