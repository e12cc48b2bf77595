//! Latency samples, the printed table and the JSON report.

use std::time::Duration;

use serde_json::{json, Map, Value};

/// Latency samples in microseconds.
#[derive(Debug, Default, Clone)]
pub struct Latencies(Vec<u64>);

impl Latencies {
    pub fn push(&mut self, d: Duration) {
        self.0.push(u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// p50, p95, p99 and max in milliseconds.
    pub fn summary(&mut self) -> Value {
        self.0.sort_unstable();
        let at = |q: f64| -> f64 {
            if self.0.is_empty() {
                return 0.0;
            }
            let i = ((self.0.len() - 1) as f64 * q).round() as usize;
            self.0.get(i).copied().unwrap_or(0) as f64 / 1000.0
        };
        json!({"p50_ms": at(0.50), "p95_ms": at(0.95), "p99_ms": at(0.99), "max_ms": at(1.0), "samples": self.0.len()})
    }
}

/// One run of one scenario against one target: named figures in order.
#[derive(Debug, Clone)]
pub struct Run {
    pub target: String,
    pub figures: Map<String, Value>,
    /// Written to the JSON report only (series too long for the table).
    pub details: Map<String, Value>,
}

impl Run {
    pub fn new(target: &str) -> Run {
        Run { target: target.into(), figures: Map::new(), details: Map::new() }
    }

    pub fn detail(&mut self, key: &str, value: impl Into<Value>) {
        self.details.insert(key.into(), value.into());
    }

    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.figures.insert(key.into(), value.into());
    }

    pub fn get(&self, key: &str) -> Option<f64> {
        lookup(&Value::Object(self.figures.clone()), key)
    }
}

/// A figure by dotted path (`latency.p99_ms`).
fn lookup(v: &Value, key: &str) -> Option<f64> {
    let mut cur = v;
    for part in key.split('.') {
        cur = cur.get(part)?;
    }
    cur.as_f64()
}

/// Flattens nested figures into `a.b` rows.
fn rows(prefix: &str, v: &Value, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                rows(&key, v, out);
            }
        }
        other => out.push((prefix.to_string(), other.clone())),
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() != 0.0 => format!("{f:.2}"),
            Some(f) => format!("{f:.0}"),
            None => n.to_string(),
        },
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Prints the runs side by side, with `parley / node` ratios when both are there.
pub fn print_table(scenario: &str, runs: &[Run]) {
    println!("\n== {scenario}");
    let mut keys: Vec<String> = Vec::new();
    let mut per_run: Vec<Vec<(String, Value)>> = Vec::new();
    for r in runs {
        let mut out = Vec::new();
        rows("", &Value::Object(r.figures.clone()), &mut out);
        for (k, _) in &out {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
        per_run.push(out);
    }
    let ratio = runs.len() == 2;
    print!("{:<34}", "figure");
    for r in runs {
        print!("{:>16}", r.target);
    }
    if ratio {
        print!("{:>16}", format!("{}/{}", runs[0].target, runs[1].target));
    }
    println!();
    for k in &keys {
        print!("{k:<34}");
        let mut nums = Vec::new();
        for out in &per_run {
            let v = out.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone()).unwrap_or(Value::Null);
            nums.push(v.as_f64());
            print!("{:>16}", if v.is_null() { "-".to_string() } else { show(&v) });
        }
        if ratio {
            match (nums.first().copied().flatten(), nums.get(1).copied().flatten()) {
                (Some(a), Some(b)) if b != 0.0 => print!("{:>16}", format!("{:.2}x", a / b)),
                _ => print!("{:>16}", "-"),
            }
        }
        println!();
    }
}

pub fn to_json(scenario: &str, args: &Value, runs: &[Run]) -> Value {
    json!({
        "scenario": scenario,
        "args": args,
        "runs": runs.iter().map(|r| json!({"target": r.target, "figures": r.figures, "details": r.details})).collect::<Vec<_>>(),
    })
}
