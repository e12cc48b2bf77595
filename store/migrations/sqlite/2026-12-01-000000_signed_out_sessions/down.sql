DROP TABLE signed_out_sessions;
