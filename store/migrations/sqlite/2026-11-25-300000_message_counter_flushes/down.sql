DROP TABLE message_counter_flushes;
