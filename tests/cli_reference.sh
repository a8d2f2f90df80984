#!/usr/bin/env bash
# dem operators and dem schemes speak to users: no internal names in the documentation of operators, rotation integrators, contact models and named schemes, and a paper cited in full (journal, volume, year, page) wherever an equation, appendix or section is named.
# Usage: bash tests/cli_reference.sh DEM_BINARY SOURCE_DIR
NAME=cli_reference
. "$(dirname "$0")/lib.sh"

"$DEM" operators > operators.txt || bad "dem operators failed"
: > schemes.txt
for name in $("$DEM" schemes | awk '{print $1}'); do
  "$DEM" schemes "$name" | sed -n '/^doc:/,/^[a-z_]*:/p' | sed '$d' |
    tr '\n' ' ' | tr -s ' ' | sed "s/^/$name: /" >> schemes.txt
  echo >> schemes.txt
done
[ "$(wc -l < schemes.txt)" -ge 12 ] && ok || bad "fewer than 12 schemes: $(cat schemes.txt)"

# Internal names: struct members, scratch slots, callbacks, flags.
for f in operators.txt schemes.txt; do
  if grep -nE 's->[a-z]|aux\[|aux unused|start\(\)|sync\(\)|before_force\(|step_fn|normalise = [01]|op->|sim->' $f > hits; then
    bad "$f: internal names: $(cat hits)"
  else
    ok
  fi
done

# Every documentation paragraph that names an equation, an appendix or a
# section cites a paper in full: "Journal vol (year) page".
paragraphs() { # one documentation paragraph per line
  awk '/^  / {sub(/^  /, ""); print}' operators.txt
  cat schemes.txt
}
n=0
while IFS= read -r line; do
  case "$line" in
  *"Eq."* | *"Eqs."* | *Appendix* | *"Sec."*)
    n=$((n + 1))
    if [[ "$line" =~ [A-Z][A-Za-z.\ ]+\ [0-9]+\ \((19|20)[0-9][0-9]\)\ [0-9]+ ]]; then
      ok
    else
      bad "names an equation or appendix without a full citation: ${line:0:160}"
    fi
    ;;
  esac
done < <(paragraphs)
[ "$n" -ge 10 ] && ok || bad "only $n paragraphs name an equation or appendix"

echo "cli_reference: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
