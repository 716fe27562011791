-- efficiency: every decode/output throughput and TPOT result against the physical ceiling of its hardware
-- (η = 1 roofline from benchledger.perfmodel.ceiling). efficiency_pct is 100 at the limit; limiting says which
-- side (memory or compute) sets the ceiling; basis says how it was computed (and what was unknown).
CREATE VIEW efficiency AS SELECT * FROM t_efficiency;
