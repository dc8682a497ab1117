#!/bin/sh
# tests/tools/layers.sh - common/'s layers have no arrow back up
# (docs/architecture.md).  From the bottom: util, trace, out, analysis, cli;
# a file may use its own layer and the layers below it, never one above, and
# nothing in common/ uses a tool.  Checked twice: by the headers each source
# includes, and by the symbols each built object of librpdcommon.a takes from
# the others (nm), so that a call declared through the umbrella rpd.h counts
# too.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

export LC_ALL=C
SRC=$(cd "$(dirname "$0")/../.." && pwd)
OBJ="$(dirname "$RPD_BIN")/obj"
LAYERS="util trace out analysis cli"

# rank of layer $1 (0 = bottom), empty when it is not a layer
rank() {
  i=0
  for l in $LAYERS; do [ "$l" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done
}
# layer of a path under common/ ("common/out/table.c" -> out; the root's
# rpd.h and internal.h -> "root", shared by every layer)
layer_of() {
  case "$1" in
    common/*/*) l=${1#common/}; echo "${l%%/*}" ;;
    common/*) echo root ;;
  esac
}

# 1. every source of common/ is in a layer folder (or the root's two headers)
bad=
for f in $(cd "$SRC" && find common -type f \( -name '*.c' -o -name '*.h' \) | sort); do
  l=$(layer_of "$f")
  if [ "$l" = root ]; then
    case "$f" in common/rpd.h|common/internal.h) ;; *) bad="$bad $f" ;; esac
  elif [ -z "$(rank "$l")" ]; then
    bad="$bad $f"
  fi
done
check_eq "every file of common/ is in a layer folder ($LAYERS) or is rpd.h/internal.h" "" "$bad"

# 2. headers: each #include "x" of a file in layer L resolves (its own
# folder first, then common/ and each layer, the compiler's order) to a
# header of common/ in L, a layer below, or the root
up= outside=
for f in $(cd "$SRC" && find common -type f \( -name '*.c' -o -name '*.h' \) | sort); do
  l=$(layer_of "$f"); [ "$l" = root ] && continue
  r=$(rank "$l")
  for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$SRC/$f"); do
    hit=
    for d in "$(dirname "$f")" common $(for x in $LAYERS; do echo "common/$x"; done); do
      [ -f "$SRC/$d/$h" ] && { hit=$(realpath -m --relative-to="$SRC" "$SRC/$d/$h"); break; }
    done
    if [ -z "$hit" ]; then outside="$outside $f:$h"; continue; fi
    case "$hit" in common/*) ;; *) outside="$outside $f:$h"; continue ;; esac
    hl=$(layer_of "$hit"); [ "$hl" = root ] && continue
    [ "$(rank "$hl")" -gt "$r" ] && up="$up $f->$hit"
  done
done
check_eq "no header of common/ includes one from a layer above it" "" "$up"
check_eq "every header common/ includes is in common/ (none of a tool's)" "" "$outside"

# 3. symbols: what each object of librpdcommon.a takes from another object
# of common/ is defined in its own layer or below; nothing comes from a tool
if ! command -v nm >/dev/null; then
  skip "symbols by layer" "nm not found"
elif [ ! -d "$OBJ/common" ]; then
  skip "symbols by layer" "no objects in $OBJ/common"
else
  # the objects of the sources under folders $@ (objects of files that
  # were moved or removed may still lie in $OBJ: not looked at)
  objs() {
    (cd "$SRC" && find "$@" -name '*.c' | sort) | while read -r c; do
      [ -f "$OBJ/${c%.c}.o" ] && echo "$OBJ/${c%.c}.o"
    done
  }
  defs=$TESTDIR/defs; : >"$defs"
  for l in $LAYERS; do
    for o in $(objs "common/$l"); do
      nm -g --defined-only "$o" | awk -v l="$l" -v o="${o#$OBJ/}" 'NF == 3 { print $3, l, o }'
    done
  done | sort -k1,1 >"$defs"
  check "the objects of every layer are built" test -s "$defs"
  up=
  for l in $LAYERS; do
    r=$(rank "$l")
    for o in $(objs "common/$l"); do
      for hit in $(nm -u "$o" | awk '{ print $2 }' | sort -u | join - "$defs" | awk '{ print $2 ":" $1 }'); do
        [ "$(rank "${hit%%:*}")" -gt "$r" ] && up="$up ${o#$OBJ/}->${hit}"
      done
    done
  done
  check_eq "no object of common/ uses a symbol of a layer above it" "" "$up"
  # symbols of tools: defined by their objects, not by common/
  tooldefs=$TESTDIR/tooldefs
  for o in $(objs tools augment raptor); do
    nm -g --defined-only "$o" | awk 'NF == 3 { print $3 }'
  done | sort -u | join -v1 - "$defs" >"$tooldefs"
  uses=
  for o in $(objs common); do
    for s in $(nm -u "$o" | awk '{ print $2 }' | sort -u | join - "$tooldefs"); do
      uses="$uses ${o#$OBJ/}->$s"
    done
  done
  check_eq "no object of common/ uses a symbol a tool defines" "" "$uses"
fi
