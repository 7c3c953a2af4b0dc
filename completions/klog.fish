# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_klog_global_optspecs
    string join \n color= allow-broker-dir-writes width= h/help V/version
end

function __fish_klog_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_klog_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_klog_using_subcommand
    set -l cmd (__fish_klog_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c klog -n "__fish_klog_needs_command" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_needs_command" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_needs_command" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_needs_command" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_needs_command" -f -a "create" -d 'Create an empty replica dir: a Kafka log dir holding one partition'
complete -c klog -n "__fish_klog_needs_command" -f -a "elect" -d 'Make a replica the leader at a new leader epoch'
complete -c klog -n "__fish_klog_needs_command" -f -a "alter-isr" -d 'Change a running leader\'s ISR without a new epoch (AlterPartition)'
complete -c klog -n "__fish_klog_needs_command" -f -a "append" -d 'Append records as one producer request to a leader (acks=all)'
complete -c klog -n "__fish_klog_needs_command" -f -a "dump" -d 'Show a replica\'s batches and records, its epoch cache, or any single Kafka file'
complete -c klog -n "__fish_klog_needs_command" -f -a "history" -d 'Who led each partition, at which leader epoch, with which ISR and ELR, and when that changed: replayed from a KRaft metadata log'
complete -c klog -n "__fish_klog_needs_command" -f -a "check" -d 'Verify a replica the way Kafka\'s loader and kafka-dump-log do'
complete -c klog -n "__fish_klog_needs_command" -f -a "txn" -d 'What holds a partition\'s last stable offset (LSO): its open transactions'
complete -c klog -n "__fish_klog_needs_command" -f -a "fetch" -d 'Follower fetch rounds from a leader, with the high-watermark piggyback lag'
complete -c klog -n "__fish_klog_needs_command" -f -a "flush" -d 'fsync a replica\'s log and move its recovery point to the log end'
complete -c klog -n "__fish_klog_needs_command" -f -a "stop" -d 'Shut a replica down cleanly: flush, write the checkpoints and `.kafka_cleanshutdown`'
complete -c klog -n "__fish_klog_needs_command" -f -a "crash" -d 'Stop a replica uncleanly, optionally with damage: power loss, torn write, bit flip, stale high watermark, lost files'
complete -c klog -n "__fish_klog_needs_command" -f -a "recover" -d 'Local recovery of a replica, or (with --leader) restart it as a follower and truncate it the way a Kafka era did, with a record-by-record report'
complete -c klog -n "__fish_klog_needs_command" -f -a "restore" -d 'Put back a log dir as it was before a command written with --allow-broker-dir-writes'
complete -c klog -n "__fish_klog_needs_command" -f -a "diff" -d 'Compare two replicas offset by offset (epoch, timestamp, key, value, headers)'
complete -c klog -n "__fish_klog_needs_command" -f -a "remote" -d 'Read tiered storage (KIP-405): each partition\'s remote segments'
complete -c klog -n "__fish_klog_needs_command" -f -a "tier" -d 'A tiered lab\'s remote tier (KIP-405): the leader\'s copy task and local retention'
complete -c klog -n "__fish_klog_needs_command" -f -a "draw" -d 'Draw replicas as rows of cells aligned by offset, RaftScope-style'
complete -c klog -n "__fish_klog_needs_command" -f -a "demo" -d 'Run a built-in scenario on temp dirs, narrating each step as the command you would type'
complete -c klog -n "__fish_klog_needs_command" -f -a "explore" -d 'Search every history of klog commands within bounds for the shortest one that loses an acked record or leaves two replicas diverged below their HWs, and emit it as a script'
complete -c klog -n "__fish_klog_needs_command" -f -a "lab" -d 'Serve a page on 127.0.0.1 where you act on real replica dirs by clicking, and see the picture and the code that ran after each action'
complete -c klog -n "__fish_klog_needs_command" -f -a "generate" -d 'Write the man pages or a shell completion script (for packagers and shells)'
complete -c klog -n "__fish_klog_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c klog -n "__fish_klog_using_subcommand create" -l topic -d 'Topic name (Kafka\'s rules: 1 to 249 of a-z A-Z 0-9 . _ -, not `.` or `..`)' -r
complete -c klog -n "__fish_klog_using_subcommand create" -l partition -d 'Partition number (the first one, with --partitions)' -r
complete -c klog -n "__fish_klog_using_subcommand create" -l partitions -d 'How many partitions to create: --partition, --partition + 1, ... (a broker\'s data dir)' -r
complete -c klog -n "__fish_klog_using_subcommand create" -l replica-id -d 'Replica (broker) id, written to meta.properties as node.id [default: 0; when adding to an existing log dir, its own]' -r
complete -c klog -n "__fish_klog_using_subcommand create" -l segment-bytes -d 'segment.bytes: roll to a new segment when the active one would exceed this' -r
complete -c klog -n "__fish_klog_using_subcommand create" -l index-interval-bytes -d 'index.interval.bytes: bytes between offset-index entries' -r
complete -c klog -n "__fish_klog_using_subcommand create" -l segment-index-bytes -d 'segment.index.bytes: the most bytes the offset or time index of a segment may hold; the segment rolls when either is full' -r
complete -c klog -n "__fish_klog_using_subcommand create" -l segment-ms -d 'segment.ms: roll when a batch\'s max timestamp is more than this many ms past the segment\'s first batch' -r
complete -c klog -n "__fish_klog_using_subcommand create" -l min-insync-replicas -d 'min.insync.replicas: `append` (acks=all) refuses while the leader\'s ISR, itself included, is smaller (NOT_ENOUGH_REPLICAS), and the HW does not advance then (Kafka 3.7, KAFKA-15583)' -r
complete -c klog -n "__fish_klog_using_subcommand create" -l remote-dir -d 'A tiered lab: the topic gets remote.storage.enable=true and DIR is its remote storage (Kafka\'s LocalTieredStorage layout; made if absent)' -r -F
complete -c klog -n "__fish_klog_using_subcommand create" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand create" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand create" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand create" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand elect" -l partition -d 'The partition dir to use when the log dir holds several (e.g. `orders-3`)' -r
complete -c klog -n "__fish_klog_using_subcommand elect" -l epoch -d 'The new leader epoch (default: one above the largest epoch the replica knows)' -r
complete -c klog -n "__fish_klog_using_subcommand elect" -l isr -d 'Followers in the ISR (their log dirs); the leader is always in it' -r -F
complete -c klog -n "__fish_klog_using_subcommand elect" -l epoch-entry -d 'When the epoch cache gets the new epoch\'s entry' -r -f -a "on-election\t'Kafka >= 2.0.1: the epoch cache gets (epoch, LEO) at election'
first-append\t'Kafka 0.11-2.0.0: the entry appears with the first batch appended in the epoch'"
complete -c klog -n "__fish_klog_using_subcommand elect" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand elect" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand elect" -l allow-other-cluster -d 'Take --isr dirs of another cluster instead of refusing them'
complete -c klog -n "__fish_klog_using_subcommand elect" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand elect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand elect" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand alter-isr" -l partition -d 'The partition dir to use when the log dir holds several (e.g. `orders-3`)' -r
complete -c klog -n "__fish_klog_using_subcommand alter-isr" -l isr -d 'The followers of the new ISR (their log dirs); the leader is always in it, and none leaves it alone' -r -F
complete -c klog -n "__fish_klog_using_subcommand alter-isr" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand alter-isr" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand alter-isr" -l allow-other-cluster -d 'Take --isr dirs of another cluster instead of refusing them (as `elect --allow-other-cluster`)'
complete -c klog -n "__fish_klog_using_subcommand alter-isr" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand alter-isr" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand alter-isr" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand append" -l partition -d 'The partition dir to use when the log dir holds several (e.g. `orders-3`)' -r
complete -c klog -n "__fish_klog_using_subcommand append" -l key -d 'Key of every record (default: null)' -r
complete -c klog -n "__fish_klog_using_subcommand append" -l header -d 'A header on every record, `K=V` (repeatable; `K` alone gives a null value)' -r
complete -c klog -n "__fish_klog_using_subcommand append" -l count -d 'Generate this many records (with --value-size)' -r
complete -c klog -n "__fish_klog_using_subcommand append" -l value-size -d 'Size in bytes of each generated value' -r
complete -c klog -n "__fish_klog_using_subcommand append" -l records-per-batch -d 'Records per batch (default: all given values in one batch; for --count, as many as fit in 1 MiB)' -r
complete -c klog -n "__fish_klog_using_subcommand append" -l timestamp -d 'Timestamp of every record in ms since the epoch (default: now)' -r
complete -c klog -n "__fish_klog_using_subcommand append" -l compression -d 'Compress each batch\'s records with this codec (Kafka\'s framing for each)' -r -f -a "none\t''
gzip\t''
snappy\t'Snappy in snappy-java\'s xerial framing, as Kafka writes it'
lz4\t'Kafka\'s LZ4 frame'
zstd\t''"
complete -c klog -n "__fish_klog_using_subcommand append" -l producer-id -d 'Write the batches as this idempotent producer (its producer id; default: none, -1)' -r
complete -c klog -n "__fish_klog_using_subcommand append" -l producer-epoch -d 'The producer\'s epoch (default 0)' -r
complete -c klog -n "__fish_klog_using_subcommand append" -l sequence -d 'The first batch\'s base sequence (default: the one the producer\'s state expects next)' -r
complete -c klog -n "__fish_klog_using_subcommand append" -l end-txn -d 'Instead of records, append the marker a transaction coordinator writes to end the producer\'s transaction; an ABORT also gets its aborted-index (.txnindex) entry' -r -f -a "commit\t''
abort\t''"
complete -c klog -n "__fish_klog_using_subcommand append" -l coordinator-epoch -d 'The coordinator epoch the marker carries (default 0)' -r
complete -c klog -n "__fish_klog_using_subcommand append" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand append" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand append" -l stdin -d 'Read record values from standard input, one per line'
complete -c klog -n "__fish_klog_using_subcommand append" -l flush -d 'fsync the data and move the recovery point to the log end'
complete -c klog -n "__fish_klog_using_subcommand append" -l transactional -d 'Write the batches inside the producer\'s transaction (the first one opens it)'
complete -c klog -n "__fish_klog_using_subcommand append" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand append" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand append" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand dump" -l partition -d 'The partition dir to use when the log dir holds several' -r
complete -c klog -n "__fish_klog_using_subcommand dump" -l format -d 'Output form: `table`, `json` (JSON lines), or `kafka` (the lines of `kafka-dump-log.sh --deep-iteration --print-data-log`; with --batches, batch lines only)' -r -f -a "table\t'Tables for people'
json\t'JSON lines, one object per line with a `type`'
kafka\t'The lines kafka-dump-log prints, for scripts written against it'"
complete -c klog -n "__fish_klog_using_subcommand dump" -l from -d 'Start at the batch holding this offset' -r
complete -c klog -n "__fish_klog_using_subcommand dump" -l limit -d 'Show at most N records (N batches with --batches)' -r
complete -c klog -n "__fish_klog_using_subcommand dump" -l since -d 'Records with a timestamp at or after TIME (ISO-8601 such as 2026-12-07T03:00:00Z, or epoch ms). The dump starts where Kafka\'s ListOffsets by timestamp would: found with the time index, not by reading the log (with --batches: from the batch holding that record)' -r
complete -c klog -n "__fish_klog_using_subcommand dump" -l until -d 'Records with a timestamp before TIME (same forms as --since; TIME itself excluded)' -r
complete -c klog -n "__fish_klog_using_subcommand dump" -l to -d 'Stop after this offset (records at or below it; with --batches, batches starting at or below it)' -r
complete -c klog -n "__fish_klog_using_subcommand dump" -l key -d 'Records whose key is exactly KEY (its UTF-8 bytes)' -r
complete -c klog -n "__fish_klog_using_subcommand dump" -l key-regex -d 'Records whose key matches REGEX (Rust regex syntax over the key\'s bytes)' -r
complete -c klog -n "__fish_klog_using_subcommand dump" -l header -d 'Records carrying a header NAME (with value VALUE when given); repeat to require several' -r
complete -c klog -n "__fish_klog_using_subcommand dump" -l value-regex -d 'Records whose value matches REGEX (Rust regex syntax over the value\'s bytes)' -r
complete -c klog -n "__fish_klog_using_subcommand dump" -l topic -d 'Dump every partition of this topic in the log dir, one after another (the dir of a broker holding several partitions)' -r
complete -c klog -n "__fish_klog_using_subcommand dump" -l value-format -d 'Show record values as `text`, `hex` or `base64`, and name a value in Confluent\'s wire format (magic byte 0, a 4-byte schema id) with its schema id' -r -f -a "text\t'UTF-8 text where the value is (otherwise the output form\'s own way to show bytes)'
hex\t'Two lower-case hex digits a byte'
base64\t'Standard base64 with padding'"
complete -c klog -n "__fish_klog_using_subcommand dump" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand dump" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand dump" -l epochs -d 'Show the epoch cache (epoch, start, end, records) checked against the batch stamps'
complete -c klog -n "__fish_klog_using_subcommand dump" -l json -d 'Write JSON lines instead of a table (the same as `--format json`)'
complete -c klog -n "__fish_klog_using_subcommand dump" -l batches -d 'One row per batch instead of one per record'
complete -c klog -n "__fish_klog_using_subcommand dump" -l count -d 'Print only the number of records shown (of batches with --batches)'
complete -c klog -n "__fish_klog_using_subcommand dump" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand dump" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand dump" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand history" -l partition -d 'Only this partition (`topic-N`)' -r
complete -c klog -n "__fish_klog_using_subcommand history" -l replica -d 'A replica\'s log dir to set beside the timeline (repeat for several)' -r -F
complete -c klog -n "__fish_klog_using_subcommand history" -l svg -d 'Also write the timelines as a self-contained SVG file' -r -F
complete -c klog -n "__fish_klog_using_subcommand history" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand history" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand history" -l json -d 'Write JSON lines instead of text'
complete -c klog -n "__fish_klog_using_subcommand history" -l picture -d 'Draw who led when instead of the table: per partition, a column per change and a row per replica (L leads, I in the ISR, E in the ELR)'
complete -c klog -n "__fish_klog_using_subcommand history" -l force -d 'Replace an existing file at --svg FILE that is not klog\'s own SVG output (never inside a Kafka log dir)'
complete -c klog -n "__fish_klog_using_subcommand history" -l allow-other-cluster -d 'Set --replica dirs of another cluster beside the timeline instead of refusing them'
complete -c klog -n "__fish_klog_using_subcommand history" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand history" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand check" -l partition -d 'The partition dir to use when the log dir holds several (e.g. `orders-3`)' -r
complete -c klog -n "__fish_klog_using_subcommand check" -l remote-dir -d 'Tiered storage: a LocalTieredStorage dir (its `rsm.config.dir`, or the `kafka-tiered-storage` dir in it) whose remote segments are checked with the `__remote_log_metadata` the data dirs hold (as `klog remote --remote-dir`). Without it, data dirs holding that topic are checked across the tiers from the metadata alone' -r -F
complete -c klog -n "__fish_klog_using_subcommand check" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand check" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand check" -l cluster -d 'Take the DIRs as the data dirs of several brokers of one cluster (copies), at least two: per partition, every replica found is lined up against the current leader (from `__cluster_metadata-0` when a dir holds it, with the metadata offset; else assumed: the highest latest leader epoch, then the largest log end), with where each diverges, the acknowledged records (below a replica\'s checkpointed HW) the leader does not hold, and when no clean leader is left klog\'s advice and the replica Kafka would elect, each with what it loses. Implied by more DIRs than the command\'s usual form takes. Never writes'
complete -c klog -n "__fish_klog_using_subcommand check" -l allow-other-cluster -d 'Read dirs (or a --metadata log) of more than one cluster together instead of refusing'
complete -c klog -n "__fish_klog_using_subcommand check" -l json -d 'Write findings as JSON lines'
complete -c klog -n "__fish_klog_using_subcommand check" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand check" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand txn" -l partition -d 'The partition dir to use when a log dir holds several (e.g. `orders-3`); with several data dirs, that partition in each' -r
complete -c klog -n "__fish_klog_using_subcommand txn" -l format -d 'Output form: `table`, `json`, or `kafka` (the tables `kafka-transactions.sh describe-producers` prints for each partition, then `find-hanging`\'s for the open transactions the coordinator\'s log among the dirs does not expect)' -r -f -a "table\t'Text for people'
json\t'One JSON object per partition (and a summary line for a data dir)'
kafka\t'The tables kafka-transactions.sh prints, for scripts written against it'"
complete -c klog -n "__fish_klog_using_subcommand txn" -l max-transaction-timeout -d 'With `--format kafka`: find-hanging\'s `--max-transaction-timeout`, in minutes (an open transaction whose last write is younger is not listed)' -r
complete -c klog -n "__fish_klog_using_subcommand txn" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand txn" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand txn" -l json -d 'Write JSON instead of text (the same as `--format json`)'
complete -c klog -n "__fish_klog_using_subcommand txn" -l allow-other-cluster -d 'Read data dirs of more than one cluster together instead of refusing'
complete -c klog -n "__fish_klog_using_subcommand txn" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand txn" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand txn" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand fetch" -l leader -d 'The leader\'s log dir' -r -F
complete -c klog -n "__fish_klog_using_subcommand fetch" -l partition -d 'The partition dir to use when the log dirs hold several' -r
complete -c klog -n "__fish_klog_using_subcommand fetch" -l rounds -d 'Number of fetch rounds (1 to 1,000,000)' -r
complete -c klog -n "__fish_klog_using_subcommand fetch" -l max-bytes -d 'Most bytes one round returns (at least one whole batch is always returned)' -r
complete -c klog -n "__fish_klog_using_subcommand fetch" -l mode -d 'Which Kafka era\'s follower rules to apply (needs --leader): the rules of the era\'s last release (hw: 0.10.2.2, kip101: 1.1.1, kip279: the newest). Default: kip279' -r -f -a "hw\t'Kafka <= 0.10.2: truncate to the follower\'s own high watermark'
kip101\t'Kafka 0.11-1.1 (KIP-101): OffsetsForLeaderEpoch v0, offset-only answer'
kip279\t'Kafka >= 2.0 (KIP-279): (epoch, end offset) answers until the epochs agree'"
complete -c klog -n "__fish_klog_using_subcommand fetch" -l kafka -d 'The Kafka release whose follower rules to apply, X.Y[.Z] (0.A.B[.C] on the 0.x line), e.g. 0.11.0.3, 1.1.0, 2.0.1, 2.8.2 (needs --leader; instead of --mode)' -r
complete -c klog -n "__fish_klog_using_subcommand fetch" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand fetch" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand fetch" -l until-caught-up -d 'Fetch until nothing is copied and both high watermarks are equal'
complete -c klog -n "__fish_klog_using_subcommand fetch" -l flush -d 'fsync the follower after each round (moves its recovery point)'
complete -c klog -n "__fish_klog_using_subcommand fetch" -l no-fencing -d 'No FENCED_LEADER_EPOCH check (Kafka before KIP-320): fetch from the leader followed even when the follower has seen a larger epoch'
complete -c klog -n "__fish_klog_using_subcommand fetch" -l json -d 'Write one JSON object per round'
complete -c klog -n "__fish_klog_using_subcommand fetch" -l explain -d 'Also print each round\'s fetch procedure as pseudo-code, with the lines that ran marked and the values they saw'
complete -c klog -n "__fish_klog_using_subcommand fetch" -l allow-other-cluster -d 'Fetch between dirs of another cluster instead of refusing them'
complete -c klog -n "__fish_klog_using_subcommand fetch" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand fetch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand fetch" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand flush" -l partition -d 'The partition dir to use when the log dir holds several (e.g. `orders-3`)' -r
complete -c klog -n "__fish_klog_using_subcommand flush" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand flush" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand flush" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand flush" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand flush" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand stop" -l partition -d 'The partition dir to use when the log dir holds several (e.g. `orders-3`)' -r
complete -c klog -n "__fish_klog_using_subcommand stop" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand stop" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand stop" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand stop" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand stop" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand crash" -l partition -d 'The partition dir to use when the log dir holds several (e.g. `orders-3`)' -r
complete -c klog -n "__fish_klog_using_subcommand crash" -l torn-bytes -d 'Cut N bytes off the end of the active segment (a torn write)' -r
complete -c klog -n "__fish_klog_using_subcommand crash" -l flip-byte -d 'Flip (xor 0xff) the byte at POSITION of the active segment; without POSITION, a byte of a batch chosen with --seed' -r
complete -c klog -n "__fish_klog_using_subcommand crash" -l seed -d 'Seed for the random choice of --flip-byte (needs --flip-byte without POSITION)' -r
complete -c klog -n "__fish_klog_using_subcommand crash" -l hw -d 'Leave this value in the HW checkpoint (a stale one, or any)' -r
complete -c klog -n "__fish_klog_using_subcommand crash" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand crash" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand crash" -l power-loss -d 'Cut every segment back to the recovery point: what only the page cache held is gone'
complete -c klog -n "__fish_klog_using_subcommand crash" -l drop-epoch-checkpoint -d 'Remove leader-epoch-checkpoint'
complete -c klog -n "__fish_klog_using_subcommand crash" -l drop-index -d 'Remove the active segment\'s .index and .timeindex'
complete -c klog -n "__fish_klog_using_subcommand crash" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand crash" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand crash" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand recover" -l leader -d 'Restart DIR as a follower of this leader and truncate it by --mode' -r -F
complete -c klog -n "__fish_klog_using_subcommand recover" -l mode -d 'Which Kafka era\'s follower rules to apply (needs --leader): the rules of the era\'s last release (hw: 0.10.2.2, kip101: 1.1.1, kip279: the newest). Default: kip279' -r -f -a "hw\t'Kafka <= 0.10.2: truncate to the follower\'s own high watermark'
kip101\t'Kafka 0.11-1.1 (KIP-101): OffsetsForLeaderEpoch v0, offset-only answer'
kip279\t'Kafka >= 2.0 (KIP-279): (epoch, end offset) answers until the epochs agree'"
complete -c klog -n "__fish_klog_using_subcommand recover" -l kafka -d 'The Kafka release whose follower rules to apply, X.Y[.Z] (0.A.B[.C] on the 0.x line), e.g. 0.11.0.3, 1.1.0, 2.0.1, 2.8.2 (needs --leader; instead of --mode)' -r
complete -c klog -n "__fish_klog_using_subcommand recover" -l context -d 'Kept records shown before the first truncated or divergent offset (needs --leader)' -r
complete -c klog -n "__fish_klog_using_subcommand recover" -l partition -d 'The partition dir to use when the log dirs hold several' -r
complete -c klog -n "__fish_klog_using_subcommand recover" -l leader-epoch -d 'With --dry-run (e.g. on a broker\'s data dirs, from the cluster\'s metadata): the epoch the controller gave LEADER. A leader stamps its epoch at its log end when it takes over, so one above the latest in LEADER\'s cache starts there. Default: the latest in LEADER\'s cache' -r
complete -c klog -n "__fish_klog_using_subcommand recover" -l metadata -d 'A KRaft metadata log (a log dir holding __cluster_metadata-0, e.g. a controller\'s, or that dir) to take each partition\'s leader, epoch, ISR and ELR from, with --leader or in the cluster view of several brokers\' dirs. Default: the furthest-along one in LEADER\'s or DIR\'s log dir (the cluster view: in any of the dirs), if any. A metadata log whose log dir records another `cluster.id` than the dirs is refused (see --allow-other-cluster)' -r -F
complete -c klog -n "__fish_klog_using_subcommand recover" -l remote-dir -d 'A tiered leader\'s LocalTieredStorage dir (its `rsm.config.dir`, or the `kafka-tiered-storage` dir in it): a follower below the leader\'s local log start takes the epoch cache of the remote segment it rebuilds from (`.leader_epoch_checkpoint`); without it, the leader\'s own cache up to that point is shown instead' -r -F
complete -c klog -n "__fish_klog_using_subcommand recover" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand recover" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand recover" -l cluster -d 'Take the DIRs as the data dirs of several brokers of one cluster (copies), at least two: per partition, every replica found is lined up against the current leader (from `__cluster_metadata-0` when a dir holds it, with the metadata offset; else assumed: the highest latest leader epoch, then the largest log end), with where each diverges, the acknowledged records (below a replica\'s checkpointed HW) the leader does not hold, and when no clean leader is left klog\'s advice and the replica Kafka would elect, each with what it loses. Implied by more DIRs than the command\'s usual form takes. Never writes'
complete -c klog -n "__fish_klog_using_subcommand recover" -l allow-other-cluster -d 'Read dirs (or a --metadata log) of more than one cluster together instead of refusing'
complete -c klog -n "__fish_klog_using_subcommand recover" -l dry-run -d 'Print the same report and change nothing on disk'
complete -c klog -n "__fish_klog_using_subcommand recover" -l catch-up -d 'Then fetch until caught up and report what arrived and whether the logs agree'
complete -c klog -n "__fish_klog_using_subcommand recover" -l json -d 'Write the report as one JSON document'
complete -c klog -n "__fish_klog_using_subcommand recover" -l explain -d 'Also print the mode\'s follower truncation procedure as pseudo-code, with the lines that ran in this recovery marked and the values they saw (needs --leader, and one partition: not with a data dir\'s restart plan)'
complete -c klog -n "__fish_klog_using_subcommand recover" -l no-fencing -d 'No FENCED_LEADER_EPOCH check (Kafka before KIP-320): follow the leader even when its epoch is below one this replica has seen. A running replica still ignores a leader change not above its epoch, as every release does'
complete -c klog -n "__fish_klog_using_subcommand recover" -l told-first -d 'DIR was told that LEADER leads at --leader-epoch before LEADER was (a leader still running at a lower epoch): refused from KIP-320 (Kafka 2.1: UNKNOWN_LEADER_EPOCH until LEADER has taken it); with --no-fencing LEADER answers from the log it has and is left as it is (the stale receiver before KIP-320)'
complete -c klog -n "__fish_klog_using_subcommand recover" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand recover" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand recover" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand restore" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand restore" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand restore" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand restore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand restore" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand diff" -l partition -d 'The partition dir to use when the log dirs hold several' -r
complete -c klog -n "__fish_klog_using_subcommand diff" -l from -d 'Compare from this offset on (one partition: the offsets of the two replicas)' -r
complete -c klog -n "__fish_klog_using_subcommand diff" -l to -d 'Compare up to this offset, included (one partition)' -r
complete -c klog -n "__fish_klog_using_subcommand diff" -l since -d 'Compare from the first offset whose record is at or after TIME on either side (ISO-8601 or epoch ms; one partition), found with the time index as `dump --since` finds it' -r
complete -c klog -n "__fish_klog_using_subcommand diff" -l until -d 'Compare up to the last offset before the first record at or after TIME, on the side where that is later (same forms as --since; one partition)' -r
complete -c klog -n "__fish_klog_using_subcommand diff" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand diff" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand diff" -l cluster -d 'Take the DIRs as the data dirs of several brokers of one cluster (copies), at least two: per partition, every replica found is lined up against the current leader (from `__cluster_metadata-0` when a dir holds it, with the metadata offset; else assumed: the highest latest leader epoch, then the largest log end), with where each diverges, the acknowledged records (below a replica\'s checkpointed HW) the leader does not hold, and when no clean leader is left klog\'s advice and the replica Kafka would elect, each with what it loses. Implied by more DIRs than the command\'s usual form takes. Never writes'
complete -c klog -n "__fish_klog_using_subcommand diff" -l allow-other-cluster -d 'Read dirs (or a --metadata log) of more than one cluster together instead of refusing'
complete -c klog -n "__fish_klog_using_subcommand diff" -l json -d 'Write the comparison as one JSON document'
complete -c klog -n "__fish_klog_using_subcommand diff" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand diff" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand remote" -l remote-dir -d 'A LocalTieredStorage dir (its `rsm.config.dir`, or the `kafka-tiered-storage` dir in it): each remote segment\'s files checked against the metadata (required files, the log\'s batches, offsets and size, the leader-epoch checkpoint), files without metadata, finished segments without files, copies started and never finished' -r -F
complete -c klog -n "__fish_klog_using_subcommand remote" -l retention-ms -d 'Forecast each leader\'s remote expiration with this `retention.ms` in place of the topic\'s (what the next run deletes if the topic is altered to it; -1: no limit)' -r
complete -c klog -n "__fish_klog_using_subcommand remote" -l retention-bytes -d 'Forecast each leader\'s remote expiration with this `retention.bytes` in place of the topic\'s (the partition\'s size across both tiers it keeps; -1: no limit)' -r
complete -c klog -n "__fish_klog_using_subcommand remote" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand remote" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand remote" -l json -d 'JSON lines, one object per line with a `type`'
complete -c klog -n "__fish_klog_using_subcommand remote" -l allow-other-cluster -d 'Read data dirs of several clusters together'
complete -c klog -n "__fish_klog_using_subcommand remote" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand remote" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand remote" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand tier; and not __fish_seen_subcommand_from copy retain expire help" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand tier; and not __fish_seen_subcommand_from copy retain expire help" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand tier; and not __fish_seen_subcommand_from copy retain expire help" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand tier; and not __fish_seen_subcommand_from copy retain expire help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand tier; and not __fish_seen_subcommand_from copy retain expire help" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand tier; and not __fish_seen_subcommand_from copy retain expire help" -f -a "copy" -d 'One run of the leader\'s copy task: copy the closed segments below the last stable offset that remote storage lacks'
complete -c klog -n "__fish_klog_using_subcommand tier; and not __fish_seen_subcommand_from copy retain expire help" -f -a "retain" -d 'Local retention of a tiered partition: delete local segments only below the highest offset in remote storage'
complete -c klog -n "__fish_klog_using_subcommand tier; and not __fish_seen_subcommand_from copy retain expire help" -f -a "expire" -d 'One run of the leader\'s remote expiration task: delete the remote segments Kafka 4.4\'s leader would, as `klog remote` forecasts them'
complete -c klog -n "__fish_klog_using_subcommand tier; and not __fish_seen_subcommand_from copy retain expire help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from copy" -l partition -d 'The partition dir to use when the log dir holds several (e.g. `orders-3`)' -r
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from copy" -l remote-dir -d 'The LocalTieredStorage dir (default: the one the lab records)' -r -F
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from copy" -l stop-after-files -d 'Stop the first copy after its COPY_SEGMENT_STARTED record and N of its files (0-6, in LocalTieredStorage\'s order: .log, .index, .timeindex, .txnindex if any, the leader epoch checkpoint, the producer snapshot): no COPY_SEGMENT_FINISHED, as a broker killed during an upload leaves it' -r
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from copy" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from copy" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from copy" -l json -d 'One JSON object per segment copied, then a summary'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from copy" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from copy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from copy" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from retain" -l partition -d 'The partition dir to use when the log dir holds several (e.g. `orders-3`)' -r
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from retain" -l local-retention-bytes -d 'local.retention.bytes: delete the oldest segments while the local log is larger than N bytes by at least the segment\'s size' -r
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from retain" -l local-retention-ms -d 'local.retention.ms: delete the oldest segments whose largest timestamp is more than MS before now' -r
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from retain" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from retain" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from retain" -l json -d 'JSON: one object'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from retain" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from retain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from retain" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from expire" -l partition -d 'The partition dir to use when the log dir holds several (e.g. `orders-3`)' -r
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from expire" -l remote-dir -d 'The LocalTieredStorage dir (default: the one the lab records)' -r -F
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from expire" -l retention-ms -d 'The topic\'s retention.ms (default Kafka\'s, 604800000: 7 days; -1: no limit)' -r
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from expire" -l retention-bytes -d 'The topic\'s retention.bytes: the partition\'s size across both tiers it keeps (default -1: no limit)' -r
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from expire" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from expire" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from expire" -l json -d 'JSON lines: one object per segment deleted, then a summary'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from expire" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from expire" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from expire" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from help" -f -a "copy" -d 'One run of the leader\'s copy task: copy the closed segments below the last stable offset that remote storage lacks'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from help" -f -a "retain" -d 'Local retention of a tiered partition: delete local segments only below the highest offset in remote storage'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from help" -f -a "expire" -d 'One run of the leader\'s remote expiration task: delete the remote segments Kafka 4.4\'s leader would, as `klog remote` forecasts them'
complete -c klog -n "__fish_klog_using_subcommand tier; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c klog -n "__fish_klog_using_subcommand draw" -l partition -d 'The partition dir to use when the log dirs hold several' -r
complete -c klog -n "__fish_klog_using_subcommand draw" -l from -d 'First offset to draw (default: a little before the first divergence, else the lowest HW)' -r
complete -c klog -n "__fish_klog_using_subcommand draw" -l limit -d 'Offsets to draw (the terminal shows as many of them as fit)' -r
complete -c klog -n "__fish_klog_using_subcommand draw" -l svg -d 'Also write the picture as a self-contained SVG file' -r -F
complete -c klog -n "__fish_klog_using_subcommand draw" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand draw" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand draw" -l force -d 'Replace an existing file at --svg FILE that is not klog\'s own SVG output (never inside a Kafka log dir)'
complete -c klog -n "__fish_klog_using_subcommand draw" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand draw" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand draw" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand demo" -l mode -d 'Truncation mode(s) to run the scenario under (default: hw and kip101; kip101 and kip279 for the kip279 scenario)' -r -f -a "hw\t''
kip101\t''
kip279\t''
all\t'All three, one after another'"
complete -c klog -n "__fish_klog_using_subcommand demo" -l dir -d 'Run in this (empty or absent) directory instead of a temp dir' -r -F
complete -c klog -n "__fish_klog_using_subcommand demo" -l capture -d 'Also write the run as one self-contained HTML filmstrip (one frame per step, stepped with the arrow keys or a slider; `FILE#step=N` opens frame N)' -r -F
complete -c klog -n "__fish_klog_using_subcommand demo" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand demo" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand demo" -l keep -d 'Keep the temp dir (its path is printed)'
complete -c klog -n "__fish_klog_using_subcommand demo" -l predict -d 'Stop before each step whose outcome the scenario is about, ask what will happen, read the answer from stdin, then show the truth and why; end with a score'
complete -c klog -n "__fish_klog_using_subcommand demo" -l step -d 'Pause before each step until Enter (a line on stdin); at the end of input the rest runs without pausing. `--predict` already pauses at each question'
complete -c klog -n "__fish_klog_using_subcommand demo" -l explain -d 'After each step, the procedure that ran (election, append, fetch round, recovery), in klog\'s words, with the lines that ran marked and the values they saw'
complete -c klog -n "__fish_klog_using_subcommand demo" -l force -d 'Replace an existing file at --capture FILE that is not klog\'s own filmstrip output (never inside a Kafka log dir)'
complete -c klog -n "__fish_klog_using_subcommand demo" -l plain -d 'Show each replica as one `offset:(epoch,value)` line instead of the picture'
complete -c klog -n "__fish_klog_using_subcommand demo" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand demo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand demo" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand explore" -l mode -d 'Truncation mode(s) to explore, each by the rules of its era\'s last release (hw: 0.10.2.2, kip101: 1.1.1, kip279: the newest)' -r -f -a "hw\t''
kip101\t''
kip279\t''
all\t'All three, one after another'"
complete -c klog -n "__fish_klog_using_subcommand explore" -l kafka -d 'Explore one Kafka release\'s rules instead, X.Y[.Z] (0.A.B[.C] on the 0.x line)' -r
complete -c klog -n "__fish_klog_using_subcommand explore" -l replicas -d 'Number of replicas (2 or 3)' -r
complete -c klog -n "__fish_klog_using_subcommand explore" -l max-epochs -d 'Most elections in a history (epochs 0 .. E-1)' -r
complete -c klog -n "__fish_klog_using_subcommand explore" -l max-records -d 'Most records appended in a history' -r
complete -c klog -n "__fish_klog_using_subcommand explore" -l max-depth -d 'Most actions in a history (the depth of the search)' -r
complete -c klog -n "__fish_klog_using_subcommand explore" -l min-isr -d 'The topic\'s min.insync.replicas: a leader appends only with an ISR that large, itself included, and its HW waits while the ISR is smaller (from Kafka 3.7; on 4.x the KRaft controller also fills Eligible Leader Replicas below it)' -r
complete -c klog -n "__fish_klog_using_subcommand explore" -l elr -d 'Kafka 4.x: Eligible Leader Replicas (KIP-966) on or off. Default: as a new cluster of the release has them (off on 4.0, on from 4.1)' -r
complete -c klog -n "__fish_klog_using_subcommand explore" -l max-states -d 'Stop a search after this many distinct states (it then says so). Default: 25,000,000, or as many as the memory this process may use holds (about 256 bytes a state); a cap above that is refused before the search' -r
complete -c klog -n "__fish_klog_using_subcommand explore" -l script -d 'Write each counterexample as a runnable bash script to FILE (FILE-<mode>.ext for several modes)' -r -F
complete -c klog -n "__fish_klog_using_subcommand explore" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand explore" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand explore" -l unclean -d 'Elections may also pick a live replica outside the ISR (on Kafka 4.x: the admin\'s unclean election, for a partition with no leader)'
complete -c klog -n "__fish_klog_using_subcommand explore" -l no-fencing -d 'Replicas are not fenced by the epochs they have seen (Kafka before KIP-320\'s FENCED_LEADER_EPOCH; the scripts use `recover --no-fencing`, `fetch --no-fencing`). A running replica still ignores a leader change not above its epoch, as every release does; an election may reach a follower before its leader, which answers from its older state (the stale receiver; scripts use `recover --leader-epoch E --told-first`)'
complete -c klog -n "__fish_klog_using_subcommand explore" -l power-loss -d 'Crashes may also drop unflushed bytes; flush becomes an action'
complete -c klog -n "__fish_klog_using_subcommand explore" -l stale-hw -d 'A crash leaves the HW last checkpointed, not the live one: a broker writes replication-offset-checkpoint every 5 s, and the checkpoint becomes an action (the scripts use `crash --hw N`)'
complete -c klog -n "__fish_klog_using_subcommand explore" -l tiered -d 'Tiered storage (KIP-405) by Kafka 4.4\'s rules: log starts, remote segments, `tier copy` and `tier retain --local-retention-bytes 1` as actions, a follower rebuilt from remote; the loss looked for is an acked record a new leader serves from neither tier (an unclean election\'s own loss is accepted). Runs Kafka 4.4.0\'s rules (--kafka 4.4 only)'
complete -c klog -n "__fish_klog_using_subcommand explore" -l force -d 'Replace an existing file at --script FILE that is not klog\'s own script output (never inside a Kafka log dir)'
complete -c klog -n "__fish_klog_using_subcommand explore" -l json -d 'Write everything as one JSON document'
complete -c klog -n "__fish_klog_using_subcommand explore" -l no-timing -d 'Leave the seconds and states per second out of the text (for output compared byte for byte, as the golden tests do)'
complete -c klog -n "__fish_klog_using_subcommand explore" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand explore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand explore" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand lab" -l dir -d 'The lab dir: an empty or absent directory klog makes (default: a new temp dir, printed)' -r -F
complete -c klog -n "__fish_klog_using_subcommand lab" -l port -d 'The port on 127.0.0.1 (0: a random free one)' -r
complete -c klog -n "__fish_klog_using_subcommand lab" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand lab" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand lab" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand lab" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand lab" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand generate; and not __fish_seen_subcommand_from man completions help" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand generate; and not __fish_seen_subcommand_from man completions help" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand generate; and not __fish_seen_subcommand_from man completions help" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand generate; and not __fish_seen_subcommand_from man completions help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand generate; and not __fish_seen_subcommand_from man completions help" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand generate; and not __fish_seen_subcommand_from man completions help" -f -a "man" -d 'Write klog.1 and one page per subcommand into DIR'
complete -c klog -n "__fish_klog_using_subcommand generate; and not __fish_seen_subcommand_from man completions help" -f -a "completions" -d 'Print the completion script for SHELL'
complete -c klog -n "__fish_klog_using_subcommand generate; and not __fish_seen_subcommand_from man completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from man" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from man" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from man" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from man" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from completions" -l color -d 'When to colour output: auto (only on a terminal, and not when NO_COLOR is set), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from completions" -l width -d 'Lay text and tables out to N columns (0: no limit, each table row on one line)' -r
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from completions" -l allow-broker-dir-writes -d 'Let a command write into a log dir klog did not make (a broker\'s: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see `klog restore`)'
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from completions" -s V -l version -d 'Print version'
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from help" -f -a "man" -d 'Write klog.1 and one page per subcommand into DIR'
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from help" -f -a "completions" -d 'Print the completion script for SHELL'
complete -c klog -n "__fish_klog_using_subcommand generate; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "create" -d 'Create an empty replica dir: a Kafka log dir holding one partition'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "elect" -d 'Make a replica the leader at a new leader epoch'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "alter-isr" -d 'Change a running leader\'s ISR without a new epoch (AlterPartition)'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "append" -d 'Append records as one producer request to a leader (acks=all)'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "dump" -d 'Show a replica\'s batches and records, its epoch cache, or any single Kafka file'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "history" -d 'Who led each partition, at which leader epoch, with which ISR and ELR, and when that changed: replayed from a KRaft metadata log'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "check" -d 'Verify a replica the way Kafka\'s loader and kafka-dump-log do'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "txn" -d 'What holds a partition\'s last stable offset (LSO): its open transactions'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "fetch" -d 'Follower fetch rounds from a leader, with the high-watermark piggyback lag'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "flush" -d 'fsync a replica\'s log and move its recovery point to the log end'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "stop" -d 'Shut a replica down cleanly: flush, write the checkpoints and `.kafka_cleanshutdown`'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "crash" -d 'Stop a replica uncleanly, optionally with damage: power loss, torn write, bit flip, stale high watermark, lost files'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "recover" -d 'Local recovery of a replica, or (with --leader) restart it as a follower and truncate it the way a Kafka era did, with a record-by-record report'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "restore" -d 'Put back a log dir as it was before a command written with --allow-broker-dir-writes'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "diff" -d 'Compare two replicas offset by offset (epoch, timestamp, key, value, headers)'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "remote" -d 'Read tiered storage (KIP-405): each partition\'s remote segments'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "tier" -d 'A tiered lab\'s remote tier (KIP-405): the leader\'s copy task and local retention'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "draw" -d 'Draw replicas as rows of cells aligned by offset, RaftScope-style'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "demo" -d 'Run a built-in scenario on temp dirs, narrating each step as the command you would type'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "explore" -d 'Search every history of klog commands within bounds for the shortest one that loses an acked record or leaves two replicas diverged below their HWs, and emit it as a script'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "lab" -d 'Serve a page on 127.0.0.1 where you act on real replica dirs by clicking, and see the picture and the code that ran after each action'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "generate" -d 'Write the man pages or a shell completion script (for packagers and shells)'
complete -c klog -n "__fish_klog_using_subcommand help; and not __fish_seen_subcommand_from create elect alter-isr append dump history check txn fetch flush stop crash recover restore diff remote tier draw demo explore lab generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c klog -n "__fish_klog_using_subcommand help; and __fish_seen_subcommand_from tier" -f -a "copy" -d 'One run of the leader\'s copy task: copy the closed segments below the last stable offset that remote storage lacks'
complete -c klog -n "__fish_klog_using_subcommand help; and __fish_seen_subcommand_from tier" -f -a "retain" -d 'Local retention of a tiered partition: delete local segments only below the highest offset in remote storage'
complete -c klog -n "__fish_klog_using_subcommand help; and __fish_seen_subcommand_from tier" -f -a "expire" -d 'One run of the leader\'s remote expiration task: delete the remote segments Kafka 4.4\'s leader would, as `klog remote` forecasts them'
complete -c klog -n "__fish_klog_using_subcommand help; and __fish_seen_subcommand_from generate" -f -a "man" -d 'Write klog.1 and one page per subcommand into DIR'
complete -c klog -n "__fish_klog_using_subcommand help; and __fish_seen_subcommand_from generate" -f -a "completions" -d 'Print the completion script for SHELL'
