// Package urldedup owns URL deduplication: Run reads URLs, one a line
// (or a field of JSON lines, a column of Parquet files, the target URIs
// of WARC and WET records), fingerprints each normalised URL
// (urlhash) and keeps it unless it is within a Hamming distance of a
// URL kept before, in this run or, with an archive, an earlier one
// (resumable by JobID). Outputs writes url dedup's files (pairs,
// clusters, unique, rejects) and AddCluster feeds dedup.Clusters, the
// URL halves of what dedup owns for articles; its Summary is
// report.URLSummary.
//
// Run is written against index.Index: the caller passes the archive and
// the in-memory store of the run's kept URLs (Options.Memory), so that
// the package depends on no concrete store.
package urldedup
