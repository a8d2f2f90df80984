#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds a small C program against it, with find_package(dem) and with pkg-config.
# Usage: bash tests/cli_install.sh DEM_BINARY SOURCE_DIR
# DEM_BINARY's directory is the build tree installed (nothing is rebuilt).
# The program uses only include/dem/: it prints DEM_VERSION and runs
# dem_run in check mode on an installed example.
NAME=cli_install
. "$(dirname "$0")/lib.sh"
BUILD=$(dirname "$DEM")
finish() {
  echo "cli_install: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit
}

# 1. Install, then move the prefix: the package must not remember where
#    it was installed (dem.pc and demConfig.cmake find it from their place).
if cmake --install "$BUILD" --prefix "$work/stage" > install.log 2>&1; then ok; else
  bad "cmake --install $BUILD failed: $(tail -5 install.log)"
  finish
fi
mv "$work/stage" "$work/prefix"
P=$work/prefix

# 2. What is installed: the binary, exactly the public headers, the
#    library, both package files, every named scheme and every example.
need=(bin/dem include/dem/dem.h share/dem/examples/box_rods.yaml
  share/dem/examples/box_chess.yaml share/dem/examples/chess/Chess_King_100_spheres.txt)
for f in "${need[@]}"; do
  if [ -e "$P/$f" ]; then ok; else bad "not installed: $f"; fi
done
for pattern in 'libdemcore.a' 'demConfig.cmake' 'demConfigVersion.cmake' 'dem.pc'; do
  if [ -n "$(find "$P" -name "$pattern")" ]; then ok; else bad "not installed: $pattern"; fi
done
want=$(cd "$SRC/include" && find . -type f | sort)
got=$(cd "$P/include" && find . -type f | sort)
if [ "$got" = "$want" ]; then ok; else
  bad "installed headers differ from include/: $(tr "\n" " " <<< "$got")"
fi
want=$(cd "$SRC/configs/schemes" && ls)
got=$(cd "$P/share/dem/schemes" 2> /dev/null && ls)
if [ "$got" = "$want" ]; then ok; else bad "installed schemes differ from configs/schemes/"; fi
leaks=$(grep -rIlF -e "$SRC" -e "$BUILD" "$P" 2> /dev/null)
if [ -z "$leaks" ]; then ok; else
  bad "installed files name the source or build tree: $leaks"
fi
pc=$(find "$P" -name dem.pc | head -1)

# 3. The installed dem: the same version, and the chess example finds its
#    sphere packs where they were installed.
if [ "$("$P/bin/dem" --version)" = "$("$DEM" --version)" ]; then ok; else
  bad "installed dem --version: $("$P/bin/dem" --version 2>&1)"
fi
if "$P/bin/dem" check "$P/share/dem/examples/box_chess.yaml" > out 2> err; then ok; else
  bad "installed dem check box_chess.yaml: $(cat err)"
fi

# 4. The program, built both ways, must print the version and check the
#    installed example, and report a missing config with dem's message.
cat > use_dem.c << 'EOF'
/* Checks the config named on the command line with dem's public API. */
#include <stdio.h>

#include <dem/dem.h>

int main(int argc, char **argv) {
  struct dem_run_options opt = {0};
  if (argc != 2)
    return 64;
  opt.config_path = argv[1];
  opt.check_only = 1;
  opt.quiet = 1;
  dem_status st = dem_run(&opt);
  printf("dem %s: %s\n", DEM_VERSION,
         st == DEM_OK ? "ok" : dem_last_error());
  return dem_status_exit_code(st);
}
EOF
version=$("$DEM" --version | awk '{print $2}')
check_program() { # check_program NAME EXE
  local name=$1 exe=$2 out rc
  out=$("$exe" "$P/share/dem/examples/box_rods.yaml" 2> err)
  rc=$?
  if [ "$rc" -eq 0 ] && [ "$out" = "dem $version: ok" ]; then ok; else
    bad "$name: box_rods.yaml: exit $rc, printed '$out' $(cat err)"
  fi
  out=$("$exe" no_such.yaml 2> err)
  rc=$?
  if [ "$rc" -eq 2 ] && [[ "$out" == *"no_such.yaml: cannot open"* ]]; then ok; else
    bad "$name: no_such.yaml: exit $rc, printed '$out'"
  fi
}

# 4a. CMake: find_package(dem) and the imported target dem::dem.
mkdir cmake_user
cp use_dem.c cmake_user/
cat > cmake_user/CMakeLists.txt << 'EOF'
cmake_minimum_required(VERSION 3.16)
project(use_dem LANGUAGES C)
find_package(dem 0.1 REQUIRED)
add_executable(use_dem use_dem.c)
target_link_libraries(use_dem PRIVATE dem::dem)
if(NOT EXISTS "${dem_DATA_DIR}/examples/box_rods.yaml")
  message(FATAL_ERROR "dem_DATA_DIR '${dem_DATA_DIR}' holds no examples")
endif()
EOF
if cmake -S cmake_user -B cmake_user/build -DCMAKE_PREFIX_PATH="$P" \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > cmake_user.log 2>&1 &&
  cmake --build cmake_user/build >> cmake_user.log 2>&1; then
  ok
  check_program "find_package(dem)" cmake_user/build/use_dem
  if grep -qF -e "$SRC" -e "$BUILD" cmake_user/build/compile_commands.json; then
    bad "find_package(dem): the compile reaches into the source or build tree"
  else
    ok
  fi
else
  bad "find_package(dem): $(tail -15 cmake_user.log)"
fi

# 4b. pkg-config. Its output is quoted for a shell (the version's define
#     holds quotes), so it goes through eval, as make's $(shell ...) does.
if [ -z "$pc" ]; then
  bad "pkg-config: no dem.pc"
elif flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs dem 2>&1) &&
  eval "${CC:-cc} -std=c11 use_dem.c -o use_dem_pc $flags" > pc.log 2>&1; then
  ok
  check_program "pkg-config dem" ./use_dem_pc
else
  bad "pkg-config dem: $flags $(cat pc.log 2> /dev/null)"
fi

finish
