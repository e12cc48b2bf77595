//! The one hand-kept diesel schema both backends share (see the migrations of the same name).

diesel::table! {
    users (id) {
        id -> Text,
        email -> Text,
        name -> Text,
        password_hash -> Nullable<Text>,
        profile_picture -> Nullable<Text>,
        timezone -> Text,
        language -> Text,
        two_factor_enabled -> Bool,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        email_verified -> Bool,
        token_version -> Integer,
    }
}

diesel::table! {
    two_factor (user_id) {
        user_id -> Text,
        secret -> Text,
        enabled -> Bool,
        last_step -> BigInt,
        recovery_hashes -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    email_tokens (id) {
        id -> Text,
        user_id -> Text,
        purpose -> Text,
        email -> Text,
        token_hash -> Text,
        expires_at -> Timestamp,
        used_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    signed_out_sessions (id) {
        id -> Text,
        user_id -> Text,
        expires_at -> Timestamp,
    }
}

diesel::table! {
    mail_outbox (id) {
        id -> Text,
        to_address -> Text,
        subject -> Text,
        text_body -> Text,
        html_body -> Text,
        link -> Nullable<Text>,
        status -> Text,
        attempts -> Integer,
        next_attempt_at -> Timestamp,
        last_error -> Nullable<Text>,
        created_at -> Timestamp,
        sent_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    user_identities (id) {
        id -> Text,
        user_id -> Text,
        provider -> Text,
        subject -> Text,
        email -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    notification_preferences (user_id) {
        user_id -> Text,
        email_notifications -> Bool,
        push_notifications -> Bool,
        weekly_reports -> Bool,
        security_alerts -> Bool,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    weekly_reports (user_id) {
        user_id -> Text,
        period_end -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    bots (id) {
        id -> Text,
        owner_id -> Text,
        name -> Text,
        description -> Text,
        icon -> Nullable<Text>,
        status -> Text,
        website_url -> Nullable<Text>,
        system_prompt -> Text,
        widget -> Text,
        knowledge_version -> BigInt,
        last_active -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    bot_settings (bot_id) {
        bot_id -> Text,
        max_chat_text_size -> Integer,
        url_whitelist -> Text,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    team_members (id) {
        id -> Text,
        bot_id -> Text,
        user_id -> Nullable<Text>,
        email -> Text,
        role -> Text,
        status -> Text,
        invited_by -> Nullable<Text>,
        invite_token -> Nullable<Text>,
        invited_at -> Timestamp,
        joined_at -> Nullable<Timestamp>,
        last_active -> Nullable<Timestamp>,
        invite_expires_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    knowledge_sources (id) {
        id -> Text,
        bot_id -> Text,
        kind -> Text,
        name -> Text,
        status -> Text,
        error -> Nullable<Text>,
        url -> Nullable<Text>,
        content -> Nullable<Text>,
        file_path -> Nullable<Text>,
        size_bytes -> Nullable<BigInt>,
        pages -> Nullable<Integer>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    qa_pairs (id) {
        id -> Text,
        bot_id -> Text,
        question -> Text,
        answer -> Text,
        status -> Text,
        error -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    chunks (id) {
        id -> Text,
        bot_id -> Text,
        source_id -> Nullable<Text>,
        qa_id -> Nullable<Text>,
        position -> Integer,
        title -> Text,
        url -> Nullable<Text>,
        page -> Nullable<Integer>,
        content -> Text,
        embedding -> Nullable<Binary>,
        created_at -> Timestamp,
        sentence_embeddings -> Nullable<Binary>,
    }
}

diesel::table! {
    chat_sessions (id) {
        id -> Text,
        bot_id -> Text,
        title -> Text,
        status -> Text,
        priority -> Text,
        tags -> Text,
        needs_human_support -> Bool,
        assigned_agent_id -> Nullable<Text>,
        assigned_agent_name -> Nullable<Text>,
        customer_name -> Nullable<Text>,
        customer_email -> Nullable<Text>,
        customer_phone -> Nullable<Text>,
        customer_company -> Nullable<Text>,
        human_support_requested_at -> Nullable<Timestamp>,
        resolved_at -> Nullable<Timestamp>,
        resolved_by -> Nullable<Text>,
        rating -> Nullable<Integer>,
        feedback -> Nullable<Text>,
        is_pinned -> Bool,
        is_starred -> Bool,
        message_count -> Integer,
        last_message -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        resolution_notes -> Nullable<Text>,
    }
}

diesel::table! {
    chat_messages (id) {
        id -> Text,
        session_id -> Text,
        seq -> BigInt,
        role -> Text,
        content -> Text,
        sender_name -> Nullable<Text>,
        agent_id -> Nullable<Text>,
        is_agent -> Bool,
        is_error -> Bool,
        sources -> Text,
        created_at -> Timestamp,
        edited_at -> Nullable<Timestamp>,
        suggestions -> Text,
    }
}

diesel::table! {
    leads (id) {
        id -> Text,
        bot_id -> Text,
        session_id -> Nullable<Text>,
        name -> Nullable<Text>,
        email -> Nullable<Text>,
        phone -> Nullable<Text>,
        company -> Nullable<Text>,
        status -> Text,
        priority -> Text,
        source -> Text,
        notes -> Nullable<Text>,
        tags -> Text,
        lead_score -> Integer,
        assigned_to -> Nullable<Text>,
        captured_at -> Timestamp,
        last_contact -> Nullable<Timestamp>,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    plans (id) {
        id -> Text,
        name -> Text,
        price_monthly_cents -> Nullable<Integer>,
        price_yearly_cents -> Nullable<Integer>,
        conversations_limit -> Integer,
        bots_limit -> Integer,
        credits_limit -> Integer,
        features -> Text,
        sort_order -> Integer,
    }
}

diesel::table! {
    subscriptions (id) {
        id -> Text,
        user_id -> Text,
        plan_id -> Text,
        status -> Text,
        billing_cycle -> Text,
        current_period_start -> Timestamp,
        current_period_end -> Timestamp,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        cancel_at_period_end -> Bool,
        ends_at -> Nullable<Timestamp>,
        stripe_customer_id -> Nullable<Text>,
        stripe_subscription_id -> Nullable<Text>,
    }
}

diesel::table! {
    limit_notices (user_id, period_start, limit_kind) {
        user_id -> Text,
        period_start -> Timestamp,
        limit_kind -> Text,
        reached_at -> Timestamp,
        sent_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    usage_counters (user_id, period_start) {
        user_id -> Text,
        period_start -> Timestamp,
        conversations -> Integer,
        credits_used -> Integer,
    }
}

diesel::table! {
    payments (id) {
        id -> Text,
        user_id -> Text,
        description -> Text,
        amount_cents -> Integer,
        currency -> Text,
        status -> Text,
        paid_at -> Timestamp,
        stripe_invoice_id -> Nullable<Text>,
    }
}

diesel::table! {
    stripe_events (id) {
        id -> Text,
        kind -> Text,
        received_at -> Timestamp,
    }
}

diesel::table! {
    paused_bots (bot_id) {
        bot_id -> Text,
        paused_at -> Timestamp,
    }
}

diesel::table! {
    activity_log (id) {
        id -> Text,
        user_id -> Nullable<Text>,
        bot_id -> Nullable<Text>,
        action -> Text,
        kind -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    /// Answers given without knowledge behind them, with the question (analytics). The
    /// per-slot message counts beside it (`message_counts`, with `message_counts_through`) are
    /// kept by the message writer and triggers and used by raw SQL only (`analytics.rs`,
    /// `writer/counters.rs`), so they have no table here.
    refused_answers (id) {
        id -> Text,
        bot_id -> Text,
        session_id -> Text,
        message_id -> Text,
        question -> Text,
        question_key -> Text,
        created_at -> Timestamp,
    }
}

diesel::joinable!(user_identities -> users (user_id));
diesel::joinable!(email_tokens -> users (user_id));
diesel::joinable!(signed_out_sessions -> users (user_id));
diesel::joinable!(two_factor -> users (user_id));
diesel::joinable!(notification_preferences -> users (user_id));
diesel::joinable!(weekly_reports -> users (user_id));
diesel::joinable!(bots -> users (owner_id));
diesel::joinable!(bot_settings -> bots (bot_id));
diesel::table! {
    message_counter_flushes (id) {
        id -> Integer,
        flushed_at -> Timestamp,
    }
}

diesel::joinable!(team_members -> bots (bot_id));
diesel::joinable!(knowledge_sources -> bots (bot_id));
diesel::joinable!(qa_pairs -> bots (bot_id));
diesel::joinable!(chat_sessions -> bots (bot_id));
diesel::joinable!(chat_messages -> chat_sessions (session_id));
diesel::joinable!(leads -> bots (bot_id));
diesel::joinable!(subscriptions -> plans (plan_id));
diesel::joinable!(refused_answers -> bots (bot_id));

diesel::allow_tables_to_appear_in_same_query!(
    users,
    user_identities,
    email_tokens,
    signed_out_sessions,
    two_factor,
    mail_outbox,
    notification_preferences,
    weekly_reports,
    bots,
    bot_settings,
    team_members,
    knowledge_sources,
    qa_pairs,
    chunks,
    chat_sessions,
    chat_messages,
    leads,
    plans,
    subscriptions,
    usage_counters,
    payments,
    stripe_events,
    paused_bots,
    limit_notices,
    activity_log,
    message_counter_flushes,
    refused_answers,
);
