//! Coordinator records: the records of `__consumer_offsets` (the group coordinator: offset
//! commits, classic group metadata, consumer, share and streams group records) and of
//! `__transaction_state` (the transaction coordinator). Kafka's `CoordinatorRecordSerde`: the
//! key is an int16 record type then the key message; the value, absent for a tombstone, is an
//! int16 version then the value message of the same type, both decoded by [`super::schema`].
//!
//! Two readings `kafka-dump-log.sh` adds are made here too, so every view shows them: a
//! transaction's status by its `TransactionState` name, and a classic consumer group member's
//! `subscription` and `assignment` bytes by their `ConsumerProtocol*` schemas (left as bytes
//! when they do not decode, as Kafka leaves them).

use super::schema::{self, decode_message, find, Field, MessageSchema, Reader, SchemaError, Value};

/// Which coordinator wrote the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coordinator {
    /// `__consumer_offsets`.
    Group,
    /// `__transaction_state`.
    Transaction,
}

impl Coordinator {
    fn group(self) -> &'static str {
        match self {
            Coordinator::Group => "group",
            Coordinator::Transaction => "transaction",
        }
    }
}

/// A decoded coordinator record.
#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorRecord<'a> {
    pub key_schema: &'static MessageSchema,
    pub key: Vec<Field<'a>>,
    /// `None` for a tombstone (a null value).
    pub value: Option<CoordinatorValue<'a>>,
}

impl CoordinatorRecord<'_> {
    /// The record type (the key's version field, `CoordinatorRecordType` id).
    pub fn record_type(&self) -> i16 {
        self.key_schema.api_key.unwrap_or(-1)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorValue<'a> {
    pub schema: &'static MessageSchema,
    pub version: i16,
    pub fields: Vec<Field<'a>>,
}

/// What a coordinator record's bytes give.
#[derive(Debug, Clone, PartialEq)]
pub enum CoordinatorRead<'a> {
    Decoded(CoordinatorRecord<'a>),
    /// A record type this coordinator does not define (Kafka skips it).
    UnknownType(i16),
    /// The key or value does not decode.
    Invalid {
        /// `key` or `value`.
        part: &'static str,
        error: SchemaError,
    },
}

/// `TransactionState` names by id (`stateName`).
const TRANSACTION_STATES: [&str; 8] = [
    "Empty",
    "Ongoing",
    "PrepareCommit",
    "PrepareAbort",
    "CompleteCommit",
    "CompleteAbort",
    "Dead",
    "PrepareEpochFence",
];

/// Decode a coordinator record from its key and value.
pub fn decode<'a>(coordinator: Coordinator, key: Option<&'a [u8]>, value: Option<&'a [u8]>) -> CoordinatorRead<'a> {
    let invalid = |part, error| CoordinatorRead::Invalid { part, error };
    let Some(key) = key else {
        return invalid(
            "key",
            SchemaError::new(0, "a coordinator record needs a key (it is null)")
                .kafka("Failed to decode message using the specified decoder (message had a missing key)"),
        );
    };
    let mut r = Reader::new(key);
    let record_type = match r.i16("record type") {
        Ok(t) => t,
        Err(e) => return invalid("key", e.kafka("Could not read version from key's buffer.")),
    };
    // `CoordinatorRecordSerde.readMessage`'s wrapping of the reader's message.
    let wrap = |e: SchemaError, version: i16, part: &str| {
        let kafka =
            format!("Could not read record with version {version} from {part}'s buffer due to: {}.", e.kafka_message);
        e.kafka(kafka)
    };
    let schemas = schema::schemas();
    let group = coordinator.group();
    let (Some(key_schema), Some(value_schema)) =
        (schemas.find(group, "key", record_type), schemas.find(group, "value", record_type))
    else {
        return CoordinatorRead::UnknownType(record_type);
    };
    // Keys have one version (0); Kafka reads them at the record type, which changes nothing.
    let key_fields = match decode_message(key_schema, 0, &mut r) {
        Ok(f) => f,
        Err(e) => return invalid("key", wrap(e, record_type, "key")),
    };
    let Some(value) = value else {
        return CoordinatorRead::Decoded(CoordinatorRecord { key_schema, key: key_fields, value: None });
    };
    let mut r = Reader::new(value);
    let version = match r.i16("value version") {
        Ok(v) => v,
        Err(e) => return invalid("value", e.kafka("Could not read version from value's buffer.")),
    };
    if !value_schema.valid_versions.contains(version) {
        let what = format!("{} has no version {version}", value_schema.name);
        let kafka = format!("Found an unknown record version {version} for {record_type} type");
        return invalid("value", SchemaError::new(0, what).kafka(kafka));
    }
    let mut fields = match decode_message(value_schema, version, &mut r) {
        Ok(f) => f,
        Err(e) => return invalid("value", wrap(e, version, "value")),
    };
    match value_schema.name {
        "TransactionLogValue" => name_transaction_status(&mut fields),
        "GroupMetadataValue" => decode_consumer_protocol(&mut fields),
        _ => {}
    }
    let value = Some(CoordinatorValue { schema: value_schema, version, fields });
    CoordinatorRead::Decoded(CoordinatorRecord { key_schema, key: key_fields, value })
}

