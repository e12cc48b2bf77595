//! Many message rows in one SQLite `INSERT … VALUES (…), (…)`: how the applier commits a batch.
//!
//! Why not one insert per row: in the applier's profile at 20,000 msg/s (README, eighth sitting)
//! the end of each statement (SQLite's `sqlite3VdbeHalt`, closing the statement journal the
//! insert trigger needs) was a fifth of the applier, and diesel's per-statement work (binding
//! set-up, the statement-cache lookup) much of the rest. diesel's own batch insert runs one
//! statement per row on SQLite, so the statement is written here. Batches are cut into groups
//! of fixed sizes (`GROUPS`), so only a handful of statement shapes exist: diesel caches each,
//! keyed by its text, and SQLite parses and plans it once per connection.

use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Bool, Nullable, Text, Timestamp};
use diesel::sqlite::{Sqlite, SqliteConnection};
use diesel::{QueryResult, RunQueryDsl};

use crate::models::ChatMessage;

/// Rows per statement: a batch is cut into the largest of these that fit, so a statement never
/// holds more than 32 rows (416 parameters, far under SQLite's limit) and at most six shapes
/// are ever prepared.
const GROUPS: [usize; 6] = [32, 16, 8, 4, 2, 1];

/// What a row whose id is already saved does to its statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IfSaved {
    /// Fails it (and the caller's transaction): the applier's rows are new by construction.
    Fail,
    /// Skips that row (`INSERT OR IGNORE`): a replayed journal may hold rows the applier had
    /// committed before the stop.
    Skip,
}

/// Inserts `rows` in order, in as few statements as `GROUPS` allows. Within the caller's
/// transaction: a refused row fails its statement, and the caller's transaction with it.
pub(crate) fn insert_all<R: std::ops::Deref<Target = ChatMessage>>(conn: &mut SqliteConnection, rows: &[R], if_saved: IfSaved) -> QueryResult<()> {
    let mut rest = rows;
    while !rest.is_empty() {
        let size = GROUPS.into_iter().find(|size| *size <= rest.len()).unwrap_or(1);
        let (group, after) = rest.split_at(size);
        InsertRows { rows: group, if_saved }.execute(conn)?;
        rest = after;
    }
    Ok(())
}

/// `insert_all` for one row.
pub(crate) fn insert_one(conn: &mut SqliteConnection, row: &ChatMessage, if_saved: IfSaved) -> QueryResult<()> {
    insert_all(conn, std::slice::from_ref(&row), if_saved)
}

/// The statement for one group of rows, every column bound (nulls included), so its text
/// depends on the number of rows (and `if_saved`) alone.
struct InsertRows<'a, R> {
    rows: &'a [R],
    if_saved: IfSaved,
}

impl<R> RunQueryDsl<SqliteConnection> for InsertRows<'_, R> {}

