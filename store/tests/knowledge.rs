//! Knowledge sources, Q&A pairs and chunks, run against both backends.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use parley_store::bots::{NewBot, WidgetConfig};
use parley_store::knowledge::{NewChunk, NewSource, SourceKind, TrainingStatus, MAX_QA_PAIRS, MAX_SOURCES_PER_LIST};
use parley_store::testing::TestDb;
use parley_store::users::NewUser;
use parley_store::{Backend, Store, StoreError};

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite { $( #[tokio::test] async fn $name() { super::$name(parley_store::Backend::Sqlite).await } )* }
        mod postgres { $( #[tokio::test] async fn $name() { super::$name(parley_store::Backend::Postgres).await } )* }
    };
}

on_both_backends!(
    sources_are_added_listed_and_deleted_per_kind,
    status_changes_carry_a_reason_only_when_failed,
    replacing_chunks_is_atomic_and_moves_the_version,
    failing_a_source_takes_its_chunks_out,
    failing_a_qa_pair_takes_its_old_chunk_out,
    source_lists_stop_at_twenty_even_when_added_concurrently,
    qa_pairs_stop_at_fifty_even_when_added_concurrently,
    qa_pairs_get_chunks_and_can_be_edited_and_deleted,
    unfinished_work_is_listed_for_recovery,
    deleting_the_bot_removes_its_knowledge,
);

async fn store(backend: Backend) -> (TestDb, Store) {
    let db = TestDb::new(backend).await.expect("test database");
    let store = db.open().await.expect("open store");
    (db, store)
}

async fn bot(store: &Store) -> String {
    let u = store
        .create_user(NewUser {
            email: format!("{}@x.co", parley_store::new_id()),
            name: "Ann".into(),
            password_hash: None,
            profile_picture: None,
        })
        .await
        .unwrap();
    store
        .create_bot(NewBot {
            owner_id: u.id,
            name: "Helper".into(),
            description: String::new(),
            website_url: None,
            icon: None,
            widget: WidgetConfig::default(),
            initial_sources: Vec::new(),
        })
        .await
        .unwrap()
        .id
}

fn new_source(bot_id: &str, kind: SourceKind, name: &str) -> NewSource {
    NewSource {
        bot_id: bot_id.into(),
        kind,
        name: name.into(),
        url: None,
        content: (kind == SourceKind::Text).then(|| "Some text".to_string()),
        file_path: None,
        size_bytes: None,
    }
}

fn chunk(position: i32, content: &str, embedding: Option<Vec<f32>>) -> NewChunk {
    NewChunk {
        position,
        title: "Title".into(),
        url: Some("https://example.com/a".into()),
        page: Some(position + 1),
        content: content.into(),
        // Two sentences' vectors beside a chunk vector, as training stores a passage.
        sentence_embeddings: embedding.as_ref().map(|v| v.iter().chain(v).map(|x| x * 2.0).collect()),
        embedding,
    }
}

async fn sources_are_added_listed_and_deleted_per_kind(backend: Backend) {
    let (_db, store) = store(backend).await;
    let b = bot(&store).await;
    let pdf = store.add_source(new_source(&b, SourceKind::Pdf, "a.pdf")).await.unwrap();
    let web = store.add_source(new_source(&b, SourceKind::Website, "https://example.com")).await.unwrap();
    let text = store.add_source(new_source(&b, SourceKind::Text, "Notes")).await.unwrap();
    store.add_qa_pair(&b, "Q?", "A.").await.unwrap();
    assert_eq!(pdf.status, "processing");
    assert_eq!(store.sources(&b, SourceKind::Pdf).await.unwrap(), vec![pdf.clone()]);
    assert_eq!(store.sources(&b, SourceKind::Website).await.unwrap(), vec![web.clone()]);
    assert_eq!(store.sources(&b, SourceKind::Text).await.unwrap()[0].content.as_deref(), Some("Some text"));
    assert_eq!(store.all_sources(&b).await.unwrap().len(), 3);
    let counts = store.source_counts(&b).await.unwrap();
    assert_eq!((counts.pdf, counts.website, counts.text, counts.qa), (1, 1, 1, 1));
    assert_eq!(counts.of(SourceKind::Website), 1);
    assert_eq!(store.source(&text.id).await.unwrap(), Some(text.clone()));

    let other = bot(&store).await;
    assert!(matches!(store.delete_source(&other, &pdf.id).await, Err(StoreError::NotFound)), "not another bot's");
    let v0 = store.knowledge_version(&b).await.unwrap();
    store.delete_source(&b, &pdf.id).await.unwrap();
    assert!(store.source(&pdf.id).await.unwrap().is_none());
    assert!(store.knowledge_version(&b).await.unwrap() > v0);
    assert!(matches!(store.delete_source(&b, &pdf.id).await, Err(StoreError::NotFound)));
    let missing = store.add_source(new_source("no-such-bot", SourceKind::Pdf, "x.pdf")).await;
    assert!(matches!(missing, Err(StoreError::NotFound)), "{missing:?}");
}

async fn status_changes_carry_a_reason_only_when_failed(backend: Backend) {
    let (_db, store) = store(backend).await;
    let b = bot(&store).await;
    let s = store.add_source(new_source(&b, SourceKind::Pdf, "a.pdf")).await.unwrap();
    store.set_source_status(&s.id, TrainingStatus::Failed, Some("not a PDF")).await.unwrap();
    let got = store.source(&s.id).await.unwrap().unwrap();
    assert_eq!((got.status.as_str(), got.error.as_deref()), ("failed", Some("not a PDF")));
    store.set_source_status(&s.id, TrainingStatus::Processing, Some("ignored")).await.unwrap();
    let got = store.source(&s.id).await.unwrap().unwrap();
    assert_eq!((got.status.as_str(), got.error), ("processing", None));
    assert!(matches!(
        store.set_source_status("nope", TrainingStatus::Completed, None).await,
        Err(StoreError::NotFound)
    ));
}

async fn replacing_chunks_is_atomic_and_moves_the_version(backend: Backend) {
    let (_db, store) = store(backend).await;
    let b = bot(&store).await;
    let s = store.add_source(new_source(&b, SourceKind::Pdf, "a.pdf")).await.unwrap();
    let v0 = store.knowledge_version(&b).await.unwrap();
    let first: Vec<NewChunk> = (0..450).map(|i| chunk(i, &format!("old {i}"), Some(vec![i as f32, 0.5]))).collect();
    let v1 = store.replace_source_chunks(&s.id, first, Some(3)).await.unwrap();
    assert_eq!(v1, v0 + 1);
    let got = store.source(&s.id).await.unwrap().unwrap();
    assert_eq!((got.status.as_str(), got.pages), ("completed", Some(3)));
    let stored = store.source_chunks(&s.id).await.unwrap();
    assert_eq!(stored.len(), 450, "many chunks");
    assert_eq!(stored[7].embedding.as_deref(), Some(&[7.0f32, 0.5][..]));
    assert_eq!(stored[7].sentence_embeddings.as_deref(), Some(&[14.0f32, 1.0, 14.0, 1.0][..]));
    assert_eq!(stored[7].page, Some(8));

    let v2 = store.replace_source_chunks(&s.id, vec![chunk(0, "new", None)], Some(1)).await.unwrap();
    assert_eq!(v2, v1 + 1);
    let all = store.bot_chunks(&b).await.unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].content, "new");
    assert_eq!(all[0].embedding, None);
    assert_eq!(all[0].sentence_embeddings, None);
    assert_eq!(all[0].source_id.as_deref(), Some(s.id.as_str()));

    // A replace that fails (unknown source) changes nothing.
    assert!(store.replace_source_chunks("no-such-source", vec![chunk(0, "x", None)], None).await.is_err());
    assert_eq!(store.knowledge_version(&b).await.unwrap(), v2);
    assert_eq!(store.bump_knowledge_version(&b).await.unwrap(), v2 + 1);
}

