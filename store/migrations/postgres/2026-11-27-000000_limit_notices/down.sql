DROP TABLE limit_notices;
