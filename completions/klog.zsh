#compdef klog

autoload -U is-at-least

_klog() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_klog_commands" \
"*::: :->klog" \
&& ret=0
    case $state in
    (klog)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:klog-command-$line[1]:"
        case $line[1] in
            (create)
_arguments "${_arguments_options[@]}" : \
'--topic=[Topic name (Kafka'\''s rules\: 1 to 249 of a-z A-Z 0-9 . _ -, not \`.\` or \`..\`)]:TOPIC:_default' \
'--partition=[Partition number (the first one, with --partitions)]:PARTITION:_default' \
'--partitions=[How many partitions to create\: --partition, --partition + 1, ... (a broker'\''s data dir)]:N:_default' \
'--replica-id=[Replica (broker) id, written to meta.properties as node.id \[default\: 0; when adding to an existing log dir, its own\]]:N:_default' \
'--segment-bytes=[segment.bytes\: roll to a new segment when the active one would exceed this]:N:_default' \
'--index-interval-bytes=[index.interval.bytes\: bytes between offset-index entries]:N:_default' \
'--segment-index-bytes=[segment.index.bytes\: the most bytes the offset or time index of a segment may hold; the segment rolls when either is full]:N:_default' \
'--segment-ms=[segment.ms\: roll when a batch'\''s max timestamp is more than this many ms past the segment'\''s first batch]:MS:_default' \
'--min-insync-replicas=[min.insync.replicas\: \`append\` (acks=all) refuses while the leader'\''s ISR, itself included, is smaller (NOT_ENOUGH_REPLICAS), and the HW does not advance then (Kafka 3.7, KAFKA-15583)]:N:_default' \
'--remote-dir=[A tiered lab\: the topic gets remote.storage.enable=true and DIR is its remote storage (Kafka'\''s LocalTieredStorage layout; made if absent)]:DIR:_files' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir -- The log dir to create (one that does not exist or is empty), or a klog log dir to add the partitions to:_files' \
&& ret=0
;;
(elect)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dir holds several (e.g. \`orders-3\`)]:NAME:_default' \
'--epoch=[The new leader epoch (default\: one above the largest epoch the replica knows)]:E:_default' \
'*--isr=[Followers in the ISR (their log dirs); the leader is always in it]:DIR:_files' \
'--epoch-entry=[When the epoch cache gets the new epoch'\''s entry]:EPOCH_ENTRY:((on-election\:"Kafka >= 2.0.1\: the epoch cache gets (epoch, LEO) at election"
first-append\:"Kafka 0.11-2.0.0\: the entry appears with the first batch appended in the epoch"))' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--allow-other-cluster[Take --isr dirs of another cluster instead of refusing them]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir -- A Kafka log dir holding one partition, or a partition dir (`<topic>-<partition>`):_files' \
&& ret=0
;;
(alter-isr)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dir holds several (e.g. \`orders-3\`)]:NAME:_default' \
'*--isr=[The followers of the new ISR (their log dirs); the leader is always in it, and none leaves it alone]:DIR:_files' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--allow-other-cluster[Take --isr dirs of another cluster instead of refusing them (as \`elect --allow-other-cluster\`)]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir -- A Kafka log dir holding one partition, or a partition dir (`<topic>-<partition>`):_files' \
&& ret=0
;;
(append)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dir holds several (e.g. \`orders-3\`)]:NAME:_default' \
'--key=[Key of every record (default\: null)]:K:_default' \
'*--header=[A header on every record, \`K=V\` (repeatable; \`K\` alone gives a null value)]:K=V:_default' \
'(--stdin)--count=[Generate this many records (with --value-size)]:N:_default' \
'--value-size=[Size in bytes of each generated value]:B:_default' \
'--records-per-batch=[Records per batch (default\: all given values in one batch; for --count, as many as fit in 1 MiB)]:N:_default' \
'--timestamp=[Timestamp of every record in ms since the epoch (default\: now)]:MS:_default' \
'--compression=[Compress each batch'\''s records with this codec (Kafka'\''s framing for each)]:COMPRESSION:((none\:""
gzip\:""
snappy\:"Snappy in snappy-java'\''s xerial framing, as Kafka writes it"
lz4\:"Kafka'\''s LZ4 frame"
zstd\:""))' \
'--producer-id=[Write the batches as this idempotent producer (its producer id; default\: none, -1)]:ID:_default' \
'--producer-epoch=[The producer'\''s epoch (default 0)]:E:_default' \
'--sequence=[The first batch'\''s base sequence (default\: the one the producer'\''s state expects next)]:N:_default' \
'(--stdin --count --transactional --sequence)--end-txn=[Instead of records, append the marker a transaction coordinator writes to end the producer'\''s transaction; an ABORT also gets its aborted-index (.txnindex) entry]:END:(commit abort)' \
'--coordinator-epoch=[The coordinator epoch the marker carries (default 0)]:E:_default' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'()--stdin[Read record values from standard input, one per line]' \
'--flush[fsync the data and move the recovery point to the log end]' \
'--transactional[Write the batches inside the producer'\''s transaction (the first one opens it)]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir -- A Kafka log dir holding one partition, or a partition dir (`<topic>-<partition>`):_files' \
'*::values -- Record values, one record each:_default' \
&& ret=0
;;
(dump)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dir holds several]:NAME:_default' \
'--format=[Output form\: \`table\`, \`json\` (JSON lines), or \`kafka\` (the lines of \`kafka-dump-log.sh --deep-iteration --print-data-log\`; with --batches, batch lines only)]:FORMAT:((table\:"Tables for people"
json\:"JSON lines, one object per line with a \`type\`"
kafka\:"The lines kafka-dump-log prints, for scripts written against it"))' \
'--from=[Start at the batch holding this offset]:OFFSET:_default' \
'--limit=[Show at most N records (N batches with --batches)]:N:_default' \
'--since=[Records with a timestamp at or after TIME (ISO-8601 such as 2026-12-07T03\:00\:00Z, or epoch ms). The dump starts where Kafka'\''s ListOffsets by timestamp would\: found with the time index, not by reading the log (with --batches\: from the batch holding that record)]:TIME:_default' \
'(--batches)--until=[Records with a timestamp before TIME (same forms as --since; TIME itself excluded)]:TIME:_default' \
'--to=[Stop after this offset (records at or below it; with --batches, batches starting at or below it)]:OFFSET:_default' \
'(--batches)--key=[Records whose key is exactly KEY (its UTF-8 bytes)]:KEY:_default' \
'(--batches)--key-regex=[Records whose key matches REGEX (Rust regex syntax over the key'\''s bytes)]:REGEX:_default' \
'(--batches)*--header=[Records carrying a header NAME (with value VALUE when given); repeat to require several]:NAME[=VALUE]:_default' \
'(--batches)--value-regex=[Records whose value matches REGEX (Rust regex syntax over the value'\''s bytes)]:REGEX:_default' \
'(--partition)--topic=[Dump every partition of this topic in the log dir, one after another (the dir of a broker holding several partitions)]:NAME:_default' \
'(--batches)--value-format=[Show record values as \`text\`, \`hex\` or \`base64\`, and name a value in Confluent'\''s wire format (magic byte 0, a 4-byte schema id) with its schema id]:FORM:((text\:"UTF-8 text where the value is (otherwise the output form'\''s own way to show bytes)"
hex\:"Two lower-case hex digits a byte"
base64\:"Standard base64 with padding"))' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--epochs[Show the epoch cache (epoch, start, end, records) checked against the batch stamps]' \
'(--format)--json[Write JSON lines instead of a table (the same as \`--format json\`)]' \
'--batches[One row per batch instead of one per record]' \
'(--epochs --limit)--count[Print only the number of records shown (of batches with --batches)]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':path -- A log dir, a partition dir, or a single Kafka file:_files' \
&& ret=0
;;
(history)
_arguments "${_arguments_options[@]}" : \
'--partition=[Only this partition (\`topic-N\`)]:NAME:_default' \
'*--replica=[A replica'\''s log dir to set beside the timeline (repeat for several)]:DIR:_files' \
'(--json)--svg=[Also write the timelines as a self-contained SVG file]:FILE:_files' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--json[Write JSON lines instead of text]' \
'(--json)--picture[Draw who led when instead of the table\: per partition, a column per change and a row per replica (L leads, I in the ISR, E in the ELR)]' \
'--force[Replace an existing file at --svg FILE that is not klog'\''s own SVG output (never inside a Kafka log dir)]' \
'--allow-other-cluster[Set --replica dirs of another cluster beside the timeline instead of refusing them]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':path -- A log dir holding `__cluster_metadata-0`, or that partition dir:_files' \
&& ret=0
;;
(check)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dir holds several (e.g. \`orders-3\`)]:NAME:_default' \
'--remote-dir=[Tiered storage\: a LocalTieredStorage dir (its \`rsm.config.dir\`, or the \`kafka-tiered-storage\` dir in it) whose remote segments are checked with the \`__remote_log_metadata\` the data dirs hold (as \`klog remote --remote-dir\`). Without it, data dirs holding that topic are checked across the tiers from the metadata alone]:DIR:_files' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--cluster[Take the DIRs as the data dirs of several brokers of one cluster (copies), at least two\: per partition, every replica found is lined up against the current leader (from \`__cluster_metadata-0\` when a dir holds it, with the metadata offset; else assumed\: the highest latest leader epoch, then the largest log end), with where each diverges, the acknowledged records (below a replica'\''s checkpointed HW) the leader does not hold, and when no clean leader is left klog'\''s advice and the replica Kafka would elect, each with what it loses. Implied by more DIRs than the command'\''s usual form takes. Never writes]' \
'--allow-other-cluster[Read dirs (or a --metadata log) of more than one cluster together instead of refusing]' \
'--json[Write findings as JSON lines]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir -- A Kafka log dir holding one partition, or a partition dir (`<topic>-<partition>`):_files' \
'*::more -- More brokers'\'' data dirs\: with them (or --cluster) the cluster view, every partition'\''s replicas lined up across the brokers (see --cluster):_files' \
&& ret=0
;;
(txn)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when a log dir holds several (e.g. \`orders-3\`); with several data dirs, that partition in each]:NAME:_default' \
'--format=[Output form\: \`table\`, \`json\`, or \`kafka\` (the tables \`kafka-transactions.sh describe-producers\` prints for each partition, then \`find-hanging\`'\''s for the open transactions the coordinator'\''s log among the dirs does not expect)]:FORM:((table\:"Text for people"
json\:"One JSON object per partition (and a summary line for a data dir)"
kafka\:"The tables kafka-transactions.sh prints, for scripts written against it"))' \
'--max-transaction-timeout=[With \`--format kafka\`\: find-hanging'\''s \`--max-transaction-timeout\`, in minutes (an open transaction whose last write is younger is not listed)]:MINUTES:_default' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'(--format)--json[Write JSON instead of text (the same as \`--format json\`)]' \
'--allow-other-cluster[Read data dirs of more than one cluster together instead of refusing]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::dirs -- A Kafka log dir holding one partition, a partition dir (`<topic>-<partition>`), or one or more brokers'\'' data dirs:_files' \
&& ret=0
;;
(fetch)
_arguments "${_arguments_options[@]}" : \
'--leader=[The leader'\''s log dir]:DIR:_files' \
'--partition=[The partition dir to use when the log dirs hold several]:NAME:_default' \
'(--until-caught-up)--rounds=[Number of fetch rounds (1 to 1,000,000)]:N:_default' \
'--max-bytes=[Most bytes one round returns (at least one whole batch is always returned)]:B:_default' \
'--mode=[Which Kafka era'\''s follower rules to apply (needs --leader)\: the rules of the era'\''s last release (hw\: 0.10.2.2, kip101\: 1.1.1, kip279\: the newest). Default\: kip279]:MODE:((hw\:"Kafka <= 0.10.2\: truncate to the follower'\''s own high watermark"
kip101\:"Kafka 0.11-1.1 (KIP-101)\: OffsetsForLeaderEpoch v0, offset-only answer"
kip279\:"Kafka >= 2.0 (KIP-279)\: (epoch, end offset) answers until the epochs agree"))' \
'(--mode)--kafka=[The Kafka release whose follower rules to apply, X.Y\[.Z\] (0.A.B\[.C\] on the 0.x line), e.g. 0.11.0.3, 1.1.0, 2.0.1, 2.8.2 (needs --leader; instead of --mode)]:RELEASE[,ibp=IBP][,unclean=BOOL]:_default' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--until-caught-up[Fetch until nothing is copied and both high watermarks are equal]' \
'--flush[fsync the follower after each round (moves its recovery point)]' \
'--no-fencing[No FENCED_LEADER_EPOCH check (Kafka before KIP-320)\: fetch from the leader followed even when the follower has seen a larger epoch]' \
'--json[Write one JSON object per round]' \
'(--json)--explain[Also print each round'\''s fetch procedure as pseudo-code, with the lines that ran marked and the values they saw]' \
'--allow-other-cluster[Fetch between dirs of another cluster instead of refusing them]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':follower -- The follower'\''s log dir:_files' \
&& ret=0
;;
(flush)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dir holds several (e.g. \`orders-3\`)]:NAME:_default' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir -- A Kafka log dir holding one partition, or a partition dir (`<topic>-<partition>`):_files' \
&& ret=0
;;
(stop)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dir holds several (e.g. \`orders-3\`)]:NAME:_default' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir -- A Kafka log dir holding one partition, or a partition dir (`<topic>-<partition>`):_files' \
&& ret=0
;;
(crash)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dir holds several (e.g. \`orders-3\`)]:NAME:_default' \
'--torn-bytes=[Cut N bytes off the end of the active segment (a torn write)]:N:_default' \
'--flip-byte=[Flip (xor 0xff) the byte at POSITION of the active segment; without POSITION, a byte of a batch chosen with --seed]::POSITION:_default' \
'--seed=[Seed for the random choice of --flip-byte (needs --flip-byte without POSITION)]:N:_default' \
'--hw=[Leave this value in the HW checkpoint (a stale one, or any)]:N:_default' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--power-loss[Cut every segment back to the recovery point\: what only the page cache held is gone]' \
'--drop-epoch-checkpoint[Remove leader-epoch-checkpoint]' \
'--drop-index[Remove the active segment'\''s .index and .timeindex]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir -- A Kafka log dir holding one partition, or a partition dir (`<topic>-<partition>`):_files' \
&& ret=0
;;
(recover)
_arguments "${_arguments_options[@]}" : \
'--leader=[Restart DIR as a follower of this leader and truncate it by --mode]:LEADER:_files' \
'--mode=[Which Kafka era'\''s follower rules to apply (needs --leader)\: the rules of the era'\''s last release (hw\: 0.10.2.2, kip101\: 1.1.1, kip279\: the newest). Default\: kip279]:MODE:((hw\:"Kafka <= 0.10.2\: truncate to the follower'\''s own high watermark"
kip101\:"Kafka 0.11-1.1 (KIP-101)\: OffsetsForLeaderEpoch v0, offset-only answer"
kip279\:"Kafka >= 2.0 (KIP-279)\: (epoch, end offset) answers until the epochs agree"))' \
'(--mode)--kafka=[The Kafka release whose follower rules to apply, X.Y\[.Z\] (0.A.B\[.C\] on the 0.x line), e.g. 0.11.0.3, 1.1.0, 2.0.1, 2.8.2 (needs --leader; instead of --mode)]:RELEASE[,ibp=IBP][,unclean=BOOL]:_default' \
'--context=[Kept records shown before the first truncated or divergent offset (needs --leader)]:N:_default' \
'--partition=[The partition dir to use when the log dirs hold several]:NAME:_default' \
'--leader-epoch=[With --dry-run (e.g. on a broker'\''s data dirs, from the cluster'\''s metadata)\: the epoch the controller gave LEADER. A leader stamps its epoch at its log end when it takes over, so one above the latest in LEADER'\''s cache starts there. Default\: the latest in LEADER'\''s cache]:EPOCH:_default' \
'--metadata=[A KRaft metadata log (a log dir holding __cluster_metadata-0, e.g. a controller'\''s, or that dir) to take each partition'\''s leader, epoch, ISR and ELR from, with --leader or in the cluster view of several brokers'\'' dirs. Default\: the furthest-along one in LEADER'\''s or DIR'\''s log dir (the cluster view\: in any of the dirs), if any. A metadata log whose log dir records another \`cluster.id\` than the dirs is refused (see --allow-other-cluster)]:DIR:_files' \
'--remote-dir=[A tiered leader'\''s LocalTieredStorage dir (its \`rsm.config.dir\`, or the \`kafka-tiered-storage\` dir in it)\: a follower below the leader'\''s local log start takes the epoch cache of the remote segment it rebuilds from (\`.leader_epoch_checkpoint\`); without it, the leader'\''s own cache up to that point is shown instead]:DIR:_files' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--cluster[Take the DIRs as the data dirs of several brokers of one cluster (copies), at least two\: per partition, every replica found is lined up against the current leader (from \`__cluster_metadata-0\` when a dir holds it, with the metadata offset; else assumed\: the highest latest leader epoch, then the largest log end), with where each diverges, the acknowledged records (below a replica'\''s checkpointed HW) the leader does not hold, and when no clean leader is left klog'\''s advice and the replica Kafka would elect, each with what it loses. Implied by more DIRs than the command'\''s usual form takes. Never writes]' \
'--allow-other-cluster[Read dirs (or a --metadata log) of more than one cluster together instead of refusing]' \
'--dry-run[Print the same report and change nothing on disk]' \
'(--dry-run)--catch-up[Then fetch until caught up and report what arrived and whether the logs agree]' \
'--json[Write the report as one JSON document]' \
'(--json)--explain[Also print the mode'\''s follower truncation procedure as pseudo-code, with the lines that ran in this recovery marked and the values they saw (needs --leader, and one partition\: not with a data dir'\''s restart plan)]' \
'--no-fencing[No FENCED_LEADER_EPOCH check (Kafka before KIP-320)\: follow the leader even when its epoch is below one this replica has seen. A running replica still ignores a leader change not above its epoch, as every release does]' \
'--told-first[DIR was told that LEADER leads at --leader-epoch before LEADER was (a leader still running at a lower epoch)\: refused from KIP-320 (Kafka 2.1\: UNKNOWN_LEADER_EPOCH until LEADER has taken it); with --no-fencing LEADER answers from the log it has and is left as it is (the stale receiver before KIP-320)]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir -- The replica to recover (the follower with --leader):_files' \
'*::more -- More brokers'\'' data dirs\: with them (or --cluster) and --dry-run, the cluster view with each follower'\''s restart against its partition'\''s current leader (see --cluster):_files' \
&& ret=0
;;
(restore)
_arguments "${_arguments_options[@]}" : \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':backup -- A backup dir a command wrote (`<log dir>.klog-backup-N`):_files' \
'::log_dir -- The log dir to put back (default\: the one BACKUP sits beside, `<log dir>` of its name):_files' \
&& ret=0
;;
(diff)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dirs hold several]:NAME:_default' \
'--from=[Compare from this offset on (one partition\: the offsets of the two replicas)]:OFFSET:_default' \
'--to=[Compare up to this offset, included (one partition)]:OFFSET:_default' \
'--since=[Compare from the first offset whose record is at or after TIME on either side (ISO-8601 or epoch ms; one partition), found with the time index as \`dump --since\` finds it]:TIME:_default' \
'--until=[Compare up to the last offset before the first record at or after TIME, on the side where that is later (same forms as --since; one partition)]:TIME:_default' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--cluster[Take the DIRs as the data dirs of several brokers of one cluster (copies), at least two\: per partition, every replica found is lined up against the current leader (from \`__cluster_metadata-0\` when a dir holds it, with the metadata offset; else assumed\: the highest latest leader epoch, then the largest log end), with where each diverges, the acknowledged records (below a replica'\''s checkpointed HW) the leader does not hold, and when no clean leader is left klog'\''s advice and the replica Kafka would elect, each with what it loses. Implied by more DIRs than the command'\''s usual form takes. Never writes]' \
'--allow-other-cluster[Read dirs (or a --metadata log) of more than one cluster together instead of refusing]' \
'--json[Write the comparison as one JSON document]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':a -- First replica:_files' \
':b -- Second replica:_files' \
'*::more -- More brokers'\'' data dirs\: with a third DIR (or --cluster) the cluster view instead of the pairwise comparison (see --cluster):_files' \
&& ret=0
;;
(remote)
_arguments "${_arguments_options[@]}" : \
'--remote-dir=[A LocalTieredStorage dir (its \`rsm.config.dir\`, or the \`kafka-tiered-storage\` dir in it)\: each remote segment'\''s files checked against the metadata (required files, the log'\''s batches, offsets and size, the leader-epoch checkpoint), files without metadata, finished segments without files, copies started and never finished]:DIR:_files' \
'--retention-ms=[Forecast each leader'\''s remote expiration with this \`retention.ms\` in place of the topic'\''s (what the next run deletes if the topic is altered to it; -1\: no limit)]:MS:_default' \
'--retention-bytes=[Forecast each leader'\''s remote expiration with this \`retention.bytes\` in place of the topic'\''s (the partition'\''s size across both tiers it keeps; -1\: no limit)]:BYTES:_default' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--json[JSON lines, one object per line with a \`type\`]' \
'--allow-other-cluster[Read data dirs of several clusters together]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::dirs -- Brokers'\'' data dirs (log dirs holding `__remote_log_metadata-N` and the partitions):_files' \
&& ret=0
;;
(tier)
_arguments "${_arguments_options[@]}" : \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_klog__subcmd__tier_commands" \
"*::: :->tier" \
&& ret=0

    case $state in
    (tier)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:klog-tier-command-$line[1]:"
        case $line[1] in
            (copy)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dir holds several (e.g. \`orders-3\`)]:NAME:_default' \
'--remote-dir=[The LocalTieredStorage dir (default\: the one the lab records)]:DIR:_files' \
'--stop-after-files=[Stop the first copy after its COPY_SEGMENT_STARTED record and N of its files (0-6, in LocalTieredStorage'\''s order\: .log, .index, .timeindex, .txnindex if any, the leader epoch checkpoint, the producer snapshot)\: no COPY_SEGMENT_FINISHED, as a broker killed during an upload leaves it]:N:_default' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--json[One JSON object per segment copied, then a summary]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir -- A Kafka log dir holding one partition, or a partition dir (`<topic>-<partition>`):_files' \
&& ret=0
;;
(retain)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dir holds several (e.g. \`orders-3\`)]:NAME:_default' \
'--local-retention-bytes=[local.retention.bytes\: delete the oldest segments while the local log is larger than N bytes by at least the segment'\''s size]:N:_default' \
'--local-retention-ms=[local.retention.ms\: delete the oldest segments whose largest timestamp is more than MS before now]:MS:_default' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--json[JSON\: one object]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir -- A Kafka log dir holding one partition, or a partition dir (`<topic>-<partition>`):_files' \
&& ret=0
;;
(expire)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dir holds several (e.g. \`orders-3\`)]:NAME:_default' \
'--remote-dir=[The LocalTieredStorage dir (default\: the one the lab records)]:DIR:_files' \
'--retention-ms=[The topic'\''s retention.ms (default Kafka'\''s, 604800000\: 7 days; -1\: no limit)]:MS:_default' \
'--retention-bytes=[The topic'\''s retention.bytes\: the partition'\''s size across both tiers it keeps (default -1\: no limit)]:BYTES:_default' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--json[JSON lines\: one object per segment deleted, then a summary]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir -- A Kafka log dir holding one partition, or a partition dir (`<topic>-<partition>`):_files' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_klog__subcmd__tier__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:klog-tier-help-command-$line[1]:"
        case $line[1] in
            (copy)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(retain)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(expire)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
;;
(draw)
_arguments "${_arguments_options[@]}" : \
'--partition=[The partition dir to use when the log dirs hold several]:NAME:_default' \
'--from=[First offset to draw (default\: a little before the first divergence, else the lowest HW)]:OFFSET:_default' \
'--limit=[Offsets to draw (the terminal shows as many of them as fit)]:N:_default' \
'--svg=[Also write the picture as a self-contained SVG file]:FILE:_files' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--force[Replace an existing file at --svg FILE that is not klog'\''s own SVG output (never inside a Kafka log dir)]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::dirs -- The replicas to draw, one row each, top to bottom:_files' \
&& ret=0
;;
(demo)
_arguments "${_arguments_options[@]}" : \
'--mode=[Truncation mode(s) to run the scenario under (default\: hw and kip101; kip101 and kip279 for the kip279 scenario)]:MODE:((hw\:""
kip101\:""
kip279\:""
all\:"All three, one after another"))' \
'--dir=[Run in this (empty or absent) directory instead of a temp dir]:DIR:_files' \
'--capture=[Also write the run as one self-contained HTML filmstrip (one frame per step, stepped with the arrow keys or a slider; \`FILE#step=N\` opens frame N)]:FILE:_files' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--keep[Keep the temp dir (its path is printed)]' \
'--predict[Stop before each step whose outcome the scenario is about, ask what will happen, read the answer from stdin, then show the truth and why; end with a score]' \
'(--predict)--step[Pause before each step until Enter (a line on stdin); at the end of input the rest runs without pausing. \`--predict\` already pauses at each question]' \
'--explain[After each step, the procedure that ran (election, append, fetch round, recovery), in klog'\''s words, with the lines that ran marked and the values they saw]' \
'--force[Replace an existing file at --capture FILE that is not klog'\''s own filmstrip output (never inside a Kafka log dir)]' \
'--plain[Show each replica as one \`offset\:(epoch,value)\` line instead of the picture]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'::scenario -- watch, kip101-1, kip101-2, kip279, stuck-lso or tiers (default\: kip101-1):(watch kip101-1 kip101-2 kip279 stuck-lso tiers)' \
&& ret=0
;;
(explore)
_arguments "${_arguments_options[@]}" : \
'--mode=[Truncation mode(s) to explore, each by the rules of its era'\''s last release (hw\: 0.10.2.2, kip101\: 1.1.1, kip279\: the newest)]:MODE:((hw\:""
kip101\:""
kip279\:""
all\:"All three, one after another"))' \
'(--mode)--kafka=[Explore one Kafka release'\''s rules instead, X.Y\[.Z\] (0.A.B\[.C\] on the 0.x line)]:RELEASE[,ibp=IBP]:_default' \
'--replicas=[Number of replicas (2 or 3)]:N:_default' \
'--max-epochs=[Most elections in a history (epochs 0 .. E-1)]:E:_default' \
'--max-records=[Most records appended in a history]:R:_default' \
'--max-depth=[Most actions in a history (the depth of the search)]:D:_default' \
'--min-isr=[The topic'\''s min.insync.replicas\: a leader appends only with an ISR that large, itself included, and its HW waits while the ISR is smaller (from Kafka 3.7; on 4.x the KRaft controller also fills Eligible Leader Replicas below it)]:N:_default' \
'--elr=[Kafka 4.x\: Eligible Leader Replicas (KIP-966) on or off. Default\: as a new cluster of the release has them (off on 4.0, on from 4.1)]:on|off:_default' \
'--max-states=[Stop a search after this many distinct states (it then says so). Default\: 25,000,000, or as many as the memory this process may use holds (about 256 bytes a state); a cap above that is refused before the search]:N:_default' \
'--script=[Write each counterexample as a runnable bash script to FILE (FILE-<mode>.ext for several modes)]:FILE:_files' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--unclean[Elections may also pick a live replica outside the ISR (on Kafka 4.x\: the admin'\''s unclean election, for a partition with no leader)]' \
'--no-fencing[Replicas are not fenced by the epochs they have seen (Kafka before KIP-320'\''s FENCED_LEADER_EPOCH; the scripts use \`recover --no-fencing\`, \`fetch --no-fencing\`). A running replica still ignores a leader change not above its epoch, as every release does; an election may reach a follower before its leader, which answers from its older state (the stale receiver; scripts use \`recover --leader-epoch E --told-first\`)]' \
'--power-loss[Crashes may also drop unflushed bytes; flush becomes an action]' \
'--stale-hw[A crash leaves the HW last checkpointed, not the live one\: a broker writes replication-offset-checkpoint every 5 s, and the checkpoint becomes an action (the scripts use \`crash --hw N\`)]' \
'(--mode)--tiered[Tiered storage (KIP-405) by Kafka 4.4'\''s rules\: log starts, remote segments, \`tier copy\` and \`tier retain --local-retention-bytes 1\` as actions, a follower rebuilt from remote; the loss looked for is an acked record a new leader serves from neither tier (an unclean election'\''s own loss is accepted). Runs Kafka 4.4.0'\''s rules (--kafka 4.4 only)]' \
'--force[Replace an existing file at --script FILE that is not klog'\''s own script output (never inside a Kafka log dir)]' \
'--json[Write everything as one JSON document]' \
'--no-timing[Leave the seconds and states per second out of the text (for output compared byte for byte, as the golden tests do)]' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(lab)
_arguments "${_arguments_options[@]}" : \
'--dir=[The lab dir\: an empty or absent directory klog makes (default\: a new temp dir, printed)]:DIR:_files' \
'--port=[The port on 127.0.0.1 (0\: a random free one)]:N:_default' \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(generate)
_arguments "${_arguments_options[@]}" : \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_klog__subcmd__generate_commands" \
"*::: :->generate" \
&& ret=0

    case $state in
    (generate)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:klog-generate-command-$line[1]:"
        case $line[1] in
            (man)
_arguments "${_arguments_options[@]}" : \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':dir:_files' \
&& ret=0
;;
(completions)
_arguments "${_arguments_options[@]}" : \
'--color=[When to colour output\: auto (only on a terminal, and not when NO_COLOR is set), always, never]:WHEN:(auto always never)' \
'--width=[Lay text and tables out to N columns (0\: no limit, each table row on one line)]:N:_default' \
'--allow-broker-dir-writes[Let a command write into a log dir klog did not make (a broker'\''s\: no klog-state.json), saving every file it changes first in DIR.klog-backup-N (see \`klog restore\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':shell:(bash elvish fish powershell zsh)' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_klog__subcmd__generate__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:klog-generate-help-command-$line[1]:"
        case $line[1] in
            (man)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(completions)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_klog__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:klog-help-command-$line[1]:"
        case $line[1] in
            (create)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(elect)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(alter-isr)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(append)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(dump)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(history)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(check)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(txn)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(fetch)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(flush)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(stop)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(crash)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(recover)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(restore)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(diff)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(remote)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(tier)
_arguments "${_arguments_options[@]}" : \
":: :_klog__subcmd__help__subcmd__tier_commands" \
"*::: :->tier" \
&& ret=0

    case $state in
    (tier)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:klog-help-tier-command-$line[1]:"
        case $line[1] in
            (copy)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(retain)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(expire)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
(draw)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(demo)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(explore)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(lab)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(generate)
_arguments "${_arguments_options[@]}" : \
":: :_klog__subcmd__help__subcmd__generate_commands" \
"*::: :->generate" \
&& ret=0

    case $state in
    (generate)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:klog-help-generate-command-$line[1]:"
        case $line[1] in
            (man)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(completions)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
}

(( $+functions[_klog_commands] )) ||
_klog_commands() {
    local commands; commands=(
'create:Create an empty replica dir\: a Kafka log dir holding one partition' \
'elect:Make a replica the leader at a new leader epoch' \
'alter-isr:Change a running leader'\''s ISR without a new epoch (AlterPartition)' \
'append:Append records as one producer request to a leader (acks=all)' \
'dump:Show a replica'\''s batches and records, its epoch cache, or any single Kafka file' \
'history:Who led each partition, at which leader epoch, with which ISR and ELR, and when that changed\: replayed from a KRaft metadata log' \
'check:Verify a replica the way Kafka'\''s loader and kafka-dump-log do' \
'txn:What holds a partition'\''s last stable offset (LSO)\: its open transactions' \
'fetch:Follower fetch rounds from a leader, with the high-watermark piggyback lag' \
'flush:fsync a replica'\''s log and move its recovery point to the log end' \
'stop:Shut a replica down cleanly\: flush, write the checkpoints and \`.kafka_cleanshutdown\`' \
'crash:Stop a replica uncleanly, optionally with damage\: power loss, torn write, bit flip, stale high watermark, lost files' \
'recover:Local recovery of a replica, or (with --leader) restart it as a follower and truncate it the way a Kafka era did, with a record-by-record report' \
'restore:Put back a log dir as it was before a command written with --allow-broker-dir-writes' \
'diff:Compare two replicas offset by offset (epoch, timestamp, key, value, headers)' \
'remote:Read tiered storage (KIP-405)\: each partition'\''s remote segments' \
'tier:A tiered lab'\''s remote tier (KIP-405)\: the leader'\''s copy task and local retention' \
'draw:Draw replicas as rows of cells aligned by offset, RaftScope-style' \
'demo:Run a built-in scenario on temp dirs, narrating each step as the command you would type' \
'explore:Search every history of klog commands within bounds for the shortest one that loses an acked record or leaves two replicas diverged below their HWs, and emit it as a script' \
'lab:Serve a page on 127.0.0.1 where you act on real replica dirs by clicking, and see the picture and the code that ran after each action' \
'generate:Write the man pages or a shell completion script (for packagers and shells)' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'klog commands' commands "$@"
}
(( $+functions[_klog__subcmd__alter-isr_commands] )) ||
_klog__subcmd__alter-isr_commands() {
    local commands; commands=()
    _describe -t commands 'klog alter-isr commands' commands "$@"
}
(( $+functions[_klog__subcmd__append_commands] )) ||
_klog__subcmd__append_commands() {
    local commands; commands=()
    _describe -t commands 'klog append commands' commands "$@"
}
(( $+functions[_klog__subcmd__check_commands] )) ||
_klog__subcmd__check_commands() {
    local commands; commands=()
    _describe -t commands 'klog check commands' commands "$@"
}
(( $+functions[_klog__subcmd__crash_commands] )) ||
_klog__subcmd__crash_commands() {
    local commands; commands=()
    _describe -t commands 'klog crash commands' commands "$@"
}
(( $+functions[_klog__subcmd__create_commands] )) ||
_klog__subcmd__create_commands() {
    local commands; commands=()
    _describe -t commands 'klog create commands' commands "$@"
}
(( $+functions[_klog__subcmd__demo_commands] )) ||
_klog__subcmd__demo_commands() {
    local commands; commands=()
    _describe -t commands 'klog demo commands' commands "$@"
}
(( $+functions[_klog__subcmd__diff_commands] )) ||
_klog__subcmd__diff_commands() {
    local commands; commands=()
    _describe -t commands 'klog diff commands' commands "$@"
}
(( $+functions[_klog__subcmd__draw_commands] )) ||
_klog__subcmd__draw_commands() {
    local commands; commands=()
    _describe -t commands 'klog draw commands' commands "$@"
}
(( $+functions[_klog__subcmd__dump_commands] )) ||
_klog__subcmd__dump_commands() {
    local commands; commands=()
    _describe -t commands 'klog dump commands' commands "$@"
}
(( $+functions[_klog__subcmd__elect_commands] )) ||
_klog__subcmd__elect_commands() {
    local commands; commands=()
    _describe -t commands 'klog elect commands' commands "$@"
}
(( $+functions[_klog__subcmd__explore_commands] )) ||
_klog__subcmd__explore_commands() {
    local commands; commands=()
    _describe -t commands 'klog explore commands' commands "$@"
}
(( $+functions[_klog__subcmd__fetch_commands] )) ||
_klog__subcmd__fetch_commands() {
    local commands; commands=()
    _describe -t commands 'klog fetch commands' commands "$@"
}
(( $+functions[_klog__subcmd__flush_commands] )) ||
_klog__subcmd__flush_commands() {
    local commands; commands=()
    _describe -t commands 'klog flush commands' commands "$@"
}
(( $+functions[_klog__subcmd__generate_commands] )) ||
_klog__subcmd__generate_commands() {
    local commands; commands=(
'man:Write klog.1 and one page per subcommand into DIR' \
'completions:Print the completion script for SHELL' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'klog generate commands' commands "$@"
}
(( $+functions[_klog__subcmd__generate__subcmd__completions_commands] )) ||
_klog__subcmd__generate__subcmd__completions_commands() {
    local commands; commands=()
    _describe -t commands 'klog generate completions commands' commands "$@"
}
(( $+functions[_klog__subcmd__generate__subcmd__help_commands] )) ||
_klog__subcmd__generate__subcmd__help_commands() {
    local commands; commands=(
'man:Write klog.1 and one page per subcommand into DIR' \
'completions:Print the completion script for SHELL' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'klog generate help commands' commands "$@"
}
(( $+functions[_klog__subcmd__generate__subcmd__help__subcmd__completions_commands] )) ||
_klog__subcmd__generate__subcmd__help__subcmd__completions_commands() {
    local commands; commands=()
    _describe -t commands 'klog generate help completions commands' commands "$@"
}
(( $+functions[_klog__subcmd__generate__subcmd__help__subcmd__help_commands] )) ||
_klog__subcmd__generate__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'klog generate help help commands' commands "$@"
}
(( $+functions[_klog__subcmd__generate__subcmd__help__subcmd__man_commands] )) ||
_klog__subcmd__generate__subcmd__help__subcmd__man_commands() {
    local commands; commands=()
    _describe -t commands 'klog generate help man commands' commands "$@"
}
(( $+functions[_klog__subcmd__generate__subcmd__man_commands] )) ||
_klog__subcmd__generate__subcmd__man_commands() {
    local commands; commands=()
    _describe -t commands 'klog generate man commands' commands "$@"
}
(( $+functions[_klog__subcmd__help_commands] )) ||
_klog__subcmd__help_commands() {
    local commands; commands=(
'create:Create an empty replica dir\: a Kafka log dir holding one partition' \
'elect:Make a replica the leader at a new leader epoch' \
'alter-isr:Change a running leader'\''s ISR without a new epoch (AlterPartition)' \
'append:Append records as one producer request to a leader (acks=all)' \
'dump:Show a replica'\''s batches and records, its epoch cache, or any single Kafka file' \
'history:Who led each partition, at which leader epoch, with which ISR and ELR, and when that changed\: replayed from a KRaft metadata log' \
'check:Verify a replica the way Kafka'\''s loader and kafka-dump-log do' \
'txn:What holds a partition'\''s last stable offset (LSO)\: its open transactions' \
'fetch:Follower fetch rounds from a leader, with the high-watermark piggyback lag' \
'flush:fsync a replica'\''s log and move its recovery point to the log end' \
'stop:Shut a replica down cleanly\: flush, write the checkpoints and \`.kafka_cleanshutdown\`' \
'crash:Stop a replica uncleanly, optionally with damage\: power loss, torn write, bit flip, stale high watermark, lost files' \
'recover:Local recovery of a replica, or (with --leader) restart it as a follower and truncate it the way a Kafka era did, with a record-by-record report' \
'restore:Put back a log dir as it was before a command written with --allow-broker-dir-writes' \
'diff:Compare two replicas offset by offset (epoch, timestamp, key, value, headers)' \
'remote:Read tiered storage (KIP-405)\: each partition'\''s remote segments' \
'tier:A tiered lab'\''s remote tier (KIP-405)\: the leader'\''s copy task and local retention' \
'draw:Draw replicas as rows of cells aligned by offset, RaftScope-style' \
'demo:Run a built-in scenario on temp dirs, narrating each step as the command you would type' \
'explore:Search every history of klog commands within bounds for the shortest one that loses an acked record or leaves two replicas diverged below their HWs, and emit it as a script' \
'lab:Serve a page on 127.0.0.1 where you act on real replica dirs by clicking, and see the picture and the code that ran after each action' \
'generate:Write the man pages or a shell completion script (for packagers and shells)' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'klog help commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__alter-isr_commands] )) ||
_klog__subcmd__help__subcmd__alter-isr_commands() {
    local commands; commands=()
    _describe -t commands 'klog help alter-isr commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__append_commands] )) ||
_klog__subcmd__help__subcmd__append_commands() {
    local commands; commands=()
    _describe -t commands 'klog help append commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__check_commands] )) ||
_klog__subcmd__help__subcmd__check_commands() {
    local commands; commands=()
    _describe -t commands 'klog help check commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__crash_commands] )) ||
_klog__subcmd__help__subcmd__crash_commands() {
    local commands; commands=()
    _describe -t commands 'klog help crash commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__create_commands] )) ||
_klog__subcmd__help__subcmd__create_commands() {
    local commands; commands=()
    _describe -t commands 'klog help create commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__demo_commands] )) ||
_klog__subcmd__help__subcmd__demo_commands() {
    local commands; commands=()
    _describe -t commands 'klog help demo commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__diff_commands] )) ||
_klog__subcmd__help__subcmd__diff_commands() {
    local commands; commands=()
    _describe -t commands 'klog help diff commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__draw_commands] )) ||
_klog__subcmd__help__subcmd__draw_commands() {
    local commands; commands=()
    _describe -t commands 'klog help draw commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__dump_commands] )) ||
_klog__subcmd__help__subcmd__dump_commands() {
    local commands; commands=()
    _describe -t commands 'klog help dump commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__elect_commands] )) ||
_klog__subcmd__help__subcmd__elect_commands() {
    local commands; commands=()
    _describe -t commands 'klog help elect commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__explore_commands] )) ||
_klog__subcmd__help__subcmd__explore_commands() {
    local commands; commands=()
    _describe -t commands 'klog help explore commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__fetch_commands] )) ||
_klog__subcmd__help__subcmd__fetch_commands() {
    local commands; commands=()
    _describe -t commands 'klog help fetch commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__flush_commands] )) ||
_klog__subcmd__help__subcmd__flush_commands() {
    local commands; commands=()
    _describe -t commands 'klog help flush commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__generate_commands] )) ||
_klog__subcmd__help__subcmd__generate_commands() {
    local commands; commands=(
'man:Write klog.1 and one page per subcommand into DIR' \
'completions:Print the completion script for SHELL' \
    )
    _describe -t commands 'klog help generate commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__generate__subcmd__completions_commands] )) ||
_klog__subcmd__help__subcmd__generate__subcmd__completions_commands() {
    local commands; commands=()
    _describe -t commands 'klog help generate completions commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__generate__subcmd__man_commands] )) ||
_klog__subcmd__help__subcmd__generate__subcmd__man_commands() {
    local commands; commands=()
    _describe -t commands 'klog help generate man commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__help_commands] )) ||
_klog__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'klog help help commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__history_commands] )) ||
_klog__subcmd__help__subcmd__history_commands() {
    local commands; commands=()
    _describe -t commands 'klog help history commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__lab_commands] )) ||
_klog__subcmd__help__subcmd__lab_commands() {
    local commands; commands=()
    _describe -t commands 'klog help lab commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__recover_commands] )) ||
_klog__subcmd__help__subcmd__recover_commands() {
    local commands; commands=()
    _describe -t commands 'klog help recover commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__remote_commands] )) ||
_klog__subcmd__help__subcmd__remote_commands() {
    local commands; commands=()
    _describe -t commands 'klog help remote commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__restore_commands] )) ||
_klog__subcmd__help__subcmd__restore_commands() {
    local commands; commands=()
    _describe -t commands 'klog help restore commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__stop_commands] )) ||
_klog__subcmd__help__subcmd__stop_commands() {
    local commands; commands=()
    _describe -t commands 'klog help stop commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__tier_commands] )) ||
_klog__subcmd__help__subcmd__tier_commands() {
    local commands; commands=(
'copy:One run of the leader'\''s copy task\: copy the closed segments below the last stable offset that remote storage lacks' \
'retain:Local retention of a tiered partition\: delete local segments only below the highest offset in remote storage' \
'expire:One run of the leader'\''s remote expiration task\: delete the remote segments Kafka 4.4'\''s leader would, as \`klog remote\` forecasts them' \
    )
    _describe -t commands 'klog help tier commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__tier__subcmd__copy_commands] )) ||
_klog__subcmd__help__subcmd__tier__subcmd__copy_commands() {
    local commands; commands=()
    _describe -t commands 'klog help tier copy commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__tier__subcmd__expire_commands] )) ||
_klog__subcmd__help__subcmd__tier__subcmd__expire_commands() {
    local commands; commands=()
    _describe -t commands 'klog help tier expire commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__tier__subcmd__retain_commands] )) ||
_klog__subcmd__help__subcmd__tier__subcmd__retain_commands() {
    local commands; commands=()
    _describe -t commands 'klog help tier retain commands' commands "$@"
}
(( $+functions[_klog__subcmd__help__subcmd__txn_commands] )) ||
_klog__subcmd__help__subcmd__txn_commands() {
    local commands; commands=()
    _describe -t commands 'klog help txn commands' commands "$@"
}
(( $+functions[_klog__subcmd__history_commands] )) ||
_klog__subcmd__history_commands() {
    local commands; commands=()
    _describe -t commands 'klog history commands' commands "$@"
}
(( $+functions[_klog__subcmd__lab_commands] )) ||
_klog__subcmd__lab_commands() {
    local commands; commands=()
    _describe -t commands 'klog lab commands' commands "$@"
}
(( $+functions[_klog__subcmd__recover_commands] )) ||
_klog__subcmd__recover_commands() {
    local commands; commands=()
    _describe -t commands 'klog recover commands' commands "$@"
}
(( $+functions[_klog__subcmd__remote_commands] )) ||
_klog__subcmd__remote_commands() {
    local commands; commands=()
    _describe -t commands 'klog remote commands' commands "$@"
}
(( $+functions[_klog__subcmd__restore_commands] )) ||
_klog__subcmd__restore_commands() {
    local commands; commands=()
    _describe -t commands 'klog restore commands' commands "$@"
}
(( $+functions[_klog__subcmd__stop_commands] )) ||
_klog__subcmd__stop_commands() {
    local commands; commands=()
    _describe -t commands 'klog stop commands' commands "$@"
}
(( $+functions[_klog__subcmd__tier_commands] )) ||
_klog__subcmd__tier_commands() {
    local commands; commands=(
'copy:One run of the leader'\''s copy task\: copy the closed segments below the last stable offset that remote storage lacks' \
'retain:Local retention of a tiered partition\: delete local segments only below the highest offset in remote storage' \
'expire:One run of the leader'\''s remote expiration task\: delete the remote segments Kafka 4.4'\''s leader would, as \`klog remote\` forecasts them' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'klog tier commands' commands "$@"
}
(( $+functions[_klog__subcmd__tier__subcmd__copy_commands] )) ||
_klog__subcmd__tier__subcmd__copy_commands() {
    local commands; commands=()
    _describe -t commands 'klog tier copy commands' commands "$@"
}
(( $+functions[_klog__subcmd__tier__subcmd__expire_commands] )) ||
_klog__subcmd__tier__subcmd__expire_commands() {
    local commands; commands=()
    _describe -t commands 'klog tier expire commands' commands "$@"
}
(( $+functions[_klog__subcmd__tier__subcmd__help_commands] )) ||
_klog__subcmd__tier__subcmd__help_commands() {
    local commands; commands=(
'copy:One run of the leader'\''s copy task\: copy the closed segments below the last stable offset that remote storage lacks' \
'retain:Local retention of a tiered partition\: delete local segments only below the highest offset in remote storage' \
'expire:One run of the leader'\''s remote expiration task\: delete the remote segments Kafka 4.4'\''s leader would, as \`klog remote\` forecasts them' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'klog tier help commands' commands "$@"
}
(( $+functions[_klog__subcmd__tier__subcmd__help__subcmd__copy_commands] )) ||
_klog__subcmd__tier__subcmd__help__subcmd__copy_commands() {
    local commands; commands=()
    _describe -t commands 'klog tier help copy commands' commands "$@"
}
(( $+functions[_klog__subcmd__tier__subcmd__help__subcmd__expire_commands] )) ||
_klog__subcmd__tier__subcmd__help__subcmd__expire_commands() {
    local commands; commands=()
    _describe -t commands 'klog tier help expire commands' commands "$@"
}
(( $+functions[_klog__subcmd__tier__subcmd__help__subcmd__help_commands] )) ||
_klog__subcmd__tier__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'klog tier help help commands' commands "$@"
}
(( $+functions[_klog__subcmd__tier__subcmd__help__subcmd__retain_commands] )) ||
_klog__subcmd__tier__subcmd__help__subcmd__retain_commands() {
    local commands; commands=()
    _describe -t commands 'klog tier help retain commands' commands "$@"
}
(( $+functions[_klog__subcmd__tier__subcmd__retain_commands] )) ||
_klog__subcmd__tier__subcmd__retain_commands() {
    local commands; commands=()
    _describe -t commands 'klog tier retain commands' commands "$@"
}
(( $+functions[_klog__subcmd__txn_commands] )) ||
_klog__subcmd__txn_commands() {
    local commands; commands=()
    _describe -t commands 'klog txn commands' commands "$@"
}

if [ "$funcstack[1]" = "_klog" ]; then
    _klog "$@"
else
    compdef _klog klog
fi
