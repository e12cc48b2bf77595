//! One query body, expanded once per backend (the vaultwarden `db_run!` pattern): the body sees
//! `conn` as `&mut` of the backend's async connection and must compile for both.

/// Runs `$body` with a pooled connection of whichever backend the store uses.
macro_rules! db_run {
    ($store:expr, |$conn:ident| $body:expr) => {{
        match $store.connection().await? {
            $crate::pool::Pooled::Sqlite(mut pooled) => {
                let $conn = &mut *pooled;
                $body
            }
            $crate::pool::Pooled::Pg(mut pooled) => {
                let $conn = &mut *pooled;
                $body
            }
        }
    }};
}

/// Like `db_run!`, inside one transaction: the body is an `async move` block returning
/// `StoreResult<T>`; any error rolls the whole thing back, so nothing is half-written.
///
/// On SQLite, transactions of this process take turns (one writer at a time is all SQLite
/// allows), and each begins IMMEDIATE: it takes the write lock before its first read, waiting
/// (busy timeout) for any single-statement write under way. A deferred transaction that reads
/// and then writes fails at once with "database is locked" when another write commits between
/// the two — which a storm of support requests did.
macro_rules! db_tx {
    ($store:expr, |$conn:ident| $body:expr) => {{
        match $store.connection().await? {
            $crate::pool::Pooled::Sqlite(mut pooled) => {
                let _turn = $store.sqlite_writer.lock().await;
                sqlite_tx!(&mut *pooled, |$conn| $body)
            }
            $crate::pool::Pooled::Pg(mut pooled) => pg_tx!(&mut *pooled, |$conn| $body),
        }
    }};
}

/// One SQLite transaction on `$c`, by a caller already holding the writer's turn.
macro_rules! sqlite_tx {
    ($c:expr, |$conn:ident| $body:expr) => {{
        use ::diesel_async::RunQueryDsl as _;
        let c = $c;
        // A transaction left open by a cancelled caller on this pooled connection is ended
        // first (harmless when there is none).
        let _ = ::diesel::sql_query("ROLLBACK").execute(c).await;
        ::diesel::sql_query("BEGIN IMMEDIATE").execute(c).await?;
        let outcome: $crate::StoreResult<_> = {
            let $conn = &mut *c;
            $body.await
        };
        match outcome {
            Ok(value) => match ::diesel::sql_query("COMMIT").execute(c).await {
                Ok(_) => Ok(value),
                Err(e) => {
                    let _ = ::diesel::sql_query("ROLLBACK").execute(c).await;
                    Err(e.into())
                }
            },
            Err(e) => {
                let _ = ::diesel::sql_query("ROLLBACK").execute(c).await;
                Err(e)
            }
        }
    }};
}

/// One PostgreSQL transaction on `$c`.
macro_rules! pg_tx {
    ($c:expr, |$conn:ident| $body:expr) => {{
        use ::diesel_async::scoped_futures::ScopedFutureExt as _;
        use ::diesel_async::AsyncConnection as _;
        let c = $c;
        c.transaction::<_, $crate::StoreError, _>(|$conn| $body.scope_boxed()).await
    }};
}
