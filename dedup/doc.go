// Package dedup owns the decisions: Run, the ordered, parallel
// deduplication of a stream of records against an archive (clusters of
// an original and its duplicates, copies of copies, records archived by
// earlier runs, resumable jobs) and its Summary; Check, one article
// against an archive, added when new (CheckFingerprint for a bare
// fingerprint); File, the service's adds. All three decide through one
// engine, index.Ingest, with one rule (DriftMinContent, members), so
// that any mix of them on one archive, in any processes, is race-free;
// Compare,
// two articles; Clusters, the grouping of a run's duplicates; Outputs, a
// run's pairs, clusters, unique, rejects and annotate (Annotation) files
// in neardup's formats, JSONL or Parquet, and the member of each cluster
// they keep (KeepPolicy, applied when the run ends);
// Add, AddAll and AddFingerprints, filling an archive without a
// decision; and RunURLs, the same for URLs.
//
// Each result has one form for machines and one for people: the report
// types (Summary, URLSummary, CheckReport, CheckSummary,
// FingerprintReport, AnalysisReport, AddSummary, Report) carry the JSON
// that neardup --json prints and the HTTP service answers, and write
// their own text (WriteText), so that the command only chooses.
package dedup
