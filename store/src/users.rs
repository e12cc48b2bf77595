//! Accounts: users, their sign-in identities (Google, GitHub) and notification preferences.
//! Emails are kept lower-cased so uniqueness ignores case.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::billing::new_subscription;
use crate::models::{NotificationPrefs, User, UserIdentity};
use crate::schema::{notification_preferences, subscriptions, user_identities, users};
use crate::{new_id, time, Store, StoreResult};

#[derive(Debug, Clone)]
pub struct NewUser {
    pub email: String,
    pub name: String,
    pub password_hash: Option<String>,
    pub profile_picture: Option<String>,
}

/// What a user may change on their own profile at once. The email is not here: a new address
/// takes effect only through the link sent to it (`tokens`).
#[derive(Debug, Clone, Default)]
pub struct ProfileUpdate {
    pub name: Option<String>,
    pub timezone: Option<String>,
    pub language: Option<String>,
}

/// How an outside sign-in ended.
#[derive(Debug, Clone)]
pub enum IdentitySignIn {
    User(User),
    /// An existing (verified) account signed in through this provider for the first time; the
    /// identity is linked to it now (its owner is told: a security alert).
    LinkedNow(User),
    /// An account with the provider's email exists, but its address was never verified: linking
    /// would hand it to whoever created it (pre-account takeover), so the sign-in is refused.
    UnverifiedAccountExists,
}

/// A sign-in through an outside provider.
#[derive(Debug, Clone)]
pub struct ExternalIdentity {
    pub provider: String,
    pub subject: String,
    pub email: String,
    pub name: String,
    pub picture: Option<String>,
}

pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

fn default_prefs(user_id: &str) -> NotificationPrefs {
    NotificationPrefs {
        user_id: user_id.to_string(),
        email_notifications: true,
        push_notifications: true,
        weekly_reports: false,
        security_alerts: true,
        updated_at: time::now(),
    }
}

fn new_user_row(new: NewUser) -> User {
    let now = time::now();
    User {
        id: new_id(),
        email: normalize_email(&new.email),
        name: new.name.trim().to_string(),
        password_hash: new.password_hash,
        profile_picture: new.profile_picture,
        timezone: "UTC-5".into(),
        language: "en".into(),
        two_factor_enabled: false,
        created_at: now,
        updated_at: now,
        email_verified: false,
        token_version: 0,
    }
}

impl Store {
    /// Creates the user with default notification preferences and a Free plan, atomically.
    /// An email already registered is a `Conflict`.
    pub async fn create_user(&self, new: NewUser) -> StoreResult<User> {
        let plan = std::sync::Arc::clone(&self.default_plan);
        self.create_user_on_plan(new, &plan).await
    }

    /// Like `create_user`, on `plan` (one of the seeded plans) rather than the default: the
    /// demo bot's account, which counts against nobody's plan.
    pub async fn create_user_on_plan(&self, new: NewUser, plan: &str) -> StoreResult<User> {
        let user = new_user_row(new);
        let prefs = default_prefs(&user.id);
        let subscription = new_subscription(&user.id, plan, user.created_at);
        db_tx!(self, |conn| async move {
            diesel::insert_into(users::table).values(&user).execute(conn).await?;
            diesel::insert_into(notification_preferences::table).values(&prefs).execute(conn).await?;
            diesel::insert_into(subscriptions::table).values(&subscription).execute(conn).await?;
            Ok(user)
        })
    }

    pub async fn user_by_id(&self, id: &str) -> StoreResult<Option<User>> {
        db_run!(self, |conn| users::table.find(id).first::<User>(conn).await.optional())
            .map_err(Into::into)
    }

    pub async fn user_by_email(&self, email: &str) -> StoreResult<Option<User>> {
        let email = normalize_email(email);
        db_run!(self, |conn| users::table
            .filter(users::email.eq(&email))
            .first::<User>(conn)
            .await
            .optional())
        .map_err(Into::into)
    }

