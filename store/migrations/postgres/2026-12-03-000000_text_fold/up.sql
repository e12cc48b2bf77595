-- The folding that searches and name sorts compare text by (store/src/fold.rs): lower case,
-- canonical decomposition, combining accents U+0300-U+036F dropped. SQLite registers the same
-- function from Rust on each connection. normalize() needs a UTF8 database; on any other
-- encoding the function folds case only.
DO $$
BEGIN
    IF current_setting('server_encoding') = 'UTF8' THEN
        CREATE FUNCTION parley_fold(text) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $f$ SELECT regexp_replace(normalize(lower($1), NFD), '[\u0300-\u036f]', '', 'g') $f$;
    ELSE
        CREATE FUNCTION parley_fold(text) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            AS $f$ SELECT lower($1) $f$;
    END IF;
END
$$;
