//! Text as searches and name sorts compare it: lower-cased and without accents, the same on
//! both backends, so "émile" finds "Émile Zola" and "Émile" sorts among the E's.
//!
//! SQLite's own `lower` folds only A–Z and both databases order by code point, which put every
//! accented name after "z" and made accented search terms miss. The database function
//! `parley_fold` does the folding inside queries: on SQLite it is registered on every pooled
//! connection (it runs [`fold`]); on PostgreSQL a migration defines it in SQL with the same
//! rule (lower case, canonical decomposition, combining accents U+0300–U+036F dropped).

use diesel::sql_types::{Nullable, Text};
use diesel::sqlite::SqliteConnection;
use unicode_normalization::UnicodeNormalization;

diesel::define_sql_function! {
    /// The folded form of a text column (see the module's documentation).
    #[sql_name = "parley_fold"]
    fn fold_text(x: Text) -> Text;
}
diesel::define_sql_function! {
    /// [`fold_text`] of a nullable column (NULL stays NULL).
    #[sql_name = "parley_fold"]
    fn fold_nullable(x: Nullable<Text>) -> Nullable<Text>;
}

/// Lower case, canonically decomposed, with the combining accents dropped.
pub fn fold(text: &str) -> String {
    text.to_lowercase()
        .nfd()
        .filter(|c| !('\u{300}'..='\u{36f}').contains(c))
        .collect()
}

/// A LIKE pattern matching `text` anywhere (compare it with a folded column); the wildcards
/// `%` and `_` a person types are matched literally (escaped with `\`).
pub fn contains_pattern(text: &str) -> String {
    let folded = fold(text);
    let mut pattern = String::with_capacity(folded.len() + 2);
    pattern.push('%');
    for c in folded.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// Makes `parley_fold` known to one SQLite connection (deterministic, so SQLite may use it
/// wherever an expression may stand).
pub(crate) fn register_sqlite(conn: &mut SqliteConnection) -> diesel::QueryResult<()> {
    fold_nullable_utils::register_impl(conn, |x: Option<String>| x.map(|s| fold(&s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_and_accents_but_keeps_other_letters() {
        assert_eq!(fold("Émile ZOLA"), "emile zola");
        assert_eq!(fold("Ünited Çafé"), "united cafe");
        // Letters that are not an accented base letter stay (ß, ø, Chinese).
        assert_eq!(fold("Straße Ørsted 北京"), "straße ørsted 北京");
        // Already decomposed input folds the same as composed.
        assert_eq!(fold("E\u{301}mile"), fold("Émile"));
    }

    #[test]
    fn patterns_fold_and_escape_wildcards() {
        assert_eq!(contains_pattern("ÉMILE"), "%emile%");
        assert_eq!(contains_pattern("50%_off\\"), "%50\\%\\_off\\\\%");
    }
}
