// Package eval measures how well the detector's pairs agree with
// labelled pairs: it owns the labelled-pairs files (ReadPairs,
// ParsePairs), the analysis of a corpus (AnalyzeCorpus), the evaluation
// (Evaluate: the SimHash screen at each distance, with and without the
// content confirmation index.Confirmed makes, and the detector at the
// current settings, on an in-memory index) and its Report, for machines
// (JSON) and people (WriteText).
//
// A labelled-pairs file has one JSON object a line, either
//
//	{"a": id, "b": id, "label": L}
//
// where L is true/1/"dup"/"duplicate" or false/0/"distinct", or the
// reference format of the shared corpora,
//
//	{"a": id, "b": id, "jaccard_char5": J}
//
// which lists every pair of the corpus with a character 5-gram Jaccard
// similarity of at least 0.5: J ≥ DuplicateJaccard is a duplicate,
// DistinctJaccard ≤ J < DuplicateJaccard is neither (ignored: often a
// different story from the same template), and every pair of the corpus
// not listed is distinct. A file is one format or the other.
package eval
