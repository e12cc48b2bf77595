DROP TABLE two_factor;
