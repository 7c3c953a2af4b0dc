"""klog's prediction for one restarted follower against what the real brokers did.

Usage: real_cluster_compare.py SEQ_DIR FOLLOWER_ID TOPIC

Reads, in SEQ_DIR: klog-F.json (`klog recover --dry-run --json` on the copies made at the
decision point), before-F.jsonl / after-F.jsonl (`klog dump --json` of the follower's copy
before its restart and after it caught up), final-leader.jsonl (the leader at the end),
truncations-F.log (the follower's own log lines about truncating TOPIC-0 after its restart) and
acks.jsonl (what the producer was told). Prints one JSON line:
{"follower", "agree", "summary", "klog": {...}, "broker": {...}, "differences": [...]}.

The broker's truncation point is the lowest offset of its "Truncating to offset X" /
"Truncating TOPIC-0 to offset X below high watermark" lines (none: it kept its log end); the
records it removed are the follower's records from there on, checked against its data dir after
the restart (everything below the point must be the same record, at the same offset).
"""

import json
import re
import sys


def records(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            d = json.loads(line)
            if d.get("type") == "record":
                out[d["offset"]] = (d["value"], d["leader_epoch"])
    return out


def main():
    seq, fid, topic = sys.argv[1], sys.argv[2], sys.argv[3]
    differences = []
    try:
        k = json.load(open(f"{seq}/klog-{fid}.json"))
    except (OSError, ValueError):
        err = open(f"{seq}/klog-{fid}.err").read().strip()
        print(json.dumps({"follower": fid, "agree": False, "summary": f"klog failed: {err}",
                          "differences": [f"klog failed: {err}"]}))
        return
    before = records(f"{seq}/before-{fid}.jsonl")
    after = records(f"{seq}/after-{fid}.jsonl")
    final = records(f"{seq}/final-leader.jsonl")
    acked = {}
    with open(f"{seq}/acks.jsonl") as f:
        for line in f:
            d = json.loads(line)
            if d["outcome"] == "acked":
                acked[d["offset"]] = d["value"]

    # The broker: its truncation lines, then its data dir.
    cuts = []
    for line in open(f"{seq}/truncations-{fid}.log", errors="replace"):
        m = re.search(r"Truncating (?:" + re.escape(topic) + r"-0 )?to offset (\d+)", line)
        if m:
            cuts.append(int(m.group(1)))
    f_leo = k["follower_view"]["log_end_offset"]
    broker_cut = min([f_leo] + cuts)
    for o, rec in before.items():
        if o < broker_cut and after.get(o, (None,))[0] != rec[0]:
            differences.append(f"broker data: offset {o} below the cut {broker_cut} changed "
                               f"({rec[0]} -> {after.get(o, (None,))[0]}): a truncation its log lines do not show")
            break
    broker_removed = {o: before[o][0] for o in before if o >= broker_cut}
    broker_refetched = {o for o in broker_removed if final.get(o, (None,))[0] == broker_removed[o]}

    # klog's prediction.
    klog_cut = k["cut_offset"]
    klog_removed, klog_refetched = {}, set()
    for r in k["records"]:
        if r["class"] in ("truncated_refetchable", "truncated_lost", "acked_lost"):
            klog_removed[r["offset"]] = r["follower"]["value"]
            if r["class"] == "truncated_refetchable":
                klog_refetched.add(r["offset"])
    if k.get("records_omitted"):
        differences.append(f"klog omitted {k['records_omitted']} rows: the removed set is partial")

    if klog_cut != broker_cut:
        differences.append(f"truncation point: klog {klog_cut}, broker {broker_cut}"
                           + (f" (its lines: {cuts})" if cuts else " (no truncation line)"))
    if klog_removed != broker_removed:
        differences.append(f"removed records: klog {sorted(klog_removed)}, broker {sorted(broker_removed)}")
    elif klog_refetched != broker_refetched:
        differences.append(f"removed but at the leader again: klog {sorted(klog_refetched)}, broker {sorted(broker_refetched)}")

    acked_gone = sorted(o for o, v in acked.items() if final.get(o, (None,))[0] != v)
    removed_acked = sorted(o for o in broker_removed if acked.get(o) == broker_removed[o] and o not in broker_refetched)
    summary = (f"cut klog {klog_cut} / broker {broker_cut}; removed {len(broker_removed)} "
               f"({len(broker_refetched)} refetched); acked lost by this truncation {len(removed_acked)}, "
               f"klog's acked_lost {k['summary']['acked_lost']} (by the checkpointed HWs: leader "
               f"{k['leader_view']['high_watermark']}, follower {k['follower_view']['high_watermark']}); "
               f"acked records missing from the final leader: {len(acked_gone)}")
    # The acked records this truncation loses, as klog classes them (acked: below a checkpointed
    # HW of either copy) and as the producer was told. Checkpoints lag (every 5 s), so this is
    # reported beside the agreement, not in it: a limit of what the dirs can show.
    klog_acked = sorted(r["offset"] for r in k["records"] if r["class"] == "acked_lost")
    print(json.dumps({
        "follower": fid,
        "agree": not differences,
        "acked_agree": klog_acked == removed_acked,
        "acked_lost": {"klog": klog_acked, "producer": removed_acked},
        "summary": summary + ("" if not differences else " | " + "; ".join(differences)),
        "klog": {"cut": klog_cut, "removed": klog_removed, "epoch": k["leader_epoch"]},
        "broker": {"cut": broker_cut, "lines": cuts, "removed": broker_removed,
                   "acked_missing_from_final_leader": acked_gone},
        "differences": differences,
    }))


main()
