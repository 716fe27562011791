-- findings: the audit's findings for the indexed ledger (benchledger.audit), waivers applied.
CREATE VIEW findings AS SELECT * FROM t_findings;
