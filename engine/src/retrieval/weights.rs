//! Reads a model's `.safetensors` file tensor by tensor, straight into the tensors' own memory.
//! Reading the whole file into one buffer first (candle's buffered loader; its memory-mapped
//! one is `unsafe`, which the workspace forbids) held a second copy of the model, 90 MB for
//! all-MiniLM-L6-v2, until the load ended, and the allocator kept that memory afterwards.
//!
//! The format: an 8-byte little-endian header length, a JSON header naming each tensor's dtype,
//! shape and byte range (from the end of the header), then the data.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use candle_core::{DType, Device, Tensor};
use serde::Deserialize;

use super::embed::EmbedError;

/// A header past this is not a model file (all-MiniLM-L6-v2's is 11 KB).
const MAX_HEADER: u64 = 16 << 20;

/// Bytes read at a time into an f32 tensor.
const PIECE: usize = 1 << 20;

#[derive(Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [u64; 2],
}

/// Every tensor of the file at `path`, by name.
pub fn read_tensors(path: &Path, device: &Device) -> Result<HashMap<String, Tensor>, EmbedError> {
    let fail = |message: String| EmbedError::Read { path: path.to_path_buf(), message };
    let mut file = File::open(path).map_err(|e| fail(e.to_string()))?;
    let file_len = file.metadata().map_err(|e| fail(e.to_string()))?.len();
    let mut len = [0u8; 8];
    file.read_exact(&mut len).map_err(|e| fail(format!("header length: {e}")))?;
    let header_len = u64::from_le_bytes(len);
    if header_len > MAX_HEADER || header_len.saturating_add(8) > file_len {
        return Err(fail(format!("header of {header_len} bytes does not fit the file")));
    }
    let mut header = vec![0u8; usize::try_from(header_len).map_err(|e| fail(e.to_string()))?];
    file.read_exact(&mut header).map_err(|e| fail(format!("header: {e}")))?;
    let mut entries: HashMap<String, serde_json::Value> =
        serde_json::from_slice(&header).map_err(|e| fail(format!("header: {e}")))?;
    entries.remove("__metadata__");
    let data_start = 8 + header_len;

    let mut tensors = HashMap::with_capacity(entries.len());
    for (name, entry) in entries {
        let entry: Entry = serde_json::from_value(entry).map_err(|e| fail(format!("{name}: {e}")))?;
        let dtype: DType = entry.dtype.to_lowercase().parse().map_err(|e| fail(format!("{name}: {e}")))?;
        let [start, end] = entry.data_offsets;
        let elements: usize = entry.shape.iter().product();
        let bytes = end.checked_sub(start).and_then(|b| usize::try_from(b).ok());
        if bytes != elements.checked_mul(dtype.size_in_bytes()) || data_start.saturating_add(end) > file_len {
            return Err(fail(format!("{name}: its byte range does not match its shape or the file")));
        }
        file.seek(SeekFrom::Start(data_start + start)).map_err(|e| fail(e.to_string()))?;
        let tensor = if dtype == DType::F32 {
            read_f32(&mut file, elements, &entry.shape, device).map_err(|e| fail(format!("{name}: {e}")))?
        } else {
            // Other dtypes (a position-id buffer, a half-precision model) are read whole; the
            // model's dtype is applied when the weights are taken.
            let mut raw = vec![0u8; elements * dtype.size_in_bytes()];
            file.read_exact(&mut raw).map_err(|e| fail(format!("{name}: {e}")))?;
            Tensor::from_raw_buffer(&raw, dtype, &entry.shape, device)?
        };
        tensors.insert(name, tensor);
    }
    Ok(tensors)
}

/// `elements` little-endian f32 values from `file`, read a piece at a time into the vector the
/// tensor then owns.
fn read_f32(file: &mut File, elements: usize, shape: &[usize], device: &Device) -> Result<Tensor, String> {
    let mut values: Vec<f32> = Vec::with_capacity(elements);
    let mut piece = vec![0u8; PIECE.min(elements * 4)];
    while values.len() < elements {
        let take = ((elements - values.len()) * 4).min(piece.len());
        let buf = piece.get_mut(..take).ok_or("piece")?;
        file.read_exact(buf).map_err(|e| e.to_string())?;
        for word in buf.chunks_exact(4) {
            values.push(f32::from_le_bytes(<[u8; 4]>::try_from(word).map_err(|e| e.to_string())?));
        }
    }
    Tensor::from_vec(values, shape, device).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_with(header: &str, data: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut f, &(header.len() as u64).to_le_bytes()).unwrap();
        std::io::Write::write_all(&mut f, header.as_bytes()).unwrap();
        std::io::Write::write_all(&mut f, data).unwrap();
        f
    }

    #[test]
    fn reads_each_tensor_and_refuses_a_broken_file() {
        let data: Vec<u8> = [1.5f32, -2.0, 3.25].iter().flat_map(|v| v.to_le_bytes()).chain(7i64.to_le_bytes()).collect();
        let header = r#"{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"ids":{"dtype":"I64","shape":[1,1],"data_offsets":[12,20]}}"#;
        let f = file_with(header, &data);
        let t = read_tensors(f.path(), &Device::Cpu).unwrap();
        assert_eq!(t["w"].to_vec1::<f32>().unwrap(), vec![1.5, -2.0, 3.25]);
        assert_eq!(t["ids"].to_vec2::<i64>().unwrap(), vec![vec![7]]);

        // A range past the end, a shape that does not match its bytes, a header longer than
        // the file: each an error naming the file, never a panic.
        for bad in [
            r#"{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,40]}}"#,
            r#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,12]}}"#,
            r#"{"w":{"dtype":"Q9","shape":[3],"data_offsets":[0,12]}}"#,
            "not json",
        ] {
            let f = file_with(bad, &data);
            let err = read_tensors(f.path(), &Device::Cpu).unwrap_err();
            assert!(err.to_string().contains(&f.path().display().to_string()), "{err}");
        }
        let mut f = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut f, &u64::MAX.to_le_bytes()).unwrap();
        assert!(read_tensors(f.path(), &Device::Cpu).is_err());
    }
}
