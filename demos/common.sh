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
# The elect flag of a mode's release: before Kafka 2.1 (hw is 0.10.2, kip101 is 1.1) a new
# leader's epoch entry comes with its first append (KAFKA-7415 moved it to the election).
entry() { case "$1" in hw|kip101) echo --epoch-entry first-append ;; esac; }
