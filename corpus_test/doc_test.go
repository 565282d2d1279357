// Package corpus_test runs neardup end to end on real, clean-licence
// text, in the manner of zoekt's end-to-end tests.
//
// # Scenarios
//
// Each scenario is a directory testdata/<scenario>/ holding:
//
//   - articles.jsonl: originals, copied from the corpora whose licences
//     allow it (Debian documentation in English and Chinese, the Brown
//     Corpus, the State of the Union addresses; provenance in
//     testdata/README.md);
//   - copies.jsonl: edited copies of the originals, made by the
//     generator in generate_test.go ({"id","title","text","kind",
//     "original"}); copy j is of article j mod n with edit kind j mod 7:
//     reprint (new header and footer), delete-sentence,
//     insert-sentence (one from another article), swap-paragraphs,
//     truncate-85 (first 85% of the runes), punct-width (Chinese
//     ，。！？：；（） to ASCII, English the other way) and rewrite-10
//     (a tenth of the sentences get two words swapped or are replaced by
//     another article's sentence). The generator uses math/rand/v2's PCG
//     with a literal seed, so regenerating gives identical bytes (the
//     test checks that it does, and that the committed file is what it
//     generates);
//   - negatives.jsonl: other articles on the same topic that must match
//     none of the originals, each naming the original it is "against";
//   - labels.jsonl: the expected pairs {"a","b","label"}: true for every
//     copy with its original and with the other copies of the same
//     original, false for each negative and its original and for
//     originals of the same group (Brown genre, era of speeches, the two
//     language versions of a LibreOffice help page);
//   - golden.txt: what the detector finds, with the default analyzer
//     (its jieba backend cuts alike with and without cgo).
//
// The scenarios are en_docs_reprints (LibreOffice, GNOME and Debian
// Reference pages in English), zh_docs_reprints (LibreOffice help and
// Debian Reference in Chinese), brown_fiction (the first 2,800 bytes of
// fiction samples; negatives are later passages of the same stories),
// speeches_long (the first 18,000 bytes of eight addresses of 1903-1925),
// libreoffice_twins (the English and Chinese versions of the same
// help pages, which must never match each other) and zh_docs_traditional
// (Chinese pages and their traditional versions made by the Debian opencc
// command with s2t, s2tw, s2hk and s2twp: copy kinds are those
// configurations, dedup.Run must find at least 98% of each, and traditional
// negatives must match nothing).
//
// The test runs the real pipeline: neardup.NewAnalyzer(nil), then
// dedup.Run over articles, copies and negatives in that order into an
// in-memory archive (memstore) with default options, then index.Similar of
// every document against an in-memory archive holding all of them. Besides the goldens it
// asserts that nothing matches across languages in libreoffice_twins,
// that dedup.Run finds every reprint, punct-width and swap-paragraphs copy,
// that no labelled negative is found, and that it finds at least 95%
// of all copies over all scenarios. It is skipped with -short.
//
// # Updating
//
//	go test ./corpus_test -run TestScenarios -update
//
// rewrites copies.jsonl, labels.jsonl and the golden files; review the
// diff. To check (or, with -update, rewrite) articles.jsonl and
// negatives.jsonl against the corpora they come from:
//
//	go test ./corpus_test -run TestScenarios -scenario-corpora /work/shared/corpora
//
// Regenerate the goldens when the analysis changes. A build with or
// without cgo gives the same ones: the default segmenter, jieba, is
// pure Go, and with -tags gojieba cppjieba cuts identically.
//
// # Reading golden.txt
//
// The header names the analyzer and counts the documents and labels.
// Then, tab-separated, with distance the Hamming distance of the two
// SimHash fingerprints, exact whether the normalised texts are equal,
// content the MinHash estimate of their character 5-gram Jaccard
// similarity and label true, false or - (unlabelled):
//
//   - "dedup: duplicates found": each record dedup.Run called a duplicate
//     and each earlier original it matched;
//   - "dedup: not fingerprinted": records too short to fingerprint, if any;
//   - "similar: pairs found": every pair index.Similar returns;
//   - "expected pairs not found": the true pairs Similar missed, with
//     their distance and content (why they were missed) and whether dedup.Run
//     found them.
//
// The tables follow. "recall by edit kind" gives found/expected and
// recall for dedup.Run (copy with its original; Run pairs a copy with the
// member of a cluster it matched only when it does not match the
// cluster's original, so two copies of the scenarios are never paired)
// and Similar. TestNewsEdits (news_edits_test.go) measures dedup.Run's
// clusters on copies of copies and chains of edits. "precision" counts the
// labelled negatives found, and the unlabelled pairs of documents from
// different articles found (false positives the labels did not foresee).
// The two threshold tables count, for every SimHash distance t from 0 to
// 10, the pairs of each kind within distance t of each other: "screen
// only" is the fingerprint alone, "verified" also requires the content
// similarity Similar requires (index.DefaultMinContent); "other" is all
// unlabelled pairs; recall and precision are over the true pairs.
package corpus_test
