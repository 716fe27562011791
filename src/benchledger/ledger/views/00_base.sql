-- Public views over the loaded tables (t_*). Documented in docs/index.md.
CREATE VIEW records AS SELECT * FROM t_records;
CREATE VIEW sources AS SELECT * FROM t_sources;
CREATE VIEW benchmarks AS SELECT * FROM t_benchmarks;
CREATE VIEW arms AS SELECT * FROM t_arms;
CREATE VIEW results AS SELECT * FROM t_results;
CREATE VIEW quoted_changes AS SELECT * FROM t_quoted_changes;
CREATE VIEW conditions AS SELECT * FROM t_conditions;
CREATE VIEW accelerators AS SELECT * FROM t_accelerators;
CREATE VIEW models AS SELECT * FROM t_models;
CREATE VIEW formats AS SELECT * FROM t_formats;
CREATE VIEW engines AS SELECT * FROM t_engines;
CREATE VIEW engine_claims AS SELECT * FROM t_engine_claims;
CREATE VIEW metrics AS SELECT * FROM t_metrics;
