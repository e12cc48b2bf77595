//! Micro-benchmarks (criterion): `cargo bench -p parley-bench --bench micro [-- FILTER]`.
//! - packet: Engine.IO + Socket.IO encode and decode of a chat message event
//! - retrieval: hybrid search over 10k and 100k chunks
//! - pdf: text extraction, per MB
//! - persistence: saving chat messages on SQLite and on PostgreSQL (a fresh database each;
//!   PARLEY_TEST_PG_URL as in the tests; skipped with a note when PostgreSQL is down)

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parley_engine::ingest::{extract_pdf_bytes, PdfLimits};
use parley_engine::retrieval::{HybridIndex, IndexOptions};
use parley_http::realtime::engineio::packet::Packet as EioPacket;
use parley_http::realtime::socketio::packet::{Packet as SioPacket, PacketType};
use parley_store::bots::{NewBot, WidgetConfig};
use parley_store::chat::{NewMessage, Role};
use parley_store::testing::TestDb;
use parley_store::users::NewUser;
use parley_store::Backend;
use serde_json::json;

fn packet(c: &mut Criterion) {
    let payload = json!(["new-message", {
        "sessionId": "3f1c2a9e-5d7b-4c1e-9a0f-6b2d8e4c7a11",
        "message": {"_id": "8a7b6c5d-4e3f-2a1b-0c9d-8e7f6a5b4c3d", "role": "agent", "content": "Your order shipped this morning; the tracking link is in your email.", "timestamp": "2026-11-22T10:00:00Z", "isAgent": true, "senderName": "Ann"}
    }]);
    let frame = format!("4{}", SioPacket::new(PacketType::Event, "/", Some(payload.clone())).encode());
    let mut group = c.benchmark_group("packet");
    group.throughput(Throughput::Bytes(frame.len() as u64));
    group.bench_function("encode chat event", |b| {
        b.iter(|| {
            let p = SioPacket::new(PacketType::Event, "/", Some(payload.clone()));
            EioPacket::Message(p.encode()).encode_text()
        })
    });
    group.bench_function("decode chat event", |b| {
        b.iter(|| match EioPacket::decode_text(&frame) {
            Ok(EioPacket::Message(m)) => SioPacket::decode(&m).ok(),
            _ => None,
        })
    });
    group.finish();
}

fn retrieval(c: &mut Criterion) {
    let mut group = c.benchmark_group("retrieval");
    group.sample_size(20);
    for n in [10_000usize, 100_000] {
        let (chunks, queries) = parley_bench::synthetic::corpus(n, 32);
        let Ok(index) = HybridIndex::build(chunks, None, IndexOptions::default()) else {
            eprintln!("retrieval: index build failed");
            return;
        };
        let mut i = 0usize;
        group.bench_with_input(BenchmarkId::new("hybrid search", n), &index, |b, index| {
            b.iter(|| {
                let (text, vector) = &queries[i % queries.len()];
                i += 1;
                index.search(text, Some(vector), 5)
            })
        });
    }
    group.finish();
}

fn pdf(c: &mut Criterion) {
    let Ok(bytes) = parley_bench::synthetic::text_pdf(1 << 20) else {
        eprintln!("pdf: could not make the fixture");
        return;
    };
    let mut group = c.benchmark_group("pdf");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("extract text (1 MB)", |b| b.iter(|| extract_pdf_bytes(&bytes, PdfLimits::default()).map(|t| t.pages.len())));
    group.finish();
}

fn persistence(c: &mut Criterion) {
    let Ok(rt) = tokio::runtime::Builder::new_multi_thread().enable_all().build() else { return };
    let mut group = c.benchmark_group("persistence");
    group.throughput(Throughput::Elements(1));
    group.measurement_time(Duration::from_secs(5));
    for (name, backend) in [("sqlite", Backend::Sqlite), ("postgres", Backend::Postgres)] {
        let setup = rt.block_on(async {
            let db = TestDb::new(backend).await.map_err(|e| e.to_string())?;
            let store = db.open().await.map_err(|e| e.to_string())?;
            let user = store
                .create_user(NewUser { email: "bench@x.co".into(), name: "B".into(), password_hash: None, profile_picture: None })
                .await
                .map_err(|e| e.to_string())?;
            let bot = store
                .create_bot(NewBot {
                    owner_id: user.id,
                    name: "Bench".into(),
                    description: String::new(),
                    website_url: None,
                    icon: None,
                    widget: WidgetConfig::default(),
                    initial_sources: Vec::new(),
                })
                .await
                .map_err(|e| e.to_string())?;
            let session = store.create_session(&bot.id, "bench").await.map_err(|e| e.to_string())?;
            Ok::<_, String>((db, store, session.id))
        });
        let (_db, store, session_id) = match setup {
            Ok(s) => s,
            Err(e) => {
                eprintln!("persistence/{name}: skipped ({e})");
                continue;
            }
        };
        group.bench_function(BenchmarkId::new("save a chat message", name), |b| {
            b.iter(|| rt.block_on(store.append_message(&session_id, NewMessage::simple(Role::User, "Where is my parcel?"))))
        });
    }
    group.finish();
}

criterion_group!(benches, packet, retrieval, pdf, persistence);
criterion_main!(benches);