impl<R> QueryId for InsertRows<'_, R> {
    type QueryId = ();
    // Cached by its text instead (diesel's `StatementCacheKey::Sql`).
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<R: std::ops::Deref<Target = ChatMessage>> QueryFragment<Sqlite> for InsertRows<'_, R> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        out.push_sql(match self.if_saved {
            IfSaved::Fail => "INSERT INTO ",
            IfSaved::Skip => "INSERT OR IGNORE INTO ",
        });
        out.push_sql(
            "chat_messages (id, session_id, seq, role, content, sender_name, agent_id, is_agent, \
             is_error, sources, created_at, edited_at, suggestions) VALUES ",
        );
        for (i, row) in self.rows.iter().enumerate() {
            // Named field by field, without `..`: a column added to the row will not compile
            // until it is written here, in the column list above as well.
            let ChatMessage { id, session_id, seq, role, content, sender_name, agent_id, is_agent, is_error, sources, created_at, edited_at, suggestions } = &**row;
            out.push_sql(if i == 0 { "(" } else { ", (" });
            out.push_bind_param::<Text, _>(id)?;
            out.push_sql(", ");
            out.push_bind_param::<Text, _>(session_id)?;
            out.push_sql(", ");
            out.push_bind_param::<BigInt, _>(seq)?;
            out.push_sql(", ");
            out.push_bind_param::<Text, _>(role)?;
            out.push_sql(", ");
            out.push_bind_param::<Text, _>(content)?;
            out.push_sql(", ");
            out.push_bind_param::<Nullable<Text>, _>(sender_name)?;
            out.push_sql(", ");
            out.push_bind_param::<Nullable<Text>, _>(agent_id)?;
            out.push_sql(", ");
            out.push_bind_param::<Bool, _>(is_agent)?;
            out.push_sql(", ");
            out.push_bind_param::<Bool, _>(is_error)?;
            out.push_sql(", ");
            out.push_bind_param::<Text, _>(sources)?;
            out.push_sql(", ");
            out.push_bind_param::<Timestamp, _>(created_at)?;
            out.push_sql(", ");
            out.push_bind_param::<Nullable<Timestamp>, _>(edited_at)?;
            out.push_sql(", ");
            out.push_bind_param::<Text, _>(suggestions)?;
            out.push_sql(")");
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use diesel::connection::SimpleConnection;
    use diesel::prelude::*;
    use diesel_migrations::MigrationHarness;

    use super::*;
    use crate::schema::chat_messages;

    fn migrated() -> SqliteConnection {
        let mut conn = SqliteConnection::establish(":memory:").unwrap();
        conn.run_pending_migrations(crate::pool::SQLITE_MIGRATIONS).unwrap();
        // The rows' sessions are not made here: what is tested is the statement, not the schema.
        conn.batch_execute("PRAGMA foreign_keys = OFF").unwrap();
        conn
    }

    fn row(n: i64) -> ChatMessage {
        let at = chrono::DateTime::from_timestamp(1_764_000_000 + n, 0).unwrap().naive_utc();
        ChatMessage {
            id: format!("m{n:04}"),
            session_id: format!("s{}", n % 3),
            seq: n,
            role: if n % 2 == 0 { "user" } else { "bot" }.into(),
            content: format!("message {n} with a quote ' and a comma, too"),
            sender_name: (n % 4 == 0).then(|| format!("Visitor {n}")),
            agent_id: None,
            is_agent: n % 5 == 0,
            is_error: n % 7 == 0,
            sources: "[]".into(),
            created_at: at,
            edited_at: (n % 6 == 0).then_some(at),
            suggestions: "[]".into(),
        }
    }

    #[test]
    fn every_row_of_a_batch_comes_back_as_it_went_in() {
        let mut conn = migrated();
        // 45 rows: groups of 32, 8, 4 and 1.
        let rows: Vec<ChatMessage> = (1..=45).map(row).collect();
        insert_all(&mut conn, &rows.iter().collect::<Vec<_>>(), IfSaved::Fail).unwrap();
        let back: Vec<ChatMessage> = chat_messages::table.order(chat_messages::seq).select(ChatMessage::as_select()).load(&mut conn).unwrap();
        assert_eq!(back, rows);
        // The same shapes again: served by the statements prepared the first time.
        let more: Vec<ChatMessage> = (46..=90).map(row).collect();
        insert_all(&mut conn, &more.iter().collect::<Vec<_>>(), IfSaved::Fail).unwrap();
        assert_eq!(chat_messages::table.count().get_result::<i64>(&mut conn).unwrap(), 90);
    }

    #[test]
    fn a_refused_row_fails_its_batch_and_the_transaction_keeps_nothing() {
        let mut conn = migrated();
        let mut rows: Vec<ChatMessage> = (1..=20).map(row).collect();
        rows[13].id = rows[2].id.clone();
        let refs: Vec<&ChatMessage> = rows.iter().collect();
        let result = conn.immediate_transaction::<_, diesel::result::Error, _>(|conn| insert_all(conn, &refs, IfSaved::Fail));
        assert!(matches!(result, Err(diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _))), "{result:?}");
        assert_eq!(chat_messages::table.count().get_result::<i64>(&mut conn).unwrap(), 0);
    }

    #[test]
    fn a_replay_skips_the_rows_already_saved_and_inserts_the_rest() {
        let mut conn = migrated();
        let first: Vec<ChatMessage> = (1..=10).map(row).collect();
        insert_all(&mut conn, &first.iter().collect::<Vec<_>>(), IfSaved::Fail).unwrap();
        // A journal segment holding rows 6..=40: 6..=10 were committed before the stop.
        let mut segment: Vec<ChatMessage> = (6..=40).map(row).collect();
        segment[0].content = "a replayed copy must not replace the saved row".into();
        insert_all(&mut conn, &segment.iter().collect::<Vec<_>>(), IfSaved::Skip).unwrap();
        let back: Vec<ChatMessage> = chat_messages::table.order(chat_messages::seq).select(ChatMessage::as_select()).load(&mut conn).unwrap();
        assert_eq!(back, (1..=40).map(row).collect::<Vec<_>>());
        insert_one(&mut conn, &row(41), IfSaved::Skip).unwrap();
        let again = insert_one(&mut conn, &row(41), IfSaved::Fail);
        assert!(matches!(again, Err(diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _))), "{again:?}");
        assert_eq!(chat_messages::table.count().get_result::<i64>(&mut conn).unwrap(), 41);
    }
}
