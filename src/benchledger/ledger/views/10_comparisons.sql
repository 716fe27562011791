-- comparisons: each non-baseline arm vs its baseline arm, per (metric, stat), in canonical units. Derived.
-- ratio = arm / baseline; percent_change = (ratio - 1) * 100; speedup = ratio for higher-is-better metrics,
-- 1 / ratio for lower-is-better ones (latency), so speedup > 1 always means "the arm is better".
CREATE VIEW comparisons AS
SELECT
    a.record_id,
    a.arm,
    a.baseline AS baseline_arm,
    a.spec_method,
    a.spec_k,
    r.metric,
    r.stat,
    r.unit_canonical AS unit,
    b.value_canonical AS baseline_value,
    r.value_canonical AS arm_value,
    r.value_canonical / b.value_canonical AS ratio,
    (r.value_canonical / b.value_canonical - 1) * 100 AS percent_change,
    CASE WHEN m.higher_is_better THEN r.value_canonical / b.value_canonical
         ELSE b.value_canonical / r.value_canonical END AS speedup,
    'comparisons.sql: arm/baseline in canonical units' AS formula
FROM t_arms a
JOIN t_results r ON r.record_id = a.record_id AND r.arm = a.arm
JOIN t_results b ON b.record_id = a.record_id AND b.arm = a.baseline
    AND b.metric = r.metric AND b.stat = r.stat AND b.unit_canonical = r.unit_canonical
JOIN t_metrics m ON m.metric = r.metric
WHERE a.baseline IS NOT NULL AND b.value_canonical <> 0 AND r.value_canonical <> 0;
