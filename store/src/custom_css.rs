//! The owner's custom CSS for their chat. It is applied inside the chat page (an iframe on the
//! customer's site) and in the dashboard's test preview, so it must not reach beyond a style
//! sheet: no loading from elsewhere (`@import`, `url(` other than `data:` images, `image-set(`),
//! no script (`expression(`, `javascript:`, `behavior`, `-moz-binding`), and nothing that could
//! end the `<style>` element it is put in (`<`). Backslash escapes are refused too: CSS lets
//! `@\69mport` or `u\72l(` spell the same words, and no chat styling needs them. Refused rather
//! than stripped, so the owner learns why and what is stored is exactly what they wrote.

/// Longest custom CSS.
pub const MAX_CSS_CHARS: usize = 20_000;

/// `Ok` when the CSS may be stored and served; else the rule it breaks, in words a person can act on.
pub fn check(css: &str) -> Result<(), String> {
    if css.chars().count() > MAX_CSS_CHARS {
        return Err(format!("Custom CSS must be at most {MAX_CSS_CHARS} characters"));
    }
    if css.contains('\\') {
        return Err("Custom CSS may not contain backslash escapes".into());
    }
    if css.contains('<') {
        return Err("Custom CSS may not contain '<' (no HTML or </style>)".into());
    }
    // Checked on the text as written and with its comments taken out, so `@im/**/port` is
    // caught as well as `@import`; blanks are dropped so `url (` counts as `url(`.
    for text in [css.to_ascii_lowercase(), without_comments(&css.to_ascii_lowercase())] {
        let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        for (word, why) in [
            ("@import", "Custom CSS may not use @import"),
            ("expression(", "Custom CSS may not use expression()"),
            ("javascript:", "Custom CSS may not contain javascript: addresses"),
            ("behavior:", "Custom CSS may not use behavior"),
            ("-moz-binding", "Custom CSS may not use -moz-binding"),
            ("image-set(", "Custom CSS may not use image-set(); use url(data:image/…) for pictures"),
            ("src(", "Custom CSS may not use src(); use url(data:image/…) for pictures"),
        ] {
            if squeezed.contains(word) {
                return Err(why.into());
            }
        }
        let mut rest = squeezed.as_str();
        while let Some(at) = rest.find("url(") {
            let after = rest.get(at + 4..).unwrap_or_default().trim_start_matches(['"', '\'']);
            if !after.starts_with("data:image/") {
                return Err("Custom CSS may load pictures only as url(data:image/…), not from another site".into());
            }
            rest = after;
        }
    }
    Ok(())
}

/// The text with `/* … */` comments removed (an unclosed one runs to the end, as in CSS).
fn without_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        out.push_str(rest.get(..start).unwrap_or_default());
        match rest.get(start + 2..).and_then(|r| r.find("*/").map(|end| start + 2 + end + 2)) {
            Some(end) => rest = rest.get(end..).unwrap_or_default(),
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn plain_styling_and_data_pictures_pass() {
        for css in [
            "",
            ".parley-header { letter-spacing: 2px; text-transform: uppercase }",
            ".parley-bubble-user { background: url(data:image/png;base64,iVBORw0KGgo=) }",
            ".parley-chat { background-image: url( 'data:image/svg+xml;utf8,x' ) }",
            "@media (max-width: 400px) { .parley-footer { display: none } }",
            ".a::after { content: \"hi\" } /* a note */",
        ] {
            assert_eq!(check(css), Ok(()), "{css}");
        }
    }

    #[test]
    fn loading_script_and_escapes_are_refused() {
        for css in [
            "@import 'https://evil.example/x.css';",
            "@IMPORT url(x.css);",
            "@im/**/port 'x';",
            ".a { background: url(https://evil.example/pixel.png) }",
            ".a { background: URL ( \"//evil.example/p\" ) }",
            ".a { background: url(/local.png) }",
            ".a { background: url(data:text/html,<b>) }",
            ".a { width: expression(alert(1)) }",
            ".a { background: url(javascript:alert(1)) }",
            ".a { background: image-set('https://evil.example/a.png' 1x) }",
            ".a { behavior: url(x.htc) }",
            ".a { -moz-binding: url(x.xml#y) }",
            "</style><script>alert(1)</script>",
            ".a { background: u\\72l(https://evil.example) }",
            "@\\69mport 'x';",
        ] {
            assert!(check(css).is_err(), "{css}");
        }
        assert_eq!(check(&"a".repeat(20_001)), Err("Custom CSS must be at most 20000 characters".into()));
    }
}