async fn failing_a_source_takes_its_chunks_out(backend: Backend) {
    let (_db, store) = store(backend).await;
    let b = bot(&store).await;
    let s = store.add_source(new_source(&b, SourceKind::Website, "https://example.com")).await.unwrap();
    let v1 = store.replace_source_chunks(&s.id, vec![chunk(0, "page", None)], None).await.unwrap();
    let v2 = store.fail_source(&s.id, "site unreachable").await.unwrap();
    assert_eq!(v2, v1 + 1);
    assert!(store.bot_chunks(&b).await.unwrap().is_empty());
    let got = store.source(&s.id).await.unwrap().unwrap();
    assert_eq!((got.status.as_str(), got.error.as_deref()), ("failed", Some("site unreachable")));
    assert_eq!(store.fail_source(&s.id, "again").await.unwrap(), v2, "nothing removed, nothing moved");
}

/// A pair edited and then failed (its new text could not be embedded) no longer answers with
/// its old text, and the bot's index is told to rebuild.
async fn failing_a_qa_pair_takes_its_old_chunk_out(backend: Backend) {
    let (_db, store) = store(backend).await;
    let b = bot(&store).await;
    let keep = store.add_qa_pair(&b, "Hours?", "9 to 5.").await.unwrap();
    store.replace_qa_chunks(&keep.id, vec![chunk(0, "Hours? 9 to 5.", None)]).await.unwrap();
    let qa = store.add_qa_pair(&b, "Refunds?", "Within 30 days.").await.unwrap();
    let v1 = store.replace_qa_chunks(&qa.id, vec![chunk(0, "Refunds? Within 30 days.", None)]).await.unwrap();
    store.update_qa_pair(&b, &qa.id, "Refunds?", "Within 14 days.").await.unwrap();
    let v2 = store.fail_qa(&qa.id, "the embedding model failed").await.unwrap();
    assert_eq!(v2, v1 + 1);
    let left = store.bot_chunks(&b).await.unwrap();
    assert_eq!(left.iter().map(|c| c.qa_id.as_deref()).collect::<Vec<_>>(), vec![Some(keep.id.as_str())]);
    let got = store.qa_pair(&qa.id).await.unwrap().unwrap();
    assert_eq!((got.status.as_str(), got.error.as_deref()), ("failed", Some("the embedding model failed")));
    assert_eq!(store.fail_qa(&qa.id, "again").await.unwrap(), v2, "nothing removed, nothing moved");
    assert!(matches!(store.fail_qa("no-such-pair", "x").await, Err(StoreError::NotFound)));
}

