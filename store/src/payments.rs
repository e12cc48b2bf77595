//! Payment history: one row per paid (or failed) invoice, newest first, paged for the
//! Billing page's history.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::models::Payment;
use crate::schema::payments;
use crate::{Store, StoreError, StoreResult};

impl Store {
    /// The user's payments, newest first, `limit` from `offset`, and how many there are.
    pub async fn payments_page(&self, user_id: &str, offset: i64, limit: i64) -> StoreResult<(Vec<Payment>, i64)> {
        db_run!(self, |conn| {
            let rows = payments::table
                .filter(payments::user_id.eq(user_id))
                .order((payments::paid_at.desc(), payments::id.desc()))
                .offset(offset)
                .limit(limit)
                .load::<Payment>(conn)
                .await?;
            let total: i64 = payments::table.filter(payments::user_id.eq(user_id)).count().get_result(conn).await?;
            Ok::<_, StoreError>((rows, total))
        })
    }

    /// Adds a payment to the user's history.
    pub async fn record_payment(&self, payment: &Payment) -> StoreResult<()> {
        db_run!(self, |conn| diesel::insert_into(payments::table).values(payment).execute(conn).await)?;
        Ok(())
    }
}
