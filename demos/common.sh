# Shared by the demo scripts: where klog is, where the replica dirs go, how a
# step is shown.
#   KLOG  the klog binary (default: klog on PATH)
#   LAB   directory for the replica dirs (default: a temp dir removed at exit)
#   MODES truncation modes to run, space-separated (each script has its own
#         default)
KLOG=${KLOG:-klog}
if [ -z "${LAB:-}" ]; then
  LAB=$(mktemp -d)
  trap 'rm -rf "$LAB"' EXIT
fi
# Each step as typed (the lab dir shown as $LAB) and its output, laid out to 80
# columns like the terminal demo; a longer line wraps, its continuation
# indented.
WIDTH=${WIDTH:-80}
show() {
  fold -s -w "$((WIDTH - 4))" <<<"$*" | sed -e 's/ *$//' -e '2,$s/^/    /'
}
run() {
  show "\$ klog ${*//"$LAB"/\$LAB}"
  "$KLOG" --width "$WIDTH" "$@"
  echo
}
say() { show "# $*"; }
# The elect flag of a mode's release: before Kafka 2.1 (hw is 0.10.2, kip101 is
# 1.1) a new leader's epoch entry comes with its first append (KAFKA-7415 moved
# it to the election).
entry() { case "$1" in hw|kip101) echo --epoch-entry first-append ;; esac; }
# The modes to run: $MODES, else the script's default ($1). Every mode is
# checked, and every replica dir it would create ($LAB/<mode>, or the dirs given
# after the default), before anything runs: a bad MODES or a LAB from an earlier
# run fails at once, saying what to do.
modes() {
  local default=$1; shift
  local m chosen=${MODES:-$default}
  for m in $chosen; do
    case "$m" in
      hw|kip101|kip279) ;;
      *)
        echo "demo: MODES: unknown mode '$m'" \
          "(give hw, kip101 and/or kip279)" >&2
        exit 2
        ;;
    esac
    fresh "$LAB/$m"
  done
  MODES_CHOSEN=$chosen
}
# Refuse a replica dir an earlier run left: reuse is not what the demo shows.
fresh() {
  local d
  for d in "$@"; do
    if [ -e "$d" ]; then
      echo "demo: $d exists already (an earlier run with this LAB):" \
        "remove it with rm -rf '$d', or give another LAB=" >&2
      exit 2
    fi
  done
}
