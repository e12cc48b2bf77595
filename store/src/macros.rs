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
macro_rules! db_tx {
    ($store:expr, |$conn:ident| $body:expr) => {{
        use ::diesel_async::scoped_futures::ScopedFutureExt as _;
        use ::diesel_async::AsyncConnection as _;
        db_run!($store, |c| {
            c.transaction::<_, $crate::StoreError, _>(|$conn| $body.scope_boxed()).await
        })
    }};
}
