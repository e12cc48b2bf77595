//! Parley's engine: the actors that own live chat sessions, bot queues and agents, plus
//! knowledge ingestion, retrieval and answerers. It knows nothing of HTTP or Socket.IO.

pub mod answer;
pub mod chat;
pub mod ingest;
pub mod knowledge_brain;
pub mod leads;
pub mod retrieval;
pub mod tags;
