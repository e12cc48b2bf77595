DROP FUNCTION parley_fold(text);
