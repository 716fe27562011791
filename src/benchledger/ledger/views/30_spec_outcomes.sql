-- spec_outcomes: every speculative arm against its baseline on the speed metrics, with the setup it ran on.
-- outcome: 'benefit' when the arm is more than 2 % better, 'harm' when more than 2 % worse, else
-- 'no clear change' (2 % is below what single-run public sources can resolve; the harness's own CI is finer).
-- Chunk gaps (itl, itl_per_token) are left out: under speculation one chunk carries several tokens, so a
-- shorter gap per chunk or per token says nothing about speed (read output/per-stream throughput and TPOT).
CREATE VIEW spec_outcomes AS
SELECT
    c.record_id, c.arm, c.baseline_arm, c.spec_method, c.spec_k,
    a.model, a.engine, a.engine_version, a.accelerator, a.accelerator_count, a.weights,
    a.input_tokens, a.concurrency, a.acceptance_rate, a.acceptance_length,
    c.metric, c.stat, c.baseline_value, c.arm_value, c.unit, c.speedup,
    CASE WHEN c.speedup > 1 + outcome_band() THEN 'benefit' WHEN c.speedup < 1 - outcome_band() THEN 'harm'
         ELSE 'no clear change' END
        AS outcome
FROM comparisons c
JOIN t_arms a ON a.record_id = c.record_id AND a.arm = c.arm
WHERE c.spec_method IS NOT NULL
  AND c.metric IN ('output_throughput', 'per_stream_throughput', 'tpot', 'e2e_latency');

-- engine_evidence: what each engine claims next to what was measured on it (support is not benefit).
CREATE VIEW engine_evidence AS
SELECT
    e.id AS engine,
    list_distinct(flatten(list(cl.methods) FILTER (WHERE cl.feature = 'speculative-decoding'))) AS claimed_methods,
    count(DISTINCT so.record_id || '#' || so.arm) FILTER (WHERE so.outcome = 'benefit') AS arms_with_benefit,
    count(DISTINCT so.record_id || '#' || so.arm) FILTER (WHERE so.outcome = 'harm') AS arms_with_harm,
    count(DISTINCT so.record_id || '#' || so.arm) FILTER (WHERE so.outcome = 'no clear change') AS arms_unchanged
FROM t_engines e
LEFT JOIN t_engine_claims cl ON cl.engine_id = e.id
LEFT JOIN spec_outcomes so ON so.engine = e.id
GROUP BY e.id;
