# Shared by the demo scripts: where klog is, where the replica dirs go, how a step is shown.
#   KLOG  the klog binary (default: klog on PATH)
#   LAB   directory for the replica dirs (default: a temp dir removed at exit)
#   MODES truncation modes to run, space-separated (each script has its own default)
KLOG=${KLOG:-klog}
if [ -z "${LAB:-}" ]; then
  LAB=$(mktemp -d)
  trap 'rm -rf "$LAB"' EXIT
fi
run() { echo "\$ klog $*"; "$KLOG" "$@"; echo; }
