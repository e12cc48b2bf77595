//! Tags as the team types them, for leads and conversations alike: trimmed, blanks dropped, a
//! repeat (ignoring case) kept once, each and the list bounded. Callers say the refusal in their
//! own words.

/// Why a list of tags was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagsRefused {
    /// A tag has more characters than allowed.
    TooLong,
    /// More distinct tags than allowed.
    TooMany,
}

/// The tags of `raw` kept, in their order, or why not.
pub fn clean<S: AsRef<str>>(raw: &[S], max_tags: usize, max_chars: usize) -> Result<Vec<String>, TagsRefused> {
    let mut tags: Vec<String> = Vec::new();
    for tag in raw.iter().map(|t| t.as_ref().trim()).filter(|t| !t.is_empty()) {
        if tag.chars().count() > max_chars {
            return Err(TagsRefused::TooLong);
        }
        if !tags.iter().any(|t| t.to_lowercase() == tag.to_lowercase()) {
            tags.push(tag.to_string());
        }
    }
    if tags.len() > max_tags {
        return Err(TagsRefused::TooMany);
    }
    Ok(tags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_trimmed_kept_once_and_bounded() {
        assert_eq!(clean(&[" vip ", "", "VIP", "refund"], 20, 40), Ok(vec!["vip".to_string(), "refund".to_string()]));
        assert_eq!(clean(&["x".repeat(41)], 20, 40), Err(TagsRefused::TooLong));
        assert_eq!(clean(&["a", "b", "c"], 2, 40), Err(TagsRefused::TooMany));
        assert_eq!(clean(&["a", "A", "a "], 1, 40), Ok(vec!["a".to_string()]), "repeats count once");
    }
}
