"""A producer and a metadata reader for old Kafka brokers (benches/real-old.sh), with kafka-python
(Kafka's own 4.x clients cannot talk to brokers before 2.1). It judges nothing: one JSON line per
answer.

  real_old_client.py produce BOOTSTRAP TOPIC PREFIX FROM COUNT
      COUNT sends of one record each (value PREFIX-i), acks=all, retries=0, each awaited:
      {"value","outcome":"acked"|"failed"|"unknown","offset","error"} ("unknown": a timeout)
  real_old_client.py create BOOTSTRAP TOPIC BROKERS [KEY=VALUE...]
      one partition on BROKERS (comma-separated ids, the first the preferred leader), with the
      topic configs: {"created": TOPIC}
  real_old_client.py describe BOOTSTRAP TOPIC
      partition 0 as the broker's metadata tells it: {"leader","replicas","isr"}
"""

import json
import sys

from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic
from kafka.errors import KafkaTimeoutError


def produce(bootstrap, topic, prefix, start, count):
    p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=0, linger_ms=0,
                      max_in_flight_requests_per_connection=1, request_timeout_ms=4000,
                      max_block_ms=4000, metadata_max_age_ms=1000)
    for i in range(start, start + count):
        value = f"{prefix}-{i}"
        out = {"value": value}
        try:
            m = p.send(topic, value=value.encode(), partition=0).get(timeout=6)
            out.update(outcome="acked", offset=m.offset)
        except KafkaTimeoutError as e:
            out.update(outcome="unknown", error=repr(e))
        except Exception as e:  # noqa: BLE001 - every other answer is a refusal
            out.update(outcome="failed", error=repr(e))
        print(json.dumps(out), flush=True)
    p.close(timeout=1)


def create(bootstrap, topic, brokers, configs):
    a = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    try:
        t = NewTopic(topic, num_partitions=-1, replication_factor=-1,
                     replica_assignments={0: [int(b) for b in brokers.split(",")]},
                     topic_configs=dict(kv.split("=", 1) for kv in configs))
        a.create_topics([t])
        print(json.dumps({"created": topic}))
    finally:
        a.close()


def describe(bootstrap, topic):
    a = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=4000)
    try:
        d = a.describe_topics([topic])[0]
        p = [x for x in d["partitions"] if x["partition_index"] == 0][0]
        print(json.dumps({"leader": p["leader_id"], "replicas": p["replica_nodes"], "isr": p["isr_nodes"]}))
    finally:
        a.close()


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "produce":
        produce(args[0], args[1], args[2], int(args[3]), int(args[4]))
    elif cmd == "create":
        create(args[0], args[1], args[2], args[3:])
    elif cmd == "describe":
        describe(args[0], args[1])
    else:
        sys.exit(f"unknown command {cmd}")
