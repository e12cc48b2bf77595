//! One query body, expanded once per backend (the vaultwarden `db_run!` pattern): the body sees
//! `conn` as `&mut` of the backend's async connection and must compile for both.

/// Runs `$body` with a pooled connection of whichever backend the store uses. A body that
/// holds its connection past the store's call bound (a database that stopped answering) is
/// given up on: the enclosing function returns `StoreError::Unavailable`, so a hung database
/// gives quick 503s instead of a growing queue of stuck calls.
macro_rules! db_run {
    ($store:expr, |$conn:ident| $body:expr) => {{
        let bound = $store.call_bound;
        let gave_up = || $crate::StoreError::Unavailable($crate::pool::DATABASE_UNAVAILABLE.into());
        match $store.connection().await? {
            $crate::pool::Pooled::Sqlite(pooled) => {
                // Back to the pool only if the body finishes (see `SqliteLease`).
                let mut lease = $crate::pool::SqliteLease::new(pooled);
                let Some($conn) = lease.conn() else { return Err(gave_up().into()) };
                match ::tokio::time::timeout(bound, async { $body }).await {
                    Ok(out) => {
                        lease.finished();
                        out
                    }
                    Err(_) => return Err(gave_up().into()),
                }
            }
            $crate::pool::Pooled::Pg(mut pooled) => {
                let $conn = &mut *pooled;
                match ::tokio::time::timeout(bound, async { $body }).await {
                    Ok(out) => out,
                    Err(_) => return Err(gave_up().into()),
                }
            }
        }
    }};
}

/// Like `db_run!`, inside one transaction: the body is an `async move` block returning
/// `StoreResult<T>`; any error rolls the whole thing back, so nothing is half-written.
///
/// The transaction runs on a task of its own, which the caller cannot cancel: actix drops a
/// handler's future when its client resets the connection, and a transaction dropped between
/// BEGIN and COMMIT left its pooled connection holding SQLite's write lock (every other writer
/// then failed after the busy timeout, and single-statement writes that landed on that
/// connection were rolled back later, lost). Now a transaction that began always ends,
/// committed or rolled back, whoever stopped waiting for it. So the body must own what it
/// uses: `owned(a, b)` moves owned copies of the named borrowed arguments into the task (the
/// body sees them as borrows of those copies).
///
/// On SQLite, transactions of this process take turns (one writer at a time is all SQLite
/// allows), and each begins IMMEDIATE: it takes the write lock before its first read, waiting
/// (busy timeout) for any single-statement write under way. A deferred transaction that reads
/// and then writes fails at once with "database is locked" when another write commits between
/// the two — which a storm of support requests did.
macro_rules! db_tx {
    ($store:expr, |$conn:ident| $body:expr) => {
        db_tx!($store, owned(), |$conn| $body)
    };
    ($store:expr, owned($($own:ident),* $(,)?), |$conn:ident| $body:expr) => {{
        $( let $own = ::std::borrow::ToOwned::to_owned($own); )*
        let store: $crate::pool::Store = ::std::clone::Clone::clone($store);
        let bound = store.call_bound;
        $crate::pool::uncancellable(bound, async move {
            // The body sees the owned copies as borrows again, as it did the arguments.
            $( let $own = &$own; )*
            match store.connection().await? {
                $crate::pool::Pooled::Sqlite(mut pooled) => {
                    let _turn = store.sqlite_writer.lock().await;
                    sqlite_tx!(&mut *pooled, |$conn| $body)
                }
                $crate::pool::Pooled::Pg(mut pooled) => pg_tx!(&mut *pooled, |$conn| $body),
            }
        })
        .await
    }};
}

/// One SQLite transaction on `$c`, by a caller already holding the writer's turn.
macro_rules! sqlite_tx {
    ($c:expr, |$conn:ident| $body:expr) => {{
        use ::diesel_async::RunQueryDsl as _;
        let c = $c;
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
