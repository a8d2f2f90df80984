# The shared start of the shell tests, sourced with NAME set to the test's name: DEM and SRC from the arguments, a work folder removed at exit, the ok/bad counters, and need_python.
set -u
DEM=$(realpath "$1")
SRC=$(realpath "$2")
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
# tests/same_run.py and tools/demfile.py, importable by the tests' python
# checks
export PYTHONPATH="$SRC/tests:$SRC/tools${PYTHONPATH:+:$PYTHONPATH}"

ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  echo "FAIL: $*"
}

# need_python MODULE...: PY, the first of Debian's python3 and the python3
# on PATH that imports them all; else the test fails at once.
need_python() {
  local p mods
  mods=$(IFS=,; echo "$*")
  PY=""
  for p in /usr/bin/python3 python3; do
    if command -v "$p" > /dev/null && "$p" -c "import $mods" 2> /dev/null; then
      PY=$p
      return 0
    fi
  done
  echo "FAIL: no python3 with $mods (tools/install_deps.sh installs them: python3-numpy python3-h5py python3-matplotlib python3-yaml)"
  echo "$NAME: 0 passed, 1 failed"
  exit 1
}

# plate_stl FILE: a unit square in the plane z = 0 (two triangles, one flat
# patch), ASCII STL.
plate_stl() {
  cat > "$1" << 'EOF2'
solid plate
 facet normal 0 0 1
  outer loop
   vertex 0 0 0
   vertex 1 0 0
   vertex 1 1 0
  endloop
 endfacet
 facet normal 0 0 1
  outer loop
   vertex 0 0 0
   vertex 1 1 0
   vertex 0 1 0
  endloop
 endfacet
endsolid plate
EOF2
}