fn name_transaction_status(fields: &mut [Field<'_>]) {
    if let Some(f) = fields.iter_mut().find(|f| f.name == "transactionStatus") {
        // `TransactionState.fromId(..).stateName()`, or the id as text when it names none.
        if let Value::Int(id) = f.value {
            f.value = Value::Text(match usize::try_from(id).ok().and_then(|i| TRANSACTION_STATES.get(i)) {
                Some(name) => (*name).into(),
                None => id.to_string().into(),
            });
        }
    }
}

/// For a group whose protocol type is `consumer`, each member's `subscription` and `assignment`
/// read as `ConsumerProtocolSubscription` / `ConsumerProtocolAssignment` (an int16 version, then
/// the message; bytes past the message are ignored, as Kafka ignores them).
fn decode_consumer_protocol(fields: &mut [Field<'_>]) {
    if find(fields, "protocolType") != Some(&Value::Str(b"consumer")) {
        return;
    }
    let Some(Value::Array(members)) = fields.iter_mut().find(|f| f.name == "members").map(|f| &mut f.value) else {
        return;
    };
    for member in members {
        let Value::Struct(member) = member else { continue };
        for (field, message) in
            [("subscription", "ConsumerProtocolSubscription"), ("assignment", "ConsumerProtocolAssignment")]
        {
            let Some(f) = member.iter_mut().find(|f| f.name == field) else { continue };
            let Value::Bytes(bytes) = f.value else { continue };
            let Some(schema) = schema::schemas().find_by_name(message) else { continue };
            let mut r = Reader::new(bytes);
            let Ok(version) = r.i16("version") else { continue };
            if let Ok(decoded) = decode_message(schema, version, &mut r) {
                f.value = Value::Struct(decoded);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(s: &str) -> Vec<u8> {
        [&(s.len() as i16).to_be_bytes()[..], s.as_bytes()].concat()
    }

    /// An OffsetCommitKey (type 1) and an OffsetCommitValue v3.
    fn offset_commit() -> (Vec<u8>, Vec<u8>) {
        let key = [&1i16.to_be_bytes()[..], &string("g"), &string("orders"), &3i32.to_be_bytes()].concat();
        let value = [
            &3i16.to_be_bytes()[..],
            &42i64.to_be_bytes(),
            &7i32.to_be_bytes(),
            &string(""),
            &1_700_000_000_000i64.to_be_bytes(),
        ]
        .concat();
        (key, value)
    }

    #[test]
    fn an_offset_commit_decodes_by_name() {
        let (key, value) = offset_commit();
        let CoordinatorRead::Decoded(r) = decode(Coordinator::Group, Some(&key), Some(&value)) else { panic!() };
        assert_eq!(r.record_type(), 1);
        assert_eq!(r.key_schema.name, "OffsetCommitKey");
        assert_eq!(find(&r.key, "topic"), Some(&Value::Str(b"orders")));
        let v = r.value.unwrap();
        assert_eq!(v.schema.name, "OffsetCommitValue");
        assert_eq!(find(&v.fields, "offset"), Some(&Value::Int(42)));
        assert_eq!(find(&v.fields, "leaderEpoch"), Some(&Value::Int(7)));
        // expireTimestamp exists in version 1 only
        assert_eq!(find(&v.fields, "expireTimestamp"), None);
        // a tombstone
        let CoordinatorRead::Decoded(r) = decode(Coordinator::Group, Some(&key), None) else { panic!() };
        assert!(r.value.is_none());
    }

    #[test]
    fn unknown_types_and_damage_are_named_never_a_panic() {
        let (key, value) = offset_commit();
        assert_eq!(decode(Coordinator::Group, Some(&[0, 99]), None), CoordinatorRead::UnknownType(99));
        assert_eq!(decode(Coordinator::Transaction, Some(&key), None), CoordinatorRead::UnknownType(1));
        for cut in 0..key.len() {
            assert!(matches!(
                decode(Coordinator::Group, Some(&key[..cut]), Some(&value)),
                CoordinatorRead::Invalid { part: "key", .. }
            ));
        }
        for cut in 0..value.len() {
            let CoordinatorRead::Invalid { part: "value", error } =
                decode(Coordinator::Group, Some(&key), Some(&value[..cut]))
            else {
                panic!("{cut}")
            };
            assert!(error.position <= cut);
        }
    }

    #[test]
    fn a_transaction_status_is_shown_by_name() {
        let key = [&0i16.to_be_bytes()[..], &string("tx")].concat();
        let value = [
            &0i16.to_be_bytes()[..],
            &5i64.to_be_bytes(),
            &0i16.to_be_bytes(),
            &60_000i32.to_be_bytes(),
            &[4u8],
            &(-1i32).to_be_bytes(), // null partitions
            &1i64.to_be_bytes(),
            &2i64.to_be_bytes(),
        ]
        .concat();
        let CoordinatorRead::Decoded(r) = decode(Coordinator::Transaction, Some(&key), Some(&value)) else { panic!() };
        let v = r.value.unwrap();
        assert_eq!(find(&v.fields, "transactionStatus"), Some(&Value::Text("CompleteCommit".into())));
        assert_eq!(find(&v.fields, "transactionPartitions"), Some(&Value::Null));
    }
}
