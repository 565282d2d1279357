// Package dedup owns the decisions about articles: Run, the ordered,
// parallel deduplication of a stream of records against an archive
// (clusters of an original and its duplicates, copies of copies, records
// archived by earlier runs, resumable jobs); Check, one article against
// an archive, added when new (CheckFingerprint for a bare fingerprint);
// File, the service's adds. All three decide through one engine,
// index.Ingest, with one rule (DriftMinContent, members), so that any
// mix of them on one archive, in any processes, is race-free. Compare
// decides about two articles; Clusters groups a run's duplicates;
// Outputs writes a run's pairs, clusters, unique, rejects and annotate
// (Annotation) files in neardup's formats, JSONL or Parquet, keeping
// the member of each cluster a KeepPolicy chooses (applied when the
// run ends); Add, AddAll and AddFingerprints fill an archive without a
// decision.
//
// What the decisions print lives elsewhere: package report owns the
// JSON and text of every result (Run's report.Summary, Checked.Report's
// report.Check, Comparison.Report's report.Comparison), and package
// urldedup the same decisions for URLs, with its halves of Outputs and
// Clusters.
package dedup
