//! How a lead looks in the API, the JSON export and the list: spec 1 §3's fields, plus what the
//! table shows beside a lead (its bot, its conversation's title, who it is assigned to).

use parley_store::leads::LeadRow;
use parley_store::models::Lead;
use parley_store::time::to_rfc3339;
use serde_json::{json, Value};

/// The stored tags (a JSON list); a damaged value shows as no tags rather than failing a list.
pub fn tags(l: &Lead) -> Vec<String> {
    serde_json::from_str(&l.tags).unwrap_or_default()
}

pub fn lead(l: &Lead) -> Value {
    json!({
        "_id": l.id, "id": l.id, "botId": l.bot_id, "sessionId": l.session_id,
        "name": l.name, "email": l.email, "phone": l.phone, "company": l.company,
        "status": l.status, "priority": l.priority, "source": l.source, "notes": l.notes, "tags": tags(l),
        "leadScore": l.lead_score, "assignedTo": l.assigned_to,
        "capturedAt": to_rfc3339(&l.captured_at), "lastContact": l.last_contact.as_ref().map(to_rfc3339),
        "updatedAt": to_rfc3339(&l.updated_at),
    })
}

pub fn lead_row(r: &LeadRow) -> Value {
    let mut v = lead(&r.lead);
    if let Some(map) = v.as_object_mut() {
        map.insert("botName".into(), json!(r.bot_name));
        map.insert("sessionTitle".into(), json!(r.session_title));
        map.insert("assignedToName".into(), json!(r.assigned_name));
    }
    v
}
