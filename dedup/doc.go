// Package dedup owns the decisions: Run, the ordered, parallel
// deduplication of a stream of records against an archive (clusters of
// an original and its duplicates, copies of copies, records archived by
// earlier runs, resumable jobs); Check, one article against an archive;
// Compare, two articles; Clusters, the grouping of a run's duplicates;
// and RunURLs, the same for URLs.
package dedup