async fn source_lists_stop_at_twenty_even_when_added_concurrently(backend: Backend) {
    let (_db, store) = store(backend).await;
    let b = bot(&store).await;
    let mut tasks = Vec::new();
    for i in 0..30 {
        let s = store.clone();
        let b = b.clone();
        tasks.push(tokio::spawn(async move { s.add_source(new_source(&b, SourceKind::Text, &format!("t{i}"))).await }));
    }
    let (mut ok, mut full) = (0, 0);
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => ok += 1,
            Err(StoreError::LimitReached(m)) => {
                assert_eq!(m, "Maximum number of sources reached");
                full += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!((ok, full), (MAX_SOURCES_PER_LIST, 10));
    assert_eq!(store.source_counts(&b).await.unwrap().text, 20);
    // Each list has its own limit.
    store.add_source(new_source(&b, SourceKind::Pdf, "a.pdf")).await.unwrap();
}

async fn qa_pairs_stop_at_fifty_even_when_added_concurrently(backend: Backend) {
    let (_db, store) = store(backend).await;
    let b = bot(&store).await;
    let mut tasks = Vec::new();
    for i in 0..60 {
        let s = store.clone();
        let b = b.clone();
        tasks.push(tokio::spawn(async move { s.add_qa_pair(&b, &format!("Q{i}?"), "A.").await }));
    }
    let (mut ok, mut full) = (0, 0);
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => ok += 1,
            Err(StoreError::LimitReached(m)) => {
                assert_eq!(m, "Maximum number of Q&A pairs reached");
                full += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!((ok, full), (MAX_QA_PAIRS, 10));
    assert_eq!(store.qa_pairs(&b).await.unwrap().len(), 50);
}

async fn qa_pairs_get_chunks_and_can_be_edited_and_deleted(backend: Backend) {
    let (_db, store) = store(backend).await;
    let b = bot(&store).await;
    let qa = store.add_qa_pair(&b, "Opening hours?", "9 to 5.").await.unwrap();
    assert_eq!(qa.status, "processing");
    let v = store.replace_qa_chunks(&qa.id, vec![chunk(0, "Opening hours? 9 to 5.", Some(vec![1.0]))]).await.unwrap();
    assert_eq!(store.qa_pair(&qa.id).await.unwrap().unwrap().status, "completed");
    let chunks = store.bot_chunks(&b).await.unwrap();
    assert_eq!(chunks.len(), 1);
    assert_eq!(chunks[0].qa_id.as_deref(), Some(qa.id.as_str()));
    assert_eq!(chunks[0].source_id, None);

    let edited = store.update_qa_pair(&b, &qa.id, "Hours?", "9-5").await.unwrap();
    assert_eq!((edited.question.as_str(), edited.status.as_str()), ("Hours?", "processing"));
    store.set_qa_status(&qa.id, TrainingStatus::Failed, Some("no vector")).await.unwrap();
    let failed = store.qa_pair(&qa.id).await.unwrap().unwrap();
    assert_eq!((failed.status.as_str(), failed.error.as_deref()), ("failed", Some("no vector")));
    store.set_qa_status(&qa.id, TrainingStatus::Processing, Some("ignored unless failed")).await.unwrap();
    assert_eq!(store.qa_pair(&qa.id).await.unwrap().unwrap().error, None, "a reason only goes with failed");
    let other = bot(&store).await;
    assert!(matches!(store.delete_qa_pair(&other, &qa.id).await, Err(StoreError::NotFound)));
    store.delete_qa_pair(&b, &qa.id).await.unwrap();
    assert!(store.bot_chunks(&b).await.unwrap().is_empty());
    assert!(store.knowledge_version(&b).await.unwrap() > v);
    assert!(store.qa_pair(&qa.id).await.unwrap().is_none());
}

async fn unfinished_work_is_listed_for_recovery(backend: Backend) {
    let (_db, store) = store(backend).await;
    let b = bot(&store).await;
    let done = store.add_source(new_source(&b, SourceKind::Text, "done")).await.unwrap();
    let stuck = store.add_source(new_source(&b, SourceKind::Text, "stuck")).await.unwrap();
    store.replace_source_chunks(&done.id, vec![chunk(0, "x", None)], None).await.unwrap();
    let qa = store.add_qa_pair(&b, "Q?", "A.").await.unwrap();
    let unfinished: Vec<String> = store.unfinished_sources().await.unwrap().into_iter().map(|s| s.id).collect();
    assert_eq!(unfinished, vec![stuck.id]);
    let pairs: Vec<String> = store.unfinished_qa_pairs().await.unwrap().into_iter().map(|q| q.id).collect();
    assert_eq!(pairs, vec![qa.id]);
}

async fn deleting_the_bot_removes_its_knowledge(backend: Backend) {
    let (_db, store) = store(backend).await;
    let b = bot(&store).await;
    let s = store.add_source(new_source(&b, SourceKind::Text, "t")).await.unwrap();
    store.replace_source_chunks(&s.id, vec![chunk(0, "x", None)], None).await.unwrap();
    store.delete_bot(&b).await.unwrap();
    assert!(store.source(&s.id).await.unwrap().is_none());
    assert!(store.bot_chunks(&b).await.unwrap().is_empty());
}