    pub async fn update_profile(&self, id: &str, update: ProfileUpdate) -> StoreResult<User> {
        let now = time::now();
        db_tx!(self, owned(id), |conn| async move {
            let mut user: User = users::table.find(id).first(conn).await?;
            if let Some(name) = update.name {
                user.name = name.trim().to_string();
            }
            if let Some(tz) = update.timezone {
                user.timezone = tz;
            }
            if let Some(lang) = update.language {
                user.language = lang;
            }
            user.updated_at = now;
            diesel::update(users::table.find(id))
                .set((
                    users::name.eq(&user.name),
                    users::timezone.eq(&user.timezone),
                    users::language.eq(&user.language),
                    users::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            Ok(user)
        })
    }

    /// Sets a new password and raises the token version, which ends every session issued
    /// before, and ends every emailed link not yet followed (a reset, or an email change started
    /// by whoever held the account before); returns the updated user (whose version new tokens
    /// must carry).
    pub async fn set_password_hash(&self, id: &str, hash: &str) -> StoreResult<User> {
        use crate::schema::email_tokens;
        let now = time::now();
        db_tx!(self, owned(id, hash), |conn| async move {
            let n = diesel::update(users::table.find(id))
                .set((
                    users::password_hash.eq(hash),
                    users::token_version.eq(users::token_version + 1),
                    users::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            if n == 0 {
                return Err(crate::StoreError::NotFound);
            }
            diesel::update(email_tokens::table.filter(email_tokens::user_id.eq(id)).filter(email_tokens::used_at.is_null()))
                .set(email_tokens::used_at.eq(now))
                .execute(conn)
                .await?;
            Ok(users::table.find(id).first::<User>(conn).await?)
        })
    }

    /// Marks the user's current address verified (tests and tools; the product goes through
    /// `redeem_email_token`).
    pub async fn mark_email_verified(&self, id: &str) -> StoreResult<()> {
        db_run!(self, |conn| diesel::update(users::table.find(id))
            .set(users::email_verified.eq(true))
            .execute(conn)
            .await)?;
        Ok(())
    }

    pub async fn set_profile_picture(&self, id: &str, url: &str) -> StoreResult<()> {
        let now = time::now();
        let n = db_run!(self, |conn| diesel::update(users::table.find(id))
            .set((users::profile_picture.eq(url), users::updated_at.eq(now)))
            .execute(conn)
            .await)?;
        if n == 0 {
            return Err(crate::StoreError::NotFound);
        }
        Ok(())
    }

    pub async fn notification_prefs(&self, user_id: &str) -> StoreResult<NotificationPrefs> {
        let found = db_run!(self, |conn| notification_preferences::table
            .find(user_id)
            .first::<NotificationPrefs>(conn)
            .await
            .optional())?;
        Ok(found.unwrap_or_else(|| default_prefs(user_id)))
    }

    pub async fn save_notification_prefs(&self, prefs: NotificationPrefs) -> StoreResult<NotificationPrefs> {
        let mut prefs = prefs;
        prefs.updated_at = time::now();
        let row = prefs.clone();
        db_run!(self, |conn| diesel::insert_into(notification_preferences::table)
            .values(&row)
            .on_conflict(notification_preferences::user_id)
            .do_update()
            .set(&row)
            .execute(conn)
            .await)?;
        Ok(prefs)
    }

    /// The user behind an outside sign-in: the one already linked to it, else the account with
    /// the same *verified* email (linked now), else a new account, verified since the provider
    /// vouches for the address. All in one transaction.
    pub async fn user_for_identity(&self, identity: ExternalIdentity) -> StoreResult<IdentitySignIn> {
        let email = normalize_email(&identity.email);
        let mut fresh = new_user_row(NewUser {
            email: email.clone(),
            name: identity.name.clone(),
            password_hash: None,
            profile_picture: identity.picture.clone(),
        });
        fresh.email_verified = true;
        let prefs = default_prefs(&fresh.id);
        let subscription = new_subscription(&fresh.id, &self.default_plan, fresh.created_at);
        db_tx!(self, |conn| async move {
            let linked: Option<User> = user_identities::table
                .inner_join(users::table)
                .filter(user_identities::provider.eq(&identity.provider))
                .filter(user_identities::subject.eq(&identity.subject))
                .select(User::as_select())
                .first(conn)
                .await
                .optional()?;
            if let Some(user) = linked {
                return Ok(IdentitySignIn::User(user));
            }
            let existing: Option<User> =
                users::table.filter(users::email.eq(&email)).first(conn).await.optional()?;
            let (user, linked_existing) = match existing {
                Some(user) if !user.email_verified => return Ok(IdentitySignIn::UnverifiedAccountExists),
                Some(user) => (user, true),
                None => {
                    diesel::insert_into(users::table).values(&fresh).execute(conn).await?;
                    diesel::insert_into(notification_preferences::table).values(&prefs).execute(conn).await?;
                    diesel::insert_into(subscriptions::table).values(&subscription).execute(conn).await?;
                    (fresh, false)
                }
            };
            let link = UserIdentity {
                id: new_id(),
                user_id: user.id.clone(),
                provider: identity.provider,
                subject: identity.subject,
                email: Some(email),
                created_at: time::now(),
            };
            diesel::insert_into(user_identities::table).values(&link).execute(conn).await?;
            Ok(if linked_existing { IdentitySignIn::LinkedNow(user) } else { IdentitySignIn::User(user) })
        })
    }
}
