// Package dedup owns the decisions: Run, the ordered, parallel
// deduplication of a stream of records against an archive (clusters of
// an original and its duplicates, copies of copies, records archived by
// earlier runs, resumable jobs); Check, one article against an archive
// (CheckFingerprint for a bare fingerprint), and CheckReport, its JSON
// form for the command and the HTTP service; Compare, two articles (and
// Report); Clusters, the grouping of a run's duplicates; Outputs, a run's
// pairs, clusters, unique and rejects files in neardup's formats; Add and
// AddAll, filling an archive without a decision; and RunURLs, the same
// for URLs.
package dedup
