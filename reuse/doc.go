// Package reuse finds partial reuse: the archived articles an article
// shares passages with, and how much of each it shares. It owns the
// passage fingerprints, the reuse index of an archive (their postings,
// beside the near-duplicate keys), the stop rule for boilerplate, and
// the answers (Find; Batch for a corpus).
//
// # Fingerprints
//
// Passages are compared as the analysis compares text (NewText): each
// character normalised as segment.Normalize normalises it (NFKC, lower
// case), white space and format characters dropped, and traditional
// Chinese folded to simplified when the analyzer folds. A k-gram is
// Params.Gram consecutive such characters (default 12); its hash is
// GramHash, XXH64 with seed 0 of the characters' UTF-8 bytes. A text's
// fingerprints are picked by robust winnowing (Schleimer, Wilkerson and
// Aiken, "Winnowing: local algorithms for document fingerprinting",
// SIGMOD 2003): in every window of Params.Window consecutive k-gram
// hashes (default 39), the smallest, the rightmost of equal ones unless
// the previous pick is still in the window. Two texts that share a
// passage of L = Window + Gram − 1 characters (default 50) share the
// Window k-grams in it, so both pick that window's smallest hash: they
// share at least one fingerprint. A text has about 2/(Window+1) of its
// characters as fingerprints (5%: 125 for 2,500 characters).
//
// A fingerprint is filed under a key (Params.Key): by default the low 32
// bits of its hash (Params.Bits 32), which halves the key's bytes in
// records and postings; an archive may ask for whole 64-bit hashes.
// Keys only select candidates. Two passages with one key (at 10^6
// documents of 57 fingerprints, 5.7·10^7 keys in 2^32, about one query
// fingerprint in 75 meets an unrelated one) bring a candidate whose
// shares are then measured on the two texts with whole 64-bit k-gram
// hashes, so a collision adds no passage and no match; only for an
// archived article whose text is not kept, whose shares are estimated
// from the keys, does it count as a shared fingerprint.
//
// The hash, NewText's characters, the winnowing and the keys are part
// of a stored format: an archive records its Params and version
// (MetaReuse: 1 for 64-bit keys, 2 for 32-bit ones), and a change to
// any of them needs a new version.
//
// # The reuse index
//
// An archive has a reuse index when it is created with one (Open on an
// empty archive records MetaReuse with index.Store.Claim; on one with
// documents and without, Open fails with ErrNoIndex and records that it
// has none). A document is filed under its fingerprints' keys with
// index.KindPassage keys in the same write as its record
// (index.Doc.Passages, which the record keeps, so replacing or deleting
// it removes them); Prepare sets them. An archive without one, and every
// write that sets no Passages, pays nothing.
//
// Stop rule: a fingerprint Options.MaxDocs documents have (default 100)
// is boilerplate. Find drops it (Answer.Dropped counts
// them): it brings no candidate and a passage counts only when one of
// the article's shared fingerprints that is not boilerplate starts in
// it. Prepare files no document under a fingerprint MaxDocs documents
// have, so boilerplate posting lists stay near MaxDocs long.
//
// # Answers
//
// Find reads the postings of an article's fingerprints in one batch
// (from a store that can stop a list, as Redis's, at most MaxDocs of
// each: the stop rule needs no more),
// ranks the archived documents by fingerprints shared, reads the
// records of the first Options.MaxCandidates in one more, and measures
// each: with its kept text (index.Doc.Text), by Compare on the two texts
// (the shares and the passages, with offsets in both); without, by the
// fingerprints alone (the share of each one's fingerprints the other
// has, no passages: Match.Estimated). A match is reported when the
// larger share reaches Options.MinShare (default 0.5) in passages of at
// least Options.MinPassage characters (default 50).
package reuse
